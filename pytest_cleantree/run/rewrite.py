"""Qualified patterns through the tree's names: ask for every spelling, report as written.

Before reading, each file's list grows by the spellings of its qualified patterns (the
names layer finds them, :mod:`pytest_cleantree.names.spellings`); after analysing, a
spelling's findings are reported under the patterns the manifest wrote.  A run without
qualified patterns loads no part of the names layer.
"""

from __future__ import annotations

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

    @property
    def binds(self) -> Mapping[str, frozenset[str]]:
        """What star imports of the tree's modules bind (see ``Spellings.binds``)."""
        return self.spellings.binds if self.spellings is not None else {}


def spell(
    checks: Sequence[Check],
    plan: Plan,
    source: Source,
    import_roots: Sequence[str],
    store: FindingStore | None = None,
) -> tuple[Plan, Spelt]:
    """The plan with every spelling of its qualified patterns asked of each file.

    ``store``: where the symbol graph's per-file parts persist (see :mod:`.graphstore`).
    """
    qualified = qualified_patterns(checks)
    if not qualified:
        return plan, Spelt()
    from pytest_cleantree.names.modules import name_tree
    from pytest_cleantree.names.spellings import pattern_spellings
    from pytest_cleantree.run.graphstore import StoredGraph

    naming = name_tree(source, plan.paths, import_roots)
    graph = StoredGraph(store) if store is not None else None
    spellings = pattern_spellings(source, qualified, naming.bases, naming.tree, graph)
    wanted, back = with_spellings(plan.wanted, spellings.names)
    return replace(plan, wanted=wanted), Spelt(dict(naming.modules), back, spellings)


def with_spellings(
    wanted: Mapping[str, Asked], spelt: Mapping[str, frozenset[str]]
) -> tuple[dict[str, Asked], dict[str, frozenset[str]]]:
    """Ask each file for every spelling of its qualified patterns (see :mod:`.spellings`).

    Returns the new patterns per file and, per spelling, the patterns as
    written that it stands for (a pattern's own text stands for itself).
    """
    back: dict[str, set[str]] = defaultdict(set)
    for pattern, spellings in spelt.items():
        for spelling in spellings:
            back[spelling].add(pattern)
    grown: dict[Asked, Asked] = {}  # files share their lists: grow each once
    result: dict[str, Asked] = {}
    for path, asked in wanted.items():
        if asked not in grown:
            patterns, comments = asked
            texts = patterns.texts
            extra = sorted({s for p in texts for s in spelt.get(p, ())} - texts)
            more = tuple(Pattern(s, PatternTier.QUALIFIED, s) for s in extra)
            grown[asked] = (PatternList(patterns.patterns + more), comments) if more else asked
        result[path] = grown[asked]
    return result, {s: frozenset(p) for s, p in back.items() if p != {s}}


def rewrite_findings(analyses: Analyses, wanted: Mapping[str, Asked], spelt: Spelt) -> Analyses:
    """Findings under the patterns as written.

    A ``from M import *`` that re-exports a target is a route, not a use: it
    names nothing a leftover could be fixed by removing (``explain`` shows it).
    """
    if spelt.spellings is None:
        return analyses
    return as_written(analyses, spelt.back)


def as_written(analyses: Analyses, back: Mapping[str, frozenset[str]]) -> Analyses:
    """Findings of a spelling reported under the patterns as the manifest wrote them."""
    if not back:
        return analyses
    result: Analyses = {}
    for path, analysis in analyses.items():
        if isinstance(analysis, SourceError) or not back.keys() & analysis.patterns_found:
            result[path] = analysis
            continue
        findings: dict[Finding, None] = {}
        for finding in analysis.findings:
            for pattern in sorted(back.get(finding.pattern, (finding.pattern,))):
                findings[Finding(pattern, finding.occurrence)] = None
        result[path] = replace(analysis, findings=tuple(findings))
    return result
