"""``cleantree check FILE...``: which rules cover which named files, as a pure function."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from pytest_cleantree.core.errors import CleanTreeError, SourceError
from pytest_cleantree.core.model import Rule
from pytest_cleantree.run.selection import (
    NamedPath,
    narrow_glob,
    place_named,
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
        (rule(absent=("../..",)), ["../../x.py"], None, None, ("../../x.py",)),
        (rule(absent=("./k",)), ["k/a.py"], (), ("./k",), ()),
        # a named path is a path, never a pattern: the entry made from it names it alone
        (rule(files=("src/**/*.py",)), ["src/[x]/a.py"], ("src/[[]x]/a.py",), (), ()),
        (rule(files=("**/*.py",)), ["a*b/?.py"], ("a[*]b/[?].py",), (), ()),
        (rule(absent=("k/*",)), ["k/[x]/a.py"], (), ("k/[[]x]",), ()),
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

LISTING = {
    "**/*.py": ("a.py", "src/b.py", "src/k/c.py", "docs/d.py", "g/[x]/e.py", "g/x/f.py"),
    "src/*.md": ("src/r.md",),
}


def expand(entries: Sequence[str], any_kind: bool) -> Mapping[str, tuple[str, ...] | SourceError]:
    listing: dict[str, tuple[str, ...] | SourceError] = {
        **LISTING,
        "bad/**/*.py": SourceError("bad: permission denied"),
    }
    return {entry: listing.get(entry, ()) for entry in entries}


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
        # a folder whose name holds glob characters: its files, each a literal entry
        (rule(files=("**/*.py",)), [named("g/[x]")], ("g/[[]x]/e.py",), (), ("g/[x]",)),
        # a folder through a link (``lnk -> src``): what rules cover under either path
        (
            rule(files=("src/*.md",)),
            [NamedPath("lnk", "lnk", True, ("src",))],
            ("src/*.md",),
            (),
            ("lnk",),
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
        ("..", ".", False),
        (".", ".", True),
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
        ("**/b/*.py", "b", None),  # b/*.py and b/**/b/*.py: no one glob
        ("../s/*.py", "../s", None),  # a folder outside the root is listed
    ],
)
def test_narrow_glob(entry: str, folder: str, narrowed: str | None) -> None:
    assert narrow_glob(entry, folder) == narrowed


def test_each_rule_covers_its_own_files_and_the_rest_are_uncovered() -> None:
    first = Rule("a", ("a.py",))
    second = Rule("b", ("b.py",))
    selection = select_rules([first, second], ["a.py", "b.py", "c.py"])
    assert selection.rules == (first, second)
    assert selection.uncovered == ("c.py",)
    assert selection.folders == ()


def test_the_root_named_keeps_every_rule_whole() -> None:
    rules = [Rule("a", ("a.py", "src/*.md"), absent=("old",)), Rule("b", ("docs/*.py",))]
    selection = select_paths(rules, [named("."), named("src/b.py", False)], expand)
    assert selection == select_paths(rules, [named(".")], expand)
    assert selection.rules == tuple(rules)
    assert selection.uncovered == ()
    assert selection.folders == (".",)


def test_a_named_folder_keeps_what_a_rule_has_there_and_what_named_files_need() -> None:
    given = Rule("r", ("src/b.py", "**/*.py", "src"), absent=("k/sm120", "old"))
    named_paths = [named("src/k"), named("k/sm120/a.py", False), named("notes.md", False)]
    selection = select_paths([given], named_paths, expand)
    (narrowed,) = selection.rules
    # the named file, then the folder's files (a literal entry above the folder names none)
    assert narrowed.files == ("k/sm120/a.py", "src/k/**/*.py")
    assert narrowed.absent == ("k/sm120",)
    assert selection.uncovered == ("notes.md",)
    assert selection.folders == ("src/k",)


def test_a_glob_that_cannot_be_listed_is_kept_whole_beside_the_others() -> None:
    given = Rule("r", ("bad/**/*.py", "**/*.py"))
    (narrowed,) = select_paths([given], [named("bad/x"), named("src")], expand).rules
    assert narrowed.files == ("bad/**/*.py", "src/**/*.py")


def test_folders_where_absent_entries_are_checked_count_without_files() -> None:
    given = Rule("r", (), absent=("src/k", "src/j"))
    other = Rule("s", (), absent=("src/m",))
    selection = select_paths([given, other], [named("src"), named("docs")], expand)
    assert [narrowed.absent for narrowed in selection.rules] == [("src/k", "src/j"), ("src/m",)]
    assert selection.folders == ("docs",)


ANY_KIND = {"old/*": ("old/a.py", "old/sub"), "sr*": ("src",)}
FILES_ONLY = {"old/*": ("old/a.py",), "sr*": ()}


def test_an_absent_glob_is_listed_with_folders_and_a_folder_above_is_named() -> None:
    asked: list[tuple[tuple[str, ...], bool]] = []

    def listing(entries: Sequence[str], any_kind: bool) -> Mapping[str, tuple[str, ...]]:
        asked.append((tuple(entries), any_kind))
        return {entry: (ANY_KIND if any_kind else FILES_ONLY)[entry] for entry in entries}

    given = Rule("r", ("docs/*.py", "a.py"), absent=("old/*", "sr*", "docs/*"))
    (narrowed,) = select_paths([given], [named("old"), named("src/k")], listing).rules
    assert narrowed.files == ()
    # what is present in old, and src: the folder holding the named one
    assert narrowed.absent == ("old/a.py", "old/sub", "src")
    assert asked == [(("old/*", "sr*"), True)]  # only the globs that reach a named folder


# --------------------------------------------------------------------------- placing names


def test_a_named_path_is_placed_from_the_root_once(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("")
    (tmp_path / "x.py").write_text("")
    placed = place_named(
        ["src/a.py", str(root / "src" / "a.py"), "src", ".", "../x.py"], str(root), root
    )
    assert placed == [
        NamedPath("src/a.py", "src/a.py", False),
        NamedPath("src", "src", True),
        NamedPath(".", ".", True),
        NamedPath("../x.py", "../x.py", False),
    ]
    assert place_named(["src"], str(root), root, folders=False) == [NamedPath("src", "src", False)]
    with pytest.raises(CleanTreeError, match=r"^src/b\.py: no such file or folder$"):
        place_named(["src/a.py", "src/b.py"], str(root), root)


def test_a_path_through_links_is_placed_in_the_tree_the_last_part_kept(tmp_path: Path) -> None:
    real = tmp_path / "real"
    (real / "src").mkdir(parents=True)
    (real / "src" / "a.py").write_text("")
    (tmp_path / "tree").symlink_to(real)  # the root as given: a link
    (tmp_path / "into").symlink_to(real / "src")  # a folder outside the root, into it
    (real / "lnk").symlink_to(real / "src")
    root = str(tmp_path / "tree")
    placed = place_named(["real/src/a.py", "into/a.py", "tree/lnk"], root, tmp_path)
    assert placed == [
        NamedPath("real/src/a.py", "src/a.py", False),
        NamedPath("tree/lnk", "lnk", True, ("src",)),
    ]
    assert os.path.islink(real / "lnk")


def test_a_path_through_a_link_in_the_tree_is_also_the_path_it_leads_to(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("")
    (tmp_path / "linkdir").symlink_to("src")
    (tmp_path / "alias.py").symlink_to("src/a.py")
    (tmp_path / "src" / "up").symlink_to("..")
    given = ["linkdir/a.py", "alias.py", "src/up/linkdir/a.py", "linkdir", "src/a.py"]
    assert place_named(given, str(tmp_path), tmp_path) == [
        NamedPath("linkdir/a.py", "linkdir/a.py", False, ("src/a.py",)),
        NamedPath("alias.py", "alias.py", False, ("src/a.py",)),
        NamedPath("src/up/linkdir/a.py", "src/up/linkdir/a.py", False, ("src/a.py",)),
        NamedPath("linkdir", "linkdir", True, ("src",)),
        NamedPath("src/a.py", "src/a.py", False),
    ]
    # git's view: a link to a folder is a file, checked as the link
    assert place_named(["linkdir"], str(tmp_path), tmp_path, folders=False) == [
        NamedPath("linkdir", "linkdir", False)
    ]


def test_a_parent_through_a_link_is_the_parent_of_its_target(tmp_path: Path) -> None:
    """As the system opens it (``cat lnk/../a.py``), not as the text reads."""
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "a.py").write_text("")
    (tmp_path / "a.py").write_text("")
    (tmp_path / "lnk").symlink_to("src/pkg")
    given = ["lnk/../a.py", str(tmp_path / "lnk" / ".." / "a.py"), "src/pkg/../../a.py", "lnk/.."]
    assert place_named(given, str(tmp_path), tmp_path) == [
        NamedPath("lnk/../a.py", "src/a.py", False),
        NamedPath("src/pkg/../../a.py", "a.py", False),
        NamedPath("lnk/..", "src", True),
    ]


def test_a_named_file_is_uncovered_only_when_no_spelling_of_it_is_covered() -> None:
    given = rule(files=("src/*.py",))
    through = NamedPath("linkdir/a.py", "linkdir/a.py", False, ("src/a.py",))
    elsewhere = NamedPath("other/b.py", "other/b.py", False, ("more/b.py",))
    selection = select_paths([given], [through, elsewhere], expand)
    assert selection.uncovered == ("other/b.py",)
    (narrowed,) = selection.rules
    assert narrowed.files == ("src/a.py",)


def test_a_folder_inside_the_root_is_taken_as_written_even_when_it_leads_out(
    tmp_path: Path,
) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "f.py").write_text("")
    (root / "out").symlink_to(tmp_path / "elsewhere")
    assert place_named(["out/f.py"], str(root), root) == [NamedPath("out/f.py", "out/f.py", False)]


def test_a_path_outside_the_root_is_placed_from_the_roots_real_folder(tmp_path: Path) -> None:
    real = tmp_path / "a" / "real"
    real.mkdir(parents=True)
    (tmp_path / "tree").symlink_to(real)
    placed = place_named(["."], str(tmp_path / "tree"), tmp_path)
    assert placed == [NamedPath(".", "../..", True)]
