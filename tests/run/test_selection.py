"""``cleantree check FILE...``: which rules cover which named files, as a pure function."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.model import Rule
from pytest_cleantree.run.selection import (
    NamedPath,
    narrow_glob,
    select_paths,
    select_rules,
    under,
)


def rule(files: tuple[str, ...] = (), absent: tuple[str, ...] = ()) -> Rule:
    return Rule(id="r", files=files, absent=absent)


@pytest.mark.parametrize(
    ("given", "paths", "files", "absent", "uncovered"),
    [
        (rule(files=("a.py",)), ["a.py", "b.py"], ("a.py",), (), ("b.py",)),
        (rule(files=("./a.py",)), ["a.py"], ("./a.py",), (), ()),
        (rule(files=("src/*.py",)), ["src/a.py", "src/x/b.py"], ("src/a.py",), (), ("src/x/b.py",)),
        (rule(files=("**/*.py",)), ["../s/l.py"], None, None, ("../s/l.py",)),
        (rule(files=("../s/l.py",)), ["../s/l.py"], ("../s/l.py",), (), ()),
        (rule(files=("../s/*.py",)), ["../s/l.py"], ("../s/l.py",), (), ()),
        (rule(absent=("k/sm120",)), ["k/sm120/a/k.py"], (), ("k/sm120",), ()),
        (rule(absent=("k/sm1*",)), ["k/sm120/k.py"], (), ("k/sm120",), ()),
        (rule(absent=("k/sm120/k.py",)), ["k/sm120/k.py"], (), ("k/sm120/k.py",), ()),
        (rule(absent=("k/sm120",)), ["k/sm12.py"], None, None, ("k/sm12.py",)),
        (rule(absent=("..",)), ["../x.py"], None, None, ("../x.py",)),
    ],
)
def test_a_rule_covers_a_named_file_as_the_whole_tree_check_would(
    given: Rule,
    paths: list[str],
    files: tuple[str, ...] | None,
    absent: tuple[str, ...] | None,
    uncovered: tuple[str, ...],
) -> None:
    selection = select_rules([given], paths)
    assert selection.uncovered == uncovered
    if files is None:
        assert selection.rules == ()
    else:
        (narrowed,) = selection.rules
        assert (narrowed.files, narrowed.absent) == (files, absent)


# --------------------------------------------------------------------------- named paths

LISTING = {"**/*.py": ("a.py", "src/b.py", "src/k/c.py", "docs/d.py"), "src/*.md": ("src/r.md",)}


def expand(entries: Sequence[str], any_kind: bool) -> Mapping[str, tuple[str, ...] | SourceError]:
    blocked = {"bad/**/*.py": SourceError("bad: permission denied")}
    return {entry: {**LISTING, **blocked}.get(entry, ()) for entry in entries}


def named(path: str, folder: bool = True) -> NamedPath:
    return NamedPath(path, path, folder)


@pytest.mark.parametrize(
    ("given", "paths", "files", "absent", "folders"),
    [
        (rule(files=("**/*.py",)), [named(".")], ("**/*.py",), (), (".",)),
        (rule(files=("**/*.py",)), [named("src")], ("src/**/*.py",), (), ("src",)),
        (rule(files=("src/*.md", "**/*.py")), [named("src/k")], ("src/k/**/*.py",), (), ("src/k",)),
        (rule(files=("src/b.py",)), [named("src")], ("src/b.py",), (), ("src",)),
        (rule(files=("docs/*.py",)), [named("src")], None, None, ("src",)),
        (rule(files=("bad/**/*.py",)), [named("bad/x")], ("bad/**/*.py",), (), ("bad/x",)),
        (rule(absent=("src/k",)), [named("src")], (), ("src/k",), ()),
        (rule(absent=("src",)), [named("src/k")], (), ("src",), ()),
        (
            rule(files=("**/*.py",)),
            [named("src"), named("a.py", False)],
            ("a.py", "src/**/*.py"),
            (),
            ("src",),
        ),
    ],
)
def test_a_named_folder_is_the_files_under_it_that_rules_cover(
    given: Rule,
    paths: list[NamedPath],
    files: tuple[str, ...] | None,
    absent: tuple[str, ...] | None,
    folders: tuple[str, ...],
) -> None:
    selection = select_paths([given], paths, expand)
    assert selection.folders == folders
    if files is None:
        assert selection.rules == ()
    else:
        (narrowed,) = selection.rules
        assert (narrowed.files, narrowed.absent) == (files, absent)


@pytest.mark.parametrize(
    ("path", "folder", "expected"),
    [
        ("a.py", ".", True),
        ("../a.py", ".", False),
        ("src/a.py", "src", True),
        ("src", "src", True),
        ("srcx/a.py", "src", False),
    ],
)
def test_under(path: str, folder: str, expected: bool) -> None:
    assert under(path, folder) is expected


@pytest.mark.parametrize(
    ("entry", "folder", "narrowed"),
    [
        ("**/*.py", "src", "src/**/*.py"),
        ("**/*.py", "src/k", "src/k/**/*.py"),
        ("**/*.py", ".", "**/*.py"),
        ("src/*.py", "src", "src/*.py"),
        ("*/*.py", "src", "src/*.py"),
        ("src/*.py", "docs", None),  # names nothing there (the listing is empty anyway)
        ("src/*.py", "src/k", None),  # ends above the folder
        ("**", "src", "src/**"),
        ("**/*.py", ".git", None),  # ``**`` enters no hidden folder
        ("**/src/**/*.py", "src", None),  # two globs: the files are listed instead
        ("**/*.py", "a[1]", None),
        ("s?c/**", "src/k", "src/k/**"),
    ],
)
def test_narrow_glob(entry: str, folder: str, narrowed: str | None) -> None:
    assert narrow_glob(entry, folder) == narrowed
