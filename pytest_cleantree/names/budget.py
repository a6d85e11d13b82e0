"""The symbol graph's budget: the work one run's graph may do before it ends, loudly.

Work is counted where it is done, not per statement: each node a walk visits, each edge
it follows (a star import is an edge per name its module exports), each name an export
walk adds, each binding the reverse index reads, each module a round admits.  Every map of
a run shares one :class:`Meter`; past the :class:`Budget` the run ends with
:class:`GraphBudgetError` naming the module where it stopped (exit 2), never a hang.
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

    def _passed(self, bound: str, where: str) -> None:
        raise GraphBudgetError(
            f"the symbol graph passed its bound of {bound} at the module {where!r}: the "
            "spellings of the qualified patterns are unknown (raise `graph_budget` in the "
            "manifest, narrow the root, or check fewer qualified patterns at once)"
        )
