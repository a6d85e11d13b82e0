"""Evaluate rules over a source: read each file once, analyse it once, judge every rule.

The unit of work is a :class:`Check`: one rule on one manifest entry (a path
or glob from ``files``, or a path from ``absent``).  Checks are what pytest
collects, so they are derived from the manifest alone, without I/O; the
source is asked for files only when checks run, in a few large batches.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Protocol

from pytest_cleantree.analysis import (
    FileAnalysis,
    Finding,
    analyze,
    is_python_path,
)
from pytest_cleantree.analysis.text import compile_patterns
from pytest_cleantree.config.exclusions import Scope, scope_of, scope_paths
from pytest_cleantree.config.layout import Layout, LayoutError, parse_layout
from pytest_cleantree.core.checks import Check
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.model import (
    Hit,
    Kind,
    Missing,
    Occurrence,
    Pattern,
    PatternTier,
    Problem,
    Result,
    Rule,
)
from pytest_cleantree.core.patterns import is_path_glob
from pytest_cleantree.run.allows import apply_allows
from pytest_cleantree.sources.base import FileStat, NoNeedle, Source

if TYPE_CHECKING:  # the re-export map is loaded only for qualified patterns (see check_all)
    from pytest_cleantree.names.spellings import Spellings, StarSite

_KIND_ORDER = {kind: index for index, kind in enumerate(Kind)}


class FindingStore(Protocol):
    """Where analyses persist between runs (see :class:`.cache.AnalysisStore`)."""

    def get(self, pack: str, path: str, digest: str) -> FileAnalysis | None: ...

    def put(self, pack: str, path: str, digest: str, analysis: FileAnalysis) -> None: ...

    def known_digests(self, root: str, stats: Mapping[str, FileStat]) -> dict[str, str]: ...

    def see_digests(
        self, root: str, seen: Mapping[str, tuple[FileStat, str]], since: int
    ) -> None: ...

    def flush(self) -> None: ...

    def forget(self) -> None: ...


@dataclass(frozen=True)
class _Stats:
    """The stats of a batch of a local source's files, taken at ``since`` before reading them."""

    root: str
    since: int
    files: Mapping[str, FileStat]


def _patterns_key(patterns: Sequence[Pattern]) -> str:
    material = json.dumps(sorted(p.text for p in patterns))
    return hashlib.blake2b(material.encode(), digest_size=20).hexdigest()


def _pack(patterns: list[Pattern], comments: bool, keys: dict[int, str]) -> str:
    """The store's pack for a list of patterns (``keys``: lists are shared, key each once)."""
    if id(patterns) not in keys:
        keys[id(patterns)] = _patterns_key(patterns)
    return keys[id(patterns)] + ("-comments" if comments else "")


def _key(path: str, digest: str, pack: str) -> str:
    """Everything an analysis depends on besides the analyser's own code.

    ``digest`` covers the file's content and the module name it was analysed under.
    """
    return f"{pack}\0{digest}\0{path}"


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
        #: called with the number of files of each batch analysed (a progress line counts them)
        self.on_analysed: Callable[[int], None] | None = None

    def unchanged(
        self,
        source: Source,
        paths: Sequence[str],
        wanted: Mapping[str, tuple[list[Pattern], bool]],
        modules: Mapping[str, str],
    ) -> tuple[dict[str, FileAnalysis], _Stats | None]:
        """The analyses of the files of a local source that have not changed since last read.

        Such a file is not read: its stat (device, inode, size, mtime, ctime) is
        as the store's index recorded it with its content's digest, and that
        digest's analysis is known.  Every other file is read as always.  Also
        returns the stats taken, to record with what is read (see :meth:`analyze_many`).
        Only a source with ``stat_many`` (the local one) is asked: a remote
        stat is never trusted.
        """
        stat_many: Callable[[Sequence[str]], Mapping[str, FileStat]] | None = getattr(
            source, "stat_many", None
        )
        if self._store is None or stat_many is None or not paths:
            return {}, None
        since = time.time_ns()  # before the stat: what is read after it is at least as new
        stats = _Stats(source.root, since, stat_many(paths))
        found: dict[str, FileAnalysis] = {}
        pattern_keys: dict[int, str] = {}
        for path, content in self._store.known_digests(source.root, stats.files).items():
            patterns, comments = wanted[path]
            module = modules.get(path)
            digest = content if module is None else f"{content}:{module}"
            pack = _pack(patterns, comments, pattern_keys)
            key = _key(path, digest, pack)
            analysis = self._memory.get(key) or self._store.get(pack, path, digest)
            if analysis is not None:
                found[path] = self._memory[key] = analysis
        if found and self.on_analysed is not None:
            self.on_analysed(len(found))
        return found, stats

    def analyze_many(
        self, work: Sequence[_Work], stats: _Stats | None = None
    ) -> dict[str, FileAnalysis]:
        """Analyses of many files: from memory, from the store, else computed (in parallel).

        With ``stats`` (from :meth:`unchanged`), each file's stat is recorded
        with the digest of what was read, for the next run to trust.
        """
        done: dict[str, FileAnalysis] = {}
        todo: list[tuple[str, _Work]] = []
        stored_as: dict[str, tuple[str, str]] = {}  # key -> (pack, digest)
        pattern_keys: dict[int, str] = {}  # lists are shared between files: key them once
        seen: dict[str, tuple[FileStat, str]] = {}
        for item in work:
            path, data, patterns, comments, module, stars = item
            digest = hashlib.blake2b(data, digest_size=16).hexdigest()
            if stats is not None and path in stats.files:
                seen[path] = (stats.files[path], digest)
            if module is not None:  # the same file named otherwise resolves otherwise
                digest += f":{module}"
            if stars:  # what the tree's star imports bind changes what uses resolve to
                digest += f":{_stars_key(stars)}"
            pack = _pack(patterns, comments, pattern_keys)
            key = _key(path, digest, pack)
            if key in self._memory:
                done[path] = self._memory[key]
                continue
            stored = self._store.get(pack, path, digest) if self._store else None
            if stored is not None:
                done[path] = self._memory[key] = stored
                continue
            stored_as[key] = (pack, digest)
            todo.append((key, item))
        if _parallel_pays([item for _, item in todo], self._jobs):
            # the workers prefilter too: most files end there, and the parent stays free
            analysed = _parallel([item for _, item in todo], self._jobs)
            results = list(zip([key for key, _ in todo], analysed, strict=True))
        else:
            results = [(key, _analyze(item)) for key, item in todo]
        for key, analysis in results:
            compact = analysis.compact()
            if self._store is not None:
                pack, digest = stored_as[key]
                self._store.put(pack, analysis.path, digest, compact)
            done[analysis.path] = self._memory[key] = compact
        if stats is not None and seen and self._store is not None:
            self._store.see_digests(stats.root, seen, stats.since)
        if self.on_analysed is not None:
            self.on_analysed(len(done))
        return done

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


#: below this much to parse (files, and bytes of the files likely parsed), starting worker
#: processes costs more than it saves (measured on bench/'s trees, 1 and 20 names)
PARALLEL_MIN_FILES = 64
PARALLEL_MIN_BYTES = 2**19
#: up to this many needles in a list, the bytes of a file are searched for them to guess
#: whether it will be parsed (more needles: it is assumed to be)
_GUESS_MAX_NEEDLES = 8


def _parallel_pays(work: Sequence[_Work], jobs: int) -> bool:
    """Is there enough to parse that worker processes pay for their start?

    A guess, only for scheduling (each file is analysed in full either way):
    the files whose bytes hold a needle of their list, where the list has few.
    """
    if jobs < 2 or len(work) < PARALLEL_MIN_FILES:
        return False
    size = 0
    needles_of: dict[int, tuple[bytes, ...] | None] = {}
    for _, data, patterns, *_ in work:
        key = id(patterns)
        if key not in needles_of:
            listed = [n for _, n, _ in compile_patterns(patterns).needles]
            few = None not in listed and len(listed) <= _GUESS_MAX_NEEDLES
            needles_of[key] = tuple(n.encode() for n in listed if n) if few else None
        needles = needles_of[key]
        if needles is None or any(needle in data for needle in needles):
            size += len(data)
            if size >= PARALLEL_MIN_BYTES:
                return True
    return False


#: path, bytes, patterns, comments wanted, module name from the layout (``None``: from the
#: path), what star imports of the tree's modules bind (see :attr:`Spellings.binds`)
_Work = tuple[str, bytes, list[Pattern], bool, "str | None", "Mapping[str, frozenset[str]] | None"]


def _analyze(item: _Work) -> FileAnalysis:
    path, data, patterns, comments, module, stars = item
    return analyze(path, data, patterns, comments=comments, module=module, stars=stars)


@functools.lru_cache(maxsize=16)
def _stars_key_of(material: str) -> str:
    return hashlib.blake2b(material.encode(), digest_size=10).hexdigest()


def _stars_key(stars: Mapping[str, frozenset[str]]) -> str:
    """A short key of what star imports bind (part of every analysis' cache key)."""
    return _stars_key_of(json.dumps(sorted((m, sorted(n)) for m, n in stars.items())))


def _parallel(items: list[_Work], jobs: int) -> list[FileAnalysis]:
    """Analyse in worker processes.

    ``fork`` when this process runs no other thread (it is the cheapest start,
    and safe then); else ``forkserver`` (safe beside paramiko's threads), else
    ``spawn``.
    """
    import multiprocessing  # here: most runs never start a worker, and these cost 20 ms
    import threading
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        method = "fork"
    else:
        method = "forkserver" if "forkserver" in methods else "spawn"
    context = multiprocessing.get_context(method)
    if isinstance(context, multiprocessing.context.ForkServerContext):
        context.set_forkserver_preload(
            ["pytest_cleantree.run.engine"]
        )  # imported once, not per worker
    chunk = max(1, len(items) // (jobs * 8))
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        return list(pool.map(_analyze_compact, items, chunksize=chunk))


def _analyze_compact(item: _Work) -> FileAnalysis:
    """In a worker: only the lines that findings point at travel back."""
    return _analyze(item).compact()


def default_jobs() -> int:
    """The CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def check_all(
    checks: Sequence[Check],
    source: Source,
    cache: AnalysisCache | None = None,
    *,
    rule_ids: AbstractSet[str] | None = None,
    import_roots: Sequence[str] = (),
) -> dict[Check, Result]:
    """Run checks against one source, reading every needed file once.

    A source that cannot be reached at all makes every check an error; a file
    that cannot be read or parsed makes the checks that name it errors.
    ``rule_ids`` are all the manifest's rule ids (default: the checks' own), which inline
    allows may name (see :mod:`pytest_cleantree.run.allows`).
    ``import_roots`` are the manifest's folders on ``sys.path`` (see
    :mod:`pytest_cleantree.config.layout`).
    """
    cache = cache or AnalysisCache()
    analyses: dict[str, FileAnalysis | SourceError] = {}
    try:
        needles = _Needles() if getattr(source, "filters_needles", False) else None
        entries = sorted({c.entry for c in checks if not c.absent})
        # an entry's paths, or why they cannot be known; ``absent`` entries match any kind
        if needles is None:
            raw = dict(source.expand(entries))
        else:  # a remote source reads the files that can matter with the same request
            ahead = {e: n for e, n in _entry_needles(checks, needles).items() if n is not None}
            raw = dict(source.expand(entries, read_ahead=ahead))
        gone = sorted({check.entry for check in checks if check.absent})
        present = source.expand(gone, any_kind=True) if gone else {}
        listed = {e: paths for e, paths in raw.items() if isinstance(paths, tuple)}
        expanded = scope_paths(checks, listed)  # less each rule's exclusions (exclude.py)
        wanted = _patterns_per_path(checks, expanded)
        paths = sorted(wanted)
        modules: dict[str, str] = {}
        back: dict[str, frozenset[str]] = {}
        spelt: Spellings | None = None
        qualified = _qualified(checks)
        if qualified:  # loaded here: a run without qualified patterns never needs them
            from pytest_cleantree.names.spellings import import_bases, pattern_spellings

            layout, modules = module_names(source, paths, import_roots)
            bases = import_bases(layout, modules, import_roots)
            spelt = pattern_spellings(source, qualified, bases)
            wanted, back = _with_spellings(wanted, spelt.names)
        # files are read and analysed in batches, and only their findings kept: memory
        # stays bounded on huge trees, and a remote source still answers in few requests
        for start in range(0, len(paths), READ_BATCH_FILES):
            batch = paths[start : start + READ_BATCH_FILES]
            # what a file's star imports bind is in its key, and depends on its content: with
            # star-bound names in play, an unread file's key cannot be known, so all are read
            known, stats = (
                cache.unchanged(source, batch, wanted, modules)
                if spelt is None or not spelt.binds
                else ({}, None)
            )
            analyses.update(_as_written(known, back))
            batch = [path for path in batch if path not in known]
            if needles is None:
                contents = source.read(batch)
            else:
                contents = source.read(batch, {p: needles.of(wanted[p][0]) for p in batch})
            work: list[_Work] = []
            for path in batch:
                data = contents.get(path, SourceError(f"{path}: the source returned nothing"))
                if isinstance(data, SourceError):
                    analyses[path] = data
                elif isinstance(data, NoNeedle):  # the local prefilter's answer, given remotely
                    analyses[path] = FileAnalysis(path, (), ())
                else:
                    # only a file that holds a ``*`` can star-import
                    stars = spelt.binds if spelt is not None and b"*" in data else None
                    work.append((path, data, *wanted[path], modules.get(path), stars or None))
            del contents
            analyses.update(_as_written(cache.analyze_many(work, stats), back))
        if spelt is not None:
            _add_star_sites(analyses, wanted, spelt.stars)
    except SourceError as exc:  # the source as a whole: no file to attach it to
        return {check: _failed(check, source, Problem(str(exc))) for check in checks}
    finally:
        cache.flush()
    found = _Found(analyses)
    judged: dict[Check, Result] = {}
    for check in checks:
        named = (present if check.absent else raw)[check.entry]
        if isinstance(named, SourceError):
            judged[check] = _failed(check, source, Problem.at(check.entry, str(named)))
        elif check.absent:
            judged[check] = _judge(check, source, named, found)
        elif expanded[scope_of(check)] or not named:
            judged[check] = _judge(check, source, expanded[scope_of(check)], found)
        else:  # everything it names is excluded
            judged[check] = Result(check.rule, check.label, source.host)
    # a module on the chains could not be followed: qualified checks are incomplete,
    # whatever they found
    if spelt is not None and spelt.problems:
        unfollowed = tuple(Problem.at(path, why) for path, why in sorted(spelt.problems.items()))
        for check, result in judged.items():
            if not check.absent and any(
                p.tier is PatternTier.QUALIFIED for p in check.rule.forbid + check.rule.expect
            ):
                judged[check] = replace(result, problems=result.problems + unfollowed)
    # inline allows (suppress.py) move allowed hits to Result.suppressed
    return apply_allows(judged, rule_ids or {check.rule.id for check in checks})


#: how many files one read request asks for (one round trip on a remote source)
READ_BATCH_FILES = 2000

#: above this many needles for one file, a remote source is asked for the file whatever it
#: holds: testing each needle on the server would cost more than sending the file
REMOTE_NEEDLES_MAX = 64


class _Needles:
    """The needles a source may filter a file's content with, per list of patterns.

    Taken from the analysis' own prefilter (:func:`compile_patterns`): a file
    whose text spells none of them is one the analysis would not parse, and
    holds no finding.  ``None`` (send it) when a pattern has no needle (a
    regex) or there are too many to test cheaply.
    """

    def __init__(self) -> None:
        self._known: dict[int, tuple[list[Pattern], tuple[str, ...] | None]] = {}

    def of(self, patterns: list[Pattern]) -> tuple[str, ...] | None:
        known = self._known.get(id(patterns))
        if known is None or known[0] is not patterns:  # lists are shared between files
            found = {needle for _, needle, _ in compile_patterns(patterns).needles}
            chosen = None
            if None not in found and len(found) <= REMOTE_NEEDLES_MAX:
                chosen = tuple(sorted(n for n in found if n is not None))
            known = self._known[id(patterns)] = (patterns, chosen)
        return known[1]


def _entry_needles(checks: Sequence[Check], needles: _Needles) -> dict[str, tuple[str, ...] | None]:
    """Each entry's needles: those of the patterns of every rule naming it."""
    per_entry: dict[str, dict[str, Pattern]] = defaultdict(dict)
    for check in checks:
        if not check.absent:
            per_entry[check.entry].update((p.text, p) for p in check.rule.patterns)
    return {entry: needles.of(list(patterns.values())) for entry, patterns in per_entry.items()}


def _qualified(checks: Sequence[Check]) -> set[str]:
    """The qualified patterns of the checks: module names and re-exports matter for them."""
    return {
        p.text
        for check in checks
        if not check.absent
        for p in check.rule.patterns
        if p.tier is PatternTier.QUALIFIED
    }


def _with_spellings(
    wanted: dict[str, tuple[list[Pattern], bool]], spelt: Mapping[str, frozenset[str]]
) -> tuple[dict[str, tuple[list[Pattern], bool]], dict[str, frozenset[str]]]:
    """Ask each file for every spelling of its qualified patterns (see :mod:`.spellings`).

    Returns the new patterns per file and, per spelling, the patterns as
    written that it stands for (a pattern's own text stands for itself).
    """
    back: dict[str, set[str]] = defaultdict(set)
    for pattern, spellings in spelt.items():
        for spelling in spellings:
            back[spelling].add(pattern)
    grown: dict[int, tuple[list[Pattern], bool]] = {}
    result: dict[str, tuple[list[Pattern], bool]] = {}
    for path, (patterns, comments) in wanted.items():
        if id(patterns) not in grown:  # files share their lists: grow each once
            texts = {p.text for p in patterns}
            extra = sorted({s for p in texts for s in spelt.get(p, ())} - texts)
            more = [Pattern(s, PatternTier.QUALIFIED, s) for s in extra]
            grown[id(patterns)] = (patterns + more if more else patterns, comments)
        result[path] = grown[id(patterns)]
    return result, {s: frozenset(p) for s, p in back.items() if p != {s}}


def _add_star_sites(
    analyses: dict[str, FileAnalysis | SourceError],
    wanted: Mapping[str, tuple[list[Pattern], bool]],
    stars: Mapping[str, tuple[StarSite, ...]],
) -> None:
    """A ``from M import *`` re-exporting a pattern's target is where it is re-exported.

    The scan cannot know what a star brings in; the export map does.
    """
    for pattern, sites in stars.items():
        for site in sites:
            analysis = analyses.get(site.path)
            if not isinstance(analysis, FileAnalysis) or site.path not in wanted:
                continue
            if pattern not in {p.text for p in wanted[site.path][0]}:
                continue
            occurrence = Occurrence(site.line, 0, Kind.IMPORT, site.module, (site.spelling,))
            finding = Finding(pattern, occurrence)
            if finding in analysis.findings:
                continue
            kept = {**analysis.kept, site.line: site.source} if not analysis.lines else {}
            analyses[site.path] = replace(
                analysis, findings=(*analysis.findings, finding), kept=kept or analysis.kept
            )


def _as_written(
    analyses: Mapping[str, FileAnalysis], back: Mapping[str, frozenset[str]]
) -> Mapping[str, FileAnalysis]:
    """Findings of a spelling reported under the patterns as the manifest wrote them."""
    if not back:
        return analyses
    result: dict[str, FileAnalysis] = {}
    for path, analysis in analyses.items():
        if not back.keys() & analysis.patterns_found:
            result[path] = analysis
            continue
        findings: dict[Finding, None] = {}
        for finding in analysis.findings:
            for pattern in sorted(back.get(finding.pattern, (finding.pattern,))):
                findings[Finding(pattern, finding.occurrence)] = None
        result[path] = replace(analysis, findings=tuple(findings))
    return result


def module_names(
    source: Source, paths: Sequence[str], import_roots: Sequence[str]
) -> tuple[Layout, dict[str, str]]:
    """The module each Python file is, where the tree's layout says so (see :mod:`.importroots`).

    The layout needs the ``__init__.py`` of every folder above the files: the
    source is asked for them all in one round (a missing one expands to nothing).
    Files the layout does not name by a package chain or an import root keep the
    name of their path under the root (no entry here): that is what every
    version before the layout did, and a namespace package from the root.
    """
    # a file outside the root (allow_outside_root) is named by its path, as before
    python = [
        path
        for path in paths
        if is_python_path(path) and not path.startswith("/") and ".." not in path.split("/")
    ]
    inits: set[str] = set()
    for path in python:
        folder = path.rpartition("/")[0]
        while folder:
            inits.add(f"{folder}/__init__.py")
            folder = folder.rpartition("/")[0]
        inits.add("__init__.py")
    found = source.expand(sorted(inits - set(python)))
    known = set(python)
    for listed in found.values():
        if isinstance(listed, SourceError):  # which folders are packages is not known: fail
            raise listed
        known.update(listed)
    try:
        layout = parse_layout(known, import_roots=import_roots)
    except LayoutError as exc:
        raise SourceError(f"import_roots: {exc}") from None
    names: dict[str, str] = {}
    for path in python:
        if not layout.decides(path):
            continue  # not in a package, nor under an import root: the path is the name
        name = layout.module_name(path)
        if name is not None:
            names[path] = name
    return layout, names


def _patterns_per_path(
    checks: Sequence[Check], expanded: Mapping[Scope, tuple[str, ...]]
) -> dict[str, tuple[list[Pattern], bool]]:
    """For each file to read, the union of the patterns of the rules naming it.

    Files named by the same entries share one list: with 2,000 rules over
    ``**/*.py`` there is one list of 2,000 patterns, not one per file.  (An entry is
    scoped by its rule's exclusions: see :func:`~pytest_cleantree.config.exclusions.scope_paths`.)
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
        for path in expanded.get(entry, ()):
            entries_of[path].append(entry)
    shared: dict[tuple[Scope, ...], tuple[list[Pattern], bool]] = {}
    wanted: dict[str, tuple[list[Pattern], bool]] = {}
    for path, entries in entries_of.items():
        group = tuple(entries)
        if group not in shared:
            union: dict[str, Pattern] = {}
            for entry in group:
                union.update(per_entry[entry])
            comments = any(comments_per_entry[entry] for entry in group)
            shared[group] = (list(union.values()), comments)
        wanted[path] = shared[group]
    return wanted


def _failed(check: Check, source: Source, problem: Problem) -> Result:
    return Result(check.rule, check.label, source.host, problems=(problem,))


class _Found:
    """The analyses of one run, indexed by pattern: most rules hold in most files.

    A rule with no ``expect`` is judged on the files where one of its
    patterns was found, or that could not be read or parsed, not on every
    file it names: 2,000 rules over 20,000 files is 40 million pairs.
    """

    def __init__(self, analyses: Mapping[str, FileAnalysis | SourceError]) -> None:
        self.analyses = analyses
        self.with_pattern: dict[str, set[str]] = defaultdict(set)
        self.troubled: set[str] = set()
        for path, analysis in analyses.items():
            if isinstance(analysis, SourceError) or analysis.problem:
                self.troubled.add(path)
            else:
                for pattern in analysis.patterns_found:
                    self.with_pattern[pattern].add(path)
        self._sets: dict[int, tuple[tuple[str, ...], frozenset[str]]] = {}

    def to_judge(self, rule: Rule, paths: tuple[str, ...]) -> Sequence[str]:
        """The files among ``paths`` whose analysis can change the rule's result, in order."""
        if rule.expect:
            return paths
        known = self._sets.get(id(paths))
        if known is None or known[0] is not paths:  # entries share their tuple of paths
            known = self._sets[id(paths)] = (paths, frozenset(paths))
        candidates = set(self.troubled)
        for pattern in rule.forbid:
            candidates |= self.with_pattern.get(pattern.text, set())
        return sorted(candidates & known[1])


def _judge(check: Check, source: Source, paths: tuple[str, ...], found: _Found) -> Result:
    rule = check.rule
    if check.absent:
        return Result(rule, check.label, source.host, present=paths, files=paths)
    if not paths:
        if rule.missing_ok:
            return Result(rule, check.label, source.host)
        if rule.must_exist:  # the file is expected back: its absence is the violation
            expected = [p.text for p in rule.expect] or ["the file itself"]
            gone = tuple(Missing(check.entry, pattern) for pattern in expected)
            return Result(rule, check.label, source.host, missing=gone)
        what = "glob matches no file" if is_path_glob(check.entry) else "no such file"
        problem = f"{what} under {source.root} (set missing_ok = true to allow)"
        return _failed(check, source, Problem(problem, check.entry))
    hits: list[Hit] = []
    missing: list[Missing] = []
    problems: list[Problem] = []
    forbidden = frozenset(p.text for p in rule.forbid)
    for path in found.to_judge(rule, paths):
        analysis = found.analyses[path]
        if isinstance(analysis, SourceError):
            problems.append(Problem.at(path, str(analysis)))
            continue
        if analysis.problem:
            problems.append(Problem(analysis.problem, path, analysis.problem_line))
        if forbidden & analysis.patterns_found:
            hits.extend(_hits(rule, forbidden, analysis))
        if rule.expect:
            missing.extend(_missing(rule, analysis))
    return Result(
        rule,
        check.label,
        source.host,
        hits=tuple(hits),
        missing=tuple(missing),
        problems=tuple(problems),
        files=paths,
    )


def _allowed(rule: Rule, kind: Kind) -> bool:
    return kind is Kind.TEXT or kind in rule.kinds


def _hits(rule: Rule, forbidden: frozenset[str], analysis: FileAnalysis) -> Iterator[Hit]:
    """Forbidden findings, one per line, with all of that line's kinds and patterns."""
    by_line: dict[int, list[tuple[Kind, int, str]]] = defaultdict(list)
    spared = {p.text for p in rule.unless}
    skip = {f.occurrence.line for f in analysis.findings if f.pattern in spared}
    for finding in analysis.findings:
        occurrence = finding.occurrence
        if occurrence.line in skip:
            continue
        if finding.pattern in forbidden and _allowed(rule, occurrence.kind):
            by_line[occurrence.line].append((occurrence.kind, occurrence.col, finding.pattern))
    for line in sorted(by_line):
        found = by_line[line]
        kinds = tuple(sorted({kind for kind, _, _ in found}, key=_KIND_ORDER.__getitem__))
        patterns = tuple(sorted({pattern for _, _, pattern in found}))
        col = min(col for _, col, _ in found)
        source = analysis.source_line(line).strip()
        yield Hit(analysis.path, line, kinds, source, col, patterns)


def _missing(rule: Rule, analysis: FileAnalysis) -> Iterator[Missing]:
    present = {
        finding.pattern for finding in analysis.findings if _allowed(rule, finding.occurrence.kind)
    }
    for pattern in rule.expect:
        if pattern.text not in present:
            yield Missing(analysis.path, pattern.text)
