"""``config/entries.py`` called directly: the ``_escaped`` line form, both ways (issue 37)."""

from __future__ import annotations

import re

import pytest

from pytest_cleantree.config.entries import escape_line, read_forbid_lines, unescape_line

HINT = "write \\xNN (80 to ff) for a byte that is not UTF-8, \\\\ for a backslash"


@pytest.mark.parametrize(
    ("line", "escaped"),
    [
        ("plain()", "plain()"),
        ("a\\b", "a\\\\b"),
        ("\udc80", "\\x80"),  # the lowest byte surrogateescape makes
        ("\udcff", "\\xff"),  # and the highest
        ("x = '\udcab\udc9c' \\ y", "x = '\\xab\\x9c' \\\\ y"),
        ("\udc7f\ud800é", "\udc7f\ud800é"),  # surrogates no byte makes, and text, stay as they are
        ("", ""),
    ],
)
def test_escape_line_writes_each_undecodable_byte_and_backslash(line: str, escaped: str) -> None:
    assert escape_line(line) == escaped


@pytest.mark.parametrize(
    ("escaped", "line"),
    [
        ("\\x80", "\udc80"),
        ("\\xff\\xFF", "\udcff\udcff"),
        ("\\x9a", "\udc9a"),
        ("a\\\\b", "a\\b"),
        ("\\\\x80", "\\x80"),  # an escaped backslash, then text
        ("no escape", "no escape"),
    ],
)
def test_unescape_line_reads_what_escape_line_writes(escaped: str, line: str) -> None:
    assert unescape_line(escaped) == line


@pytest.mark.parametrize(
    ("escaped", "line"),
    [
        ("echo caf\\xc3\\xa9", "echo café"),  # UTF-8 bytes read as a UTF-8 file's line reads
        ("\\xc3\\xa9\\xff", "é\udcff"),  # the UTF-8 part decoded, the other byte kept
        ("\\xe9\\xc3", "\udce9\udcc3"),  # a lead byte without its continuation stays kept
        ("\\xf0\\x9f\\x98\\x80!", "\U0001f600!"),
    ],
)
def test_escaped_bytes_that_are_utf8_stand_for_their_characters(escaped: str, line: str) -> None:
    assert unescape_line(escaped) == line


@pytest.mark.parametrize(
    ("escaped", "shown"),
    [("a\\n", "'\\\\n'"), ("\\x41", "'\\\\x'"), ("end\\", "'\\\\'"), ("\\x7f", "'\\\\x'")],
)
def test_unescape_line_refuses_any_other_escape_by_name(escaped: str, shown: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(f'unknown escape {shown}: {HINT}')}$"):
        unescape_line(escaped)


@pytest.mark.parametrize(
    "raw",
    [b"plain", b"caf\xc3\xa9 \xff\xfe", b"back\\slash \x80\\x80", bytes(range(0x80, 0x100))],
)
def test_a_line_read_with_surrogateescape_survives_the_round_trip(raw: bytes) -> None:
    line = raw.decode("utf-8", "surrogateescape")
    assert unescape_line(escape_line(line)) == line
    assert unescape_line(escape_line(line)).encode("utf-8", "surrogateescape") == raw


def test_only_the_escaped_key_is_unescaped_and_a_bad_entry_does_not_stop_the_rest() -> None:
    problems: list[str] = []
    table = {
        "forbid_lines": ["keep\\x80"],
        "forbid_lines_escaped": ["bad\\q", "x(\\xff)", "also\\\\"],
    }
    patterns = read_forbid_lines(table, problems.append)
    assert [p.text for p in patterns] == ["line:keep\\x80", "line:x(\udcff)", "line:also\\"]
    assert problems == [f"forbid_lines_escaped[0]: unknown escape '\\\\q': {HINT}"]


def test_unless_lines_are_read_under_their_own_key() -> None:
    problems: list[str] = []
    table = {"forbid_lines": ["no"], "unless_lines_escaped": ["y\\x80", "y\\x80"]}
    patterns = read_forbid_lines(table, problems.append, "unless_lines")
    assert [p.text for p in patterns] == ["line:y\udc80"]
    assert problems == ["unless_lines_escaped[1]: the same line as unless_lines_escaped[0]"]
