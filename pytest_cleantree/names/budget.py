"""The run's budget for qualified patterns: the work its graph and the analysis they cause
may do before the run ends, loudly.

Work is counted where it is done, not per statement: each node a walk visits, each edge
it follows (a star import is an edge per name its module exports), each name an export
walk adds, each binding the reverse index reads, each module a round admits.  Every map of
a run shares one :class:`Meter`; past the :class:`Budget` the run ends with
:class:`GraphBudgetError` naming the module where it stopped (exit 2), never a hang.
The analysis counts on the same meter (:meth:`Meter.spend_on`): each spelling of a qualified
pattern asked of a file is a step, so a pattern with thousands of spellings over thousands
of files ends the run naming the pattern and the file, never a silent wait (issue 44).
The manifest's ``graph_budget`` sets the bound (:data:`DEFAULT_STEPS` when absent).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from pytest_cleantree.core.errors import SourceError

__all__ = ["DEFAULT_STEPS", "Budget", "GraphBudgetError", "Meter"]

#: the default bound on steps (measured: the standard library as a tree with four qualified
#: patterns takes about 16,000; 100 modules that star-import each other with 30 definitions
#: each, about 2.5 million; a larger web of star imports can take any number)
DEFAULT_STEPS = 5_000_000
#: how many steps pass between two looks at the clock
_CLOCK_EVERY = 4096


class GraphBudgetError(SourceError):
    """The symbol graph would pass its bound: the run stops there, naming where (exit 2)."""


@dataclass(frozen=True)
class Budget:
    """Bounds on the symbol graph of one run: steps of work (see the module), and seconds."""

    nodes: int = DEFAULT_STEPS
    seconds: float = 300.0

    def start(self) -> Meter:
        return Meter(self)


@dataclass
class Meter:
    """The steps a run's graph has taken, against its :class:`Budget` (shared by every map)."""

    budget: Budget = field(default_factory=Budget)
    steps: int = 0
    started: float = field(default_factory=time.monotonic)

    def spend(self, where: str, count: int = 1) -> None:
        """Count ``count`` steps at the module ``where``; raise once the budget is passed."""
        before = self.steps
        self.steps += count
        if self.steps > self.budget.nodes:
            self._passed(f"{self.budget.nodes} steps", where)
        if self.steps // _CLOCK_EVERY != before // _CLOCK_EVERY and (
            time.monotonic() - self.started > self.budget.seconds
        ):
            self._passed(f"{self.budget.seconds:g} s", where)

    def spend_on(self, pattern: str, path: str, count: int) -> None:
        """Count ``count`` steps of the analysis the qualified ``pattern`` causes in the file
        ``path`` (each of its spellings asked of the file is one): the budget bounds the whole
        run, not only its graph; past it the run ends naming the pattern and the file."""
        self.steps += count
        bound = None
        if self.steps > self.budget.nodes:
            bound = f"{self.budget.nodes} steps"
        elif time.monotonic() - self.started > self.budget.seconds:
            bound = f"{self.budget.seconds:g} s"
        if bound is not None:
            raise GraphBudgetError(
                f"the analysis of the qualified pattern {pattern!r} passed the run's bound of "
                f"{bound} at the file {path!r}: each of its spellings is asked of each file "
                "that may spell it (raise `graph_budget` in the manifest, narrow the root or "
                "the rule's files, or check fewer qualified patterns at once)"
            )

    def _passed(self, bound: str, where: str) -> None:
        raise GraphBudgetError(
            f"the symbol graph passed its bound of {bound} at the module {where!r}: the "
            "spellings of the qualified patterns are unknown (raise `graph_budget` in the "
            "manifest, narrow the root, or check fewer qualified patterns at once)"
        )
