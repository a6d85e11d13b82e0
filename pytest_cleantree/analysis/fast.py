"""The fast path: the reference's answer, with as little parsed and walked as possible.

A file whose text (in any view, see :class:`.text.TextViews`) spells no
pattern is not parsed at all; in the others only the pieces that can hold an
occurrence are parsed (:func:`.pieces.parse_needed`) and only the statements
on candidate lines are walked.  Each shortcut is an over-approximation; where
one cannot decide, it steps aside (a whole parse, every line a candidate).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pytest_cleantree.core.findings import FileAnalysis
from pytest_cleantree.core.model import Pattern

from .aliases import AliasBinders
from .deep import deep_enough
from .lines import with_allows
from .parts import part_of
from .pieces import parse_needed
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
    TextViews,
    compile_patterns,
    present_patterns,
    spelling_lines,
    too_large_to_parse,
)


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
    return _ANALYZE(path, data, patterns, comments=comments, module=module, stars=stars)


def _analyze(
    path: str,
    data: bytes,
    patterns: Sequence[Pattern],
    *,
    comments: bool,
    module: str | None,
    stars: Mapping[str, frozenset[str]] | None,
) -> FileAnalysis:
    prepared = prepare(path, data, patterns)
    if isinstance(prepared, FileAnalysis):
        return prepared
    text, lines = prepared
    views = TextViews(text, lines)
    # one search for the whole list: it is shared by many files, its expression compiled once
    compiled = compile_patterns(patterns)
    present = present_patterns(views, compiled, together=True)
    if not present:  # each file is scanned only for what it can spell
        return FileAnalysis(path, lines, ())
    if too_large_to_parse(len(data)):
        return too_large(path, len(data), text, lines, present)
    spelt = part_of(compiled, present)
    module, is_package = module_of(path, module)
    resolving = needs_resolution(text, views.norm, spelt)
    binders = AliasBinders(spelt, module, is_package=is_package) if resolving else None
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
            text,
            tree,
            module,
            spelt,
            is_package=is_package,
            norm=views.norm,
            names=binders.imported_names(tree) if binders else None,
        ),
        wanted=resolving,
        text=views.norm,
        bodies=spelt.qualified_bodies,
    )
    candidates = candidate_lines(spelling, resolved)
    scanner = Scanner(
        lines, spelt, module, resolved, candidates, is_package=is_package, stars=stars
    )
    return scan_file(scanner, path, text, tree, comments=comments, problem=unresolved)


#: allow comments, whole-line patterns and deep nesting around the analysis, composed by call
#: rather than with ``@``: mutmut mutates no decorated function (``bench/mutation.py``)
_ANALYZE = with_allows(with_line_patterns(deep_enough(_analyze)))
