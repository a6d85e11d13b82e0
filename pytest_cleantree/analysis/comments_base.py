"""What every comment grammar of :mod:`.comments` reads with: the text and its lines, where a
comment is recorded, and the quoted and bracketed runs several languages share."""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

__all__ = [
    "BQ",
    "DQ",
    "PAIRS",
    "SQ",
    "SQ_RAW",
    "Comments",
    "Text",
    "balanced",
    "closing",
    "delimited",
]

Comments = list[tuple[int, str]]


class Text:
    """The lines joined by ``\\n``, with each offset's line number."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.src = "\n".join(lines)
        self.starts = [0]
        for line in lines[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)
        self.found: Comments = []

    def eol(self, offset: int) -> int:
        end = self.src.find("\n", offset)
        return len(self.src) if end < 0 else end

    def comment(self, start: int, end: int | None = None) -> int:
        """Record the comment from ``start`` (to its line's end, or over lines to ``end``)."""
        end = self.eol(start) if end is None else end
        first = bisect.bisect_right(self.starts, start)
        for number, text in enumerate(self.src[start:end].split("\n"), start=first):
            self.found.append((number, text))
        return end

    def after(self, pattern: re.Pattern[str], offset: int) -> int:
        """The end of ``pattern`` matched at ``offset``; the text's end when it does not
        match (an unterminated string runs to the end: data)."""
        found = pattern.match(self.src, offset)
        return len(self.src) if found is None else found.end()

    def body_end(self, offset: int, word: str, strip: str) -> int:
        """The end of a here-document whose body starts at ``offset``: after the first line
        that, ``strip`` characters stripped on its left, is ``word`` (else the text's end)."""
        while offset < len(self.src):
            end = self.eol(offset)
            if self.src[offset:end].lstrip(strip) == word:
                return end
            offset = end + 1
        return len(self.src)


def closing(quote: str, escapes: bool = True) -> re.Pattern[str]:
    """What follows an opening ``quote`` up to its close, over lines."""
    q = re.escape(quote)
    body = rf"(?:[^{q}\\]|\\[\s\S])*" if escapes else rf"[^{q}]*"
    return re.compile(body + q)


DQ, SQ, BQ, SQ_RAW = closing('"'), closing("'"), closing("`"), closing("'", False)
PAIRS = {"(": ")", "[": "]", "{": "}", "<": ">"}


def balanced(text: Text, offset: int, open_: str, close: str, depth: int = 1) -> int:
    """The end of a bracketed run from ``offset`` (``depth`` open already; ``\\`` escapes)."""
    src, index = text.src, offset
    while index < len(src):
        char = src[index]
        if char == "\\":
            index += 1
        elif char == close:
            depth -= 1
            if depth == 0:
                return index + 1
        elif char == open_:
            depth += 1
        index += 1
    return len(src)


def delimited(text: Text, offset: int, delim: str) -> int:
    """The end of a ``%q(...)``/``q{...}``-like body opened by ``delim`` at ``offset - 1``."""
    if delim in PAIRS:
        return balanced(text, offset, delim, PAIRS[delim])
    return text.after(closing(delim), offset)
