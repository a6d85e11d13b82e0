"""parse_unified_diff and patch_subjects on diff texts: git's own output, plain ``diff -u``,
format-patch mails, and malformed input (the exact message, naming the line)."""

from __future__ import annotations

import pytest

from pytest_cleantree.revert.diff import (
    FileChange,
    FromDiffError,
    Hunk,
    Status,
    parse_unified_diff,
    patch_subjects,
)


def diff(*lines: str) -> str:
    return "\n".join(lines) + "\n"


def summary(changes: list[FileChange]) -> list[tuple[object, ...]]:
    return [
        (c.status.value, c.old_path, c.new_path, c.binary, c.old_mode, c.new_mode, len(c.hunks))
        for c in changes
    ]


# `git diff -M` of a commit that adds a binary file and a symlink, deletes a file, renames
# and edits one, drops a final newline, touches quoted and spaced names and a mode (git 2.39).
GIT_DIFF = diff(
    "diff --git a/blob.bin b/blob.bin",
    "new file mode 100644",
    "index 0000000..88768ef",
    "Binary files /dev/null and b/blob.bin differ",
    'diff --git "a/caf\\303\\251.py" "b/caf\\303\\251.py"',
    "index 7d4290a..407de30 100644",
    '--- "a/caf\\303\\251.py"',
    '+++ "b/caf\\303\\251.py"',
    "@@ -1 +1 @@",
    "-x = 1",
    "+x = 2",
    "diff --git a/gone.py b/gone.py",
    "deleted file mode 100644",
    "index 3367afd..0000000",
    "--- a/gone.py",
    "+++ /dev/null",
    "@@ -1 +0,0 @@",
    "-old",
    "diff --git a/link b/link",
    "new file mode 120000",
    "index 0000000..1764325",
    "--- /dev/null",
    "+++ b/link",
    "@@ -0,0 +1 @@",
    "+keep.txt",
    "\\ No newline at end of file",
    "diff --git a/mv.txt b/moved.txt",
    "similarity index 82%",
    "rename from mv.txt",
    "rename to moved.txt",
    "index 2019eda..71afbf1 100644",
    "--- a/mv.txt",
    "+++ b/moved.txt",
    "@@ -4,4 +4,4 @@ three",
    " four",
    " five",
    " six",
    "-seven",
    "+SEVEN",
    "diff --git a/nl.txt b/nl.txt",
    "index 20cbb4d..6fe2aa3 100644",
    "--- a/nl.txt",
    "+++ b/nl.txt",
    "@@ -1 +1 @@",
    "-no newline",
    "\\ No newline at end of file",
    "+no newline!",
    "\\ No newline at end of file",
    "diff --git a/sp ace.py b/sp ace.py",
    "index 975fbec..b680253 100644",
    "--- a/sp ace.py\t",
    "+++ b/sp ace.py\t",
    "@@ -1 +1 @@",
    "-y",
    "+z",
    "diff --git a/tool.sh b/tool.sh",
    "old mode 100644",
    "new mode 100755",
)


def test_git_diff_every_kind_of_change() -> None:
    changes = parse_unified_diff(GIT_DIFF)
    assert summary(changes) == [
        ("added", None, "blob.bin", True, None, "100644", 0),
        ("modified", "café.py", "café.py", False, "100644", "100644", 1),
        ("deleted", "gone.py", None, False, "100644", None, 1),
        ("added", None, "link", False, None, "120000", 1),
        ("renamed", "mv.txt", "moved.txt", False, "100644", "100644", 1),
        ("modified", "nl.txt", "nl.txt", False, "100644", "100644", 1),
        ("modified", "sp ace.py", "sp ace.py", False, "100644", "100644", 1),
        ("modified", "tool.sh", "tool.sh", False, "100644", "100755", 0),
    ]
    assert [c.line for c in changes] == [1, 5, 12, 19, 27, 40, 49, 56]


def test_hunks_keep_lines_counts_position_and_missing_newlines() -> None:
    changes = {c.path: c for c in parse_unified_diff(GIT_DIFF)}
    assert changes["moved.txt"].hunks == (
        Hunk(
            4,
            4,
            4,
            4,
            ((" ", "four"), (" ", "five"), (" ", "six"), ("-", "seven"), ("+", "SEVEN")),
            line=34,
        ),
    )
    (nl,) = changes["nl.txt"].hunks
    assert (nl.old_no_newline, nl.new_no_newline) == (True, True)
    (link,) = changes["link"].hunks
    assert (link.old_no_newline, link.new_no_newline) == (False, True)
    assert link.header == "@@ -0,0 +1,1 @@"


def test_plain_diff_u_with_time_stamps_and_diff_n_epochs() -> None:
    text = diff(
        "diff -ruN old/pkg/a.py new/pkg/a.py",
        "--- old/pkg/a.py\t2024-05-01 10:00:00.000000000 +0200",
        "+++ new/pkg/a.py\t2024-05-02 11:00:00.000000000 +0200",
        "@@ -1,2 +1,2 @@",
        " import os",
        "-x = 1",
        "+x = sm120",
        "diff -ruN old/pkg/new.py new/pkg/new.py",
        "--- old/pkg/new.py\t1970-01-01 01:00:00.000000000 +0100",
        "+++ new/pkg/new.py\t2024-05-02 11:00:00.000000000 +0200",
        "@@ -0,0 +1 @@",
        "+y = 1",
        "--- old/pkg/gone.py\t2024-05-01 10:00:00.000000000 +0200",
        "+++ new/pkg/gone.py\t1970-01-01 00:00:00.000000000 +0000",
        "@@ -1 +0,0 @@",
        "-z = 1",
    )
    # no a/ b/ prefixes: paths are kept as written, unless told to strip (patch -p1)
    assert [c.path for c in parse_unified_diff(text)] == [
        "new/pkg/a.py",
        "new/pkg/new.py",
        "old/pkg/gone.py",
    ]
    assert summary(parse_unified_diff(text, strip=1)) == [
        ("modified", "pkg/a.py", "pkg/a.py", False, None, None, 1),
        ("added", None, "pkg/new.py", False, None, None, 1),
        ("deleted", "pkg/gone.py", None, False, None, None, 1),
    ]


def test_an_empty_file_given_content_is_modified_not_added() -> None:
    text = diff("--- a/empty.py", "+++ b/empty.py", "@@ -0,0 +1 @@", "+x = 1")
    assert summary(parse_unified_diff(text)) == [
        ("modified", "empty.py", "empty.py", False, None, None, 1)
    ]


def test_removed_and_added_lines_that_look_like_file_headers_stay_in_the_hunk() -> None:
    text = diff(
        "--- a/notes.md",
        "+++ b/notes.md",
        "@@ -1,3 +1,3 @@",
        " # Notes",
        "--- old rule",
        "+++ new rule",
        " end",
    )
    (change,) = parse_unified_diff(text)
    assert change.hunks[0].lines == (
        (" ", "# Notes"),
        ("-", "-- old rule"),
        ("+", "++ new rule"),
        (" ", "end"),
    )


def test_an_empty_line_counts_as_an_empty_context_line() -> None:
    text = diff("--- a/x.py", "+++ b/x.py", "@@ -1,3 +1,3 @@", " a", "", "-b", "+c")
    (change,) = parse_unified_diff(text)
    assert change.hunks[0].lines == ((" ", "a"), (" ", ""), ("-", "b"), ("+", "c"))


def test_pure_rename_copy_and_git_binary_patch() -> None:
    text = diff(
        "diff --git a/old name.py b/new name.py",
        "similarity index 100%",
        "rename from old name.py",
        "rename to new name.py",
        "diff --git a/src.py b/copy.py",
        "similarity index 100%",
        "copy from src.py",
        "copy to copy.py",
        "diff --git a/img.png b/img.png",
        "index 1111111..2222222 100644",
        "GIT binary patch",
        "literal 5",
        "McmZQzWMO9j000310RR91",
        "",
        "literal 3",
        "KcmZQzWB>pF00031",
        "",
    )
    assert summary(parse_unified_diff(text)) == [
        ("renamed", "old name.py", "new name.py", False, None, None, 0),
        ("copied", "src.py", "copy.py", False, None, None, 0),
        ("modified", "img.png", "img.png", True, "100644", "100644", 0),
    ]


def test_quoted_paths_with_escapes_in_every_header() -> None:
    text = diff(
        'diff --git "a/dir/tab\\there.py" "b/dir/\\"q\\" \\\\ \\303\\251.py"',
        "similarity index 90%",
        'rename from "dir/tab\\there.py"',
        'rename to "dir/\\"q\\" \\\\ \\303\\251.py"',
        'diff --git a/plain.bin "b/x\\303\\251.bin"',
        "similarity index 100%",
        "rename from plain.bin",
        'rename to "x\\303\\251.bin"',
    )
    changes = parse_unified_diff(text)
    assert [(c.old_path, c.new_path) for c in changes] == [
        ("dir/tab\there.py", 'dir/"q" \\ é.py'),
        ("plain.bin", "xé.bin"),
    ]


def test_no_prefix_git_diff_and_strip() -> None:
    no_prefix = diff(
        "diff --git src/a.py src/a.py",
        "old mode 100644",
        "new mode 100755",
        "diff --git src/b.py src/c.py",
        "similarity index 100%",
        "rename from src/b.py",
        "rename to src/c.py",
    )
    assert [(c.old_path, c.new_path) for c in parse_unified_diff(no_prefix)] == [
        ("src/a.py", "src/a.py"),
        ("src/b.py", "src/c.py"),
    ]
    prefixed = no_prefix.replace(" src/", " a/src/", 1).replace("src/a.py\n", "b/src/a.py\n", 1)
    prefixed = prefixed.replace("src/b.py src/c.py", "a/src/b.py b/src/c.py")
    # as `git apply -p2`: header paths lose two folders, rename lines (never prefixed) one
    assert [(c.old_path, c.new_path) for c in parse_unified_diff(prefixed, strip=2)] == [
        ("a.py", "a.py"),
        ("b.py", "c.py"),
    ]


def test_gnu_diff_binary_notice() -> None:
    text = diff("Binary files old/logo.png and new/logo.png differ")
    assert summary(parse_unified_diff(text, strip=1)) == [
        ("modified", "logo.png", "logo.png", True, None, None, 0)
    ]


def test_format_patch_mail_headers_stat_and_signature_are_ignored() -> None:
    text = diff(
        "From 5f09de76f6308f795b3054e21fd3b07fcdf05ccf Mon Sep 17 00:00:00 2001",
        "From: t <t@t>",
        "Date: Mon, 30 Nov 2026 03:24:15 +0000",
        "Subject: [PATCH v2 1/3] Enable the SM120 fusion path for",
        " FlashInfer all-reduce",
        "",
        "---",
        " srt/x.py | 2 +-",
        " 1 file changed, 1 insertion(+), 1 deletion(-)",
        "",
        "diff --git a/srt/x.py b/srt/x.py",
        "index 1111111..2222222 100644",
        "--- a/srt/x.py",
        "+++ b/srt/x.py",
        "@@ -1 +1 @@",
        "-a = 1",
        "+a = sm120",
        "-- ",
        "2.39.5",
    )
    assert summary(parse_unified_diff(text)) == [
        ("modified", "srt/x.py", "srt/x.py", False, "100644", "100644", 1)
    ]
    assert patch_subjects(text) == ["Enable the SM120 fusion path for FlashInfer all-reduce"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param(
            diff("--- a/x.py", "+++ b/x.py", "@@ -1,3 +1,3 @@", " a", "-b"),
            "patch.diff:3: hunk '@@ -1,3 +1,3 @@' ends early: 1 old and 2 new line(s) missing "
            "at the end of the diff",
            id="ends-early",
        ),
        pytest.param(
            diff("--- a/x.py", "+++ b/x.py", "@@ -1,2 +1,2 @@", " a", "-b", "diff --git a/y b/y"),
            "patch.diff:6: unexpected line 'diff --git a/y b/y' in hunk '@@ -1,2 +1,2 @@' "
            "(line 3): 0 old and 1 new line(s) were still due",
            id="unexpected-line",
        ),
        pytest.param(
            diff("--- a/x.py", "+++ b/x.py", "@@ -1,2 +1 @ oops"),
            "patch.diff:3: malformed hunk header '@@ -1,2 +1 @ oops'",
            id="bad-header",
        ),
        pytest.param(
            diff("@@ -1 +1 @@", "-a", "+b"),
            "patch.diff:1: a hunk (@@) before any file header",
            id="hunk-without-file",
        ),
        pytest.param(
            diff("diff --cc x.py", "index 1,2..3"),
            "patch.diff:1: a combined (merge) diff cannot be read: diff against one parent",
            id="combined",
        ),
        pytest.param(
            "Hello,\nplease apply.\n",
            "patch.diff: no file changes found: is it a unified diff?",
            id="no-diff",
        ),
        pytest.param(
            diff('diff --git "a/x.py b/x.py', "new file mode 100644"),
            "patch.diff:1: unterminated quoted path '\"a/x.py b/x.py'",
            id="unterminated-quote",
        ),
        pytest.param(
            diff(
                "--- a/x.py",
                "+++ b/x.py",
                "@@ -1 +1 @@",
                "-a",
                "+b",
                "--- a/x.py",
                "+++ b/x.py",
                "@@ -1 +1 @@",
                "-b",
                "+c",
            ),
            "patch.diff:6: 'x.py' is changed again (first at line 1): a patch series cannot be "
            "derived file by file; use --rev on the commits, or one squashed diff",
            id="same-file-twice",
        ),
    ],
)
def test_malformed_diffs_name_the_line(text: str, message: str) -> None:
    with pytest.raises(FromDiffError) as info:
        parse_unified_diff(text, source="patch.diff")
    assert str(info.value) == message


def test_stripping_more_folders_than_a_path_has() -> None:
    text = diff("--- x.py", "+++ x.py", "@@ -1 +1 @@", "-a", "+b")
    with pytest.raises(FromDiffError) as info:
        parse_unified_diff(text, source="patch.diff", strip=1)
    assert str(info.value) == "patch.diff:1: cannot strip 1 leading folder(s) from 'x.py'"


def test_status_prints_as_its_value() -> None:
    assert str(Status.RENAMED) == "renamed"
