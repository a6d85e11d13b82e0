"""A persistent cache of file analyses, so that a run on an unchanged tree parses nothing.

Entries are keyed by the file's path and content, the patterns asked for, and
the exact code of the analysis (the package version and a digest of the
modules that decide findings): a changed analyser never reads an old answer.
They are JSON (never pickle: a cache folder is not trusted code), written to a
temporary file and renamed into place, so concurrent runs never see half an
entry.

A pack says what a file holds as surely as the file does, so only its owner may
write one: folders are made 0700 and files 0600 whatever the umask, and a folder
or file that is not the user's, or that group or others may write, is not read
(the run says why, once, and goes on without it).  The cache lives in the user's
cache folder (``$XDG_CACHE_HOME`` when absolute, as the XDG spec says, else
``~/.cache``), never in the checked tree, and nowhere when there is no home.
"""

from __future__ import annotations

import hashlib
import os
import socket
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_cleantree import __version__
from pytest_cleantree.core.findings import FileAnalysis, Finding
from pytest_cleantree.core.model import Kind, Occurrence
from pytest_cleantree.sources.base import FileStat

from .cachedir import (
    _engine,
    _which_astroid,
    _which_re2,
    cache_folder,
    load_private,
    save_private,
    untrusted,
)

#: a file changed this close to when it was seen may change again within the same timestamp
#: tick, keeping its size and inode: its stat is not recorded, so it is read again next run
#: (git's "racy" rule; also covers a file system clock a little behind this one)
RACY_NS = 2 * 10**9


@dataclass(frozen=True)
class CacheChoice:
    """Where the cache is (``None``: nowhere), and why not when it could not be (to say once;
    ``""`` when there is a cache, or the user turned it off)."""

    folder: Path | None
    why: str = ""


def choose_cache_dir(env: Mapping[str, str], tree: str | None = None) -> CacheChoice:
    """:func:`.cachedir.cache_folder`, as the run keeps it."""
    folder, why = cache_folder(env, tree)
    return CacheChoice(None if folder is None else Path(folder), why)


def say(why: str) -> None:
    """Tell the user why the cache is not used (on stderr: a report on stdout stays whole)."""
    print(f"cleantree: cache: {why}", file=sys.stderr)


def _code_digest() -> str:
    """What findings depend on besides the file: this code, the Python that parses, astroid."""
    material = f"{__version__} {sys.version_info[:3]} {_which_astroid()}"
    material += f" {sys.version} {sys.implementation.cache_tag} {_engine()} {_which_re2()}"
    digest = hashlib.blake2b(material.encode(), digest_size=8)
    for path in findings_code():
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def findings_code() -> list[Path]:
    """The source files whose code may decide findings: every module of this package.

    A superset of what :mod:`pytest_cleantree.analysis` imports, so a helper moved
    to another module is still in the key.  Following the imports instead parsed
    16 modules on every run (0.13 s, more than a warm run's checking); reading
    all 40 takes 7 ms, and only costs a developer a cold cache after editing the CLI.
    """
    return sorted(Path(__file__).parent.parent.rglob("*.py"))  # the whole package, every layer


#: the pack of the symbol graph's per-file parts (keyed by content, not by path)
GRAPH_PACK = "graph"


class AnalysisStore:
    """Compact analyses on disk, one pack per set of patterns asked for.

    A pack maps each file's path to the digest of the content it was
    analysed with, and what was found: the findings, the problem, and the
    source lines the findings point at, so a warm run neither parses nor
    decodes a file.  A pack is read once, on first use, and written once per
    run (:meth:`flush`): a path has one entry, its latest content's, so a pack
    grows with the tree, not with its history.  Another run writing the same
    pack meanwhile is merged with, entry by entry.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder / _code_digest()
        self._uid = os.geteuid()
        #: why the store is not used (a folder someone else can write), once found; "" if it is
        self._off: str | None = None
        self._said = False
        self._trusted = (str(folder), str(self.folder), os.path.join(self.folder, "index"))
        self._packs: dict[str, dict[str, Any]] = {}
        self._written: dict[str, dict[str, Any]] = {}
        #: per root, each file's stat and content digest as last read, and those seen this run
        self._indexes: dict[str, dict[str, Any]] = {}
        self._seen: dict[str, dict[str, list[Any]]] = {}
        self._lock = threading.Lock()  # a fleet's hosts are checked in threads

    def get(self, pack: str, path: str, digest: str) -> FileAnalysis | None:
        with self._lock:
            entries = self._packs.get(pack)
            if entries is None:
                entries = self._packs[pack] = self._load(pack)
        entry = entries.get(path)
        try:
            if entry is None or entry[0] != digest:
                return None
            _, found, problem, kept, problem_line, allows = entry
            findings = tuple(
                Finding(pattern, Occurrence(line, col, Kind(kind), name, tuple(qualified)))
                for pattern, line, col, kind, name, qualified in found
            )
            lines = {int(line): str(text) for line, text in kept.items()}
            comments = None if allows is None else tuple((int(n), str(t)) for n, t in allows)
        except (ValueError, KeyError, TypeError, AttributeError):
            return None  # an entry of another shape: analyse again
        return FileAnalysis(path, (), findings, problem, problem_line, lines, comments)

    def put(self, pack: str, path: str, digest: str, analysis: FileAnalysis) -> None:
        """Keep a compact analysis (see :meth:`FileAnalysis.compact`) until :meth:`flush`."""
        found = [
            [
                f.pattern,
                f.occurrence.line,
                f.occurrence.col,
                f.occurrence.kind.value,
                f.occurrence.name,
                list(f.occurrence.qualified),
            ]
            for f in analysis.findings
        ]
        kept = {str(line): text for line, text in analysis.kept.items()}
        allows = None if analysis.allows is None else [list(pair) for pair in analysis.allows]
        # the entry's shape is its format: an entry of another length is analysed again
        entry = [digest, found, analysis.problem, kept, analysis.problem_line, allows]
        with self._lock:
            self._packs.setdefault(pack, {})[path] = entry
            self._written.setdefault(pack, {})[path] = entry

    def get_graph(self, key: str) -> Any:
        """The symbol graph's part of one file (JSON, by content; see :mod:`.graphstore`)."""
        with self._lock:
            entries = self._packs.get(GRAPH_PACK)
            if entries is None:
                entries = self._packs[GRAPH_PACK] = self._load(GRAPH_PACK)
        return entries.get(key)

    def put_graph(self, key: str, entry: Any) -> None:
        """Keep the symbol graph's part of one file until :meth:`flush`."""
        with self._lock:
            self._packs.setdefault(GRAPH_PACK, {})[key] = entry
            self._written.setdefault(GRAPH_PACK, {})[key] = entry

    def known_digests(self, root: str, stats: Mapping[str, FileStat]) -> dict[str, str]:
        """The content digest of each file of this machine's ``root`` whose stat is as when
        it was last read: such a file need not be read again.

        An entry is trusted only when device, inode, size, mtime and ctime all match
        (ctime catches a same-size rewrite whose mtime was put back).  The index is
        per host and per root (its file name says which): a stat means nothing elsewhere.
        """
        with self._lock:
            index = self._indexes.get(root)
            if index is None:
                index = self._indexes[root] = self._load_file(self._index_file(root))
        known: dict[str, str] = {}
        for path, now in stats.items():
            entry = index.get(path)
            if isinstance(entry, list) and len(entry) == 6 and entry[:5] == list(now):
                digest = entry[5]
                if isinstance(digest, str):
                    known[path] = digest
        return known

    def see_digests(self, root: str, seen: Mapping[str, tuple[FileStat, str]], since: int) -> None:
        """Record each file's stat, taken before it was read at ``since`` (``time_ns``), with
        the digest of what was read; until :meth:`flush`.

        A file whose mtime or ctime is within :data:`RACY_NS` of ``since`` is left
        out: a rewrite in the same tick, of the same size, would keep its stat.
        """
        fresh = {
            path: [*stat, digest]
            for path, (stat, digest) in seen.items()
            if max(stat[3], stat[4]) < since - RACY_NS
        }
        if fresh:
            with self._lock:
                self._seen.setdefault(root, {}).update(fresh)

    def flush(self) -> None:
        """Write the packs and indexes this run added to, merged with what is on disk now."""
        with self._lock:
            written, self._written = self._written, {}
            for pack, entries in written.items():
                merged = {**self._load(pack), **entries}
                self._save(pack, merged)
            seen, self._seen = self._seen, {}
            for root, files in seen.items():
                index = self._index_file(root)
                self._save_file(index, {**self._load_file(index), **files})

    def forget(self) -> None:
        """Drop the packs and indexes read into memory (a later use reads them again)."""
        with self._lock:
            self._packs.clear()
            self._indexes.clear()

    def _index_file(self, root: str) -> str:
        # each entry is true on its own (this stat, then this content): merging keeps it sound
        where = f"{socket.gethostname()}\0{os.path.realpath(root)}"
        name = hashlib.blake2b(where.encode(errors="surrogateescape"), digest_size=16).hexdigest()
        return os.path.join(self.folder, "index", name + ".index")

    def _file(self, pack: str) -> str:
        return os.path.join(self.folder, pack + ".json")

    def _load(self, pack: str) -> dict[str, Any]:
        return self._load_file(self._file(pack))

    def _save(self, pack: str, entries: dict[str, Any]) -> None:
        self._save_file(self._file(pack), entries)

    def _usable(self) -> bool:
        """Are the store's folders the user's alone?  Asked once; the first answer stands."""
        if self._off is None:
            self._off = ""
            for folder in self._trusted:
                try:
                    why = untrusted(os.stat(folder), self._uid)
                except OSError:
                    continue  # not made yet: it will be, privately
                if why:
                    self._off = f"{folder} is {why}"
                    self._refuse(f"{self._off}: not used (remove it to start afresh)")
                    break
        return not self._off

    def _refuse(self, why: str) -> None:
        """Say why a part of the cache is not read, once per run."""
        if not self._said:
            self._said = True
            say(why)

    def _load_file(self, file: str) -> dict[str, Any]:
        if not self._usable():
            return {}
        entries, why = load_private(file, self._uid)
        if why:  # someone else could have written it: it says nothing
            self._refuse(f"{file} is {why}: not read")
        return entries

    def _save_file(self, file: str, entries: dict[str, Any]) -> None:
        if self._usable():
            save_private(file, entries, self._uid)
