"""Fail closed, round 4 (issue 34): ``--changed-since`` over the whole repository, and
``--reverted`` naming what it cannot check, in real git repositories through the CLI.

Each of these was a false clean before: the changed file was missed (run from a subfolder,
``diff.relative``, a submodule) or a change no check sees passed without a word.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from gitrepos import ALL_PY, GIT_ENV, add_submodule, cleantree, git, new_repo, write
from runs import REPO, run_module

BASE = {
    "cleantree.toml": ALL_PY.encode(),
    "src/a.py": b"x = 1\n",
    "other/b.py": b"y = 1\n",
    "d/k.py": b"z = 1\n",
}


def test_run_from_a_subfolder_untracked_files_elsewhere_are_checked(tmp_path: Path) -> None:
    top = new_repo(tmp_path / "top", BASE)
    write(top, {"other/new.py": b"use_sm120()\n"})
    done = cleantree(top / "src", "check", "--changed-since", "HEAD")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "other/new.py:1:" in done.stdout


@pytest.mark.parametrize("relative", ["true", "false"])
@pytest.mark.parametrize("where", [".", "d", "src"])
def test_diff_relative_does_not_move_the_changed_path(
    tmp_path: Path, relative: str, where: str
) -> None:
    top = new_repo(tmp_path / "top", BASE)
    git(top, "config", "diff.relative", relative)
    write(top, {"d/k.py": b"use_sm120()\n"})
    done = cleantree(top / where, "check", "--changed-since", "HEAD")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "k.py:1:" in done.stdout
    assert "no rule covers" not in done.stdout


def test_renamed_and_deleted_files(tmp_path: Path) -> None:
    top = new_repo(tmp_path / "top", {**BASE, "src/c.py": b"c = 1\n"})
    git(top, "mv", "src/a.py", "src/moved.py")
    write(top, {"src/moved.py": b"use_sm120()\n", "src/c.py": None})
    done = cleantree(top, "check", "--changed-since", "HEAD")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "src/moved.py:1:" in done.stdout
    assert "c.py" not in done.stdout + done.stderr  # deleted: nothing to read, no error


@pytest.mark.parametrize("how", ["modified", "untracked", "committed in the submodule"])
@pytest.mark.parametrize("where", [".", "src"])
def test_a_file_changed_inside_a_submodule_is_checked(tmp_path: Path, how: str, where: str) -> None:
    top = new_repo(tmp_path / "top", BASE)
    sub = add_submodule(top, "sub", {"s.py": b"s = 1\n"})
    write(sub, {"s.py" if how != "untracked" else "t.py": b"use_sm120()\n"})
    if how == "committed in the submodule":
        git(sub, "add", "-A")
        git(sub, "commit", "-q", "-m", "experiment")
    whole = cleantree(top, "check")
    assert whole.returncode == 1, whole.stdout + whole.stderr
    done = cleantree(top / where, "check", "--changed-since", "HEAD")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "sub/" in done.stdout
    assert "nothing checked" not in done.stdout


def test_a_submodule_that_cannot_be_listed_is_named_and_incomplete(tmp_path: Path) -> None:
    top = new_repo(tmp_path / "top", BASE)
    sub = add_submodule(top, "sub", {"s.py": b"s = 1\n"})
    write(sub, {"s.py": b"use_sm120()\n"})
    git(sub, "commit", "-q", "-am", "moved")
    moved = git(sub, "rev-parse", "HEAD").strip()
    git(top, "commit", "-q", "-am", "sub moved")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(top), str(clone))  # the submodule is not checked out
    git(clone, "update-index", "--cacheinfo", f"160000,{moved[:-1]}0,sub")
    done = cleantree(clone, "check", "--changed-since", "HEAD")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "sub: the submodule is not checked out" in done.stderr


def _experiment(tmp_path: Path) -> Path:
    """A repository whose experiment (tagged) moved a submodule, changed a binary file and a
    mode, and changed a line: the line is reverted in the work tree, nothing else is."""
    top = new_repo(
        tmp_path / "top",
        {"m.py": b"def f():\n    return 1\n", "b.bin": b"\x00\x01", "run.sh": b"echo\n"},
    )
    sub = add_submodule(top, "sub", {"s.py": b"s = 1\n"})
    write(sub, {"s.py": b"s = 2\n"})
    git(sub, "commit", "-q", "-am", "moved")
    write(top, {"m.py": b"def f():\n    return sm120()\n", "b.bin": b"\x00\x02"})
    (top / "run.sh").chmod(0o755)
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "experiment")
    git(top, "tag", "experiment")
    write(top, {"m.py": b"def f():\n    return 1\n"})
    return top


def test_reverted_names_every_change_it_does_not_check(tmp_path: Path) -> None:
    top = _experiment(tmp_path)
    done = cleantree(top, "check", "--reverted", "experiment")
    assert done.returncode == 2, done.stdout + done.stderr
    for path in ("sub", "b.bin"):
        assert f"{path}: " in done.stderr, done.stderr
    assert "--allow-unchecked-changes" in done.stderr
    allowed = cleantree(top, "check", "--reverted", "experiment", "--allow-unchecked-changes")
    # a mode is checked (issue 43): run.sh's is still the experiment's
    assert allowed.returncode == 1, allowed.stdout + allowed.stderr
    assert "run.sh  missing  expected 'mode 100644, not 100755'" in allowed.stdout
    assert "cleantree: not checked: sub: a submodule changed" in allowed.stderr
    assert "run.sh" not in allowed.stderr
    (top / "run.sh").chmod(0o644)
    allowed = cleantree(top, "check", "--reverted", "experiment", "--allow-unchecked-changes")
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr


def test_pytest_cleantree_reverted_does_not_pass_a_moved_submodule(tmp_path: Path) -> None:
    top = _experiment(tmp_path)
    (top / "run.sh").chmod(0o644)  # its mode reverted: only the submodule and binary are left
    env = {**os.environ, **GIT_ENV, "PYTHONPATH": REPO, "CLEANTREE_CACHE_DIR": ""}
    args = ("-p", "no:cacheprovider", "-q", "--cleantree-reverted", "experiment")
    done = run_module("pytest", *args, cwd=top, env=env)
    assert done.returncode not in (0, 5), done.stdout + done.stderr
    assert "sub: a submodule changed" in done.stdout + done.stderr
    allowed = run_module("pytest", *args, "--cleantree-allow-unchecked-changes", cwd=top, env=env)
    assert allowed.returncode == 0, allowed.stdout + allowed.stderr
    assert "cleantree: not checked: sub: a submodule changed" in allowed.stdout
