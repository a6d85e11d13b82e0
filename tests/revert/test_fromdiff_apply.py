"""apply_hunks and resolve_images: both versions of each file, from a diff and a tree in
either state, and exact messages when the diff does not apply."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_cleantree.revert.apply import apply_hunks, resolve_images
from pytest_cleantree.revert.diff import FromDiffError, parse_unified_diff

BEFORE = "import os\n\nA = 1\nB = 2\nC = 3\nD = 4\nE = 5\nF = 6\nG = 7\n"
AFTER = "import os\nimport sm120\n\nA = 1\nB = 2\nC = 3\nD = sm120.D\nE = 5\nF = 6\nG = 7\n"
DIFF = (
    "--- a/m.py\n"
    "+++ b/m.py\n"
    "@@ -1,3 +1,4 @@\n"
    " import os\n"
    "+import sm120\n"
    " \n"
    " A = 1\n"
    "@@ -4,5 +5,5 @@\n"
    " B = 2\n"
    " C = 3\n"
    "-D = 4\n"
    "+D = sm120.D\n"
    " E = 5\n"
    " F = 6\n"
)


def test_forward_and_reverse() -> None:
    (change,) = parse_unified_diff(DIFF)
    assert apply_hunks(BEFORE, change.hunks) == AFTER
    assert apply_hunks(AFTER, change.hunks, reverse=True) == BEFORE


def test_a_hunk_found_a_few_lines_away_is_applied_there_and_the_offset_carries() -> None:
    (change,) = parse_unified_diff(DIFF)
    shifted = "# header\n# more\n" + BEFORE
    assert apply_hunks(shifted, change.hunks) == "# header\n# more\n" + AFTER


def test_zero_context_hunks_insert_and_delete_at_the_stated_line() -> None:
    (change,) = parse_unified_diff(
        "--- a/t.txt\n+++ b/t.txt\n@@ -1,0 +2 @@\n+inserted\n@@ -3 +3,0 @@\n-three\n"
    )
    assert apply_hunks("one\ntwo\nthree\n", change.hunks) == "one\ninserted\ntwo\n"
    assert apply_hunks("one\ninserted\ntwo\n", change.hunks, reverse=True) == "one\ntwo\nthree\n"


def test_missing_final_newlines_are_kept_on_each_side() -> None:
    (change,) = parse_unified_diff(
        "--- a/nl.txt\n+++ b/nl.txt\n@@ -1,2 +1,2 @@\n keep\n-old\n"
        "\\ No newline at end of file\n+new\n"
    )
    assert apply_hunks("keep\nold", change.hunks) == "keep\nnew\n"
    assert apply_hunks("keep\nnew\n", change.hunks, reverse=True) == "keep\nold"


def test_crlf_lines_match_as_they_are() -> None:
    (change,) = parse_unified_diff("--- a/w.txt\n+++ b/w.txt\n@@ -1 +1 @@\n-a\r\n+b\r\n")
    assert apply_hunks("a\r\n", change.hunks) == "b\r\n"


def test_a_mismatch_names_the_hunk_its_diff_line_and_the_file_line() -> None:
    (change,) = parse_unified_diff(DIFF)
    with pytest.raises(FromDiffError) as info:
        apply_hunks(BEFORE.replace("C = 3", "C = 30"), change.hunks, path="m.py")
    assert str(info.value) == (
        "m.py: hunk 2 (@@ -4,5 +5,5 @@ at diff line 8) expects 'C = 3' at line 5, found 'C = 30'"
    )


def test_a_file_too_short_for_the_hunk() -> None:
    (change,) = parse_unified_diff(DIFF)
    with pytest.raises(FromDiffError) as info:
        apply_hunks("import os\n\nA = 1\n", change.hunks)
    assert str(info.value) == (
        "hunk 2 (@@ -4,5 +5,5 @@ at diff line 8) expects 'B = 2' at line 4, but the file has 3 "
        "lines"
    )


# ---------------------------------------------------------------- resolve_images


def reader(tree: dict[str, str]) -> Callable[[str], bytes | None]:
    def read(path: str) -> bytes | None:
        return tree[path].encode() if path in tree else None

    return read


def images(diff: str, tree: dict[str, str]) -> list[tuple[str | None, str | None]]:
    changed = resolve_images(parse_unified_diff(diff), reader(tree))
    return [
        (
            None if c.before is None else c.before.decode(),
            None if c.after is None else c.after.decode(),
        )
        for c in changed
    ]


def test_a_tree_with_the_change_applied_gives_both_versions() -> None:
    assert images(DIFF, {"m.py": AFTER}) == [(BEFORE, AFTER)]


def test_a_tree_without_the_change_gives_both_versions() -> None:
    assert images(DIFF, {"m.py": BEFORE}) == [(BEFORE, AFTER)]


def test_added_and_deleted_files_come_from_the_diff_alone() -> None:
    text = (
        "diff --git a/new.py b/new.py\nnew file mode 100644\n--- /dev/null\n+++ b/new.py\n"
        "@@ -0,0 +1,2 @@\n+import sm120\n+X = 1\n"
        "diff --git a/old.py b/old.py\ndeleted file mode 100644\n--- a/old.py\n+++ /dev/null\n"
        "@@ -1 +0,0 @@\n-Y = 2\n"
    )
    assert images(text, {}) == [(None, "import sm120\nX = 1\n"), ("Y = 2\n", None)]


def test_a_renamed_file_is_read_under_either_name() -> None:
    text = (
        "diff --git a/a.py b/b.py\nsimilarity index 90%\nrename from a.py\nrename to b.py\n"
        "--- a/a.py\n+++ b/b.py\n@@ -1 +1 @@\n-x = 1\n+x = sm120\n"
    )
    assert images(text, {"b.py": "x = sm120\n"}) == [("x = 1\n", "x = sm120\n")]
    assert images(text, {"a.py": "x = 1\n"}) == [("x = 1\n", "x = sm120\n")]


def test_binary_files_and_symlinks_carry_no_contents() -> None:
    text = (
        "diff --git a/i.png b/i.png\nindex 1..2 100644\nBinary files a/i.png and b/i.png differ\n"
        "diff --git a/l b/l\nindex 1..2 120000\n--- a/l\n+++ b/l\n@@ -1 +1 @@\n-x\n+y\n"
    )
    assert images(text, {}) == [(None, None), (None, None)]


def test_a_partly_reverted_file_is_not_verified_with_both_reasons() -> None:
    """Issue 24: a partly reverted file is known from the diff alone (no contents), and
    says why it could not be verified."""
    partly = AFTER.replace("D = sm120.D", "D = 4")
    assert images(DIFF, {"m.py": partly}) == [(None, None)]
    (changed,) = resolve_images(parse_unified_diff(DIFF), reader({"m.py": partly}))
    assert changed.unverified == (
        "the diff does not apply to the tree (a partly reverted file?): "
        "as already applied, hunk 2 (@@ -4,5 +5,5 @@ at diff line 8) expects 'D = sm120.D' at "
        "line 7, found 'D = 4'; "
        "as not yet applied, hunk 1 (@@ -1,3 +1,4 @@ at diff line 3) expects '' at line 2, "
        "found 'import sm120'"
    )


def test_a_changed_file_missing_from_the_tree() -> None:
    with pytest.raises(FromDiffError) as info:
        images(DIFF, {})
    assert str(info.value) == "m.py: changed by the diff, but not in the tree"
