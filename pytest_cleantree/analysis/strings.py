"""Strings and comments reported: the literals and ``#`` comments a text pattern matches.

The scan (:mod:`.scan`) reports names; what a literal's value or a comment's
text matches is reported here, each at the line of its source where the
pattern stands (:func:`.literals.string_places`).
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator, Sequence

from pytest_cleantree.core.findings import Finding
from pytest_cleantree.core.model import Kind, Occurrence
from pytest_cleantree.core.nameindex import TextIndex

from .literals import string_places
from .positions import char_col, segment_line

__all__ = ["comment_findings", "string_findings"]


def string_findings(
    lines: Sequence[str], node: ast.Constant, kind: Kind, text_index: TextIndex
) -> Iterator[Finding]:
    """A string literal's findings, at the line(s) of its source where the pattern stands.

    The decoded value decides *whether* it matches; the source decides *where*: each
    line whose raw text, or whose pieces joined (:func:`.literals.line_runs`), shows
    the match.  When none does (escapes or a join across lines), its first line.
    """
    value = node.value
    if isinstance(value, bytes):
        text = value.decode("latin-1")
    elif isinstance(value, str):
        text = value
    else:
        return
    first, last = node.lineno, node.end_lineno or node.lineno
    raws: list[str] = []
    for pattern in text_index.matching(text):
        raws = raws or [segment_line(lines, node, n) for n in range(first, last + 1)]
        for index, col in string_places(pattern, raws):
            col += char_col(lines, first, node.col_offset) if index == 0 else 0
            yield Finding(pattern.text, Occurrence(first + index, col, kind, text))


def comment_findings(
    text: str, lines: Sequence[str], candidates: list[int] | None, text_index: TextIndex
) -> Iterator[Finding]:
    """The comments' findings (``candidates``: the lines that can hold one; ``None``: any).

    Lines end as Python ends them (a lone CR too).  Where the tokenizer stops short of a file
    ``ast`` parsed (3.13's C tokenizer on a lone CR before a fullwidth name), every ``#`` from
    the line it reached on starts a comment: more findings, never a comment passed over.
    """
    if "#" not in text:
        return
    if candidates is not None and not any(
        "#" in lines[line - 1] for line in candidates if line <= len(lines)
    ):
        return
    reached, commented = 1, set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text, newline="").readline):
            reached = token.start[0]
            if token.type == tokenize.COMMENT:
                commented.add(reached)
                yield from _matching(text_index, token.start, token.string)
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError):
        for number in range(reached, len(lines) + 1):
            col = lines[number - 1].find("#")
            if col >= 0 and number not in commented:
                yield from _matching(text_index, (number, col), lines[number - 1][col:])


def _matching(text_index: TextIndex, start: tuple[int, int], comment: str) -> Iterator[Finding]:
    line, col = start
    for pattern in text_index.matching(comment):
        yield Finding(pattern.text, Occurrence(line, col, Kind.COMMENT, comment))
