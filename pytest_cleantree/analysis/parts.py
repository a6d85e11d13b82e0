"""A file's part of a run's pattern list, derived from the list's compiled set.

A run's list is shared by every file its rules name and compiled once
(:func:`.text.compile_patterns`); a file is scanned only for the patterns its text may spell
(:func:`.text.present_patterns`).  Compiling that part afresh for each file cost as much as
the list is long (a qualified pattern's spellings run to thousands on a real package); the
part is a view of the whole instead: the same needles, the same name table, narrowed.
"""

from __future__ import annotations

from collections.abc import Sequence

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
    part = PatternSet(
        tuple(present),
        tuple(n for n in compiled.needles if positions[n[0]] in keep),
        tuple(p for p in compiled.qualified if positions[p] in keep),
        tuple(p for p in compiled.plain if positions[p] in keep),
    )
    part.__dict__["index"] = whole.within(keep)  # the cached property, filled: a view
    return part
