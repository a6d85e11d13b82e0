"""Fail closed, round 4 (issue 34): the paths a user names, through the real CLI.

One rule for what a run covers: ``check .`` is the whole tree; a named folder is the files
under it that rules cover; a named file is checked as the whole-tree check checks it (a link
followed as the walk follows it, a link out of the root the same error); a named path that
does not exist is an error; a folder or the root named with nothing checked is exit 2.
Every case here was a false clean on the code before (exit 0 on a dirty or unchecked tree).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from runs import REPO, run_module
from runs import check_tree as check

ENGINES = ["fast", "reference"]

ALL_PY = 'root = "."\n[[rule]]\nid = "gone"\nfiles = ["**/*.py"]\nforbid = ["sm120"]\n'
DIRTY = {"src/a.py": b"use_sm120()\n", "docs/readme.md": b"nothing\n"}


@pytest.mark.parametrize("engine", ENGINES)
def test_check_dot_is_the_whole_tree(tmp_path: Path, engine: str) -> None:
    done = check(tmp_path, ALL_PY, DIRTY, ".", engine=engine)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "src/a.py:1:" in done.stdout


@pytest.mark.parametrize("engine", ENGINES)
def test_a_named_folder_is_the_files_under_it_that_rules_cover(tmp_path: Path, engine: str) -> None:
    files = {**DIRTY, "other/b.py": b"use_sm120()\n"}
    done = check(tmp_path, ALL_PY, files, "src", engine=engine)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "src/a.py:1:" in done.stdout
    assert "other/b.py" not in done.stdout  # the folder named, not the tree


def test_a_named_folder_under_a_literal_entry_is_checked(tmp_path: Path) -> None:
    manifest = 'root = "."\n[[rule]]\nid = "gone"\nfiles = ["src/a.py"]\nforbid = ["sm120"]\n'
    done = check(tmp_path, manifest, DIRTY, "src/")
    assert done.returncode == 1, done.stdout + done.stderr


def test_a_named_folder_inside_an_absent_folder_fails(tmp_path: Path) -> None:
    manifest = 'root = "."\n[[rule]]\nid = "gone"\nabsent = ["kernels"]\n'
    done = check(tmp_path, manifest, {"kernels/sm120/k.py": b"x = 1\n"}, "kernels/sm120")
    assert done.returncode == 1, done.stdout + done.stderr


@pytest.mark.parametrize("named", ["docs", "."])
def test_a_folder_or_the_root_named_with_nothing_checked_is_incomplete(
    tmp_path: Path, named: str
) -> None:
    manifest = 'root = "."\n[[rule]]\nid = "gone"\nfiles = ["src/*.py"]\nforbid = ["sm120"]\n'
    files = {"docs/readme.md": b"nothing\n", "docs/b.py": b"x = 1\n"}
    done = check(tmp_path, manifest, files, named)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "nothing checked" in done.stderr, done.stderr


def test_a_named_folder_with_everything_excluded_is_incomplete(tmp_path: Path) -> None:
    manifest = (
        'root = "."\nexclude = ["src/"]\n[[rule]]\nid = "gone"\nfiles = ["**/*.py"]\n'
        'forbid = ["sm120"]\n'
    )
    done = check(tmp_path, manifest, {**DIRTY, "m.py": b"x = 1\n"}, "src", "m.py")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "nothing checked under src" in done.stderr, done.stderr


@pytest.mark.parametrize("engine", ENGINES)
def test_a_named_link_is_checked_by_its_path_in_the_tree(tmp_path: Path, engine: str) -> None:
    manifest = 'root = "."\n[[rule]]\nid = "gone"\nfiles = ["pkg/*.py"]\nforbid = ["sm120"]\n'
    files = {"shared/mod.py": b"use_sm120()\n", "pkg/__init__.py": b""}
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").symlink_to("../shared/mod.py")
    whole = check(tmp_path, manifest, files, engine=engine)
    assert whole.returncode == 1, whole.stdout + whole.stderr
    named = check(tmp_path, manifest, files, "pkg/mod.py", engine=engine)
    assert named.returncode == 1, named.stdout + named.stderr
    assert "pkg/mod.py:1:" in named.stdout


def test_a_named_link_out_of_the_root_is_the_whole_tree_check_s_error(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "mod.py").write_bytes(b"use_sm120()\n")
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "mod.py").symlink_to(outside / "mod.py")
    whole = check(tree, ALL_PY, {})
    assert whole.returncode == 2, whole.stdout + whole.stderr
    named = check(tree, ALL_PY, {}, "pkg/mod.py")
    assert named.returncode == 2, named.stdout + named.stderr
    assert "pkg/mod.py" in named.stdout + named.stderr


def test_a_named_folder_link_out_of_the_root_is_an_error(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "mod.py").write_bytes(b"use_sm120()\n")
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "pkg").symlink_to(outside)
    named = check(tree, ALL_PY, {"a.py": b"x = 1\n"}, "pkg")
    assert named.returncode == 2, named.stdout + named.stderr


@pytest.mark.parametrize("named", ["src/gone.py", "nope"])
def test_a_named_path_that_does_not_exist_is_an_error(tmp_path: Path, named: str) -> None:
    manifest = 'root = "."\n[[rule]]\nid = "gone"\nfiles = ["other/*.py"]\nforbid = ["sm120"]\n'
    done = check(tmp_path, manifest, DIRTY, named)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"{named}: no such file or folder" in done.stderr, done.stderr


def test_named_files_no_rule_covers_are_listed_and_pass(tmp_path: Path) -> None:
    manifest = 'root = "."\n[[rule]]\nid = "gone"\nfiles = ["src/*.py"]\nforbid = ["sm120"]\n'
    files = {**DIRTY, "README": b"use_sm120\n"}
    done = check(tmp_path, manifest, files, "README", "docs/readme.md")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "no rule covers README" in done.stdout
    assert "no rule covers docs/readme.md" in done.stdout
    both = check(tmp_path, manifest, files, "README", "src")
    assert both.returncode == 1, both.stdout + both.stderr


def test_a_named_file_from_a_subfolder_is_found_from_the_root(tmp_path: Path) -> None:
    check(tmp_path, ALL_PY, DIRTY)
    done = run_module(
        "pytest_cleantree",
        "check",
        "a.py",
        cwd=tmp_path / "src",
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": REPO, "CLEANTREE_CACHE_DIR": ""},
    )
    assert done.returncode == 1, done.stdout + done.stderr


@pytest.mark.parametrize("named", [".", "src", "cleantree.toml"])
def test_pytest_cleantree_naming_a_path_checks_the_tree(tmp_path: Path, named: str) -> None:
    check(tmp_path, ALL_PY, DIRTY)
    env = {**os.environ, "PYTHONPATH": REPO, "CLEANTREE_CACHE_DIR": ""}
    done = run_module(
        "pytest", "-p", "no:cacheprovider", "--cleantree", "-q", named, cwd=tmp_path, env=env
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "src/a.py:1:" in done.stdout
