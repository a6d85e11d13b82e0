"""A pattern no name can hold, found as grep finds it: on the code lines of a Python file.

A substring pattern holding a character no name holds (``is_sm120_supported()``, ``x = 1``;
see :func:`~pytest_cleantree.core.patterns.code_blind`) matches no name, so the scan finds it
only in strings and comments.  A substring is documented to match as grep would, and grep
finds the code line: :func:`with_code_text` adds, as ``text`` findings, each line where such a
pattern stands outside any one string or comment token.

An over-approximation where it cannot tell: an f-string is code, literal parts and all (its
braces hold names, and 3.12's tokens for its literal parts are not always where they stand),
a file Python's tokenizer cannot finish is code, and a line that holds the pattern only once
NFKC-normalised is a finding unless the whole line lies in one string or comment.
"""

from __future__ import annotations

import io
import tokenize
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from pytest_cleantree.core.findings import FileAnalysis, Finding
from pytest_cleantree.core.model import Kind, Occurrence, Pattern, PatternTier, is_python_path
from pytest_cleantree.core.patterns import code_blind, written

#: a token's start and end, as (row, col) pairs: rows 1-based, columns in characters
_Span = tuple[tuple[int, int], tuple[int, int]]

Analyze = Callable[..., FileAnalysis]


def with_code_text(analyze: Analyze) -> Analyze:
    """``analyze``, with the code lines its patterns that no name holds stand on."""

    def analyzed(
        path: str, data: bytes, patterns: Sequence[Pattern], **kwargs: object
    ) -> FileAnalysis:
        analysis = analyze(path, data, patterns, **kwargs)
        blind = grep_patterns(patterns) if is_python_path(path) else ()
        if not blind or analysis.problem is not None or not analysis.lines:
            return analysis  # a file read as text already has every line's text findings
        found = tuple(code_text_findings(analysis.lines, blind))
        return replace(analysis, findings=analysis.findings + found) if found else analysis

    return analyzed


def grep_patterns(patterns: Sequence[Pattern]) -> tuple[Pattern, ...]:
    """The substring patterns no name holds that a line can hold (no line break in them)."""
    return tuple(
        p
        for p in patterns
        if p.tier is PatternTier.SUBSTRING
        and code_blind(p)
        and not any(c in p.body for c in "\r\n")
    )


def code_text_findings(lines: Sequence[str], patterns: Sequence[Pattern]) -> Iterator[Finding]:
    """Each line (once per pattern) where a pattern stands outside one string or comment."""
    text = "\n".join(lines)
    wanted = [(p, _needles(p)) for p in patterns]
    wanted = [(p, needles) for p, needles in wanted if _anywhere(text, needles)]
    if not wanted:
        return
    masks = _data_spans(text)
    for number, line in enumerate(lines, start=1):
        normal = line if line.isascii() else unicodedata.normalize("NFKC", line)
        for pattern, needles in wanted:
            col = _code_column(number, line, normal, needles, masks)
            if col is not None:
                yield Finding(pattern.text, Occurrence(number, col, Kind.TEXT, pattern.text))


def _needles(pattern: Pattern) -> tuple[str, ...]:
    """The pattern as written and as Python reads a name (NFKC), when they differ."""
    return tuple(dict.fromkeys((written(pattern), pattern.body)))


def _anywhere(text: str, needles: Sequence[str]) -> bool:
    if any(n in text for n in needles):
        return True
    return not text.isascii() and any(n in unicodedata.normalize("NFKC", text) for n in needles)


def _code_column(
    number: int, line: str, normal: str, needles: Sequence[str], masks: Sequence[_Span]
) -> int | None:
    """Where on the line a needle first stands outside one string or comment (``None``:
    nowhere)."""
    for needle in needles:
        start = line.find(needle)
        while start >= 0:
            if not _inside(masks, number, start, start + len(needle)):
                return start
            start = line.find(needle, start + 1)
    if (
        normal is not line
        and any(n in normal for n in needles)
        and not _inside(masks, number, 0, len(line))
    ):
        return len(line) - len(line.lstrip())
    return None


def _inside(masks: Sequence[_Span], row: int, start: int, end: int) -> bool:
    """Does one string or comment token hold the columns ``start`` to ``end`` of ``row``?"""
    return any(first <= (row, start) and (row, end) <= last for first, last in masks)


def _data_spans(text: str) -> list[_Span]:
    """The comments and the strings without code in them (not f-strings), as the tokenizer
    reads them; none when it cannot finish (every line is then code)."""
    spans: list[_Span] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline="").readline):
            if token.type == tokenize.COMMENT or _plain_string(token):
                spans.append((token.start, token.end))
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError):
        return []
    return spans


def _plain_string(token: tokenize.TokenInfo) -> bool:
    """A string token whose text holds no code: not an f-string (nor a t-string)."""
    if token.type != tokenize.STRING:
        return False
    prefix = token.string[: len(token.string) - len(token.string.lstrip("rRbBuUfFtT"))]
    return not set(prefix) & set("fFtT")
