"""Where the pieces of a string literal stand (analysis/literals.py), stated directly."""

from __future__ import annotations

import random

import pytest

from pytest_cleantree.analysis import analyze_fast, analyze_reference
from pytest_cleantree.analysis.literals import line_runs, run_column, string_places
from pytest_cleantree.core.patterns import parse_pattern


def test_runs_are_the_plain_pieces_of_each_line_decoded() -> None:
    segment = ['"a"', '     "s\\x6d" b"1" r"\\20"', '  u"x"  ']
    assert line_runs(segment) == {
        0: (((1, "a", True),),),
        1: (((6, "sm", False), (15, "1", True), (20, "\\20", True)),),
        2: (((4, "x", True),),),
    }


def test_a_triple_quoted_or_prefixed_piece_on_one_line_starts_after_its_quotes() -> None:
    assert line_runs(["rb'''x''' U\"y\""]) == {0: (((5, "x", True), (12, "y", True)),)}


def test_an_f_string_ends_a_run_and_belongs_to_none() -> None:
    assert line_runs(['"sm" f"{x}" "120"']) == {0: (((1, "sm", True),), ((13, "120", True),))}


def test_a_piece_spanning_lines_belongs_to_no_line() -> None:
    assert line_runs(['"""a', 'sm"""  "120"']) == {1: (((8, "120", True),),)}


@pytest.mark.parametrize("segment", [["a"], ['"a" "b'], ["'unclosed"], ["x + 1"]])
def test_a_segment_that_is_not_only_string_pieces_has_no_runs_or_none_that_matter(
    segment: list[str],
) -> None:
    assert all(
        run_column(parse_pattern("sm120"), runs) is None for runs in line_runs(segment).values()
    )


def test_the_column_is_where_the_match_starts_in_its_piece() -> None:
    runs = line_runs(['"xs" "m1" "20"'])[0]
    assert run_column(parse_pattern("sm120"), runs) == 2
    runs = line_runs(['"x" "sm" "120"'])[0]
    assert run_column(parse_pattern("sm120"), runs) == 5
    assert run_column(parse_pattern("re:m1"), runs) == 1  # a regex's index is unknown: 0
    assert run_column(parse_pattern("nothere"), runs) is None
    runs = line_runs(['"x\\x73m" "120"'])[0]  # an escaped piece: where its body starts
    assert run_column(parse_pattern("sm120"), runs) == 1


def test_each_line_that_shows_the_match_is_a_place_else_the_start() -> None:
    pattern = parse_pattern("sm120")
    assert string_places(pattern, ['"a"', '     "sm" "120"']) == [(1, 6)]
    assert string_places(pattern, ['"sm120"', '  "x"', '  "sm" "120"']) == [(0, 1), (2, 3)]
    assert string_places(pattern, ['"sm"', '     "120"']) == [(0, 0)]  # across lines


def joined_on_one_line(seed: int) -> tuple[str, int, int]:
    """(module, line, column): a literal over lines, the needle's pieces all on one line;
    the column is where the body of its first piece starts."""
    rng = random.Random(seed)
    count = rng.randint(2, 4)
    at = rng.randrange(count)
    lines, column = [], 0
    for index in range(count):
        if index != at:
            lines.append(" ".join(rng.choice(['"x"', "'y'", 'u"z"', 'r"w"']) for _ in range(2)))
            continue
        cuts = sorted(rng.sample(range(1, 5), rng.randint(0, 3)))
        pieces = ["sm120"[a:b] for a, b in zip([0, *cuts], [*cuts, 5], strict=True)]
        if rng.random() < 0.5:  # an escape in one piece: the raw line no longer shows it
            which = rng.randrange(len(pieces))
            pieces[which] = "".join(f"\\x{ord(c):02x}" for c in pieces[which])
        head = rng.choice(["", '"a" ', "'b'  "])
        lines.append(head + " ".join(f'"{piece}"' for piece in pieces))
        column = (5 if index == 0 else 4) + len(head) + 1
    end = rng.choice(["\n", " \\\n"])  # in brackets, or after a backslash too
    source = "x = 1\ny = (" + (end + "    ").join(lines) + ")\n"
    return source, 2 + at, column


@pytest.mark.parametrize("block", range(4))
def test_a_joined_match_on_one_line_is_reported_there_by_both_engines(block: int) -> None:
    pattern = parse_pattern("sm120")
    for seed in range(block * 50, (block + 1) * 50):
        source, line, column = joined_on_one_line(seed)
        for engine in (analyze_fast, analyze_reference):
            found = engine("m.py", source.encode(), [pattern])
            assert found.problem is None, (found.problem, source)
            spots = [(f.occurrence.line, f.occurrence.col) for f in found.findings]
            assert spots == [(line, column)], source
