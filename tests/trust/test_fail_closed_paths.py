"""Fail closed, round 5 (issue 42): a named path, through the real CLI.

A named path is a path, never a pattern (``src/[x]/a.py`` is not ``src/x/a.py``), and a
file named through a link to its folder or to itself is checked under the paths the
whole-tree check meets it by.  Each case here was a false clean or "nothing checked" on the
code before; the class is held by the coverage property
(``tests/trust/test_coverage_property.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepos import git
from runs import check_tree as check

SRC_PY = 'root = "."\n[[rule]]\nid = "gone"\nfiles = ["src/**/*.py"]\nforbid = ["sm120"]\n'
BRACKETS = {"src/[x]/a.py": b"use_sm120()\n", "src/x/a.py": b"x = 1\n"}


@pytest.mark.parametrize(
    "named", ["linkdir/a.py", "alias.py", "ABS/linkdir/a.py", "deep/../a.py", "ABS/deep/../a.py"]
)
def test_a_file_named_through_a_link_is_checked_as_its_path_in_the_tree(
    tmp_path: Path, named: str
) -> None:
    (tmp_path / "linkdir").symlink_to("src")
    (tmp_path / "alias.py").symlink_to("src/a.py")
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "deep").symlink_to("src/pkg")  # deep/.. is src, as the system opens it
    named = named.replace("ABS", str(tmp_path))
    files = {"src/a.py": b"use_sm120()\n", "a.py": b"x = 1\n"}
    done = check(tmp_path, SRC_PY, files, named)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "src/a.py:1:" in done.stdout


@pytest.mark.parametrize("named", ["src/[x]/a.py", "src/[x]", "src/[x]/"])
def test_a_named_path_is_never_read_as_a_glob(tmp_path: Path, named: str) -> None:
    done = check(tmp_path, SRC_PY, BRACKETS, named)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "src/[x]/a.py:1:" in done.stdout
    assert "src/x/a.py" not in done.stdout


def test_a_parent_through_a_link_is_the_parent_of_its_target(tmp_path: Path) -> None:
    """``cat deep/../a.py`` prints ``src/a.py``: the check reads what the system opens, not
    the clean ``a.py`` the text would name (both covered: the old answer was "clean")."""
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "deep").symlink_to("src/pkg")
    manifest = SRC_PY.replace("src/**/*.py", "**/*.py")
    files = {"src/a.py": b"use_sm120()\n", "a.py": b"x = 1\n"}
    done = check(tmp_path, manifest, files, "deep/../a.py")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "src/a.py:1:" in done.stdout


def test_a_clean_path_spelt_like_a_glob_of_a_dirty_one_is_clean(tmp_path: Path) -> None:
    files = {"src/[x]/a.py": b"x = 1\n", "src/x/a.py": b"use_sm120()\n"}
    done = check(tmp_path, SRC_PY, files, "src/[x]/a.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "clean (1 rule, 1 file)" in done.stdout


def test_a_changed_path_is_never_read_as_a_glob(tmp_path: Path) -> None:
    check(tmp_path, SRC_PY, BRACKETS)  # writes the tree
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-q", "-m", "tree")
    with (tmp_path / "src" / "[x]" / "a.py").open("ab") as changed:
        changed.write(b"# touched\n")
    done = check(tmp_path, SRC_PY, {}, "--changed-since", "HEAD")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "src/[x]/a.py:1:" in done.stdout
