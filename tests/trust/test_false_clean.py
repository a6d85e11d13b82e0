"""Never a false clean on this machine: folders the check cannot see into, links between
folders, folders where an ``absent`` glob looks for files, ``module:`` roots.  Each case runs
the real CLI and ends in a finding or an error, never in a pass; nothing is written."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest
from runs import cleantree, unprivileged

Completed = subprocess.CompletedProcess[str]


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def snapshot(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*"))


# ---------------------------------------------------------------- item 16: module: roots


def test_a_module_root_is_found_without_running_the_package(tmp_path: Path) -> None:
    """Finding ``pkg.sub`` must not import ``pkg``: its ``__init__`` runs code, and
    importing it would also write ``__pycache__`` into the checked tree."""
    site = tmp_path / "site"
    trap = "open({marker!r}, 'w').write('ran')\nraise SystemExit('imported')\n"
    write(
        site,
        {
            "pkg/__init__.py": trap.format(marker=str(tmp_path / "ran-pkg")),
            "pkg/sub/__init__.py": trap.format(marker=str(tmp_path / "ran-sub")),
            "pkg/sub/m.py": "sm120 = 1\n",
        },
    )
    project = tmp_path / "project"
    project.mkdir()
    (project / "cleantree.toml").write_text(
        'root = "module:pkg.sub"\n[[rule]]\nfiles = ["m.py"]\nforbid = ["sm120"]\n'
    )
    before = snapshot(site)
    path = os.pathsep.join([os.environ.get("PYTHONPATH", ""), str(site)])
    env = {**os.environ, "PYTHONPATH": path}
    completed = cleantree("check", cwd=project, env=env)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "m.py:1:1  assignment  sm120 = 1" in completed.stdout
    assert not (tmp_path / "ran-pkg").exists()
    assert not (tmp_path / "ran-sub").exists()
    assert snapshot(site) == before


def check(root: Path, manifest: str, *args: str, prefix: Sequence[str] = ()) -> Completed:
    """The real CLI on ``root``'s manifest, run under ``prefix`` (see ``runs.unprivileged``)."""
    (root / "cleantree.toml").write_text(manifest)
    command = [*prefix, sys.executable, "-m", "pytest_cleantree", "check", *args]
    completed = subprocess.run(
        command, capture_output=True, text=True, cwd=root, timeout=120, check=False
    )
    assert "Traceback" not in completed.stdout + completed.stderr, completed.stderr
    return completed


# ---------------------------------------------------------------- item 2: unreadable folders


@pytest.fixture
def locked_tree(tmp_path: Path) -> Iterator[Path]:
    """A tree with a folder nobody may read, holding a file with a forbidden line."""
    root = write(tmp_path / "tree", {"src/ok.py": "x = 1\n", "src/locked/m.py": "sm120 = 1\n"})
    (root / "src" / "locked").chmod(0)
    yield root
    (root / "src" / "locked").chmod(0o755)


@pytest.mark.parametrize(
    "rule",
    [
        pytest.param('files = ["src/**/*.py"]\nforbid = ["sm120"]', id="glob"),
        pytest.param('files = ["src/*/*.py"]\nforbid = ["sm120"]', id="glob-one-level"),
        pytest.param('files = ["src/locked/*.py"]\nforbid = ["sm120"]', id="glob-base"),
        pytest.param(
            'files = ["src/locked/*.py"]\nforbid = ["sm120"]\nmissing_ok = true', id="missing-ok"
        ),
        pytest.param(
            'files = ["src/locked/m.py"]\nforbid = ["sm120"]\nmissing_ok = true',
            id="literal-missing-ok",
        ),
        pytest.param('absent = ["src/locked/m.py"]', id="absent-literal"),
        pytest.param('absent = ["src/**/m.py"]', id="absent-glob"),
    ],
)
def test_an_unreadable_folder_is_an_error_not_a_pass(locked_tree: Path, rule: str) -> None:
    completed = check(locked_tree, f"[[rule]]\n{rule}\n", prefix=unprivileged())
    assert completed.returncode == 2, completed.stdout + completed.stderr
    assert re.search(r"src/locked(/m\.py)?: .*[Pp]ermission denied", completed.stdout)


def test_an_unreadable_folder_the_glob_cannot_reach_is_no_error(locked_tree: Path) -> None:
    """``src/*.py`` cannot match under ``src/locked``: that folder is not the glob's business."""
    (locked_tree / "src" / "ok.py").write_text("sm120 = 1\n")
    manifest = '[[rule]]\nfiles = ["src/*.py"]\nforbid = ["sm120"]\n'
    completed = check(locked_tree, manifest, prefix=unprivileged())
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "src/ok.py:1" in completed.stdout


# ---------------------------------------------------------------- item 3: links to folders


@pytest.fixture
def linked_tree(tmp_path: Path) -> Path:
    """``src/kernels`` is a link to a folder elsewhere in the root; ``src/ext`` one outside it."""
    root = write(
        tmp_path / "tree",
        {"src/ok.py": "x = 1\n", "third_party/kernels/k.py": "sm120 = 1\n"},
    )
    (root / "src" / "kernels").symlink_to("../third_party/kernels")
    (root / "src" / "loop").symlink_to("..")
    write(tmp_path / "outside", {"o.py": "sm120 = 2\n"})
    return root


def test_a_glob_follows_a_link_to_a_folder_in_the_root(linked_tree: Path) -> None:
    manifest = '[[rule]]\nfiles = ["src/**/*.py"]\nforbid = ["sm120"]\n'
    completed = check(linked_tree, manifest)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "src/kernels/k.py:1:1  assignment  sm120 = 1" in completed.stdout
    assert "src/loop/" not in completed.stdout  # the cycle is walked once


def test_a_glob_meeting_a_link_out_of_the_root_is_an_error(linked_tree: Path) -> None:
    (linked_tree / "src" / "ext").symlink_to("../../outside")
    manifest = '[[rule]]\nfiles = ["src/**/*.py"]\nforbid = ["sm120"]\n'
    completed = check(linked_tree, manifest)
    assert completed.returncode == 2, completed.stdout + completed.stderr
    assert "src/ext: a link to a folder outside the root" in completed.stdout
    assert "allow_outside_root" in completed.stdout


def test_a_glob_follows_a_link_out_of_the_root_when_allowed(linked_tree: Path) -> None:
    (linked_tree / "src" / "ext").symlink_to("../../outside")
    manifest = 'allow_outside_root = true\n[[rule]]\nfiles = ["src/**/*.py"]\nforbid = ["sm120"]\n'
    completed = check(linked_tree, manifest)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert re.search(r"src/ext/o\.py:1:1 +assignment  sm120 = 2", completed.stdout)
    assert "src/kernels/k.py:1" in completed.stdout


# ---------------------------------------------------------------- item 9: absent folders


@pytest.mark.parametrize("entry", ["kernels/sm120*", "kernels/sm120_fused", "**/sm120_*"])
def test_an_absent_glob_matching_a_folder_finds_it_present(tmp_path: Path, entry: str) -> None:
    root = write(tmp_path, {"kernels/sm120_fused/k.cu": "// kernel\n", "kernels/keep.py": ""})
    completed = check(root, f'[[rule]]\nabsent = ["{entry}"]\n')
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "kernels/sm120_fused  present  must not exist" in completed.stdout
