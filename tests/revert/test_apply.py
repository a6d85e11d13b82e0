"""Hunks applied either way (``revert/apply.py``) on hunks built here: where a hunk is found,
the line each message names, and which file change each image belongs to."""

from __future__ import annotations

import pytest

from pytest_cleantree.revert.apply import ChangedFile, apply_hunks, resolve_images
from pytest_cleantree.revert.diff import FileChange, FromDiffError, Hunk, Status


def hunk(old_start: int, *lines: str, line: int = 0) -> Hunk:
    ops = tuple((text[0], text[1:]) for text in lines)
    old = sum(op != "+" for op, _ in ops)
    new = sum(op != "-" for op, _ in ops)
    return Hunk(old_start, old, old_start, new, ops, line=line)


def failure(text: str, *hunks: Hunk) -> str:
    with pytest.raises(FromDiffError) as info:
        apply_hunks(text, hunks, path="m.py")
    return str(info.value)


def test_a_hunk_is_found_before_the_line_it_states() -> None:
    assert apply_hunks("a\nX\nb\n", [hunk(3, "-X", "+Y")]) == "a\nY\nb\n"


def test_the_offset_found_for_one_hunk_is_expected_of_the_next() -> None:
    text = "p\nq\nA\nx\nC\ny\nz\ny\nC\nw\n"
    # the first hunk says line 1 and is at line 3: the second, said at line 7, is at 9
    hunks = [hunk(1, "-A", "+a"), hunk(7, "-C", "+c")]
    assert apply_hunks(text, hunks) == "p\nq\na\nx\nC\ny\nz\ny\nc\nw\n"
    message = failure(text, hunk(1, "-A", "+a"), hunk(7, "-Q", "+c", line=9))
    assert message == (
        "m.py: hunk 2 (@@ -7,1 +7,1 @@ at diff line 9) expects 'Q' at line 9, found 'C'"
    )


def test_an_insertion_past_the_end_of_the_file() -> None:
    message = failure("a\nb\n", Hunk(5, 0, 6, 1, (("+", "x"),), line=7))
    assert message == (
        "m.py: hunk 1 (@@ -5,0 +6,1 @@ at diff line 7) inserts at line 6, but the file has 2 lines"
    )
    assert apply_hunks("a\nb\n", [Hunk(2, 0, 3, 1, (("+", "x"),))]) == "a\nb\nx\n"


def test_a_hunk_inside_the_previous_one() -> None:
    hunks = (hunk(1, " a", "-b", "+B"), hunk(2, "-b", "+X", line=12))
    assert failure("a\nb\nc\n", *hunks) == (
        "m.py: hunk 2 (@@ -2,1 +2,1 @@ at diff line 12) overlaps the previous hunk at line 2"
    )


# --------------------------------------------------------------------------- images


def test_each_image_belongs_to_its_change() -> None:
    tree = {"m.py": b"a\nB\n", "n.py": b"a\nb\n", "p.py": b"other\n", "same.py": b"s\n"}
    changes = [
        FileChange("bin", "bin", Status.MODIFIED, binary=True),
        FileChange(None, "new.py", Status.ADDED, (Hunk(0, 0, 1, 1, (("+", "x"),)),)),
        FileChange("a.py", "copy.py", Status.COPIED, (hunk(1, "-a", "+b"),)),
        FileChange("mode.py", "mode.py", Status.MODIFIED, old_mode="100644", new_mode="100755"),
        FileChange("gone.py", None, Status.DELETED, (Hunk(1, 1, 0, 0, (("-", "y"),)),)),
        FileChange("m.py", "m.py", Status.MODIFIED, (hunk(1, " a", "-b", "+B"),)),
        FileChange("n.py", "n.py", Status.MODIFIED, (hunk(1, " a", "-b", "+B"),)),
        FileChange("p.py", "p.py", Status.MODIFIED, (hunk(1, "-a", "+b"),)),
        FileChange("old.py", "same.py", Status.RENAMED),
    ]
    images = resolve_images(changes, tree.get)
    assert [image.change for image in images] == changes
    assert [(image.before, image.after) for image in images] == [
        (None, None),
        (None, b"x\n"),
        (None, None),  # a copy must be absent: its contents are not needed
        (None, None),
        (b"y\n", None),
        (b"a\nb\n", b"a\nB\n"),
        (b"a\nb\n", b"a\nB\n"),
        (None, None),
        (b"s\n", b"s\n"),  # a pure rename: the file as the tree has it, either way
    ]
    assert images[7].unverified.startswith("the diff does not apply to the tree")


def test_added_and_deleted_files_name_themselves_when_their_hunks_do_not_apply() -> None:
    added = FileChange(None, "new.py", Status.ADDED, (Hunk(0, 1, 1, 1, ((" ", "x"),)),))
    with pytest.raises(FromDiffError, match=r"^new\.py: hunk 1 "):
        resolve_images([added], {}.get)
    deleted = FileChange("gone.py", None, Status.DELETED, (Hunk(1, 1, 0, 1, ((" ", "y"),)),))
    with pytest.raises(FromDiffError, match=r"^gone\.py: hunk 1 "):
        resolve_images([deleted], {}.get)


def test_a_file_is_read_once_when_its_name_did_not_change() -> None:
    read: list[str] = []

    def reader(path: str) -> bytes | None:
        read.append(path)
        return b"a\nb\n"

    change = FileChange("m.py", "m.py", Status.MODIFIED, (hunk(1, " a", "-b", "+B"),))
    assert resolve_images([change], reader) == [ChangedFile(change, b"a\nb\n", b"a\nB\n")]
    assert read == ["m.py"]
