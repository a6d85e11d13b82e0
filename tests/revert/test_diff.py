"""The unified-diff parser's edges (``revert/diff.py``): each header's paths and quoting, the
line every error names, hunk ends and "no newline" markers, mail subjects, special files."""

from __future__ import annotations

import pytest

from pytest_cleantree.revert.diff import (
    FileChange,
    FromDiffError,
    Hunk,
    Status,
    parse_unified_diff,
    patch_subjects,
    special_file,
)


def diff(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def paths(text: str, **options: int) -> list[tuple[str, str | None, str | None]]:
    return [(str(c.status), c.old_path, c.new_path) for c in parse_unified_diff(text, **options)]


def error(text: str, **options: int) -> str:
    with pytest.raises(FromDiffError) as info:
        parse_unified_diff(text, **options)
    return str(info.value)


HUNK = ("@@ -1 +1 @@", "-a", "+b")


# --------------------------------------------------------------------------- paths


def test_a_plain_diff_names_the_file_by_its_new_name() -> None:
    text = diff("--- x.py.orig\t2024-05-01 10:00:00", "+++ x.py\t2024-05-01 10:00:01", *HUNK)
    assert paths(text) == [("modified", "x.py", "x.py")]


def test_prefixes_are_stripped_only_when_both_sides_have_them() -> None:
    assert paths(diff("--- a/x.py", "+++ x.py", *HUNK)) == [("modified", "x.py", "x.py")]
    assert paths(diff("--- a/x.py", "+++ b/x.py", *HUNK)) == [("modified", "x.py", "x.py")]


def test_everything_after_the_first_tab_is_the_time_stamp() -> None:
    text = diff("--- x.py\tone\ttwo", "+++ x.py\tthree\tfour", *HUNK)
    assert paths(text) == [("modified", "x.py", "x.py")]


def test_a_diff_without_a_final_newline_is_read_whole() -> None:
    [change] = parse_unified_diff("--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a\n+b")
    assert change.hunks[0].lines == (("-", "a"), ("+", "b"))


def test_file_headers_as_the_last_lines() -> None:
    # a ---/+++ pair with no hunk after it still names a file; a lone --- line is no header
    assert paths(diff("--- a/x.py", "+++ b/x.py")) == [("modified", "x.py", "x.py")]
    assert paths(diff("--- a/x.py", "+++ b/x.py", *HUNK, "--- the end")) == [
        ("modified", "x.py", "x.py")
    ]


def test_a_second_pair_of_file_headers_in_a_git_section_starts_a_plain_one() -> None:
    text = diff("diff --git a/x b/x", "--- a/x", "+++ b/x", "--- a/y", "+++ b/y", *HUNK)
    changes = parse_unified_diff(text)
    assert [(c.path, len(c.hunks), c.line) for c in changes] == [("x", 0, 1), ("y", 1, 4)]


def test_git_section_headers_give_the_paths_without_file_headers() -> None:
    quoted = 'diff --git "a/t\\303\\251st" "b/t\\303\\251st"'
    assert paths(diff(quoted, "new file mode 100644")) == [("added", None, "tést")]
    assert paths(diff('diff --git "a/x y" "b/x y"', "deleted file mode 100644")) == [
        ("deleted", "x y", None)
    ]
    # each side read by its own quoting
    assert paths(diff('diff --git "a/\\303\\251" b/e', "new file mode 100644")) == [
        ("added", None, "e")
    ]
    assert paths(diff('diff --git a/e "b/\\303\\251"', "deleted file mode 100644")) == [
        ("deleted", "e", None)
    ]
    assert paths(diff('diff --git a/e "b/\\303\\251"', "new file mode 100644")) == [
        ("added", None, "é")
    ]
    assert paths(diff('diff --git a/p "b/q" x "b/\\303\\251"', "new file mode 100644")) == [
        ("added", None, "é")
    ]


def test_an_unquoted_git_header_splits_at_its_first_b_folder() -> None:
    # "a/P b/P" with the same P splits in the middle; else at the first " b/"
    assert paths(diff("diff --git a/x b/y b/x b/y", "new file mode 100644")) == [
        ("added", None, "x b/y")
    ]
    assert paths(diff("diff --git a/x b/y b/z.py", "new file mode 100644")) == [
        ("added", None, "y b/z.py")
    ]
    assert paths(diff("diff --git a/x b/y b/zzz", "new file mode 100644")) == [
        ("added", None, "y b/zzz")
    ]
    assert paths(diff("diff --git a/old.py b/new.py", "deleted file mode 100644")) == [
        ("deleted", "old.py", None)
    ]
    assert paths(diff("diff --git a/old.py b/new.py", "new file mode 100644")) == [
        ("added", None, "new.py")
    ]


@pytest.mark.parametrize(
    ("moved", "status"),
    [
        (("rename from x b/y", "rename to z"), "renamed"),
        # older git's spelling, one letter shorter
        (("rename old x b/y", "rename new z"), "renamed"),
        (("copy from x b/y", "copy to z"), "copied"),
    ],
)
def test_rename_and_copy_lines_name_the_two_paths(moved: tuple[str, str], status: str) -> None:
    text = diff("diff --git a/x b/y b/z", "similarity index 100%", *moved)
    assert paths(text) == [(status, "x b/y", "z")]


def test_a_renamed_path_may_start_with_a_space() -> None:
    text = diff("diff --git a/ x b/ y", "similarity index 100%", "rename from  x", "rename to  y")
    assert paths(text) == [("renamed", " x", " y")]


def test_quoted_paths_keep_bytes_that_are_not_utf8() -> None:
    text = diff('diff --git "a/\\377x" "b/\\377x"', "new file mode 100644")
    assert paths(text) == [("added", None, "\udcffx")]
    # an unescaped character inside quotes (core.quotepath=false) is kept as its bytes
    text = diff('diff --git "a/\udcff\\tx" "b/\udcff\\tx"', "new file mode 100644")
    assert paths(text) == [("added", None, "\udcff\tx")]


def test_strip_removes_folders_from_every_path() -> None:
    text = diff(
        "diff --git a/d/e/x b/d/e/y",
        "similarity index 100%",
        "rename from d/e/x",
        "rename to d/e/y",
    )
    assert paths(text, strip=2) == [("renamed", "e/x", "e/y")]
    assert error(diff("--- a/p/q/r.py", "+++ b/r.py", *HUNK), strip=2) == (
        "<diff>:1: cannot strip 2 leading folder(s) from 'b/r.py'"
    )
    renamed = ("diff --git a/d/e/x b/d/e/y", "similarity index 100%")
    assert error(diff(*renamed, "rename from x", "rename to d/e/y"), strip=3) == (
        "<diff>:1: cannot strip 2 leading folder(s) from 'x'"
    )
    assert error(diff(*renamed, "rename from d/e/x", "rename to y"), strip=3) == (
        "<diff>:1: cannot strip 2 leading folder(s) from 'y'"
    )


# --------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (
            ("--- /dev/null", "+++ /dev/null", *HUNK),
            "<diff>:1: a file section names no file",
        ),
        (
            ("diff --combined x.py", "index 1,2..3"),
            "<diff>:1: a combined (merge) diff cannot be read: diff against one parent",
        ),
        (
            ("Binary files x.bin differ",),
            "<diff>:1: cannot tell the two file names apart in 'Binary files x.bin differ'",
        ),
        (
            ("hello", '--- "a/\\q"', "+++ b/x", *HUNK),
            "<diff>:2: unknown escape '\\q' in quoted path '\"a/\\\\q\"'",
        ),
        (
            ("hello", "--- a/x", '+++ "b/\\q"', *HUNK),
            "<diff>:3: unknown escape '\\q' in quoted path '\"b/\\\\q\"'",
        ),
        (
            ("diff --git a/x b/y", "similarity index 90%", 'rename from "\\q"', "rename to y"),
            "<diff>:3: unknown escape '\\q' in quoted path '\"\\\\q\"'",
        ),
        (
            ("diff --git a/x b/y", "similarity index 90%", "rename from x", 'rename to "\\q"'),
            "<diff>:4: unknown escape '\\q' in quoted path '\"\\\\q\"'",
        ),
        (
            ("diff --git a/x b/y", "similarity index 90%", 'copy from "\\q"', "copy to y"),
            "<diff>:3: unknown escape '\\q' in quoted path '\"\\\\q\"'",
        ),
        (
            ("diff --git a/x b/y", "similarity index 90%", "copy from x", 'copy to "\\q"'),
            "<diff>:4: unknown escape '\\q' in quoted path '\"\\\\q\"'",
        ),
        (
            ("--- a/x", "+++ b/x", "@@ -1 +1 @@", "-a", "-b"),
            "<diff>:5: unexpected line '-b' in hunk '@@ -1 +1 @@' (line 3): 0 old and 1 new "
            "line(s) were still due",
        ),
        (
            ("--- a/x", "+++ b/x", "@@ -1 +1 @@", "X marks"),
            "<diff>:4: unexpected line 'X marks' in hunk '@@ -1 +1 @@' (line 3): 1 old and 1 "
            "new line(s) were still due",
        ),
    ],
)
def test_errors_name_the_line_of_the_diff(lines: tuple[str, ...], message: str) -> None:
    assert error(diff(*lines)) == message


def test_a_line_ending_in_differ_outside_a_section_is_no_binary_notice() -> None:
    text = diff("The two versions differ", "--- a/x", "+++ b/x", *HUNK)
    assert paths(text) == [("modified", "x", "x")]


# --------------------------------------------------------------------------- binary notices


def test_gnu_binary_notices() -> None:
    changes = parse_unified_diff(
        diff(
            "Binary files a/new.bin and /dev/null differ",
            "Binary files /dev/null and b/added.bin differ",
            "Binary files x.bin.orig and x.bin differ",
        )
    )
    assert [(str(c.status), c.old_path, c.new_path, c.binary, c.line) for c in changes] == [
        ("deleted", "new.bin", None, True, 1),
        ("added", None, "added.bin", True, 2),
        ("modified", "x.bin", "x.bin", True, 3),
    ]


# --------------------------------------------------------------------------- hunks


def test_a_hunk_ends_when_both_counts_are_met() -> None:
    [change] = parse_unified_diff(diff("--- a/x", "+++ b/x", "@@ -1,2 +1 @@", " a", "-b"))
    assert change.hunks[0].lines == ((" ", "a"), ("-", "b"))


def test_a_no_newline_marker_after_a_context_line_marks_both_sides() -> None:
    lines = ("--- a/x", "+++ b/x", "@@ -1,2 +1,2 @@", "-a", "+b", " c")
    [change] = parse_unified_diff(diff(*lines, "\\ No newline at end of file"))
    assert (change.hunks[0].old_no_newline, change.hunks[0].new_no_newline) == (True, True)
    [change] = parse_unified_diff(diff(*lines[:-1], "\\ No newline at end of file", " c"))
    assert (change.hunks[0].old_no_newline, change.hunks[0].new_no_newline) == (False, True)


def test_a_no_newline_marker_right_after_the_header_marks_both_sides() -> None:
    [change] = parse_unified_diff(
        diff("--- a/x", "+++ b/x", "@@ -1,0 +1,0 @@", "\\ No newline at end of file")
    )
    hunk = change.hunks[0]
    assert (hunk.lines, hunk.old_no_newline, hunk.new_no_newline) == ((), True, True)


def test_hunk_sides() -> None:
    hunk = Hunk(1, 2, 1, 2, ((" ", "a"), ("-", "b"), ("+", "c")))
    assert hunk.side(new=False) == ["a", "b"]
    assert hunk.side(new=True) == ["a", "c"]


# --------------------------------------------------------------------------- the rest


def test_patch_subjects_unfold_and_stop_at_the_next_header() -> None:
    text = diff(
        "Subject: [PATCH 1/2] Enable",
        "\tthe turbo",
        " path",
        "Date: Mon, 1 Jan 2024",
        "",
        "Subject: [PATCH] [RFC] second",
        "From: someone",
        "Subject: third",
        "",
        "   ",
    )
    assert patch_subjects(text) == ["Enable the turbo path", "second", "third"]


@pytest.mark.parametrize(
    ("old_mode", "new_mode", "what"),
    [
        (None, None, None),
        ("100644", "100755", None),
        (None, "120000", "a symbolic link"),
        ("120000", None, "a symbolic link"),
        ("160000", "160000", "a submodule"),
        ("120000", "160000", "a submodule"),
        ("100644", "120000", "a symbolic link"),
    ],
)
def test_special_files_are_known_by_their_mode(
    old_mode: str | None, new_mode: str | None, what: str | None
) -> None:
    change = FileChange("x", "x", Status.MODIFIED, old_mode=old_mode, new_mode=new_mode)
    assert special_file(change) == what
