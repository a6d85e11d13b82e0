"""Where a token stands: ``ast``'s UTF-8 byte columns against the characters reports count."""

from __future__ import annotations

import ast

from pytest_cleantree.analysis.positions import (
    after_as,
    char_col,
    identifier,
    locate,
    segment_line,
    slice_utf8,
)

LINES = ['x = "é"; sm120', "abc", "import a as b", "  a as", "   b"]


def test_char_col_counts_characters_before_a_byte_column() -> None:
    assert char_col(LINES, 1, 0) == 0
    assert char_col(LINES, 1, 10) == 9  # é is two bytes
    assert char_col(LINES, 1, 11) == 10
    assert char_col(LINES, 2, 2) == 2
    # half a character counts as one (a column inside é)
    assert char_col(LINES, 1, 6) == 6


def test_char_col_of_a_line_past_either_end_is_the_byte_column() -> None:
    assert char_col(LINES, 0, 5) == 5
    assert char_col(LINES, 6, 5) == 5
    assert char_col(["é"], 1, 2) == 1
    assert char_col(["é"], 2, 2) == 2
    assert char_col(["a", "éé"], 0, 2) == 2  # not the last line's


def test_locate_finds_the_first_name_token_at_or_after_a_place() -> None:
    assert locate(LINES, "sm120", (1, 0)) == (1, 10)
    assert locate(LINES, "sm120.x", (1, 3)) == (1, 10)  # a dotted name: its first part
    assert locate(LINES, "sm120.x.y", (1, 3)) == (1, 10)
    assert locate(LINES, "b", (3, 0)) == (3, 12)
    assert locate(LINES, "a", (3, 8)) == (4, 2)  # "as" is no "a", nor is the "a" before 8
    assert locate(LINES, "abc", (1, 0)) == (2, 0)


def test_locate_on_a_later_line_counts_that_line_s_bytes() -> None:
    lines = ["f(x,", "  é, sm120)"]
    assert locate(lines, "sm120", (1, 0)) == (2, 6)
    assert locate(lines, "sm120", (1, 2)) == (2, 6)
    assert locate(["é = (", "  é)"], "é", (1, 1)) == (2, 2)


def test_locate_reads_names_as_the_parser_does() -> None:
    assert locate(["x = ﬁx"], "fix", (1, 0)) == (1, 4)


def test_locate_returns_the_start_when_the_name_is_not_found() -> None:
    assert locate(["x = (", ")"], "y", (1, 1)) == (1, 1)
    assert locate(['a = """', "zz"], "zz", (1, 0)) == (1, 0)  # the tokenizer gives up
    assert locate(LINES, "zzz", (2, 1)) == (2, 1)


def test_after_as_is_the_place_after_the_keyword() -> None:
    assert after_as(LINES, (3, 0), (3, 0)) == (3, 11)
    assert after_as(LINES, (4, 0), (5, 0)) == (4, 6)
    assert after_as(["a as b", "c as d"], (1, 5), (2, 0)) == (2, 4)
    assert after_as(["a", "as b"], (1, 0), (2, 0)) == (2, 2)  # from the next line's start
    # no 'as' up to the end line: the start itself
    assert after_as(LINES, (3, 10), (3, 0)) == (3, 10)
    assert after_as(LINES, (4, 5), (5, 0)) == (4, 5)
    assert after_as(["bas x", "as"], (1, 0), (1, 0)) == (1, 0)


def test_segment_line_is_the_part_of_a_line_an_expression_covers() -> None:
    lines = ['g("é", """ab', 'cd""", 1)']
    call = ast.parse("\n".join(lines)).body[0]
    assert isinstance(call, ast.Expr)
    assert isinstance(call.value, ast.Call)
    first, second = call.value.args[:2]
    assert segment_line(lines, first, 1) == '"é"'
    assert segment_line(lines, second, 1) == '"""ab'
    assert segment_line(lines, second, 2) == 'cd"""'
    assert segment_line(lines, second, 5) == ""


def test_identifier_is_nfkc_for_non_ascii_only() -> None:
    assert identifier("ﬁx") == "fix"
    assert identifier("abc") == "abc"


def test_slice_utf8_slices_by_byte_offsets() -> None:
    assert slice_utf8("é1", 2, None) == "1"
    assert slice_utf8("é1", None, 2) == "é"
    assert slice_utf8("abc", 1, 2) == "b"
    assert slice_utf8("é1", 1, None) == "\ufffd1"
