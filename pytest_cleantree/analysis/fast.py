"""The fast path: the reference's answer, with as little parsed and walked as possible.

A file whose bytes cannot spell a needle, however Python's tokenizer reads them (the
agent's :func:`~pytest_cleantree.agent.could_spell`, the servers' test: one model), is not
even decoded; one whose text (in any view, see :class:`.text.TextViews`) spells no
pattern is not parsed at all; in the others only the pieces that can hold an
occurrence are parsed (:func:`.pieces.parse_needed`) and only the statements
on candidate lines are walked.  Each shortcut is an over-approximation; where
one cannot decide, it steps aside (a whole parse, every line a candidate).
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Mapping, Sequence

from pytest_cleantree.agent import could_spell, enc
from pytest_cleantree.core.findings import FileAnalysis
from pytest_cleantree.core.model import Pattern

from .aliases import AliasBinders
from .asking import asked_positions
from .constructs import needs_resolution
from .decoding import DECODE_ERRORS, decode_python
from .deep import deep_enough
from .lines import with_allows
from .parts import part_at, part_of
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
from .resolve import resolve_qualified
from .scan import Scanner, candidate_lines
from .text import (
    PatternSet,
    TextViews,
    compile_patterns,
    is_python_path,
    present_patterns,
    spelling_lines,
    split_lines,
    too_large_to_parse,
)

#: the engine variable (see :mod:`pytest_cleantree.analysis`): ``every-spelling`` asks every
#: pattern of a file's list of it (:func:`.text.present_patterns`, the oracle of
#: :func:`.text.present_asked`, which asks only what the file may spell)
ENGINE_ENV = "CLEANTREE_ENGINE"

#: above this many needles in a list, the byte test is not tried: the word split (one pass,
#: one set lookup per needle) costs less than a search per needle
BYTE_TEST_MAX_NEEDLES = 8


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


def analyze_words(
    path: str,
    data: bytes,
    patterns: Sequence[Pattern],
    *,
    comments: bool = True,
    module: str | None = None,
    stars: Mapping[str, frozenset[str]] | None = None,
) -> FileAnalysis:
    """:func:`analyze_fast` without the byte test: every Python file decoded and its words
    split (what the byte test must agree with, see ``CLEANTREE_ENGINE=words``)."""
    return _ANALYZE_WORDS(path, data, patterns, comments=comments, module=module, stars=stars)


def _analyze(
    path: str,
    data: bytes,
    patterns: Sequence[Pattern],
    *,
    comments: bool,
    module: str | None,
    stars: Mapping[str, frozenset[str]] | None,
) -> FileAnalysis:
    """The byte test first: a file that cannot spell a needle has no finding.

    ``could_spell`` says "may" for every file it does not model (bytes that are neither
    ASCII nor UTF-8, a coding line, a NUL byte, a named escape): when it says "no", the file
    is UTF-8 with no coding line, which :func:`.reference.prepare` decodes as here, and the
    answer is the one the views give a file that spells no pattern.  It is asked with
    ``nfkc``: this Python's NFKC is the one the analysis (and the parse) uses.
    """
    pairs = _byte_needles(compile_patterns(patterns)) if is_python_path(path) else None
    if pairs is not None and not could_spell(data, pairs, nfkc=True):
        with contextlib.suppress(*DECODE_ERRORS):
            return FileAnalysis(path, split_lines(decode_python(data)), ())
    return _analyze_words(path, data, patterns, comments=comments, module=module, stars=stars)


@functools.lru_cache(maxsize=64)
def _byte_needles(patterns: PatternSet) -> tuple[tuple[bytes, str], ...] | None:
    """The needles as :func:`~pytest_cleantree.agent.could_spell` takes them (the list the
    SSH source sends); ``None``: a pattern has none (a regex), or there are too many."""
    needles = {needle for _, needle, _ in patterns.needles}
    if None in needles or len(needles) > BYTE_TEST_MAX_NEEDLES:
        return None
    return tuple((enc(n), n) for n in sorted(filter(None, needles)))


def _analyze_words(
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
    module, is_package = module_of(path, module)
    spelt = _asked(views, compiled, module, is_package=is_package)
    present = spelt.patterns
    if not present:  # each file is scanned only for what it can spell
        return FileAnalysis(path, lines, ())
    if too_large_to_parse(len(data)):
        return too_large(path, len(data), text, lines, present)
    resolving = needs_resolution(text, views.norm, spelt)
    binders = AliasBinders(spelt, module, is_package=is_package) if resolving else None
    # a ``from M import *`` that binds a spelling's last name spells the spelling's first
    # part (or is relative), and the use spells its last: resolving holds, and the piece
    # that star-imports is kept with every piece that imports (see ``stars``)
    spelling = spelling_lines(views, spelt)
    try:
        guesses = spelt.qualified_parts
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
        bodies=spelt.covering,
    )
    candidates = candidate_lines(spelling, resolved)
    scanner = Scanner(
        lines, spelt, module, resolved, candidates, is_package=is_package, stars=stars
    )
    return scan_file(scanner, path, text, tree, comments=comments, problem=unresolved)


def _asked(views: TextViews, compiled: PatternSet, module: str, *, is_package: bool) -> PatternSet:
    """The file's part of the list: what it may spell, looked up by needle
    (:func:`.asking.asked_positions`), or with ``CLEANTREE_ENGINE=every-spelling`` each
    pattern asked in turn (:func:`.text.present_patterns`, the oracle)."""
    if os.environ.get(ENGINE_ENV) != "every-spelling":
        keep = asked_positions(views, compiled, module, is_package=is_package, together=True)
        if keep is not None:
            return part_at(compiled, keep)
    return part_of(compiled, present_patterns(views, compiled, together=True))


#: allow comments, whole-line patterns and deep nesting around the analysis, composed by call
#: rather than with ``@``: mutmut mutates no decorated function (``bench/mutation.py``)
_ANALYZE = with_allows(with_line_patterns(deep_enough(_analyze)))
_ANALYZE_WORDS = with_allows(with_line_patterns(deep_enough(_analyze_words)))
