"""The reference path: decode as Python does, parse it all, walk it all.

No prefilter, no partial parse, no text heuristics: obviously correct, and
slow.  It is the oracle the fast path (:mod:`.fast`) is held to, finding for
finding, by the differential tests; set ``CLEANTREE_ENGINE=reference`` to run
a check on it (to rule the shortcuts out when a result looks wrong).

Its building blocks (:func:`prepare`, :func:`too_large`, :func:`unparsed`)
are shared with the fast path, so the two differ only in their shortcuts.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from pytest_cleantree.core.findings import FileAnalysis
from pytest_cleantree.core.model import Pattern, PatternTier

from . import text as text_module
from .aliases import with_aliases
from .decoding import DECODE_ERRORS, RefusedSource, decode_python
from .deep import deep_enough
from .lines import ALLOW_MARK, line_findings, text_findings, with_allows
from .pieces import parse_python
from .reader import Key
from .records import decode_problem, parse_problem
from .resolve import Wanted, module_name_for, resolve_reference
from .scan import Scanner
from .text import (
    PatternSet,
    TextViews,
    compile_patterns,
    is_python_path,
    present_patterns,
    split_lines,
    too_large_to_parse,
)
from .textfiles import decode_text, string_views, text_comments

#: what ``ast.parse`` raises for text it cannot turn into a tree
PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)


def prepare(
    path: str, data: bytes, patterns: Sequence[Pattern]
) -> tuple[str, tuple[str, ...]] | FileAnalysis:
    """The file's text and lines, or its whole analysis when it is not Python source.

    A file that is not Python is matched line by line (kind ``text``); a
    Python file whose bytes do not decode gets a problem and text findings.
    """
    if not is_python_path(path):
        return analyze_text(path, data, patterns)
    try:
        text = decode_python(data)
    except RefusedSource as exc:  # Python's own verdict: as a file that does not parse
        return unparsed(path, split_lines(exc.decoded), patterns, exc.reason)
    except DECODE_ERRORS as exc:
        lines = split_lines(data.decode("utf-8", errors="surrogateescape"))
        return FileAnalysis(path, lines, tuple(text_findings(lines, patterns)), decode_problem(exc))
    return text, split_lines(text)


def analyze_text(path: str, data: bytes, patterns: Sequence[Pattern]) -> FileAnalysis:
    """A file that is not Python, read as :mod:`.textfiles` models its language: decoded
    (a byte-order mark honoured, bytes that may hide a pattern a problem), JSON strings
    decoded, allows counted in its comments only."""
    text, problem = decode_text(data, patterns)
    lines = split_lines(text)
    findings = tuple(text_findings(lines, patterns, string_views(path, lines)))
    comments = text_comments(path, lines if ALLOW_MARK in text else ())  # none: none to read
    allows = None if comments is None else tuple(c for c in comments if ALLOW_MARK in c[1])
    return FileAnalysis(path, lines, findings, problem, allows=allows)


def too_large(
    path: str, size: int, text: str, lines: tuple[str, ...], patterns: Sequence[Pattern]
) -> FileAnalysis:
    """A file too large to parse in bounded memory is matched line by line, as grep would.

    Text matching finds every line a substring, glob or exact pattern can
    match (as kind ``text``), where the text spells it as it stands.  A pattern
    it does not find there may still be spelt by what only a parse sees (an
    escape, a join of literals, NFKC letters: the views say whether it can be,
    :func:`.text.present_patterns`; a regex always can), and a qualified pattern
    may hide behind an alias: either makes the check incomplete, the file named.
    """
    findings = tuple(text_findings(lines, patterns))
    found = {finding.pattern for finding in findings}
    unfound = [p for p in patterns if p.text not in found]
    hidden = present_patterns(TextViews(text, lines), PatternSet.of(unfound)) if unfound else []
    why = []
    if any(p.tier is PatternTier.QUALIFIED for p in patterns):
        why.append("aliases of qualified names are not resolved")
    spelt = [p.text for p in hidden if p.tier is not PatternTier.QUALIFIED]
    if spelt:
        why.append(
            f"the text may spell {', '.join(map(repr, spelt))} through an escape, a join of "
            "strings or NFKC letters, which only a parse sees"
        )
    if not why:
        return FileAnalysis(path, lines, findings)
    limit = text_module.MAX_PARSE_BYTES // 2**20
    problem = f"{size / 2**20:.0f} MiB is over the {limit} MiB parse limit: matched as text, so "
    return FileAnalysis(path, lines, findings, problem + "; ".join(why))


def unparsed(
    path: str, lines: tuple[str, ...], patterns: Sequence[Pattern], exc: BaseException
) -> FileAnalysis:
    """A file that does not parse: the problem, and the lines whose text matches."""
    assert isinstance(exc, PARSE_ERRORS)
    line = (exc.lineno or 0) if isinstance(exc, SyntaxError) else 0
    found = tuple(text_findings(lines, patterns))
    return FileAnalysis(path, lines, found, parse_problem(exc), problem_line=line)


def module_of(path: str, module: str | None = None) -> tuple[str, bool]:
    """The file's dotted module name and whether it is a package's ``__init__``.

    ``module`` is the name the tree's layout gives (see
    :mod:`pytest_cleantree.config.layout`); without it, the path under the root.
    """
    name = module_name_for(path) if module is None else module
    return name, path.rsplit("/", 1)[-1].startswith("__init__.")


def with_line_patterns(
    analyze: Callable[..., FileAnalysis],
) -> Callable[..., FileAnalysis]:
    """Match whole-line patterns (``forbid_lines``, ``line@N:``) apart, on each physical line.

    They are text, Python or not, and need no parse: the rest of the patterns
    are analysed as usual and the line findings added.
    """

    @functools.wraps(analyze)
    def wrapper(
        path: str,
        data: bytes,
        patterns: Sequence[Pattern],
        *,
        comments: bool = True,
        module: str | None = None,
        stars: Mapping[str, frozenset[str]] | None = None,
    ) -> FileAnalysis:
        whole, rest = _line_split(patterns)
        if not whole:
            return analyze(path, data, patterns, comments=comments, module=module, stars=stars)
        analysis = analyze(path, data, rest, comments=comments, module=module, stars=stars)
        raw = split_lines(data.decode("utf-8", errors="surrogateescape"))
        lines = analysis.lines or raw
        found = tuple(line_findings(lines, whole, raw if len(raw) == len(lines) else None))
        return replace(analysis, findings=analysis.findings + found)

    return wrapper


def _line_split(
    patterns: Sequence[Pattern],
) -> tuple[tuple[Pattern, ...], tuple[Pattern, ...]]:
    """A list's line patterns and the rest, split once per list (by identity), not per file:
    the rest is then the same list for every file, compiled once (``compile_patterns``)."""
    known = _SPLITS.get(id(patterns))
    if known is not None and known[0] is patterns:
        return known[1]
    whole = tuple(p for p in patterns if p.tier is PatternTier.LINE)
    split = whole, tuple(p for p in patterns if p.tier is not PatternTier.LINE)
    if len(_SPLITS) > 64:
        _SPLITS.clear()
    _SPLITS[id(patterns)] = (patterns, split)
    return split


#: the lists split (each held, so that its id is not reused), by identity
_SPLITS: dict[int, tuple[Sequence[Pattern], tuple[tuple[Pattern, ...], tuple[Pattern, ...]]]] = {}


def analyze_reference(
    path: str,
    data: bytes,
    patterns: Sequence[Pattern],
    *,
    comments: bool = True,
    module: str | None = None,
    stars: Mapping[str, frozenset[str]] | None = None,
) -> FileAnalysis:
    """Every occurrence of ``patterns`` in one file, the obviously correct way.

    ``stars``: per module of the tree, the names ``from M import *`` binds
    that patterns can end with (see :func:`.reader.star_bindings`).
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
    if too_large_to_parse(len(data)):
        return too_large(path, len(data), text, lines, patterns)
    try:
        tree: ast.Module = parse_python(text, path)
    except PARSE_ERRORS as exc:
        return unparsed(path, lines, patterns, exc)
    compiled = compile_patterns(patterns)
    module, is_package = module_of(path, module)
    resolved, unresolved = resolve_names(
        tree,
        lambda: resolve_reference(text, tree, module, compiled, is_package=is_package),
        wanted=bool(compiled.qualified),
        bodies=compiled.covering,
    )
    scanner = Scanner(lines, compiled, module, resolved, None, is_package=is_package, stars=stars)
    return scan_file(scanner, path, text, tree, comments=comments, problem=unresolved)


#: allow comments, whole-line patterns and deep nesting around the analysis, composed by call
#: rather than with ``@``: mutmut mutates no decorated function (``bench/mutation.py``)
_ANALYZE = with_allows(with_line_patterns(deep_enough(_analyze)))


def resolve_names(
    tree: ast.Module,
    resolve: Callable[[], dict[Key, tuple[str, ...]]],
    *,
    wanted: bool,
    text: str | None = None,
    bodies: Wanted | None = None,
) -> tuple[dict[Key, tuple[str, ...]], str | None]:
    """What names resolve to through imports and aliases, or why that could not be known.

    ``text`` (the module's source) only makes following aliases cheaper;
    ``bodies``, the qualified patterns, say which aliases are followed.
    """
    if not wanted:
        return {}, None
    try:
        return with_aliases(tree, resolve(), text, bodies), None
    except Exception as exc:  # astroid is third-party code: any failure is reported
        return {}, f"qualified names could not be resolved through imports ({exc!r})"


def scan_file(
    scanner: Scanner,
    path: str,
    text: str,
    tree: ast.Module,
    *,
    comments: bool,
    problem: str | None,
) -> FileAnalysis:
    """Walk the tree (and the comments) with a scanner set up by either path."""
    scanner.scan(tree)
    if comments:
        scanner.scan_comments(text)
    return FileAnalysis(path, tuple(scanner.lines), tuple(scanner.findings), problem)
