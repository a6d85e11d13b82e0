"""A file line by line: grep-like findings, and the allow comments its lines hold.

An inline allow (``# cleantree: allow RULE -- reason``, see
:mod:`pytest_cleantree.run.allows`) must be a comment: in a Python file, a
line alone cannot say whether its ``#`` starts one (it may sit in a string, or
inside a triple-quoted one), so the whole file's comment tokens say which
lines hold one (:func:`allow_comments`), and every analysis carries them.
"""

from __future__ import annotations

import functools
import io
import tokenize
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

from pytest_cleantree.core.findings import FileAnalysis, Finding
from pytest_cleantree.core.model import Kind, Occurrence, Pattern
from pytest_cleantree.core.patterns import match_text

from .decoding import DECODE_ERRORS, decode_python
from .text import column, is_python_path, lex, line_numbers

#: what every allow comment holds: files without it are not tokenized for allows
ALLOW_MARK = "cleantree"


def text_findings(
    lines: Sequence[str], patterns: Sequence[Pattern], views: Sequence[str] | None = None
) -> Iterator[Finding]:
    """Findings of kind ``text``: each line whose text matches, as grep would; with
    ``views`` (a JSON file's lines, strings decoded), a line also matches by its view."""
    for number, line in enumerate(lines, start=1):
        view = views[number - 1] if views is not None else line
        for pattern in patterns:
            if match_text(pattern, line) or (view != line and match_text(pattern, view)):
                yield Finding(
                    pattern.text, Occurrence(number, column(pattern, line), Kind.TEXT, line)
                )


def line_findings(
    lines: Sequence[str], patterns: Sequence[Pattern], raw: Sequence[str] | None = None
) -> Iterator[Finding]:
    """Whole-line patterns (``forbid_lines``, ``line@N:``) on each line, as kind ``text``;
    with ``raw`` (the file's bytes read line by line as UTF-8, other bytes kept, where its
    own decoding reads them otherwise: a coding cookie), a line also matches by its bytes,
    so that ``forbid_lines_escaped`` finds the bytes it names in any file holding them."""
    for pattern in patterns:
        numbers = [pattern.line] if pattern.line else range(1, len(lines) + 1)
        for number in numbers:
            line = lines[number - 1] if number <= len(lines) else ""
            read = raw[number - 1] if raw is not None and number <= len(raw) else line
            if match_text(pattern, line) or (read != line and match_text(pattern, read)):
                indent = len(line) - len(line.lstrip())
                yield Finding(pattern.text, Occurrence(number, indent, Kind.TEXT, line))


def allow_comments(data: bytes) -> tuple[tuple[int, str], ...]:
    """The (line, text) of each comment of a Python file that holds :data:`ALLOW_MARK`.

    Read from the tokenizer's own comment tokens; a file it refuses (it will be
    reported as not parsing) from :func:`.text.lex`, which reads comments and
    strings with the tokenizer's expressions.  Lines are counted as
    :func:`.text.split_lines` counts them (a lone CR ends one).
    """
    if ALLOW_MARK.encode() not in data:
        return ()
    try:
        text = decode_python(data)
    except DECODE_ERRORS:
        text = data.decode("utf-8", errors="surrogateescape")
    if ALLOW_MARK not in text:
        return ()
    try:
        tokens = tokenize.generate_tokens(io.StringIO(text, newline=None).readline)
        return tuple(
            (token.start[0], token.string)
            for token in tokens
            if token.type == tokenize.COMMENT and ALLOW_MARK in token.string
        )
    except (tokenize.TokenError, SyntaxError, UnicodeEncodeError):
        # UnicodeEncodeError: since 3.12 the C tokenizer refuses a byte kept as a surrogate
        spans = [(start, end) for start, end in lex(text)[0] if text[start] == "#"]
        spans = [(start, end) for start, end in spans if ALLOW_MARK in text[start:end]]
        numbers = line_numbers(text, [start for start, _ in spans])
        return tuple(
            (number, text[start:end]) for number, (start, end) in zip(numbers, spans, strict=True)
        )


def with_allows(analyze: Callable[..., FileAnalysis]) -> Callable[..., FileAnalysis]:
    """Add a Python file's allow comments (:func:`allow_comments`) to its analysis.

    A file that is not Python keeps ``allows`` unset: its allows are read from the lines.
    """

    @functools.wraps(analyze)
    def wrapper(path: str, data: bytes, *args: object, **kwargs: object) -> FileAnalysis:
        analysis = analyze(path, data, *args, **kwargs)
        if not is_python_path(path):
            return analysis
        return replace(analysis, allows=allow_comments(data))

    return wrapper
