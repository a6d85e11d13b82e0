"""The symbol graph's per-file parts, kept by path and content in the analyses' store.

A warm qualified run reads no file the graph has seen unchanged: the stat index
(:meth:`.cache.AnalysisStore.known_digests`) gives each file's content digest
without reading it, and the digest gives the file's import summary and, for a
module the graph admitted, what its imports bind.  A source whose stats are trusted (the
local one) is asked by stat; a source that holds the content already (the SSH source, for
the files it read ahead) gives the digests of what it holds.  A remote tree's Python files
are kept in the same store by the same digest (:class:`.kept.KeptContent`): a warm run
names them to the server's agent, which sends only those whose content has another digest.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from pytest_cleantree.names.exports import Binding, BindingKind, ModuleExports
from pytest_cleantree.names.imports import ImportSummary
from pytest_cleantree.run.analyses import FindingStore
from pytest_cleantree.run.kept import digest as content_digest
from pytest_cleantree.sources.base import FileStat, Source, StatsMany

__all__ = ["StoredGraph"]

#: the shape of an entry: a change of it makes every stored part unread (3: whole modules;
#: 4: summaries read as the tokenizer reads them; 5: what a star takes besides ``__all__``'s
#: names)
_VERSION = "5"


class StoredGraph:
    """A :class:`~pytest_cleantree.names.modules_to_read.SummaryStore` over the analyses' store."""

    def __init__(self, store: FindingStore) -> None:
        self._store = store
        self._digests: dict[str, str] = {}  # path -> content digest, as last known this run
        self._stats: dict[str, FileStat] = {}  # path -> stat, taken before it was read
        self._since = 0

    def summaries(self, source: Source, paths: Sequence[str]) -> dict[str, ImportSummary]:
        digests = getattr(source, "digests", None)  # a source that holds the content already
        if not paths or not (isinstance(source, StatsMany) or callable(digests)):
            return {}
        if isinstance(source, StatsMany):
            self._since = time.time_ns()  # before the stat: what is read after it is as new
            self._stats = dict(source.stat_many(paths))
            known = self._store.known_digests(source.root, self._stats)
        else:  # the SSH source: the digests of the files read ahead, computed from them
            known = dict(digests(paths))  # type: ignore[misc]
        found: dict[str, ImportSummary] = {}
        for path, digest in known.items():
            summary = _summary(self._store.get_graph(f"{_VERSION}:s:{path}"), digest)
            if summary is not None:
                found[path] = summary
                self._digests[path] = digest
        return found

    def keep(self, source: Source, path: str, data: bytes, summary: ImportSummary) -> None:
        digest = _digest(data)
        self._digests[path] = digest
        stat = self._stats.get(path)
        if stat is not None:  # the next run need not read it (see AnalysisStore.see_digests)
            self._store.see_digests(source.root, {path: (stat, digest)}, self._since)
        entry = [
            digest,
            sorted(map(list, summary.names)),
            sorted(summary.stars),
            sorted(summary.modules),
        ]
        self._store.put_graph(f"{_VERSION}:s:{path}", entry)

    def exports(self, path: str, module: str, is_package: bool) -> ModuleExports | None:
        digest = self._digests.get(path)
        if digest is None:
            return None
        entry = self._store.get_graph(f"{_VERSION}:e:{path}")
        return _exports(entry, [digest, module, is_package])

    def whole(self, path: str, data: bytes, module: str, is_package: bool) -> ModuleExports | None:
        entry = self._store.get_graph(f"{_VERSION}:w:{path}")
        return _exports(entry, [_digest(data), module, is_package])

    def keep_whole(self, path: str, data: bytes, exports: ModuleExports) -> None:
        self._store.put_graph(f"{_VERSION}:w:{path}", _entry(_digest(data), exports))

    def keep_exports(self, path: str, exports: ModuleExports) -> None:
        digest = self._digests.get(path)
        if digest is None:
            return
        self._store.put_graph(f"{_VERSION}:e:{path}", _entry(digest, exports))


def _digest(data: bytes) -> str:
    return content_digest(data)


def _entry(digest: str, exports: ModuleExports) -> list[Any]:
    return [
        digest,
        exports.name,
        exports.is_package,
        [[b.name, b.kind.value, b.line, b.module, b.attr] for b in exports.bindings],
        None if exports.all_names is None else list(exports.all_names),
        list(exports.all_from),
        exports.all_open,
    ]


def _summary(entry: Any, digest: str) -> ImportSummary | None:
    """An entry read back for this content; ``None``: another content, or another shape."""
    try:
        stored, names, stars, modules = entry
        if stored != digest:
            return None
        pairs = frozenset((str(module), str(name)) for module, name in names)
        return ImportSummary(
            pairs, frozenset(str(star) for star in stars), frozenset(str(m) for m in modules)
        )
    except (TypeError, ValueError):
        return None


def _exports(entry: Any, wanted: list[Any]) -> ModuleExports | None:
    """An entry read back for this content and module name; ``None`` otherwise."""
    try:
        digest, name, is_package, bindings, all_names, all_from, all_open = entry
        if [digest, name, is_package] != wanted:
            return None
        made = tuple(
            Binding(str(b[0]), BindingKind(b[1]), int(b[2]), str(b[3]), str(b[4])) for b in bindings
        )
        return ModuleExports(
            str(name),
            bool(is_package),
            made,
            None if all_names is None else tuple(str(n) for n in all_names),
            tuple(str(n) for n in all_from),
            str(all_open),
        )
    except (TypeError, ValueError, IndexError):
        return None
