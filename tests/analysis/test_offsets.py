"""Positions in a file's text (:mod:`pytest_cleantree.analysis.offsets`), driven directly:
where lines start and which line an offset is on, as the tokenizer counts lines (``\\r\\n``,
``\\r`` and ``\\n``; not ``\\f`` nor ``\\u2028``), and where a name stands as a whole word.
"""

from __future__ import annotations

import pytest

from pytest_cleantree.analysis.offsets import (
    NEWLINE,
    NEWLINE_BYTES,
    line_numbers,
    line_starts,
    lines_at,
    spells_word,
    word_offsets,
    word_positions,
)
from pytest_cleantree.analysis.text import split_lines

TEXTS = [
    "",
    "a",
    "a\n",
    "a\nbc\n\nd",
    "\n\n",
    "a\r\nb\rc\nd",
    "a\r\r\nb",
    "a\fb\u2028c\nd",
    "\r",
]


@pytest.mark.parametrize("text", TEXTS)
def test_lines_start_where_split_lines_starts_them(text: str) -> None:
    starts = line_starts(text)
    assert len(starts) == len(split_lines(text))
    assert starts[0] == 0
    lines = split_lines(text)
    for start, line in zip(starts, lines, strict=True):
        assert text[start : start + len(line)] == line


def test_line_starts_exactly() -> None:
    assert line_starts("") == [0]
    assert line_starts("ab\ncd\n") == [0, 3, 6]
    assert line_starts("\n\n") == [0, 1, 2]
    assert line_starts("a\r\nb\rc\nd") == [0, 3, 5, 7]
    assert line_starts("a\fb\u2028c") == [0]


@pytest.mark.parametrize("text", TEXTS)
def test_each_offset_is_on_the_line_split_lines_puts_it_on(text: str) -> None:
    offsets = list(range(len(text) + 1))
    starts = line_starts(text)
    by_offset = {o: max(n for n, s in enumerate(starts, 1) if s <= o) for o in offsets}
    assert line_numbers(text, offsets) == [by_offset[o] for o in offsets]
    assert lines_at(text, reversed(offsets)) == set(by_offset.values())


def test_line_numbers_exactly() -> None:
    text = "ab\ncd\n\nef"
    assert line_numbers(text, [0, 2, 3, 5, 6, 7, 8]) == [1, 1, 2, 2, 3, 4, 4]
    assert line_numbers(text, []) == []
    assert line_numbers("\nab", [2, 3]) == [2, 2]  # a newline at 0 before the first offset
    assert line_numbers("a\r\nb\rc", [0, 1, 2, 3, 4, 5]) == [1, 1, 1, 2, 2, 3]
    assert lines_at(text, [8, 0, 3]) == {1, 2, 4}
    assert lines_at(text, []) == set()


def test_newline_expressions_take_a_crlf_as_one_line_end() -> None:
    assert NEWLINE.split("a\r\nb\rc\nd") == ["a", "b", "c", "d"]
    assert NEWLINE_BYTES.split(b"a\r\nb\rc\nd") == [b"a", b"b", b"c", b"d"]
    assert NEWLINE.split("a\n\rb") == ["a", "", "b"]


@pytest.mark.parametrize(
    ("text", "name", "positions"),
    [
        ("sm120", "sm120", [0]),
        ("x = sm120", "sm120", [4]),
        ("sm120 + sm120", "sm120", [0, 8]),
        ("sm1200 + xsm120 + _sm120 + sm120_ + sm1201", "sm120", []),
        ("(sm120)", "sm120", [1]),
        ("é_sm120 sm120é", "sm120", []),  # a non-ASCII letter is a word character
        ("aaa", "aa", []),
        ("aa aa", "aa", [0, 3]),
        ("a.aa", "aa", [2]),
        ("", "a", []),
    ],
)
def test_word_positions_are_where_a_name_stands_alone(
    text: str, name: str, positions: list[int]
) -> None:
    assert list(word_positions(text, name)) == positions
    assert spells_word(text, name) == bool(positions)


def test_overlapping_occurrences_are_each_tried() -> None:
    # "aa" at 0 is followed by "a"; at 1 it stands at the end of "aaa": neither is a word
    assert list(word_positions("aaa aa", "aa")) == [4]
    assert list(word_positions("xaa aa", "aa")) == [4]


def test_word_offsets_of_several_names() -> None:
    text = "a = b + a_b + b"
    assert word_offsets(text, ["a", "b"]) == [0, 4, 14]
    assert word_offsets(text, []) == []
