"""The tree's symbol graph, grown both ways: every module of the tree that can spell a target.

:func:`.spellings.read_chains` reads the modules a pattern *names* (its prefixes and the
re-export chains they lead through): enough to follow a re-export spelling to the
definition.  The other direction needs the modules that *import* the symbol and make a
new spelling of it (``os`` does ``import posixpath as path``; ``collections.abc`` does
``from _collections_abc import *``; ``layers/moe.py`` does ``from .gate import TopK``),
which no pattern names.  :func:`grow_chains` finds them in the whole tree, round by
round, to the fixpoint: a module can make a spelling of a target only through an import
statement that names the last part of a name that reaches it (the target, or a module on
its way), or a star import of a module holding one.  :func:`import_summary` reads that
from a file's text without parsing it (kept by content in a :class:`SummaryStore`): a
prefilter that only admits files, never an edge.  The modules it admits are parsed whole
into the export map (:func:`.exports.parse_module_exports`, the one binding model), so an
import in a docstring or a string binds nothing.
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

import re
import unicodedata
from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from pytest_cleantree.analysis import decode_python
from pytest_cleantree.names.exports import BindingKind, ModuleExports, parse_module_exports
from pytest_cleantree.names.symbols import ExportMap, Meter
from pytest_cleantree.sources.base import NoNeedle, Source

__all__ = [
    "STAR_NEEDLE",
    "ImportSummary",
    "Reach",
    "SummaryStore",
    "TreeModule",
    "grow_chains",
    "import_summary",
    "spelling_words",
]
#: an import statement longer than this is not read: the file is admitted whatever it holds
_MAX_STATEMENT = 20_000
#: the star marker: a star import whose module could not be read from the text
UNKNOWN_STAR = "*"

#: the needle that makes a server send every file that may hold a star import (which
#: binds names its text does not show; the needle test cannot tell ``import *`` from a
#: product, so it sends every file with a ``*``)
STAR_NEEDLE = "*"

_FROM_BEFORE = re.compile(r"\bfrom\s+(\.*)\s*([\w.]*)\s*$")
#: an import clause that is a star: ``*`` after spaces and backslash-newlines
_STAR_CLAUSE = re.compile(r"[\s\\]*\*")
_WORD = re.compile(r"\w+")
_AS = re.compile(r"\s+as(?:\s|\\)+")


@dataclass(frozen=True)
class ImportSummary:
    """What one file's import statements can re-export, read from its text alone.

    ``names``: (the last part of the module, the name) for each ``from M import NAME``
    and each ``import M.NAME as X`` (the module it makes ``X``); the module part is
    ``""`` when the text does not say (``from . import x``, a statement spread over
    lines).  ``stars``: the last part of each module a ``from M import *`` takes
    (:data:`UNKNOWN_STAR` when the text does not say).  An over-approximation: a
    string or comment that reads like an import adds names.
    """

    names: frozenset[tuple[str, str]]
    stars: frozenset[str]
    #: every part of every module a plain ``import a.b.c`` names (``a``, ``b``, ``c``)
    modules: frozenset[str] = frozenset()

    def may_spell(self, words: frozenset[str]) -> bool:
        """Can this module bind a name that reaches a target (whose last part is in ``words``)?

        Only through an import of such a name from a module whose last part is in
        ``words`` too (a module on the way reaches the target), or from one the text
        does not name; or through a star import of such a module.
        """
        for module, name in self.names:
            if name in words and (not module or module in words):
                return True
        return UNKNOWN_STAR in self.stars or not self.stars.isdisjoint(words)


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


def import_summary(text: str) -> ImportSummary:
    """The names the file's import statements take (see :class:`ImportSummary`)."""
    names: set[tuple[str, str]] = set()
    stars: set[str] = set()
    modules: set[str] = set()
    for keyword in _keywords(text):
        start = keyword + len("import")
        end = _statement_end(text, start)
        if end is None:
            stars.add(UNKNOWN_STAR)
            continue
        clause = text[start:end]
        if not clause.isascii():
            clause = unicodedata.normalize("NFKC", clause)
        line_start = text.rfind("\n", 0, keyword) + 1
        before = text[line_start:keyword]
        from_module = _FROM_BEFORE.search(before)
        continued = line_start > 1 and text[line_start - 2] == "\\"
        module = from_module.group(2).rsplit(".", 1)[-1] if from_module else ""
        if _STAR_CLAUSE.match(clause):  # ``from m import \\`` and ``*`` on the next line too
            stars.add(module or UNKNOWN_STAR)
        elif from_module or continued or before.strip().endswith("\\"):
            names.update((module, word) for word in _WORD.findall(clause) if word != "as")
        else:
            names.update(_renamed_modules(clause))
            modules.update(_WORD.findall(clause))
    return ImportSummary(frozenset(names), frozenset(stars), frozenset(modules))


def _keywords(text: str) -> Iterable[int]:
    """Where the word ``import`` stands (``str.find``: far faster than a ``\\b`` regex)."""
    index = text.find("import")
    while index >= 0:
        end = index + len("import")
        if (index == 0 or not _is_word(text[index - 1])) and (
            end == len(text) or not _is_word(text[end])
        ):
            yield index
        index = text.find("import", end)


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _renamed_modules(clause: str) -> Iterable[tuple[str, str]]:
    """``import a.b as x, c``: (``a``, ``b``) for each module given a name of its own.

    ``import c`` binds ``c`` itself: no new spelling of anything.  A top-level
    module renamed (``import posixpath as path``) has no module part (``""``).
    """
    for part in clause.split(","):
        split = _AS.split(part, maxsplit=1)
        if len(split) < 2:
            continue
        dotted = split[0]
        parts = _WORD.findall(dotted)
        if parts:
            yield (parts[-2] if len(parts) > 1 else ""), parts[-1]
        else:  # not plainly ``import a.b as x``: every word, from any module
            yield from (("", word) for word in _WORD.findall(part) if word != "as")


def _statement_end(text: str, start: int) -> int | None:
    """Where the logical line from ``start`` ends (brackets, backslashes, comments skipped)."""
    depth = 0
    index = start
    limit = min(len(text), start + _MAX_STATEMENT)
    while index < limit:
        char = text[index]
        if char == "#":
            newline = text.find("\n", index)
            index = limit if newline < 0 else newline
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(depth - 1, 0)
        elif char == "\\" and text.startswith("\n", index + 1):
            index += 2
            continue
        elif char in "\n;" and depth == 0:
            return index
        index += 1
    return index if limit == len(text) else None


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
) -> tuple[ExportMap, Reach]:
    """Add to ``parsed`` every module of ``tree`` that can make a spelling of the patterns.

    Round by round, to the fixpoint: the words of the names that reach a target
    (:func:`spelling_words`) admit the modules whose imports take one
    (:meth:`ImportSummary.may_spell`); those are parsed, which may reach more.
    Each module is admitted once, so the rounds end; ``meter`` bounds the work
    (:class:`~.symbols.GraphBudgetError`).  A file the server found to spell none
    of the words stays unread, and is asked again only when the words grow past
    those it was tested with.
    """
    meter = meter or Meter()
    summaries: dict[str, ImportSummary] = {}
    held: dict[str, bytes] = {}
    left = [m for m in tree if m.module and m.module not in parsed]
    #: per unread file, the words the server found it spells none of
    unbound: dict[str, frozenset[str]] = {}
    if store is not None:
        summaries.update(store.summaries(source, [m.path for m in left]))
    emap = ExportMap(parsed, meter=meter)
    unread = [m.path for m in left if m.path not in summaries]
    tried: set[str] = set()
    while True:
        words = spelling_words(emap, patterns)
        stale = [path for path in unread if not words <= unbound.get(path, frozenset())]
        if stale:
            still = set(_summarise(source, stale, words, summaries, held, store))
            unbound.update((path, words) for path in still)
            asked = set(stale)
            unread = [path for path in unread if path in still or path not in asked]
        admitted = _admitted(left, tried, parsed, summaries, words)
        if not admitted:
            break
        for module in admitted:
            meter.spend(module.module)
        tried.update(m.path for m in admitted)
        _parse(source, admitted, held, parsed, texts, store)
        emap = ExportMap(parsed, meter=meter)
    return emap, _reach(summaries.values(), parsed.values())


def _admitted(
    left: Sequence[TreeModule],
    tried: set[str],
    parsed: Mapping[str, ModuleExports],
    summaries: Mapping[str, ImportSummary],
    words: frozenset[str],
) -> list[TreeModule]:
    """The modules this round parses: not yet tried, and whose imports take one of ``words``."""
    return [
        m
        for m in left
        if m.path not in tried
        and m.module not in parsed
        and m.path in summaries
        and summaries[m.path].may_spell(words)
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
        data = contents.get(path)
        if isinstance(data, NoNeedle):  # the server's test, given the star needle too
            still.append(path)
            continue
        if not isinstance(data, bytes):
            continue  # unreadable: the check that names it reports it; no spelling from it
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
    contents: Mapping[str, object] = source.read(missing) if missing else {}
    for module in todo:
        data = held.pop(module.path, None) or contents.get(module.path)
        if not isinstance(data, bytes):
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
