"""Where the pieces of a string literal stand (analysis/literals.py), stated directly."""

from __future__ import annotations

import pytest

from pytest_cleantree.analysis.literals import line_runs, run_column, string_places
from pytest_cleantree.core.patterns import parse_pattern


def test_runs_are_the_plain_pieces_of_each_line_decoded() -> None:
    segment = ['"a"', '     "s\\x6d" b"1" r"\\20"', '  u"x"  ']
    assert line_runs(segment) == {
        0: (((0, "a"),),),
        1: (((5, "sm"), (13, "1"), (18, "\\20")),),
        2: (((2, "x"),),),
    }


def test_an_f_string_ends_a_run_and_belongs_to_none() -> None:
    assert line_runs(['"sm" f"{x}" "120"']) == {0: (((0, "sm"),), ((12, "120"),))}


def test_a_piece_spanning_lines_belongs_to_no_line() -> None:
    assert line_runs(['"""a', 'sm"""  "120"']) == {1: (((7, "120"),),)}


@pytest.mark.parametrize("segment", [["a"], ['"a" "b'], ["'unclosed"], ["x + 1"]])
def test_a_segment_that_is_not_only_string_pieces_has_no_runs_or_none_that_matter(
    segment: list[str],
) -> None:
    assert all(
        run_column(parse_pattern("sm120"), runs) is None for runs in line_runs(segment).values()
    )


def test_the_column_is_that_of_the_piece_where_the_match_starts() -> None:
    runs = line_runs(['"xs" "m1" "20"'])[0]
    assert run_column(parse_pattern("sm120"), runs) == 0
    runs = line_runs(['"x" "sm" "120"'])[0]
    assert run_column(parse_pattern("sm120"), runs) == 4
    assert run_column(parse_pattern("re:m1"), runs) == 0  # a regex's column is unknown: 0
    assert run_column(parse_pattern("nothere"), runs) is None


def test_each_line_that_shows_the_match_is_a_place_else_the_start() -> None:
    pattern = parse_pattern("sm120")
    assert string_places(pattern, ['"a"', '     "sm" "120"']) == [(1, 5)]
    assert string_places(pattern, ['"sm120"', '  "x"', '  "sm" "120"']) == [(0, 1), (2, 2)]
    assert string_places(pattern, ['"sm"', '     "120"']) == [(0, 0)]  # across lines
