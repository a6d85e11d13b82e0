"""A file's part of a run's pattern list (:mod:`pytest_cleantree.analysis.parts`), directly:
what is shared with the whole list and what is compiled afresh.  That a part answers as the
part compiled alone is ``tests/core/test_name_index.py``'s property."""

from __future__ import annotations

import pytest

from pytest_cleantree.analysis import parts
from pytest_cleantree.analysis.parts import part_of
from pytest_cleantree.analysis.text import PatternSet
from pytest_cleantree.core.patterns import parse_pattern

LIST = [parse_pattern(t) for t in ("=sm120", "torch.cuda.x", "sm90", "a.b.c", "re:z+")]


def test_the_whole_list_is_its_compiled_set() -> None:
    whole = PatternSet.of(LIST)
    assert part_of(whole, list(LIST)) is whole


def test_a_part_is_a_view_of_the_whole_lists_tables() -> None:
    whole = PatternSet.of(LIST)
    present = [LIST[1], LIST[2], LIST[3]]
    part = part_of(whole, present)
    alone = PatternSet.of(present)
    assert (part.patterns, part.needles, part.qualified, part.plain) == (
        alone.patterns,
        alone.needles,
        alone.qualified,
        alone.plain,
    )
    assert part.index.patterns is whole.index.patterns  # the whole's tables, narrowed
    assert list(part.index.match("x", ("torch.cuda.x",), inside=False)) == [LIST[1]]
    assert list(part.index.match("sm120", (), inside=False)) == []  # left out of the part
    assert part_of(whole, []).patterns == ()


def test_a_part_the_list_does_not_hold_is_compiled_afresh() -> None:
    whole = PatternSet.of(LIST)
    present = [LIST[0], parse_pattern("zz")]
    part = part_of(whole, present)
    assert part.index.patterns == tuple(present)
    assert part.needles == PatternSet.of(present).needles


def test_a_list_that_repeats_a_pattern_compiles_each_part_afresh() -> None:
    repeated = PatternSet.of([*LIST, LIST[2]])
    part = part_of(repeated, [LIST[2]])
    assert part.index.patterns == (LIST[2],)


def test_the_needles_are_placed_once_per_compiled_list(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parts, "_PLACED", {})
    whole = PatternSet.of(LIST)
    placed = parts._placed(whole)
    assert parts._placed(whole) is placed
    assert placed.qualified == (False, True, False, True, False)
    assert placed.needles[1] == ((LIST[1], "x", False),)
    assert placed.needles[4] == ((LIST[4], None, False),)
    others = [PatternSet.of(LIST) for _ in range(65)]
    for other in others[:64]:
        parts._placed(other)
    assert parts._placed(whole) is placed  # 65 kept
    parts._placed(others[64])  # the 66th: the table was full and starts again
    assert parts._placed(whole) is not placed
    assert parts._placed(whole) == placed
