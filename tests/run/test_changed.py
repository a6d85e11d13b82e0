"""The pure parts of ``--changed-since`` and ``--reverted``: git's raw diff, and which
reverted changes no check can see."""

from __future__ import annotations

import pytest

from pytest_cleantree.core.errors import CleanTreeError
from pytest_cleantree.revert.diff import FileChange, Status
from pytest_cleantree.run.changed import RawChange, parse_raw_diff
from pytest_cleantree.run.reverted import why_unchecked

A, B, Z = "a" * 40, "b" * 40, "0" * 40


def test_a_raw_diff_is_parsed_with_modes_status_and_bytes_of_names() -> None:
    out = (
        f":100644 100644 {A} {Z} M\0src/a.py\0".encode()
        + f":160000 160000 {A} {B} M\0sub\0".encode()
        + f":100644 000000 {A} {Z} D\0caf\xe9.py\0".encode("latin-1")
    )
    assert parse_raw_diff(out) == [
        RawChange("100644", "100644", A, "M", "src/a.py"),
        RawChange("160000", "160000", A, "M", "sub"),
        RawChange("100644", "000000", A, "D", "caf\udce9.py"),
    ]
    assert parse_raw_diff(b"") == []


def test_output_that_is_no_raw_diff_is_an_error() -> None:
    with pytest.raises(CleanTreeError, match="unexpected output"):
        parse_raw_diff(b"diff --git a/x b/x\0x\0")


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (FileChange("m.py", "m.py", Status.MODIFIED, (), False, "100644", "100644"), None),
        (FileChange("s", "s", Status.MODIFIED, (), False, "160000", "160000"), "a submodule"),
        (FileChange("l", "l", Status.MODIFIED, (), False, "120000", "120000"), "a symbolic"),
        (FileChange("b", "b", Status.MODIFIED, (), True), "a binary file"),
        # a mode is checked (issue 43): not named here
        (FileChange("r", "r", Status.MODIFIED, (), False, "100644", "100755"), None),
        (FileChange("s", "s", Status.DELETED, (), False, "160000", None), "a submodule"),
        (FileChange(None, "s", Status.ADDED, (), False, None, "160000"), None),
        (FileChange(None, "b", Status.ADDED, (), True), None),
    ],
)
def test_which_reverted_changes_no_check_sees(change: FileChange, why: str | None) -> None:
    found = why_unchecked(change)
    assert (found is None) if why is None else (found or "").startswith(why), found
