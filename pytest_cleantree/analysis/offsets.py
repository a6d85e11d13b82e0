"""Positions in a file's text: where lines start, which line an offset is on, whole words.

Lines are counted as Python's tokenizer counts them (``\\r\\n``, ``\\r`` and ``\\n`` end
a line; ``\\f`` and ``\\u2028`` do not).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence

NEWLINE = re.compile(r"\r\n|\r|\n")
NEWLINE_BYTES = re.compile(rb"\r\n|\r|\n")


def line_starts(text: str) -> list[int]:
    """The offset where each line starts, as :func:`split_lines` counts lines."""
    if "\r" in text:
        return [0, *(m.end() for m in NEWLINE.finditer(text))]
    starts = [0]
    index = text.find("\n")
    while index != -1:
        starts.append(index + 1)
        index = text.find("\n", index + 1)
    return starts


def lines_at(text: str, offsets: Iterable[int]) -> set[int]:
    """The 1-based lines, as :func:`split_lines` counts them, of character offsets."""
    return set(line_numbers(text, sorted(offsets)))


def line_numbers(text: str, offsets: Sequence[int]) -> list[int]:
    """The line of each of these ascending offsets (newlines counted in C, between offsets)."""
    if "\r" in text:  # rare: \r and \r\n also end lines
        starts = line_starts(text)
        return [bisect.bisect_right(starts, offset) for offset in offsets]
    numbers: list[int] = []
    line, previous = 1, 0
    for offset in offsets:
        line += text.count("\n", previous, offset)
        previous = offset
        numbers.append(line)
    return numbers


def word_offsets(text: str, names: Iterable[str]) -> list[int]:
    """Where these identifiers stand as whole words."""
    return [offset for name in names for offset in word_positions(text, name)]


def word_positions(text: str, name: str) -> Iterator[int]:
    """Each offset where ``name`` stands as a whole word (``str.find`` runs in C; regexes crawl)."""
    index = text.find(name)
    while index != -1:
        end = index + len(name)
        before = text[index - 1] if index else " "
        after = text[end] if end < len(text) else " "
        if not _is_word_char(before) and not _is_word_char(after):
            yield index
        index = text.find(name, index + 1)


def spells_word(text: str, word: str) -> bool:
    """Does ``word`` stand in the text as a whole word?"""
    return next(word_positions(text, word), None) is not None


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"
