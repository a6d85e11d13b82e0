"""Where the pieces of a string literal stand: the value each line of its source spells.

A literal joined from pieces (``("a"\\n "sm" "120")``) has one value, but a
match that stands wholly on one line (``"sm" "120"``, whose joined value is
``sm120``) is reported on that line.  :func:`line_runs` gives, per line of a
literal's source, its runs: the pieces that stand one after the other on that
line, each with the column it starts at and its decoded value.  A piece this
cannot read alone (an f-string, a piece spanning lines, a fragment of an
f-string that 3.12 positions on its own) ends a run and belongs to none: it
can then only be placed by its raw text or at the literal's first line.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Sequence

from pytest_cleantree.core.model import Pattern
from pytest_cleantree.core.patterns import match_text

from .text import column

__all__ = ["Run", "line_runs", "run_column", "string_places"]

#: a run: each piece in source order, as ``(column, value, exact)``: the column where its
#: body starts (after the prefix and quote), its value, and whether its body is its value
#: written out (no escape), so that a character's column within it is known
Run = tuple[tuple[int, str, bool], ...]


def line_runs(segment: Sequence[str]) -> dict[int, tuple[Run, ...]]:
    """The runs of plain string pieces on each line (counted from 0) of a literal's source
    ``segment`` (its lines, the first from where it starts, the last up to where it ends);
    empty when the source does not read as string pieces alone (placement falls back)."""
    text = "(\n" + "\n".join(segment) + "\n)\n"
    runs: dict[int, list[list[tuple[int, str, bool]]]] = {}
    current: list[tuple[int, str, bool]] = []
    current_line = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            piece = _piece(token)
            if piece is None:
                current = []
                continue
            line = token.start[0] - 2
            if not current or token.start[0] != current_line:
                current = []
                runs.setdefault(line, []).append(current)
            current_line = token.start[0]
            current.append((token.start[1] + piece[0], piece[1], piece[2]))
    except (tokenize.TokenError, SyntaxError):
        return {}
    return {line: tuple(tuple(run) for run in found) for line, found in runs.items()}


def _piece(token: tokenize.TokenInfo) -> tuple[int, str, bool] | None:
    """A plain string piece standing on one line: where its body starts in the token, its
    value, and whether the body is the value as written (``None``: not such a piece)."""
    if token.type != tokenize.STRING or token.start[0] != token.end[0]:
        return None
    quote = token.string[-1] * (3 if token.string.endswith(token.string[-1] * 3) else 1)
    start = token.string.find(quote)
    if "f" in token.string[:start].lower():
        return None
    try:
        value = ast.literal_eval(token.string)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    text = value.decode("latin-1") if isinstance(value, bytes) else str(value)
    body = token.string[start + len(quote) : len(token.string) - len(quote)]
    return start + len(quote), text, body == text


def string_places(pattern: Pattern, segment: Sequence[str]) -> list[tuple[int, int]]:
    """Where a literal whose value matches ``pattern`` reports it: ``(line, column)``
    within its source ``segment`` (as :func:`line_runs` counts them), for each line whose
    raw text, or one of whose runs, shows the match; else its start, ``(0, 0)``."""
    places: list[tuple[int, int]] = []
    runs: dict[int, tuple[Run, ...]] | None = None
    for index, raw in enumerate(segment):
        if match_text(pattern, raw):
            places.append((index, column(pattern, raw)))
            continue
        runs = line_runs(segment) if runs is None else runs
        col = run_column(pattern, runs.get(index, ()))
        if col is not None:
            places.append((index, col))
    return places or [(0, 0)]


def run_column(pattern: Pattern, runs: Sequence[Run]) -> int | None:
    """The column where ``pattern`` stands in one of a line's runs (:func:`line_runs`):
    where its first character is written, in a piece without escapes; else where the body
    of the piece holding it starts.  ``None``: in none of them."""
    for run in runs:
        joined = "".join(value for _, value, _ in run)
        if not match_text(pattern, joined):
            continue
        index, seen = column(pattern, joined), 0
        for col, value, exact in run:
            if index < seen + len(value):
                return col + (index - seen if exact else 0)
            seen += len(value)
        return run[-1][0]
    return None
