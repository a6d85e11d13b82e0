"""The break search: is a needle spelt with breaks between its characters?

Python builds one string value from pieces of the text with *breaks* between
them: a backslash-newline inside a literal, or the end of one literal,
separators and the start of the next (``"sm" "120"``).  One RE2 search over
the file's UTF-8 bytes answers, for a set of needles, whether any is spelt so
(:func:`breaks_search`); :class:`.text.TextViews` asks it before building the
views that decode and join.
"""

from __future__ import annotations

import functools
from typing import Protocol, cast

#: what Python's tokenizer removes between two pieces of one string value: a
#: backslash-newline, or the end of one literal, separators, a prefix and the start of the
#: next, or the brace before an f-string's self-documenting expression (``f"a {x=}"`` holds
#: the value ``"a x="``).  It matches every match of :data:`_ESCAPE`'s newline group and of
#: :data:`_ADJACENT` (a comment here ends with its newline: RE2 has no lookahead, and nothing
#: else can follow it)
_BREAK = (
    rb"""(?:["']+(?:[ \t\f\r\n]|\\[\r\n]|\#[^\r\n]*[\r\n])*[rRbBuUfF]{0,2}["']+"""
    rb"""|\\(?:\r\n?|\n)|\{)"""
)


def _broken(needle: str) -> list[bytes]:
    """RE2 for ``needle`` with at least one break between its characters, as alternatives.

    Nested on the first break (``n(?:B+eedle|e(?:B+edle|...))``, breaks optional after
    it), so that a plain occurrence never matches: one search answers.  The expression
    grows with the square of the length: a longer needle is cut into windows of
    :data:`_WINDOW` characters, each overlapping the next by one, and any window spelt
    with a break counts (an occurrence with a break holds a window with that break).
    """
    chars = [
        b"".join(b"\\x%02x" % byte for byte in char.encode("utf-8", "surrogatepass"))
        for char in needle
    ]
    if len(chars) > _WINDOW:
        starts = range(0, len(chars) - 1, _WINDOW - 1)
        return [_broken_chars(chars[start : start + _WINDOW]) for start in starts]
    return [_broken_chars(chars)]


def _broken_chars(chars: list[bytes]) -> bytes:
    rest = [(_BREAK + b"*").join(chars[index:]) for index in range(len(chars))]
    tail = b""
    for index in range(len(chars) - 1, 0, -1):
        broken = _BREAK + b"+" + rest[index]
        tail = broken if not tail else b"(?:" + broken + b"|" + chars[index] + tail + b")"
    return chars[0] + tail


#: the longest piece of a needle searched for whole (see :func:`_broken`)
_WINDOW = 10


class _BreakSearch(Protocol):
    def search(self, text: bytes, pos: int = 0) -> _Span | None: ...


class _Span(Protocol):
    def span(self) -> tuple[int, int]: ...


#: the most expression text one RE2 program is compiled from: RE2 refuses a union of about
#: 3 MB at ``max_mem`` 64 MiB ("pattern too large"), some 300 needles of 24 characters; a
#: larger union is searched in parts (one alternative is at most :data:`_WINDOW` characters)
_PART_BYTES = 1 << 20


@functools.lru_cache(maxsize=1024)
def breaks_search(needles: frozenset[str]) -> _BreakSearch | None:
    """The search for any of ``needles`` spelt across breaks (``None``: none can be).

    Matched on the text's UTF-8 bytes, one byte a character (RE2's Latin-1 mode), each
    needle's characters kept whole.  A needle of one character holds no break.
    """
    alternatives = [
        alternative
        for needle in sorted(needles)
        if len(needle) > 1
        for alternative in _broken(needle)
    ]
    if not alternatives:
        return None
    import re2  # here: a run that searches nothing does not load it

    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.never_capture = True
    options.log_errors = False  # a large union may outgrow RE2's DFA: it then runs slower, as right
    options.max_mem = 64 << 20
    parts = [re2.compile(b"|".join(part), options) for part in _parts(alternatives)]
    return cast(_BreakSearch, parts[0]) if len(parts) == 1 else _Union(tuple(parts))


def _parts(alternatives: list[bytes]) -> list[list[bytes]]:
    """``alternatives`` in order, cut where a part's text would pass :data:`_PART_BYTES`."""
    parts: list[list[bytes]] = [[]]
    size = 0
    for alternative in alternatives:
        if parts[-1] and size + len(alternative) > _PART_BYTES:
            parts.append([])
            size = 0
        parts[-1].append(alternative)
        size += len(alternative) + 1
    return parts


class _Union:
    """A union searched part by part: the earliest match of any part."""

    def __init__(self, parts: tuple[_BreakSearch, ...]) -> None:
        self._parts = parts

    def search(self, text: bytes, pos: int = 0) -> _Span | None:
        spans = [found for part in self._parts if (found := part.search(text, pos)) is not None]
        return min(spans, key=lambda span: span.span()) if spans else None
