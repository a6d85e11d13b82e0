"""A file's part of a run's pattern list, derived from the list's compiled set.

A run's list is shared by every file its rules name and compiled once
(:func:`.text.compile_patterns`); a file is scanned only for the patterns its text may spell
(:func:`.text.present_asked`).  Compiling that part afresh for each file cost as much as
the list is long (a qualified pattern's spellings run to thousands on a real package); the
part is a view of the whole instead: the same needles, the same name table, narrowed, in
time that grows with the part, not with the list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pytest_cleantree.core.model import Pattern

from .text import PatternSet


def part_of(compiled: PatternSet, present: Sequence[Pattern]) -> PatternSet:
    """``PatternSet.of(present)``, for ``present`` a part of the compiled list in its order
    (what :func:`.text.present_patterns` keeps), built from ``compiled``'s work.  A list
    that repeats a pattern, or a pattern not in it, is compiled afresh (held equal by
    ``tests/core/test_name_index.py``)."""
    positions = compiled.index.positions
    if positions is None or any(p not in positions for p in present):
        return PatternSet.of(present)
    if len(present) == len(compiled.patterns):
        return compiled
    return part_at(compiled, sorted({positions[p] for p in present}))


def part_at(compiled: PatternSet, keep: Sequence[int]) -> PatternSet:
    """:func:`part_of` the patterns at positions ``keep`` (ascending, each once) of a list
    that repeats no pattern: no pattern is looked up, and the whole list is the list
    itself, its tables built once a run (issue 44)."""
    if len(keep) == len(compiled.patterns):
        return compiled
    placed = _placed(compiled)
    key = tuple(keep)
    known = placed.parts.get(key)
    if known is not None:  # files that may spell the same needles share their part
        return known
    every = compiled.patterns
    needles = tuple(needle for i in keep for needle in placed.needles[i])
    qualified = tuple(every[i] for i in keep if placed.qualified[i])
    plain = tuple(every[i] for i in keep if not placed.qualified[i])
    part = PatternSet(tuple(every[i] for i in keep), needles, qualified, plain)
    part.__dict__["index"] = compiled.index.within(frozenset(keep))  # the cached property: a view
    if len(placed.parts) >= PARTS_KEPT:
        placed.parts.clear()
    placed.parts[key] = part
    return part


#: the parts of one list kept for the files that follow (a run's files fall in a few)
PARTS_KEPT = 256


@dataclass(frozen=True)
class _Placed:
    """Per position of a compiled list, its pattern's needles (in the list's order), and
    whether it is qualified: a file's part is gathered by position, not filtered."""

    needles: tuple[tuple[Any, ...], ...]
    qualified: tuple[bool, ...]
    #: the parts made (by positions kept), each with its tables, for the files that follow
    parts: dict[tuple[int, ...], PatternSet]


def _placed(compiled: PatternSet) -> _Placed:
    known = _PLACED.get(id(compiled))
    if known is not None and known[0] is compiled:
        return known[1]
    positions = compiled.index.positions or {}
    needles: list[list[Any]] = [[] for _ in compiled.patterns]
    for needle in compiled.needles:
        needles[positions[needle[0]]].append(needle)
    qualified = {positions[p] for p in compiled.qualified}
    placed = _Placed(
        tuple(tuple(n) for n in needles),
        tuple(i in qualified for i in range(len(compiled.patterns))),
        {},
    )
    if len(_PLACED) > 64:
        _PLACED.clear()
    _PLACED[id(compiled)] = (compiled, placed)
    return placed


#: per compiled set (held, so that its id is not reused), its needles placed
_PLACED: dict[int, tuple[PatternSet, _Placed]] = {}
