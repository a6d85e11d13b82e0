"""Where a qualified name leads, and every spelling by which it is reachable: what
``cleantree explain`` shows (:mod:`pytest_cleantree.report.explain` renders it).

The graph is read as for a run (:func:`.spellings.read_chains`), and kept with where each
answer stands: the definition's file and line, each spelling's statement, the modules read
from the environment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pytest_cleantree.core.patterns import as_name
from pytest_cleantree.names.budget import Budget
from pytest_cleantree.names.existence import Standing, standings
from pytest_cleantree.names.modules_to_read import TreeModule, pattern_targets
from pytest_cleantree.names.spellings import other_names, read_chains
from pytest_cleantree.sources.base import Source

__all__ = ["Explanation", "explain_name"]


@dataclass(frozen=True)
class Explanation:
    """Where a qualified name leads, and every spelling by which it is reachable."""

    qualified: str
    canonical: str  # the likely target (the name itself when it cannot be followed)
    defined: tuple[str, int] | None  # (path, line) of the definition; line 0 for a module
    others: tuple[tuple[str, tuple[str, int] | None], ...]  # other targets a binding may reach
    spellings: tuple[tuple[str, str, int], ...]  # (spelling, path, line of the statement)
    #: what the name's module part names, when worth saying (see :mod:`.existence`)
    standing: Standing = field(default_factory=lambda: Standing("tree"))
    #: the module defining the target, its file, and the other names that file has
    module: tuple[str, str, tuple[str, ...]] | None = None
    #: (module, absolute path) of each module read from the environment, not the tree
    outside: tuple[tuple[str, str], ...] = ()


def explain_name(
    source: Source,
    qualified: str,
    bases: Sequence[str],
    tree: Sequence[TreeModule] = (),
    budget: Budget | None = None,
) -> Explanation:
    """Follow ``qualified`` through the tree as :func:`pattern_spellings` does, keeping where.

    Raises :class:`SourceError` when the tree cannot be reached, and
    :class:`~.budget.GraphBudgetError` when the graph passes ``budget``.
    """
    chains = read_chains(source, [as_name(qualified)], bases, tree, budget=budget)
    emap, texts = chains.emap, chains.texts

    def where(canonical: str) -> tuple[str, int] | None:
        found = emap.definition(canonical)
        if found is None or found[0] not in texts:
            return None  # a namespace package or a module not read: no file to show
        return (texts[found[0]][0], found[1])

    canonical = emap.canonical(as_name(qualified))
    others = sorted(emap.canonicals(as_name(qualified)) | {canonical})
    targets = sorted(pattern_targets(emap, canonical) | pattern_targets(emap, as_name(qualified)))
    spellings: dict[str, tuple[str, str, int]] = {}
    reached = emap.reach(targets).values()
    #: the modules the answer stands on: where it leads, and where each spelling is made
    answer = {r.module for r in reached} | {other.rpartition(".")[0] for other in others}
    for spelling in sorted(r for r in reached if not r.suffix):
        if spelling.module in texts and spelling.name not in spellings:
            path = texts[spelling.module][0]
            spellings[spelling.name] = (spelling.name, path, spelling.line)
    modules = [m.module for m in tree]
    standing = standings([qualified], modules, emap, chains.outside)[qualified] if tree else None
    found = emap.definition(canonical)
    module = None
    if found is not None and found[0] in texts:
        also = tuple(sorted(other_names(tree).get(found[0], ())))
        module = (found[0], texts[found[0]][0], also)
    return Explanation(
        qualified,
        canonical,
        where(canonical),
        tuple((other, where(other)) for other in others if other != canonical),
        tuple(sorted(spellings.values())),
        standing or Standing("tree"),
        module,
        tuple((name, texts[name][0]) for name in sorted(chains.outside & answer)),
    )
