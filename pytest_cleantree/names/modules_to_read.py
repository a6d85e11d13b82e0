"""The tree's symbol graph, grown both ways: every module of the tree that can spell a target.

:func:`.spellings.read_chains` reads the modules a pattern *names* (its prefixes and the
re-export chains they lead through): enough to follow a re-export spelling to the
definition.  The other direction needs the modules that *import* the symbol and make a
new spelling of it (``os`` does ``import posixpath as path``; ``collections.abc`` does
``from _collections_abc import *``; ``layers/moe.py`` does ``from .gate import TopK``),
which no pattern names.  :func:`grow_chains` finds them in the whole tree, round by
round, to the fixpoint: a module can make a spelling of a target only through an import
statement that names the last part of a name that reaches it (the target, or a module on
its way), or a star import of a module holding one.  :func:`.imports.import_summary` reads
that from a file's text without parsing it (kept by content in a :class:`SummaryStore`): a
prefilter that only admits files, never an edge, and may admit more than it must, never
fewer (``CLEANTREE_ENGINE=reference`` parses every file instead: the path it is held
to).  The modules it admits are parsed whole into the export map
(:func:`.exports.parse_module_exports`, the one binding model), so an import in a
docstring or a string binds nothing.
A server sends only the files that may spell a word or a star import (its needle
test, :func:`pytest_cleantree.agent.could_spell`, given :data:`STAR_NEEDLE` too); the
others stay unread until the words grow.  A local source reads every file: there the
test costs more than the summary it would save.

Out of reach: a top-level module imported under another name and then imported from
the module that renamed it (``import json as j`` in ``m``, ``from m import j``): the
plain ``import json`` that such a chain starts from is not a re-export, and every
module of a tree does one.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from pytest_cleantree.analysis import ENGINE_ENV, decode_python
from pytest_cleantree.names.budget import Meter
from pytest_cleantree.names.exports import (
    BindingKind,
    ModuleExports,
    exports_of_tree,
    parse_module_exports,
)
from pytest_cleantree.names.imports import (
    UNKNOWN_STAR,
    ImportSummary,
    import_summary,
    parsed_summary,
)
from pytest_cleantree.names.symbol_graph import ExportMap
from pytest_cleantree.sources.base import FileRead, NoNeedle, ReadAnswer, Source

__all__ = [
    "STAR_NEEDLE",
    "Reach",
    "SummaryStore",
    "TreeModule",
    "grow_chains",
    "spelling_words",
]

#: the needle that makes a server send every file that may hold a star import (which
#: binds names its text does not show; the needle test cannot tell ``import *`` from a
#: product, so it sends every file with a ``*``)
STAR_NEEDLE = "*"


class SummaryStore(Protocol):
    """Where the graph's per-file parts persist by content (the run's cache).

    The names layer only asks it; :mod:`pytest_cleantree.run.graphstore` keeps them.
    """

    def summaries(self, source: Source, paths: Sequence[str]) -> dict[str, ImportSummary]:
        """The summaries of the files unchanged since they were stored (left unread)."""
        ...

    def keep(self, source: Source, path: str, data: bytes, summary: ImportSummary) -> None:
        """Store the summary of the file read as ``data``."""
        ...

    def exports(self, path: str, module: str, is_package: bool) -> ModuleExports | None:
        """The import exports stored for the file's current content, under that module name."""
        ...

    def keep_exports(self, path: str, exports: ModuleExports) -> None:
        """Store the import exports of the file whose content was summarised or read."""
        ...

    def whole(self, path: str, data: bytes, module: str, is_package: bool) -> ModuleExports | None:
        """The whole module's exports stored for this content and module name."""
        ...

    def keep_whole(self, path: str, data: bytes, exports: ModuleExports) -> None:
        """Store the whole module's exports of the file read as ``data``."""
        ...


@dataclass(frozen=True)
class Reach:
    """What the tree's imports can reach: a spelling ``m.x`` no import can reach is no use.

    ``m.x...`` is reachable when some module imports ``x`` from a module named like
    ``m`` (or from one the text does not name), or imports ``m`` itself (then
    ``m.x`` is an attribute away).  ``None`` fields: not known (a file was not
    summarised), every spelling is kept.
    """

    pairs: frozenset[tuple[str, str]] | None = None
    modules: frozenset[str] | None = None
    #: the last part of each module a star import takes (:data:`UNKNOWN_STAR`: one unnamed)
    stars: frozenset[str] = frozenset()

    def reaches(self, module: str, name: str) -> bool:
        if self.pairs is None or self.modules is None:
            return True
        last = module.rsplit(".", 1)[-1]
        if (last, name) in self.pairs or ("", name) in self.pairs:
            return True
        if last in self.stars or UNKNOWN_STAR in self.stars:
            return True
        return last in self.modules or any(n == last for _, n in self.pairs)


@dataclass(frozen=True)
class TreeModule:
    """A Python file of the tree, with the module the layout names it."""

    path: str
    module: str
    is_package: bool


def pattern_targets(emap: ExportMap, pattern: str) -> frozenset[str]:
    """Where a pattern leads (every binding on the way), and the pattern as written."""
    return emap.canonicals(pattern) | {pattern}


def spelling_words(emap: ExportMap, patterns: Iterable[str]) -> frozenset[str]:
    """The words a module's imports must name to make a new spelling of the patterns' targets.

    The last part of every name that reaches a target (:meth:`ExportMap.reach`):
    module parts included, as a module on a target's way is a name that reaches it
    (``posixpath`` and ``path`` for ``posixpath.join``, ``os`` being read).  A star
    import of a module is named by the module's last part, which is among them.
    """
    targets: set[str] = set()
    for pattern in patterns:
        targets |= pattern_targets(emap, pattern)
    return frozenset(name.rsplit(".", 1)[-1] for name in emap.reach(targets))


def grow_chains(
    source: Source,
    patterns: Sequence[str],
    tree: Sequence[TreeModule],
    parsed: MutableMapping[str, ModuleExports],
    texts: MutableMapping[str, tuple[str, str]],
    store: SummaryStore | None = None,
    meter: Meter | None = None,
    every: bool | None = None,
) -> tuple[ExportMap, Reach]:
    """Add to ``parsed`` every module of ``tree`` that can make a spelling of the patterns.

    Round by round, to the fixpoint: the words of the names that reach a target
    (:func:`spelling_words`) admit the modules whose imports take one
    (:meth:`ImportSummary.may_spell`); those are parsed, which may reach more.
    Each module is admitted once, so the rounds end; ``meter`` bounds the work
    (:class:`~.budget.GraphBudgetError`).  A file the server found to spell none
    of the words stays unread, and is asked again only when the words grow past
    those it was tested with.

    ``every`` (by default, under ``CLEANTREE_ENGINE=reference``): the obviously-correct
    path the prefilter is held to: every module parsed, the reach read from the parser
    (:func:`parsed_summary`), nothing stored.
    """
    meter = meter or Meter()
    left = [m for m in tree if m.module and m.module not in parsed]
    if _parses_every(every):
        return _parse_every(source, left, parsed, texts, meter)
    summaries: dict[str, ImportSummary] = {}
    held: dict[str, bytes] = {}
    #: per unread file, the words the server found it spells none of
    unbound: dict[str, frozenset[str]] = {}
    if store is not None:
        summaries.update(store.summaries(source, [m.path for m in left]))
    emap = ExportMap(parsed, meter=meter)
    unread = [m.path for m in left if m.path not in summaries]
    tried: set[str] = set()
    while True:
        words = spelling_words(emap, patterns)
        unread = _ask(source, unread, unbound, words, summaries, held, store)
        admitted = _admitted(left, tried, parsed, summaries, words, emap.star_needs())
        if not admitted:
            break
        for module in admitted:
            meter.spend(module.module)
        tried.update(m.path for m in admitted)
        _parse(source, admitted, held, parsed, texts, store)
        emap = ExportMap(parsed, meter=meter)
    return emap, _reach(summaries.values(), parsed.values())


def _ask(
    source: Source,
    unread: list[str],
    unbound: dict[str, frozenset[str]],
    words: frozenset[str],
    summaries: dict[str, ImportSummary],
    held: dict[str, bytes],
    store: SummaryStore | None,
) -> list[str]:
    """Summarise the unread files not yet asked with these words; those still unread."""
    stale = [path for path in unread if not words <= unbound.get(path, frozenset())]
    if not stale:
        return unread
    still = set(_summarise(source, stale, words, summaries, held, store))
    unbound.update((path, words) for path in still)
    asked = set(stale)
    return [path for path in unread if path in still or path not in asked]


def _parses_every(every: bool | None) -> bool:
    """Does the graph parse every module (``None``: under ``CLEANTREE_ENGINE=reference``)?"""
    return os.environ.get(ENGINE_ENV) == "reference" if every is None else every


def _admitted(
    left: Sequence[TreeModule],
    tried: set[str],
    parsed: Mapping[str, ModuleExports],
    summaries: Mapping[str, ImportSummary],
    words: frozenset[str],
    needed: frozenset[str],
) -> list[TreeModule]:
    """The modules this round parses: not yet tried, and whose imports take one of ``words``,
    or whose exports a star import of a parsed module needs (``needed``: what it binds is
    known only when every module it star-imports is read, even one that imports nothing)."""
    return [
        m
        for m in left
        if m.path not in tried
        and m.module not in parsed
        and (m.module in needed or (m.path in summaries and summaries[m.path].may_spell(words)))
    ]


def _reach(summaries: Iterable[ImportSummary], parsed: Iterable[ModuleExports]) -> Reach:
    pairs: set[tuple[str, str]] = set()
    modules: set[str] = set()
    stars: set[str] = set()
    for summary in summaries:
        pairs |= summary.names
        modules |= summary.modules
        stars |= summary.stars
    for exports in parsed:  # the chains' modules (not summarised: their imports count too)
        for binding in exports.bindings:
            if binding.kind is BindingKind.FROM:
                pairs.add((binding.module.rsplit(".", 1)[-1], binding.attr))
            elif binding.kind is BindingKind.MODULE:
                modules.update(binding.module.split("."))
            elif binding.kind is BindingKind.STAR:
                stars.add(binding.module.rsplit(".", 1)[-1])
    return Reach(frozenset(pairs), frozenset(modules), frozenset(stars))


def _summarise(
    source: Source,
    paths: Sequence[str],
    needles: frozenset[str],
    summaries: dict[str, ImportSummary],
    held: dict[str, bytes],
    store: SummaryStore | None,
) -> list[str]:
    """Read and summarise ``paths``; the files that spell no needle stay unread (returned)."""
    contents = source.read(sorted(paths), sorted(needles | {STAR_NEEDLE}))
    still: list[str] = []
    for path in paths:
        read = contents.get(path)
        if isinstance(read, NoNeedle):  # the server's test, given the star needle too
            still.append(path)
            continue
        if not isinstance(read, FileRead):
            continue  # unreadable: the check that names it reports it; no spelling from it
        data = read.data
        try:
            text = decode_python(data)
        except (LookupError, SyntaxError, ValueError):
            text = data.decode("utf-8", errors="replace")
        summary = import_summary(text)
        summaries[path] = summary
        if summary.names or summary.stars:
            held[path] = data
        if store is not None:
            store.keep(source, path, data, summary)
    return still


def _parse(
    source: Source,
    admitted: Sequence[TreeModule],
    held: dict[str, bytes],
    parsed: MutableMapping[str, ModuleExports],
    texts: MutableMapping[str, tuple[str, str]],
    store: SummaryStore | None = None,
) -> None:
    """Parse the admitted modules whole into ``parsed`` (or take them from ``store``).

    One that cannot be read, decoded or parsed adds nothing: Python cannot import
    it either, so it re-exports nothing (a check that names it reports it).
    """
    todo = []
    for module in admitted:
        stored = store.exports(module.path, module.module, module.is_package) if store else None
        if stored is not None:
            parsed[module.module] = stored
            texts[module.module] = (module.path, "")  # (the text is only shown by explain)
        else:
            todo.append(module)
    missing = [m.path for m in todo if m.path not in held]
    contents = source.read(missing) if missing else {}
    for module in todo:
        data = held.pop(module.path, None) or _bytes(contents.get(module.path))
        if data is None:
            continue
        try:
            text = decode_python(data)
            exports = parse_module_exports(module.module, text, is_package=module.is_package)
        except (LookupError, SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        parsed[module.module] = exports
        texts[module.module] = (module.path, text)
        if store is not None:
            store.keep_exports(module.path, exports)


def _bytes(read: ReadAnswer | None) -> bytes | None:
    """A file's bytes, or ``None`` when it was not read (why is the checks' to report)."""
    return read.data if isinstance(read, FileRead) else None


def _parse_every(
    source: Source,
    modules: Sequence[TreeModule],
    parsed: MutableMapping[str, ModuleExports],
    texts: MutableMapping[str, tuple[str, str]],
    meter: Meter,
) -> tuple[ExportMap, Reach]:
    """Parse every module into ``parsed``; the reach from each one's imports as parsed.

    One that cannot be read, decoded or parsed adds nothing (as in :func:`_parse`).
    """
    for module in modules:
        meter.spend(module.module)
    contents = source.read(sorted(m.path for m in modules)) if modules else {}
    found: list[ImportSummary] = []
    for module in modules:
        data = _bytes(contents.get(module.path))
        if data is None:
            continue
        try:
            text = decode_python(data)
            tree = ast.parse(text)
            exports = exports_of_tree(module.module, tree, is_package=module.is_package)
        except (LookupError, SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        parsed[module.module] = exports
        texts[module.module] = (module.path, text)
        found.append(parsed_summary(tree))
    return ExportMap(parsed, meter=meter), _reach(found, parsed.values())
