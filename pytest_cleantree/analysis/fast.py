"""The fast path: the reference's answer, with as little parsed and walked as possible.

A file whose text (in any view, see :class:`.text.TextViews`) spells no
pattern is not parsed at all; in the others only the pieces that can hold an
occurrence are parsed (:func:`.pieces.parse_needed`) and only the statements
on candidate lines are walked.  Each shortcut is an over-approximation; where
one cannot decide, it steps aside (a whole parse, every line a candidate).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence

from pytest_cleantree.model import Pattern

from .aliases import alias_binders
from .deep import deep_enough
from .pieces import parse_needed
from .records import FileAnalysis
from .reference import (
    PARSE_ERRORS,
    module_of,
    prepare,
    resolve_names,
    scan_file,
    too_large,
    unparsed,
    with_line_patterns,
)
from .resolve import needs_resolution, resolve_qualified
from .scan import Scanner, candidate_lines
from .text import (
    DECODE_ERRORS,
    PatternSet,
    TextViews,
    compile_patterns,
    decode_python,
    is_python_path,
    present_patterns,
    spelling_lines,
    split_lines,
    too_large_to_parse,
)


def parse_worthy(
    path: str, data: bytes, patterns: Sequence[Pattern], *, module: str | None = None
) -> list[Pattern] | None:
    """The patterns that :func:`analyze_fast` would parse this file for (often none).

    ``None`` for a file that is not parsed whatever it holds (not Python, too
    large, undecodable): analyse it with every pattern, it is cheap.  Passing
    the returned list to :func:`analyze_fast` gives the same answer as the full one.
    ``module`` (the file's module name) does not change which patterns a file spells.
    """
    del module
    if not is_python_path(path) or too_large_to_parse(len(data)):
        return None
    try:
        text = decode_python(data)
    except DECODE_ERRORS:
        return None
    views = TextViews(text, split_lines(text))
    present = present_patterns(views, compile_patterns(patterns), together=True)
    _LAST.views = (data, views)  # the analysis that follows reads the same bytes
    if present and views.unbroken:  # ... or, the engine asking every file first, later
        known = _known_unbroken()
        if len(known) > _KNOWN_MAX:
            known.clear()
        known[id(data)] = (data, views.unbroken)
    return present


#: per thread (a fleet checks its hosts in threads), the views :func:`parse_worthy` made
#: last, with the very bytes they were made from: the engine asks it, then analyses the
#: same bytes object, which need not be decoded twice.  When it asks every file first,
#: what the break search proved of each (``TextViews.unbroken``) is kept instead, by
#: the identity of the bytes (held, so that the identity is not reused)
_LAST = threading.local()
_KNOWN_MAX = 100_000


def forget_prefilter() -> None:
    """Let go of what :func:`parse_worthy` kept for analyses this thread did not run.

    The engine calls it after each batch: files analysed in worker processes
    never take theirs, and their bytes would otherwise stay alive.
    """
    _LAST.views = None
    _known_unbroken().clear()


def _known_unbroken() -> dict[int, tuple[bytes, frozenset[str]]]:
    known: dict[int, tuple[bytes, frozenset[str]]] | None = getattr(_LAST, "unbroken", None)
    if known is None:
        known = _LAST.unbroken = {}
    return known


def _views_of(data: bytes, text: str, lines: tuple[str, ...]) -> TextViews:
    """The text views of these bytes: those just made by :func:`parse_worthy`, or new ones."""
    last: tuple[bytes, TextViews] | None = getattr(_LAST, "views", None)
    _LAST.views = None
    known = _known_unbroken().pop(id(data), None)
    if last is not None and last[0] is data and last[1].text == text:
        return last[1]
    views = TextViews(text, lines)
    if known is not None and known[0] is data:
        views.unbroken = known[1]
    return views


@with_line_patterns
@deep_enough
def analyze_fast(
    path: str,
    data: bytes,
    patterns: Sequence[Pattern],
    *,
    comments: bool = True,
    module: str | None = None,
    stars: Mapping[str, frozenset[str]] | None = None,
) -> FileAnalysis:
    """Find every occurrence of ``patterns`` in one file's bytes (see the module doc).

    ``stars`` as for :func:`.reference.analyze_reference`.
    """
    prepared = prepare(path, data, patterns)
    if isinstance(prepared, FileAnalysis):
        return prepared
    text, lines = prepared
    views = _views_of(data, text, lines)
    present = present_patterns(views, compile_patterns(patterns))
    if not present:  # each file is scanned only for what it can spell
        return FileAnalysis(path, lines, ())
    if too_large_to_parse(len(data)):
        return too_large(path, len(data), lines, present)
    spelt = PatternSet.of(present)
    module, is_package = module_of(path, module)
    resolving = needs_resolution(text, views.norm, spelt)
    binders = alias_binders(spelt, module, is_package=is_package) if resolving else None
    # a ``from M import *`` that binds a spelling's last name spells the spelling's first
    # part (or is relative), and the use spells its last: resolving holds, and the piece
    # that star-imports is kept with every piece that imports (see ``stars``)
    spelling = spelling_lines(views, spelt)
    try:
        guesses = {part for body in spelt.qualified_bodies for part in body.split(".")}
        tree = parse_needed(text, lines, path, spelling, binders, views.norm, guesses)
    except PARSE_ERRORS as exc:
        return unparsed(path, lines, present, exc)
    resolved, unresolved = resolve_names(
        tree,
        lambda: resolve_qualified(
            text, tree, module, spelt, is_package=is_package, norm=views.norm
        ),
        wanted=resolving,
        text=views.norm,
    )
    candidates = candidate_lines(spelling, resolved)
    scanner = Scanner(
        lines, spelt, module, resolved, candidates, is_package=is_package, stars=stars
    )
    return scan_file(scanner, path, text, tree, comments=comments, problem=unresolved)
