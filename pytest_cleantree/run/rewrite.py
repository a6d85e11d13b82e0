"""Qualified patterns through the tree's names: ask for every spelling, report as written.

Before reading, each file's list grows by the spellings of its qualified patterns (the
names layer finds them, :mod:`pytest_cleantree.names.spellings`); after analysing, a
spelling's findings are reported under the patterns the manifest wrote.  A run without
qualified patterns loads no part of the names layer.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from pytest_cleantree.core.checks import Check
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.findings import FileAnalysis, Finding
from pytest_cleantree.core.model import Pattern, PatternTier
from pytest_cleantree.run.analyses import FindingStore
from pytest_cleantree.run.plan import Asked, PatternList, Plan, qualified_patterns
from pytest_cleantree.sources.base import Source

if TYPE_CHECKING:  # loaded by spell() only: a run without qualified patterns never needs it
    from pytest_cleantree.names.spellings import Spellings

#: each file's analysis, or why it has none
Analyses = dict[str, FileAnalysis | SourceError]


@dataclass(frozen=True)
class Spelt:
    """What the names layer said of a run's qualified patterns (nothing, without any)."""

    #: module names from the tree's layout, for the files it names
    modules: Mapping[str, str] = field(default_factory=dict)
    #: per spelling, the patterns as written it stands for (when not only itself)
    back: Mapping[str, frozenset[str]] = field(default_factory=dict)
    spellings: Spellings | None = None
    #: per name through a module alias, the patterns whose target it may lead to: a use
    #: found through it is one of theirs only if it resolves there (see ``Spellings.ways``)
    ways: Mapping[str, frozenset[str]] = field(default_factory=dict)

    #: per list of patterns, what its qualified patterns cost a file (see :class:`_Cost`)
    _costs: dict[Asked, _Cost] = field(default_factory=dict, compare=False, repr=False)

    def charge(self, path: str, asked: Asked, data: bytes = b"") -> None:
        """Count the analysis of ``path`` (its bytes ``data``) for the qualified patterns of
        its list against the run's budget (the graph's meter): one step per spelling the file
        is asked (:func:`~pytest_cleantree.analysis.asking.present_asked`: those whose needle
        its bytes hold, and of the ways, those whose last name they hold as a word), not per
        spelling of the list.  Raises :class:`~pytest_cleantree.names.budget.GraphBudgetError`
        past it (exit 2), naming the pattern as written with the most spellings."""
        spellings = self.spellings
        if spellings is None or spellings.emap is None:
            return
        cost = self._costs.get(asked)
        if cost is None:
            cost = self._costs[asked] = _Cost.of(asked[0].patterns, spellings)
        steps = cost.steps(data, self.modules.get(path))
        if steps:
            spellings.emap.meter.spend_on(cost.named, path, steps)

    @property
    def binds(self) -> Mapping[str, frozenset[str]]:
        """What star imports of the tree's modules bind (see ``Spellings.binds``)."""
        return self.spellings.binds if self.spellings is not None else {}


#: a word of a file's bytes, as a way's last name is looked up among them
_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


@dataclass(frozen=True)
class _Cost:
    """What a list's qualified patterns cost a file: the patterns that are not ways, per
    needle; the ways, per last name, and their needles."""

    #: (needles as bytes, how many patterns have them)
    needles: tuple[tuple[tuple[bytes, ...], int], ...]
    #: per last name of a way, how many of the ways that end with it start with each first
    #: name, and how many hold each other name after their first (see ``_ways_asked`` in
    #: :mod:`pytest_cleantree.analysis.asking`)
    ways: Mapping[bytes, tuple[Mapping[bytes, int], Mapping[bytes, int]]]
    way_needles: tuple[bytes, ...]
    way_count: int
    #: up to this many ways, each is asked of a file that spells its needle
    few: int
    #: the pattern as written with the most spellings (named when the budget is passed)
    named: str

    @classmethod
    def of(cls, patterns: Sequence[Pattern], spellings: Spellings) -> _Cost:
        from pytest_cleantree.analysis.asking import FEW_WAYS
        from pytest_cleantree.core.patterns import prefilter_needles

        grouped: dict[tuple[bytes, ...], int] = defaultdict(int)
        ways: dict[bytes, tuple[dict[bytes, int], dict[bytes, int]]] = {}
        way_needles: set[bytes] = set()
        for pattern in patterns:
            if pattern.tier is not PatternTier.QUALIFIED:
                continue
            needles = tuple(
                sorted(
                    {n.encode("utf-8", "surrogatepass") for n in prefilter_needles(pattern) if n}
                )
            )
            if pattern.needles:
                parts = [p.encode("utf-8", "surrogatepass") for p in pattern.body.split(".")]
                firsts, inner = ways.setdefault(parts[-1], ({}, {}))
                firsts[parts[0]] = firsts.get(parts[0], 0) + 1
                for part in set(parts[1:]):
                    inner[part] = inner.get(part, 0) + 1
                way_needles.update(needles)
            else:
                grouped[needles] += 1
        written = [p.text for p in patterns if p.text in spellings.names]
        spelt = {p: len(spellings.names[p]) + len(spellings.ways.get(p, ())) for p in written}
        named = max(spelt, key=spelt.__getitem__, default="")
        return cls(
            tuple(grouped.items()),
            ways,
            tuple(sorted(way_needles)),
            sum(sum(firsts.values()) for firsts, _ in ways.values()),
            FEW_WAYS,
            named,
        )

    def steps(self, data: bytes, module: str | None) -> int:
        """The steps a file costs: its patterns asked, estimated from its bytes (a way is
        counted when the file's words hold its last and first names, or its last and the
        module's first after its own first; what only escapes or joined strings spell is
        asked uncharged), in time that grows with the file's words, not with the ways."""
        steps = sum(count for needles, count in self.needles if any(n in data for n in needles))
        if not self.ways or not any(n in data for n in self.way_needles):
            return steps
        if self.way_count <= self.few:  # each asked (see ``asking.present_asked``)
            return steps + self.way_count
        words = set(_WORD.findall(data))
        parts = [p.encode("utf-8", "surrogatepass") for p in module.split(".")] if module else []
        words.update(parts)
        for key in self.ways.keys() & words:
            firsts, inner = self.ways[key]
            steps += sum(firsts[first] for first in firsts.keys() & words)
            steps += inner.get(parts[0], 0) if parts else 0
        return steps


def spell(
    checks: Sequence[Check],
    plan: Plan,
    source: Source,
    import_roots: Sequence[str],
    store: FindingStore | None = None,
    graph_budget: int | None = None,
) -> tuple[Plan, Spelt]:
    """The plan with every spelling of its qualified patterns asked of each file.

    ``store``: where the symbol graph's per-file parts persist (see :mod:`.graphstore`).
    The graph runs under a :class:`~pytest_cleantree.names.budget.Budget` of
    ``graph_budget`` steps (the manifest's; the default when ``None``).
    """
    qualified = qualified_patterns(checks)
    if not qualified:
        return plan, Spelt()
    from pytest_cleantree.names.budget import Budget
    from pytest_cleantree.names.modules import name_tree
    from pytest_cleantree.names.spellings import pattern_spellings
    from pytest_cleantree.run.graphstore import StoredGraph

    naming = name_tree(source, plan.paths, import_roots)
    graph = StoredGraph(store) if store is not None else None
    budget = Budget(nodes=graph_budget) if graph_budget is not None else None
    spellings = pattern_spellings(source, qualified, naming.bases, naming.tree, graph, budget)
    wanted, back, ways = with_spellings(plan.wanted, spellings)
    return replace(plan, wanted=wanted), Spelt(dict(naming.modules), back, spellings, ways)


def with_spellings(
    wanted: Mapping[str, Asked], spelt: Spellings
) -> tuple[dict[str, Asked], dict[str, frozenset[str]], dict[str, frozenset[str]]]:
    """Ask each file for every spelling of its qualified patterns (see :mod:`.spellings`).

    Returns the new patterns per file; per spelling, the patterns as written that
    it stands for (a pattern's own text stands for itself); and per name through
    a module alias, the patterns it may lead to.  Such a name is asked with the
    target's last names as its needles: a use through it that counts spells one.
    """
    back: dict[str, set[str]] = defaultdict(set)
    ways: dict[str, set[str]] = defaultdict(set)
    needles: dict[str, set[str]] = defaultdict(set)
    for pattern, spellings in spelt.names.items():
        for spelling in spellings:
            back[spelling].add(pattern)
    for pattern, names in spelt.ways.items():
        for name in names:
            if name not in spelt.names.get(pattern, ()):
                back[name].add(pattern)
                ways[name].add(pattern)
                needles[name] |= spelt.words.get(pattern, set())
    whole = {s for spellings in spelt.names.values() for s in spellings}
    grown: dict[Asked, Asked] = {}  # files share their lists: grow each once
    result: dict[str, Asked] = {}
    for path, asked in wanted.items():
        if asked not in grown:
            patterns, comments = asked
            texts = patterns.texts
            extra = sorted({s for p in texts for s in spelt.names.get(p, ())} - texts)
            through = sorted({w for p in texts for w in spelt.ways.get(p, ())} - texts - whole)
            more = tuple(Pattern(s, PatternTier.QUALIFIED, s) for s in extra) + tuple(
                Pattern(w, PatternTier.QUALIFIED, w, needles=tuple(sorted(needles[w])))
                for w in through
            )
            grown[asked] = (PatternList(patterns.patterns + more), comments) if more else asked
        result[path] = grown[asked]
    return (
        result,
        {s: frozenset(p) for s, p in back.items() if p != {s}},
        {w: frozenset(p) for w, p in ways.items()},
    )


def rewrite_findings(analyses: Analyses, wanted: Mapping[str, Asked], spelt: Spelt) -> Analyses:
    """Findings under the patterns as written.

    A ``from M import *`` that re-exports a target is a route, not a use: it
    names nothing a leftover could be fixed by removing (``explain`` shows it).
    """
    if spelt.spellings is None:
        return analyses
    return as_written(analyses, spelt.back, _Through(spelt.ways, spelt.spellings))


@dataclass(frozen=True)
class _Through:
    """The names through a module alias, and how to tell where a use through one leads."""

    ways: Mapping[str, frozenset[str]]
    spellings: Spellings

    def patterns(self, finding: Finding) -> frozenset[str]:
        """The patterns a finding through a way is one of: those its use resolves to.

        A string, comment or text line is matched as written: through a way name
        (``os.path`` in ``"os.path.exists"``) it is nobody's; the whole spellings
        are asked of text too.
        """
        return frozenset(
            pattern
            for pattern in self.ways[finding.pattern]
            if any(self.spellings.leads_to(q, pattern) for q in finding.occurrence.qualified)
        )


def as_written(
    analyses: Analyses, back: Mapping[str, frozenset[str]], through: _Through | None = None
) -> Analyses:
    """Findings of a spelling reported under the patterns as the manifest wrote them.

    A finding through a way name (``through``) counts for the patterns its use leads to.
    """
    if not back:
        return analyses
    ways = through.ways if through is not None else {}
    result: Analyses = {}
    for path, analysis in analyses.items():
        if isinstance(analysis, SourceError) or not back.keys() & analysis.patterns_found:
            result[path] = analysis
            continue
        findings: dict[Finding, None] = {}
        for finding in analysis.findings:
            written = back.get(finding.pattern, frozenset({finding.pattern}))
            if through is not None and finding.pattern in ways:
                written = (written - ways[finding.pattern]) | through.patterns(finding)
            for pattern in sorted(written):
                findings[Finding(pattern, finding.occurrence)] = None
        result[path] = replace(analysis, findings=tuple(findings))
    return result
