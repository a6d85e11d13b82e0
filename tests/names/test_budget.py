"""The symbol graph's budget (``names/budget.py``): steps counted in any number at a time, the
bound that stops the next one, and the clock read whenever a multiple of 4096 steps is passed."""

from __future__ import annotations

import pytest

from pytest_cleantree.names import budget
from pytest_cleantree.names.budget import DEFAULT_STEPS, Budget, GraphBudgetError, Meter

# ------------------------------------------------------------------ Meter and Budget


def test_the_budget_allows_its_steps_and_stops_the_next() -> None:
    meter = Budget(nodes=3).start()
    for _ in range(3):
        meter.spend("m")
    assert meter.steps == 3
    with pytest.raises(GraphBudgetError) as raised:
        meter.spend("pkg.mod")
    message = str(raised.value)
    assert "bound of 3 steps at the module 'pkg.mod'" in message
    assert message.endswith(
        "the spellings of the qualified patterns are unknown (raise `graph_budget` in the "
        "manifest, narrow the root, or check fewer qualified patterns at once)"
    )


class Clock:
    """A stand-in for the ``time`` module: the meter reads ``monotonic`` only."""

    def __init__(self, now: float) -> None:
        self.now = now

    def monotonic(self) -> float:
        return self.now


def test_the_clock_is_read_every_4096_steps(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock(110.0)
    monkeypatch.setattr(budget, "time", clock)
    meter = Meter(Budget(seconds=5.0), started=100.0)  # ten seconds ago: past the bound
    for _ in range(4095):
        meter.spend("m")
    with pytest.raises(GraphBudgetError) as raised:
        meter.spend("pkg.slow")
    message = str(raised.value)
    assert "bound of 5 s at the module 'pkg.slow'" in message
    assert message.endswith(
        "the spellings of the qualified patterns are unknown (raise `graph_budget` in the "
        "manifest, narrow the root, or check fewer qualified patterns at once)"
    )


def test_a_run_within_its_seconds_goes_on(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock(1000.0)
    monkeypatch.setattr(budget, "time", clock)
    meter = Meter(Budget(seconds=5.0), started=995.0)  # exactly at the bound: not past it
    for _ in range(3 * 4096):
        meter.spend("m")
    assert meter.steps == 3 * 4096
    clock.now = 1000.5
    for _ in range(4095):
        meter.spend("m")
    with pytest.raises(GraphBudgetError):
        meter.spend("m")


def test_a_fresh_meter_within_its_seconds_goes_on() -> None:
    meter = Budget(seconds=300.0).start()
    for _ in range(2 * 4096):
        meter.spend("m")
    assert meter.steps == 2 * 4096


def test_steps_are_counted_many_at_a_time_and_the_bound_is_theirs() -> None:
    meter = Budget(nodes=10).start()
    meter.spend("m", 4)
    meter.spend("m", 0)
    meter.spend("m", 6)
    assert meter.steps == 10
    with pytest.raises(GraphBudgetError, match=r"bound of 10 steps at the module 'pkg\.star'"):
        meter.spend("pkg.star", 5)


def test_the_clock_is_read_when_many_steps_pass_a_multiple_of_4096(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = Clock(110.0)
    monkeypatch.setattr(budget, "time", clock)
    meter = Meter(Budget(seconds=5.0), started=100.0)  # past the bound
    meter.spend("m", 4000)
    with pytest.raises(GraphBudgetError, match=r"bound of 5 s at the module 'pkg\.web'"):
        meter.spend("pkg.web", 200)  # 4200: past 4096 without standing on it


def test_the_default_budget() -> None:
    assert Budget().nodes == DEFAULT_STEPS
    assert Budget().seconds == 300.0


# ------------------------------------------------------------------ the analysis's share

ANALYSIS_ADVICE = (
    "each of its spellings is asked of each file that may spell it (raise `graph_budget` in "
    "the manifest, narrow the root or the rule's files, or check fewer qualified patterns at "
    "once)"
)


def test_the_analysis_spends_on_the_same_meter_and_stops_past_its_steps() -> None:
    meter = Budget(nodes=10).start()
    meter.spend("m", 4)
    meter.spend_on("os.path.join", "a.py", 6)  # exactly at the bound: not past it
    assert meter.steps == 10
    with pytest.raises(GraphBudgetError) as raised:
        meter.spend_on("os.path.join", "b.py", 1)
    assert str(raised.value) == (
        "the analysis of the qualified pattern 'os.path.join' passed the run's bound of 10 "
        f"steps at the file 'b.py': {ANALYSIS_ADVICE}"
    )
    assert meter.steps == 11


def test_the_analysis_reads_the_clock_at_every_spend(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = Clock(1005.0)
    monkeypatch.setattr(budget, "time", clock)
    meter = Meter(Budget(seconds=5.0), started=1000.0)
    meter.spend_on("p.q", "a.py", 1)  # exactly at the bound: not past it
    clock.now = 1005.5
    with pytest.raises(GraphBudgetError) as raised:
        meter.spend_on("p.q", "b.py", 1)
    assert str(raised.value) == (
        "the analysis of the qualified pattern 'p.q' passed the run's bound of 5 s at the "
        f"file 'b.py': {ANALYSIS_ADVICE}"
    )
