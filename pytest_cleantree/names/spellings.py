"""Every spelling of a qualified pattern, read through a Source (issue 12, causes 1 and 2).

``sglang.srt.utils.common.is_sm120_supported`` is also
``sglang.srt.utils.is_sm120_supported`` when ``sglang/srt/utils/__init__.py``
does ``from .common import *``; callers import it through either.  Before a
run analyses its files, :func:`pattern_spellings` reads the modules on the
patterns' chains (and only those, in a few rounds: see
:func:`next_reads`), builds their
:class:`~pytest_cleantree.names.exports.ExportMap`, and gives each qualified
pattern the set of spellings that lead where it leads.  The engine then asks
the analysis for every spelling and reports what they find under the pattern
the user wrote.

The map only adds spellings: a pattern always keeps its own text, so
nothing that matched before stops matching.  A module that cannot be read
or parsed adds nothing (the files a rule names report their own problems).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from pytest_cleantree.analysis import decode_python, module_name_for
from pytest_cleantree.config.layout import Layout
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.nameindex import Covering
from pytest_cleantree.core.patterns import as_name
from pytest_cleantree.names.budget import Budget
from pytest_cleantree.names.environment import read_module, read_source
from pytest_cleantree.names.existence import Standing, standings
from pytest_cleantree.names.exports import BindingKind, ModuleExports, parse_module_exports
from pytest_cleantree.names.imports import import_summary
from pytest_cleantree.names.modules_to_read import (
    Reach,
    SummaryStore,
    TreeModule,
    grow_chains,
    pattern_targets,
    spelling_words,
)
from pytest_cleantree.names.symbol_graph import ExportMap, Reached
from pytest_cleantree.sources.base import FileRead, Source

__all__ = [
    "Chains",
    "Spellings",
    "StarSite",
    "import_bases",
    "modules_to_read",
    "next_reads",
    "other_names",
    "pattern_spellings",
    "read_chains",
]


def import_bases(
    layout: Layout, named: Mapping[str, str], import_roots: Sequence[str]
) -> list[str]:
    """Folders that module names are relative to, in ``sys.path`` order.

    The import roots, then the folder above each top package the layout found
    (``python`` for ``python/sglang/__init__.py``) and the tree's root, the shallowest
    first (the order the layout prefers the files of one name in).
    """
    bases: list[str] = list(import_roots)
    found: set[str] = set()
    for path, module in sorted(named.items()):
        folder = path.rpartition("/")[0]
        inside = module.count(".") + (1 if layout.is_package(path) else 0)  # folders in the name
        parts = folder.split("/") if folder else []
        if len(parts) >= inside:
            found.add("/".join(parts[: len(parts) - inside]))
    # the shallowest first, as the layout prefers the shallowest file for one module name
    bases += [base for base in sorted(found, key=lambda b: (b.count("/"), b)) if base not in bases]
    if "" not in bases:
        bases.append("")
    return bases


def _candidates(module: str, bases: Iterable[str]) -> list[tuple[str, bool]]:
    """(path, is_package) where ``module``'s file may stand, in order of preference."""
    stem = module.replace(".", "/")
    found: list[tuple[str, bool]] = []
    for base in bases:
        folder = f"{base}/{stem}" if base else stem
        # a package before a same-named module, as Python's finder looks
        found += [(f"{folder}/__init__.py", True), (f"{folder}.py", False)]
    return found


def _prefixes(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:end]) for end in range(1, len(parts) + 1)]


@dataclass(frozen=True)
class StarSite:
    """A ``from M import *`` that re-exports a pattern's target: the scan cannot see it there."""

    path: str
    line: int
    module: str  # M, the module star-imported
    spelling: str  # the spelling it makes
    source: str  # the line's text


@dataclass(frozen=True)
class Spellings:
    """Per qualified pattern: the names a use of it may be spelt through, and its star re-exports.

    ``names``: whole spellings, each leading to where the pattern leads (itself
    included).  ``ways``: names that lead to a module on the way (``os.path``, for
    ``posixpath.join``): a use spelt through one (``os.path.join``) is the
    pattern's when it resolves there (:meth:`leads_to`), and spells one of
    ``words`` (the last names of the whole spellings).  Finite however the
    tree's modules import each other: one name per node of the graph.

    ``binds``: per module ``M`` of the tree, the names ``N`` of spellings
    ``M.N`` that ``from M import *`` binds (per the export map): in a checked
    file that star-imports ``M``, a use of ``N`` is one of ``M.N`` (issue 12,
    cause 7).  A module the map cannot follow (outside the tree and the
    environment, :mod:`.environment`) binds nothing.
    """

    names: Mapping[str, frozenset[str]]
    stars: Mapping[str, tuple[StarSite, ...]]
    binds: Mapping[str, frozenset[str]] = field(default_factory=dict)
    #: modules on the chains that exist but could not be read or parsed (path -> why): the
    #: spellings they make are unknown, so every check of a qualified pattern is incomplete
    problems: Mapping[str, str] = field(default_factory=dict)
    ways: Mapping[str, frozenset[str]] = field(default_factory=dict)
    words: Mapping[str, frozenset[str]] = field(default_factory=dict)
    targets: Mapping[str, frozenset[str]] = field(default_factory=dict)
    emap: ExportMap | None = field(default=None, compare=False, repr=False)
    #: per pattern, what its module part names (with a tree only: see :mod:`.existence`)
    standing: Mapping[str, Standing] = field(default_factory=dict)

    @property
    def unnamed(self) -> dict[str, str]:
        """The patterns whose module part names no module, each with why (an error)."""
        return {p: s.message(p) for p, s in sorted(self.standing.items()) if s.missing}

    def leads_to(self, name: str, pattern: str) -> bool:
        """Does a use resolved to ``name`` lead where ``pattern`` leads (or inside it)?

        A ``name`` relative to a package not known here (``.error.X``) cannot be
        followed: it counts when it completes into a whole spelling, as matching it
        against the whole spellings would.
        """
        if name.startswith("."):
            return _covering(self.names.get(pattern, frozenset())).covers_any(name)
        if self.emap is None:
            return True
        return self.emap.leads_to(name, self.targets.get(pattern, frozenset({pattern})))


@functools.lru_cache(maxsize=64)
def _covering(names: frozenset[str]) -> Covering:
    """A pattern's whole spellings as a table (thousands of them, asked of every finding)."""
    return Covering(sorted(names))


def pattern_spellings(
    source: Source,
    qualified: Iterable[str],
    bases: Sequence[str],
    tree: Sequence[TreeModule] = (),
    store: SummaryStore | None = None,
    budget: Budget | None = None,
) -> Spellings:
    """Each qualified pattern's spellings: what leads where it leads, through the tree's modules.

    ``tree``: the tree's modules, searched for the re-exports no pattern names
    (:func:`.modules_to_read.grow_chains`); without it, only the patterns' own chains are read.
    A pattern is followed as Python reads a name (NFKC: ``pkg.\uff4d\uff4f\uff44.f`` is
    ``pkg.mod.f``), its answers kept under the pattern as written.
    Raises :class:`SourceError` when the tree cannot be reached, and
    :class:`~.budget.GraphBudgetError` when the graph passes ``budget``.
    """
    patterns = sorted(set(qualified))
    if not patterns:
        return Spellings({}, {})
    read = {pattern: as_name(pattern) for pattern in patterns}  # as Python reads a name: NFKC
    chains = read_chains(source, sorted(set(read.values())), bases, tree, store, budget)
    emap = chains.emap
    names: dict[str, frozenset[str]] = {}
    ways: dict[str, frozenset[str]] = {}
    words: dict[str, frozenset[str]] = {}
    targets: dict[str, frozenset[str]] = {}
    stars: dict[str, tuple[StarSite, ...]] = {}
    others = other_names(tree)
    for pattern in patterns:
        targets[pattern] = pattern_targets(emap, read[pattern]) | {pattern}
        reached = emap.reach(targets[pattern]).values()
        whole = {r.name for r in reached if not r.suffix and chains.reached(r.name)}
        names[pattern] = frozenset(_renamed(whole | targets[pattern], others))
        ways[pattern] = frozenset(
            r.name for r in reached if r.suffix and "." in r.name and chains.reached(r.name)
        )
        words[pattern] = frozenset(name.rsplit(".", 1)[-1] for name in names[pattern])
        sites = [site for r in reached if not r.suffix for site in _star_sites(r, chains)]
        stars[pattern] = tuple(dict.fromkeys(sorted(sites, key=_site_order)))
    binds = _star_binds(emap, [*names.values(), *ways.values()])
    modules = [m.module for m in tree]
    standing = standings(patterns, modules, emap, chains.outside) if tree else {}
    return Spellings(
        names, stars, binds, dict(chains.problems), ways, words, targets, emap, standing
    )


def other_names(tree: Sequence[TreeModule]) -> dict[str, frozenset[str]]:
    """Per module of the tree, the other names its file is imported by: its path from the
    tree's root (``src.pkg.mod`` for ``src/pkg/mod.py``, ``pkg.mod`` under the import root
    ``src``), when that is a dotted name (the root is on ``sys.path`` too)."""
    found: dict[str, set[str]] = {}
    for module in tree:
        other = module_name_for(module.path)
        if other != module.module and all(part.isidentifier() for part in other.split(".")):
            found.setdefault(module.module, set()).add(other)
    return {module: frozenset(names) for module, names in found.items()}


def _renamed(names: Iterable[str], others: Mapping[str, frozenset[str]]) -> set[str]:
    """``names``, and each spelt through another name of its module (see :func:`other_names`)."""
    result = set(names)
    for name in names:
        parts = name.split(".")
        for end in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:end])
            if module in others:
                rest = ".".join(parts[end:])
                result.update(f"{other}.{rest}" for other in others[module])
                break
    return result


def _site_order(site: StarSite) -> tuple[str, int, str]:
    return (site.path, site.line, site.spelling)


def _star_binds(emap: ExportMap, spelt: Iterable[frozenset[str]]) -> dict[str, frozenset[str]]:
    """Per module, the names of spellings through it that its star export binds."""
    binds: dict[str, set[str]] = {}
    for name in sorted(set().union(*spelt)):
        module, _, last = name.rpartition(".")
        exported = emap.exported_names(module) if module else None
        if exported is not None and last in exported:
            binds.setdefault(module, set()).add(last)
    return {m: frozenset(n) for m, n in binds.items()}


@dataclass(frozen=True)
class Chains:
    """The modules read on some patterns' chains: their export map, bindings and files."""

    emap: ExportMap
    parsed: Mapping[str, ModuleExports]
    texts: Mapping[str, tuple[str, str]]  # module -> (path under the root, text)
    #: path -> why, for the modules on the chains that exist but cannot be read or parsed
    problems: Mapping[str, str] = field(default_factory=dict)
    #: what the tree's imports reach (see :class:`.modules_to_read.Reach`)
    reach: Reach = field(default_factory=Reach)
    #: the modules read from the environment, not the tree (:mod:`.environment`)
    outside: frozenset[str] = frozenset()

    def reached(self, spelling: str) -> bool:
        """Can an import of the tree reach this spelling (``m.x``, ``m`` the module making it)?"""
        parts = spelling.split(".")
        for end in range(len(parts) - 1, 0, -1):
            module = ".".join(parts[:end])
            if module in self.parsed:
                return self.reach.reaches(module, parts[end])
        return True


def read_chains(
    source: Source,
    patterns: Sequence[str],
    bases: Sequence[str],
    tree: Sequence[TreeModule] = (),
    store: SummaryStore | None = None,
    budget: Budget | None = None,
) -> Chains:
    """Read, in rounds, the modules the patterns' re-export chains pass through.

    With ``tree``, then every module of it that re-exports what they lead to
    (:func:`.modules_to_read.grow_chains`).  The rounds go on while they find modules to
    read; each module is tried once, so they end, and ``budget`` bounds the work.
    """
    meter = (budget or Budget()).start()
    parsed: dict[str, ModuleExports] = {}
    texts: dict[str, tuple[str, str]] = {}
    problems: dict[str, str] = {}
    tried: set[str] = set()
    wanted = {prefix for pattern in patterns for prefix in _prefixes(pattern)}
    emap = ExportMap({}, meter=meter)
    named = {m.module: (m.path, m.is_package) for m in reversed(tree)}  # the tree's name first
    outside: set[str] = set()
    ours = {prefix for module in tree for prefix in _prefixes(module.module) if module.module}
    while todo := sorted(wanted - tried):
        for module in todo:
            meter.spend(module)
        tried.update(todo)
        _read_round(source, todo, bases, parsed, texts, problems, store, named)
        ours.update(prefix for m in parsed if m not in outside for prefix in _prefixes(m))
        _read_outside(todo, ours, parsed, texts, outside, store)
        emap = ExportMap(parsed, meter=meter)
        wanted = {prefix for name in emap.missing(patterns) for prefix in _prefixes(name)}
    reach = Reach()
    if tree:
        emap, reach = grow_chains(source, patterns, tree, parsed, texts, store, meter)
        if reach.modules is not None and reach.pairs is not None:
            tops = reach.modules | reach.stars | {module for module, _ in reach.pairs}
            found = (parsed, texts, outside)
            emap = _grow_outside(patterns, sorted(tops - ours), found, emap, store)
    return Chains(emap, parsed, texts, problems, reach, frozenset(outside))


def _read_outside(
    modules: Iterable[str],
    ours: set[str],
    parsed: dict[str, ModuleExports],
    texts: dict[str, tuple[str, str]],
    outside: set[str],
    store: SummaryStore | None,
) -> None:
    """Read from the environment the modules no module of the tree is named like (nor above)."""
    for module in modules:
        if module in parsed or any(prefix in ours for prefix in _prefixes(module)):
            continue
        found = read_module(module, store)
        if found is not None:
            parsed[module] = found.exports
            texts[module] = (found.path, found.text)
            outside.add(module)


def _grow_outside(
    patterns: Sequence[str],
    tops: Sequence[str],
    found: tuple[dict[str, ModuleExports], dict[str, tuple[str, str]], set[str]],
    emap: ExportMap,
    store: SummaryStore | None,
) -> ExportMap:
    """Add the environment's top modules the tree imports that make a spelling of a target.

    ``os`` (imported by the tree) does ``import posixpath as path``: with it read,
    ``os.path.join`` is a spelling of ``posixpath.join``.  As :func:`.modules_to_read.grow_chains`
    does for the tree's modules, to the fixpoint; each module is read once.
    """
    parsed, texts, outside = found
    summaries = {}
    for top in tops:
        if top not in parsed and (source := read_source(top)) is not None:
            try:
                summaries[top] = (source, import_summary(source.text))
            except (LookupError, SyntaxError, ValueError):
                continue  # not decodable: Python cannot import it either
    while True:
        words = spelling_words(emap, patterns)
        admitted = [top for top, (_, s) in summaries.items() if s.may_spell(words)]
        if not admitted:
            return emap
        for top in admitted:
            module = summaries.pop(top)[0].parse(store)
            if module is not None:
                parsed[top], texts[top] = module.exports, (module.path, module.text)
                outside.add(top)
        emap = ExportMap(parsed, meter=emap.meter)


def _star_sites(spelling: Reached, chains: Chains) -> list[StarSite]:
    """The star import that makes ``spelling``, when one does (``explain`` shows it)."""
    exports = chains.parsed.get(spelling.module)
    if exports is None or spelling.module not in chains.texts or spelling.module in chains.outside:
        return []
    path, text = chains.texts[spelling.module]
    lines = text.splitlines()
    return [
        StarSite(path, b.line, b.module, spelling.name, lines[b.line - 1].strip())
        for b in exports.bindings
        if b.kind is BindingKind.STAR and b.line == spelling.line and 0 < b.line <= len(lines)
    ]


def _read_round(
    source: Source,
    modules: Sequence[str],
    bases: Sequence[str],
    parsed: dict[str, ModuleExports],
    texts: dict[str, tuple[str, str]],
    problems: dict[str, str],
    store: SummaryStore | None = None,
    named: Mapping[str, tuple[str, bool]] | None = None,
) -> None:
    """Read and parse the files of ``modules`` (one expand, one read; parsed once per content).

    ``named``: the file the tree's layout names each module (tried first; then the
    module's path under each base).

    A module file that exists but cannot be listed, read, decoded or parsed is a
    problem (``problems``): what it re-exports is unknown, and a check that went on
    without it could pass with a re-exported use in place.
    """
    layout = named or {}
    options = {
        module: ([layout[module]] if module in layout else []) + _candidates(module, bases)
        for module in modules
    }
    listed = source.expand(sorted({path for paths in options.values() for path, _ in paths}))
    chosen: dict[str, tuple[str, bool]] = {}
    for module, paths in options.items():
        for path, is_package in paths:
            answer = listed.get(path)
            if isinstance(answer, SourceError):
                problems[path] = str(answer)
            elif answer:
                chosen[module] = (path, is_package)
                break
    if not chosen:
        return
    contents = source.read(sorted({path for path, _ in chosen.values()}))
    for module, (path, is_package) in chosen.items():
        read = contents.get(path)
        if not isinstance(read, FileRead):  # (read without needles: never NoNeedle)
            problems[path] = str(read or "listed, but the source returned nothing for it")
            continue
        data = read.data
        try:
            text = decode_python(data)
            stored = store.whole(path, data, module, is_package) if store else None
            parsed[module] = stored or parse_module_exports(module, text, is_package=is_package)
            texts[module] = (path, text)
            if store is not None and stored is None:
                store.keep_whole(path, data, parsed[module])
        except (LookupError, SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            problems[path] = (
                f"cannot follow its re-exports ({type(exc).__name__}: {exc}): the spellings "
                "of the qualified patterns through it are unknown"
            )


def modules_to_read(patterns: Iterable[str], layout: Layout) -> frozenset[str]:
    """The first round of files to read for qualified patterns: every prefix of each.

    ``sglang.srt.utils.f`` needs ``sglang/__init__.py``, ``sglang/srt/__init__.py``,
    ``sglang/srt/utils/__init__.py`` (or ``utils.py``): whichever the layout holds.
    """
    paths: set[str] = set()
    for pattern in patterns:
        for prefix in _prefixes(pattern):
            paths.update(layout.paths_for(prefix)[:1])
    return frozenset(paths)


def next_reads(emap: ExportMap, qualified_names: Iterable[str], layout: Layout) -> frozenset[str]:
    """The files to read next so the map can follow these spellings one hop further.

    Empty once every spelling is followed as far as the tree allows.  A Source
    reads in rounds: :func:`modules_to_read`, then this until it is empty.  In
    the worst case that takes one round per module on the longest re-export
    chain (each module's text names the next); package prefixes all come in
    the first round, and a star import's source comes with the module that
    names it, so real trees take two or three.
    """
    paths: set[str] = set()
    for module in emap.missing(qualified_names):
        for prefix in _prefixes(module):
            if prefix not in emap.modules:
                paths.update(layout.paths_for(prefix)[:1])
    return frozenset(paths)
