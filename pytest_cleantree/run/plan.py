"""Plan a run: which files the checks name, and which patterns each file is asked for.

The first step of :func:`~pytest_cleantree.run.check.check_all`, from the checks and the
source's expansion of their entries alone: no file is read here.  Files named by the same
entries share one :class:`PatternList` (a frozen value whose key is worked out once), so
2,000 rules over ``**/*.py`` make one list of 2,000 patterns, not one per file.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from pytest_cleantree.config.exclusions import Scope, scope_of, scope_paths
from pytest_cleantree.core.checks import Check
from pytest_cleantree.core.model import Kind, Pattern, PatternTier
from pytest_cleantree.sources.base import WHOLE, Expansion, FiltersNeedles, Source

#: how many files one read request asks for (one round trip on a remote source)
READ_BATCH_FILES = 2000

#: above this many needles for one file, a remote source is asked for the file whatever it
#: holds: testing each needle on the server would cost more than sending the file
REMOTE_NEEDLES_MAX = 64


class GraphEntries(Protocol):
    """The analyses' store as the kept content uses it (:class:`.analyses.FindingStore`, not
    imported: the analyses import this module)."""

    def get_graph(self, key: str) -> Any: ...

    def put_graph(self, key: str, entry: Any) -> None: ...


@dataclass(frozen=True)
class PatternList:
    """The patterns one file is asked for, in order: a value shared by many files.

    Hashed by its cached :attr:`key`, so per-list work (a store pack, a needle
    set, the spellings added) is looked up by value in constant time, however
    long the list.
    """

    patterns: tuple[Pattern, ...]

    @functools.cached_property
    def key(self) -> str:
        """A digest of the patterns' texts: part of the store's key for what they found."""
        material = json.dumps(sorted("\0".join((p.text, *p.needles)) for p in self.patterns))
        return hashlib.blake2b(material.encode(), digest_size=20).hexdigest()

    @functools.cached_property
    def texts(self) -> frozenset[str]:
        return frozenset(p.text for p in self.patterns)

    @functools.cached_property
    def _hash(self) -> int:
        return hash(self.patterns)

    def __hash__(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[type[PatternList], tuple[tuple[Pattern, ...]]]:
        """To a worker process, the patterns alone: a string's hash differs there."""
        return (PatternList, (self.patterns,))


#: what a file is asked: its patterns, and whether comments are wanted
Asked = tuple[PatternList, bool]


@dataclass(frozen=True)
class Plan:
    """What a run reads: each entry's paths, each scope's files, each file's patterns."""

    #: each ``files`` entry's paths, or why they cannot be known
    named: Mapping[str, Expansion]
    #: each ``absent`` entry's paths (of any kind)
    present: Mapping[str, Expansion]
    #: each scope's files: its entry's paths less its rule's exclusions
    scoped: Mapping[Scope, tuple[str, ...]]
    wanted: Mapping[str, Asked]
    #: the needles to send with each file's read, for a source that filters them
    needles: RemoteNeedles | None

    @property
    def paths(self) -> list[str]:
        """Every file to analyse, in order."""
        return sorted(self.wanted)

    def needles_for(self, paths: Sequence[str]) -> dict[str, tuple[str, ...] | None] | None:
        """Each path's needles for :meth:`Source.read` (``None``: the source ignores them)."""
        if self.needles is None:
            return None
        return {path: self.needles.of(self.wanted[path][0]) for path in paths}


def plan_checks(checks: Sequence[Check], source: Source, store: GraphEntries | None = None) -> Plan:
    """Expand the checks' entries (in two requests) and give each file its patterns.

    ``store``: where a remote source keeps the Python files it sent whole, by digest (a
    warm run is sent only what changed).  Raises
    :class:`~pytest_cleantree.core.errors.SourceError` when the tree cannot be reached at all.
    """
    needles = RemoteNeedles() if isinstance(source, FiltersNeedles) else None
    entries = sorted({c.entry for c in checks if not c.absent})
    if needles is None:
        named = dict(source.expand(entries))
    else:  # a remote source reads the files that can matter with the same request
        ahead = {e: n for e, n in entry_needles(checks, needles).items() if n is not None}
        asked = entries
        if any(p.tier is PatternTier.QUALIFIED for c in checks for p in c.rule.patterns):
            # the symbol graph reads the tree's Python files and its packaging settings: all
            # of them, whole, now (its lookups of files are then answered by this listing;
            # the names package imported here: a run without a qualified pattern never loads it)
            from pytest_cleantree.names.modules import PYPROJECT, TREE_PYTHON

            ahead[TREE_PYTHON] = ahead[PYPROJECT] = (WHOLE,)
            asked = sorted({*entries, TREE_PYTHON, PYPROJECT})
        keep_content = getattr(source, "keep_content", None)
        if store is not None and keep_content is not None:  # what was sent before is kept
            from pytest_cleantree.run.kept import KeptContent

            keep_content(KeptContent(store))
        named = dict(source.expand(asked, read_ahead=ahead))
        named = {entry: named[entry] for entry in entries}
    gone = sorted({check.entry for check in checks if check.absent})
    present = source.expand(gone, any_kind=True) if gone else {}
    listed = {e: paths for e, paths in named.items() if isinstance(paths, tuple)}
    scoped = scope_paths(checks, listed)  # less each rule's exclusions
    return Plan(named, present, scoped, patterns_per_path(checks, scoped), needles)


def patterns_per_path(
    checks: Sequence[Check], scoped: Mapping[Scope, tuple[str, ...]]
) -> dict[str, Asked]:
    """For each file to read, the union of the patterns of the rules naming it.

    Files named by the same scopes share one list.  (An entry is scoped by its
    rule's exclusions: see :func:`~pytest_cleantree.config.exclusions.scope_paths`.)
    """
    per_entry: dict[Scope, dict[str, Pattern]] = defaultdict(dict)
    comments_per_entry: dict[Scope, bool] = defaultdict(bool)
    for check in checks:
        if not check.absent:
            scope = scope_of(check)
            per_entry[scope].update((p.text, p) for p in check.rule.patterns)
            comments_per_entry[scope] |= Kind.COMMENT in check.rule.kinds
    entries_of: dict[str, list[Scope]] = defaultdict(list)
    for entry in per_entry:
        for path in scoped.get(entry, ()):
            entries_of[path].append(entry)
    shared: dict[tuple[Scope, ...], Asked] = {}
    wanted: dict[str, Asked] = {}
    for path, entries in entries_of.items():
        group = tuple(entries)
        if group not in shared:
            union: dict[str, Pattern] = {}
            for entry in group:
                union.update(per_entry[entry])
            comments = any(comments_per_entry[entry] for entry in group)
            shared[group] = (PatternList(tuple(union.values())), comments)
        wanted[path] = shared[group]
    return wanted


def qualified_patterns(checks: Sequence[Check]) -> set[str]:
    """The qualified patterns of the checks: module names and re-exports matter for them."""
    return {
        p.text
        for check in checks
        if not check.absent
        for p in check.rule.patterns
        if p.tier is PatternTier.QUALIFIED
    }


class RemoteNeedles:
    """The needles a source may filter a file's content with, per list of patterns.

    Taken from the analysis' own prefilter (its ``compile_patterns``): a file
    whose text spells none of them is one the analysis would not parse, and
    holds no finding.  ``None`` (send it) when a pattern has no needle (a
    regex) or there are too many to test cheaply.
    """

    def __init__(self) -> None:
        self._known: dict[PatternList, tuple[str, ...] | None] = {}

    def of(self, patterns: PatternList) -> tuple[str, ...] | None:
        if patterns not in self._known:
            from pytest_cleantree.analysis.text import compile_patterns  # a remote run only

            found = {needle for _, needle, _ in compile_patterns(patterns.patterns).needles}
            chosen = None
            if None not in found and len(found) <= REMOTE_NEEDLES_MAX:
                chosen = tuple(sorted(n for n in found if n is not None))
            self._known[patterns] = chosen
        return self._known[patterns]


def entry_needles(
    checks: Sequence[Check], needles: RemoteNeedles
) -> dict[str, tuple[str, ...] | None]:
    """Each entry's needles: those of the patterns of every rule naming it."""
    per_entry: dict[str, dict[str, Pattern]] = defaultdict(dict)
    for check in checks:
        if not check.absent:
            per_entry[check.entry].update((p.text, p) for p in check.rule.patterns)
    return {
        entry: needles.of(PatternList(tuple(patterns.values())))
        for entry, patterns in per_entry.items()
    }
