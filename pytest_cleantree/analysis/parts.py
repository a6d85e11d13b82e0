"""A file's part of a run's pattern list, derived from the list's compiled set.

A run's list is shared by every file its rules name and compiled once
(:func:`.text.compile_patterns`); a file is scanned only for the patterns its text may spell
(:func:`.text.present_patterns`).  Compiling that part afresh for each file cost as much as
the list is long (a qualified pattern's spellings run to thousands on a real package); the
part is a view of the whole instead: the same needles, the same name table, narrowed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pytest_cleantree.core.model import Pattern

from .text import PatternSet


def part_of(compiled: PatternSet, present: Sequence[Pattern]) -> PatternSet:
    """``PatternSet.of(present)``, for ``present`` a part of the compiled list in its order
    (what :func:`.text.present_patterns` keeps), built from ``compiled``'s work.  A list
    that repeats a pattern, or a pattern not in it, is compiled afresh (held equal by
    ``tests/core/test_name_index.py``)."""
    whole = compiled.index
    positions = whole.positions
    if positions is None or any(p not in positions for p in present):
        return PatternSet.of(present)
    if len(present) == len(compiled.patterns):
        return compiled
    keep = frozenset(positions[p] for p in present)
    needles, qualified, plain = _placed(compiled)
    part = PatternSet(
        tuple(present),
        tuple(n for n, i in needles if i in keep),
        tuple(p for p, i in qualified if i in keep),
        tuple(p for p, i in plain if i in keep),
    )
    part.__dict__["index"] = whole.within(keep)  # the cached property, filled: a view
    return part


_Placed = tuple[tuple[Any, int], ...]


def _placed(compiled: PatternSet) -> tuple[_Placed, _Placed, _Placed]:
    """The compiled set's needles, qualified and plain patterns, each with its pattern's
    position: a file's part is then filtered by number, not by hashing patterns."""
    known = _PLACED.get(id(compiled))
    if known is not None and known[0] is compiled:
        return known[1]
    positions = compiled.index.positions or {}
    placed = (
        tuple((n, positions[n[0]]) for n in compiled.needles),
        tuple((p, positions[p]) for p in compiled.qualified),
        tuple((p, positions[p]) for p in compiled.plain),
    )
    if len(_PLACED) > 64:
        _PLACED.clear()
    _PLACED[id(compiled)] = (compiled, placed)
    return placed


#: per compiled set (held, so that its id is not reused), its parts placed
_PLACED: dict[int, tuple[PatternSet, tuple[_Placed, _Placed, _Placed]]] = {}
