"""The run's analyses: in memory for this run, in the store between runs, else computed.

A file is analysed once per run whatever the number of rules naming it; with a store (see
:mod:`pytest_cleantree.run.cache`), once per content and list of patterns, ever.
"""

from __future__ import annotations

import functools
import hashlib
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pytest_cleantree.core.findings import FileAnalysis
from pytest_cleantree.run.parallel import FileWork, analyze_all
from pytest_cleantree.run.plan import Asked, PatternList
from pytest_cleantree.sources.base import FileStat, Source, StatsMany


class FindingStore(Protocol):
    """Where analyses persist between runs (see :class:`.cache.AnalysisStore`)."""

    def get(self, pack: str, path: str, digest: str) -> FileAnalysis | None: ...

    def put(self, pack: str, path: str, digest: str, analysis: FileAnalysis) -> None: ...

    def known_digests(self, root: str, stats: Mapping[str, FileStat]) -> dict[str, str]: ...

    def see_digests(
        self, root: str, seen: Mapping[str, tuple[FileStat, str]], since: int
    ) -> None: ...

    def get_graph(self, key: str) -> Any: ...

    def put_graph(self, key: str, entry: Any) -> None: ...

    def flush(self) -> None: ...

    def forget(self) -> None: ...


@dataclass(frozen=True)
class Stats:
    """The stats of a batch of a local source's files, taken at ``since`` before reading them."""

    root: str
    since: int
    files: Mapping[str, FileStat]


def _pack(patterns: PatternList, comments: bool) -> str:
    """The store's pack for a list of patterns."""
    return patterns.key + ("-comments" if comments else "")


def _key(path: str, digest: str, pack: str) -> str:
    """Everything an analysis depends on besides the analyser's own code.

    ``digest`` covers the file's content and the module name it was analysed under.
    """
    return f"{pack}\0{digest}\0{path}"


@functools.lru_cache(maxsize=16)
def _stars_key_of(material: str) -> str:
    return hashlib.blake2b(material.encode(), digest_size=10).hexdigest()


def _stars_key(stars: Mapping[str, frozenset[str]]) -> str:
    """A short key of what star imports bind (part of every analysis' cache key).

    A run hands every file the same mapping (``Spelt.binds``): it is keyed once, not once
    per file (on a site-packages tree it names thousands of spellings).
    """
    known = _STARS_KEYS.get(id(stars))
    if known is not None and known[0] is stars:
        return known[1]
    key = _stars_key_of(json.dumps(sorted((m, sorted(n)) for m, n in stars.items())))
    if len(_STARS_KEYS) > 8:
        _STARS_KEYS.clear()
    _STARS_KEYS[id(stars)] = (stars, key)
    return key


#: the mappings keyed (by identity, each held so that its id is not reused), with their keys
_STARS_KEYS: dict[int, tuple[Mapping[str, frozenset[str]], str]] = {}


def _named(digest: str, module: str | None, stars: Mapping[str, frozenset[str]] | None) -> str:
    """A content's digest, with what else changes what its names resolve to."""
    if module is not None:  # the same file named otherwise resolves otherwise
        digest += f":{module}"
    if stars:  # what the tree's star imports bind changes what uses resolve to
        digest += f":{_stars_key(stars)}"
    return digest


class AnalysisCache:
    """Analyses keyed by file content and the patterns asked for: a file is parsed once per run.

    With a ``store``, analyses also persist between runs (see
    :mod:`pytest_cleantree.run.cache`); with ``jobs`` > 1, a large batch of files is
    parsed in that many worker processes.
    """

    def __init__(self, store: FindingStore | None = None, jobs: int = 1) -> None:
        self._memory: dict[str, FileAnalysis] = {}
        self._store = store
        self._jobs = jobs
        #: called with the number of files done, as they are (a progress line counts them)
        self.on_analysed: Callable[[int], None] | None = None
        #: called with the number of files a check will analyse, once its plan is made
        self.on_planned: Callable[[int], None] | None = None

    def planned(self, count: int) -> None:
        """``count`` more files are to be analysed (told to :attr:`on_planned`)."""
        if self.on_planned is not None and count:
            self.on_planned(count)

    def analysed(self, count: int) -> None:
        """``count`` more files are done (told to :attr:`on_analysed`)."""
        if self.on_analysed is not None and count:
            self.on_analysed(count)

    def unchanged(
        self,
        source: Source,
        paths: Sequence[str],
        wanted: Mapping[str, Asked],
        modules: Mapping[str, str],
    ) -> tuple[dict[str, FileAnalysis], Stats | None]:
        """The analyses of the files of a local source that have not changed since last read.

        Such a file is not read: its stat (device, inode, size, mtime, ctime) is
        as the store's index recorded it with its content's digest, and that
        digest's analysis is known.  Every other file is read as always.  Also
        returns the stats taken, to record with what is read (see :meth:`analyze_many`).
        Only a source whose stats are trusted (:class:`StatsMany`: the local one)
        is asked: a remote stat is never trusted.
        """
        if self._store is None or not isinstance(source, StatsMany) or not paths:
            return {}, None
        since = time.time_ns()  # before the stat: what is read after it is at least as new
        stats = Stats(source.root, since, source.stat_many(paths))
        found: dict[str, FileAnalysis] = {}
        for path, content in self._store.known_digests(source.root, stats.files).items():
            patterns, comments = wanted[path]
            module = modules.get(path)
            digest = _named(content, module, None)  # not asked when star imports bind names
            pack = _pack(patterns, comments)
            key = _key(path, digest, pack)
            analysis = self._memory.get(key) or self._store.get(pack, path, digest)
            if analysis is not None:
                found[path] = self._memory[key] = analysis
        self.analysed(len(found))
        return found, stats

    def analyze_many(
        self, work: Sequence[FileWork], stats: Stats | None = None
    ) -> dict[str, FileAnalysis]:
        """Analyses of many files: from memory, from the store, else computed (in parallel).

        With ``stats`` (from :meth:`unchanged`), each file's stat is recorded
        with the digest of what was read, for the next run to trust.
        """
        done: dict[str, FileAnalysis] = {}
        todo: list[FileWork] = []
        stored_as: list[tuple[str, str, str]] = []  # key, pack, digest: one per todo
        seen: dict[str, tuple[FileStat, str]] = {}
        for item in work:
            path = item.path
            content = item.file.content_digest()  # the source's, when it holds it
            if stats is not None and path in stats.files:
                seen[path] = (stats.files[path], content)
            digest = _named(content, item.module, item.stars)
            pack = _pack(item.patterns, item.comments)
            key = _key(path, digest, pack)
            if key in self._memory:
                done[path] = self._memory[key]
                continue
            stored = self._store.get(pack, path, digest) if self._store else None
            if stored is not None:
                done[path] = self._memory[key] = stored
                continue
            stored_as.append((key, pack, digest))
            todo.append(item)
        self.analysed(len(done))  # known already; the others as each is done
        for (key, pack, digest), analysis in zip(
            stored_as, analyze_all(todo, self._jobs, self.analysed), strict=True
        ):
            if self._store is not None:
                self._store.put(pack, analysis.path, digest, analysis)
            done[analysis.path] = self._memory[key] = analysis
        if stats is not None and seen and self._store is not None:
            self._store.see_digests(stats.root, seen, stats.since)
        return done

    @property
    def store(self) -> FindingStore | None:
        """Where analyses persist (the symbol graph keeps its per-file parts there too)."""
        return self._store

    def flush(self) -> None:
        """Persist what this run analysed (one write per pack, not one per file)."""
        if self._store is not None:
            self._store.flush()

    def forget(self) -> None:
        """Let go of every analysis held in memory (the store keeps them on disk).

        pytest ends a session with five full garbage collections: 20,000 findings
        still held made them cost 0.3 s.
        """
        self.flush()
        self._memory.clear()
        if self._store is not None:
            self._store.forget()
