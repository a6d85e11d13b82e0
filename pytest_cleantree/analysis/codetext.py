"""A pattern no name can hold, found as grep finds it: on the code lines of a Python file.

A substring pattern holding a character no name holds (``is_sm120_supported()``, ``x = 1``;
see :func:`~pytest_cleantree.core.patterns.code_blind`) matches no name, so the scan finds it
only in strings and comments.  A substring is documented to match as grep would, and grep
finds the code line: :func:`with_code_text` adds, as ``text`` findings, each line where such a
pattern stands outside any one string or comment token whose own finding has it (a string's
value, not its source: ``"C:\\\\cuda"`` is ``C:\\cuda``).

An over-approximation where it cannot tell: an f-string is code, literal parts and all (its
braces hold names, and 3.12's tokens for its literal parts are not always where they stand),
a file Python's tokenizer cannot finish is code, and a line that holds the pattern only once
NFKC-normalised is a finding unless the whole line lies in one string or comment.

A regex may match names and other text alike (``re:f|g\\(``), and whether every match holds a
character no name holds is not something to guess: every regex is searched on the code lines
too, and a match counts where it is not wholly inside one name (a keyword is not a name: the
scan reports names, with their kinds), nor inside one string or comment whose own finding has
it, on a line the scan did not already report for that pattern with a kind of code.
"""

from __future__ import annotations

import ast
import io
import keyword
import re
import tokenize
import unicodedata
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import replace

from pytest_cleantree.core.findings import FileAnalysis, Finding
from pytest_cleantree.core.identity import ByIdentity
from pytest_cleantree.core.model import (
    CODE_KINDS,
    Kind,
    Occurrence,
    Pattern,
    PatternTier,
    is_python_path,
)
from pytest_cleantree.core.patterns import greps_code, match_text, regex_spans, written

#: a string or comment token's start and end, as (row, col) pairs (rows 1-based, columns in
#: characters), and what its own finding matches
_Data = tuple[tuple[int, int], tuple[int, int], str]
#: a name token's row and its columns, start and end
_Name = tuple[int, int, int]

Analyze = Callable[..., FileAnalysis]


def with_code_text(analyze: Analyze) -> Analyze:
    """``analyze``, with the code lines its patterns that no name holds stand on."""

    def analyzed(
        path: str, data: bytes, patterns: Sequence[Pattern], **kwargs: object
    ) -> FileAnalysis:
        analysis = analyze(path, data, patterns, **kwargs)
        blind = _grep_of(patterns) if is_python_path(path) else ()
        if not blind or analysis.problem is not None or not analysis.lines:
            return analysis  # a file read as text already has every line's text findings
        named = {
            (f.pattern, f.occurrence.line)
            for f in analysis.findings
            if f.occurrence.kind in CODE_KINDS
        }
        found = tuple(code_text_findings(analysis.lines, blind, named))
        return replace(analysis, findings=analysis.findings + found) if found else analysis

    return analyzed


def grep_patterns(patterns: Sequence[Pattern]) -> tuple[Pattern, ...]:
    """The patterns searched on code lines (:func:`~pytest_cleantree.core.patterns.greps_code`)."""
    return tuple(p for p in patterns if greps_code(p))


#: :func:`grep_patterns` of a run's list, worked out once for the files that share it (the list
#: runs to thousands of a qualified pattern's spellings, issue 44)
_grep_of: ByIdentity[Sequence[Pattern], tuple[Pattern, ...]] = ByIdentity(grep_patterns)


def code_text_findings(
    lines: Sequence[str],
    patterns: Sequence[Pattern],
    named: Collection[tuple[str, int]] = (),
) -> Iterator[Finding]:
    """Each line (once per pattern) where a pattern stands outside one string or comment (a
    regex: nor inside one name, on a line not in ``named``, the (pattern, line) pairs the scan
    reported with a kind of code)."""
    text = "\n".join(lines)
    wanted = [p for p in patterns if _anywhere(text, p)]
    if not wanted:
        return
    data, names = _tokens(text)
    last = len(lines) if lines[-1] else len(lines) - 1  # no line after the last break
    for number, line in enumerate(lines[:last], start=1):
        normal = line if line.isascii() else unicodedata.normalize("NFKC", line)
        for pattern in wanted:
            if pattern.tier is PatternTier.REGEX:
                if (pattern.text, number) in named:
                    continue
                col = _regex_column(pattern, number, line, normal, data, names)
            else:
                col = _code_column(pattern, number, line, normal, data)
            if col is not None:
                yield Finding(pattern.text, Occurrence(number, col, Kind.TEXT, pattern.text))


def _needles(pattern: Pattern) -> tuple[str, ...]:
    """The pattern as written and as Python reads a name (NFKC), when they differ."""
    return tuple(dict.fromkeys((written(pattern), pattern.body)))


def _anywhere(text: str, pattern: Pattern) -> bool:
    """Does the pattern stand anywhere in the text, as written or NFKC-normalised?"""

    def found(where: str) -> bool:
        if pattern.tier is PatternTier.REGEX:
            return next(regex_spans(pattern, where), None) is not None
        return any(n in where for n in _needles(pattern))

    return found(text) or (not text.isascii() and found(unicodedata.normalize("NFKC", text)))


def _code_column(
    pattern: Pattern, number: int, line: str, normal: str, data: Sequence[_Data]
) -> int | None:
    """Where on the line the pattern first stands outside a string or comment whose own
    finding has it (``None``: nowhere)."""
    for needle in _needles(pattern):
        start = line.find(needle)
        while start >= 0:
            if not _reported(data, pattern, number, start, start + len(needle)):
                return start
            start = line.find(needle, start + 1)
    if (
        normal is not line
        and any(n in normal for n in _needles(pattern))
        and not any(first <= (number, 0) and (number, len(line)) <= last for first, last, _ in data)
    ):  # no code on the line: Python normalises names, never a string's or comment's text
        return len(line) - len(line.lstrip())
    return None


def _regex_column(
    pattern: Pattern,
    number: int,
    line: str,
    normal: str,
    data: Sequence[_Data],
    names: Sequence[_Name],
) -> int | None:
    """Where on the line a regex first matches outside one name and outside one string or
    comment whose own finding has it (``None``: nowhere).  On the NFKC-normalised line (where
    the columns are not the file's), a match counts when no one string or comment holds the
    whole line and the match is not a name's shape."""
    for start, end in regex_spans(pattern, line):
        inside_name = any(row == number and s <= start and end <= e for row, s, e in names)
        if not inside_name and not _reported(data, pattern, number, start, end):
            return start
    if normal is line or any(
        first <= (number, 0) and (number, len(line)) <= last for first, last, _ in data
    ):
        return None
    for start, end in regex_spans(pattern, normal):
        if not _NAME_SHAPE.fullmatch(normal[start:end]):
            return len(line) - len(line.lstrip())
    return None


#: a match no more than one name could hold (on a normalised line, whose tokens are not known)
_NAME_SHAPE = re.compile(r"\w*")


def _reported(data: Sequence[_Data], pattern: Pattern, row: int, start: int, end: int) -> bool:
    """Does one string or comment token hold the columns ``start`` to ``end`` of ``row``, and
    does its own finding match the pattern (a string's value, as the scan matches it: the
    source ``"C:\\\\cuda"`` holds ``C:\\\\cuda``, its value does not)?"""
    return any(
        first <= (row, start) and (row, end) <= last and match_text(pattern, value)
        for first, last, value in data
    )


def _tokens(text: str) -> tuple[list[_Data], list[_Name]]:
    """The comments and the strings without code in them (not f-strings), with what their
    findings match: a comment's text, a string's value; and the names (not keywords), on one
    line each.  Both empty when the tokenizer cannot finish (every line is then code, and no
    match is taken for a name's)."""
    found: list[_Data] = []
    names: list[_Name] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline="").readline):
            if token.type == tokenize.COMMENT:
                found.append((token.start, token.end, token.string))
            elif token.type == tokenize.STRING:
                value = _value(token.string)
                if value is not None:
                    found.append((token.start, token.end, value))
            elif token.type == tokenize.NAME and not keyword.iskeyword(token.string):
                names.append((token.start[0], token.start[1], token.end[1]))
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError):
        return [], []
    return found, names


def _value(source: str) -> str | None:
    """A string token's value as the scan matches it (bytes as latin-1), or ``None``: an
    f-string (a string token before 3.12) is no literal, so it stays code."""
    try:
        value = ast.literal_eval(source)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    return value.decode("latin-1") if isinstance(value, bytes) else str(value)
