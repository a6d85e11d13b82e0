"""A file line by line: grep-like findings, and the comments that may be inline allows."""

from __future__ import annotations

import pytest

from pytest_cleantree.analysis.lines import (
    ALLOW_MARK,
    allow_comments,
    line_findings,
    text_findings,
    with_allows,
)
from pytest_cleantree.core.findings import FileAnalysis, Finding
from pytest_cleantree.core.model import Kind, Occurrence
from pytest_cleantree.core.patterns import parse_pattern


def text(pattern: str, line: int, col: int, name: str) -> Finding:
    return Finding(pattern, Occurrence(line, col, Kind.TEXT, name))


# ---------------------------------------------------------------- text_findings


def test_each_line_that_matches_is_a_finding_per_pattern_as_grep_would() -> None:
    lines = ("x = sm120", "nothing", "  sm120(hopper)")
    patterns = [parse_pattern("sm120"), parse_pattern("hopper")]

    assert list(text_findings(lines, patterns)) == [
        text("sm120", 1, 4, "x = sm120"),
        text("sm120", 3, 2, "  sm120(hopper)"),
        text("hopper", 3, 8, "  sm120(hopper)"),
    ]


def test_a_regular_expression_is_at_column_zero() -> None:
    assert list(text_findings(("a sm120",), [parse_pattern("re:sm1[0-9]+")])) == [
        text("re:sm1[0-9]+", 1, 0, "a sm120")
    ]


def test_a_line_matches_by_its_view_too_and_is_reported_as_written() -> None:
    lines = ('{"k": "sm\\u0031\\u0032\\u0030"}', '{"k": "x"}')
    views = ('{"k": "sm120"}', '{"k": "x"}')

    assert list(text_findings(lines, [parse_pattern("sm120")], views)) == [
        text("sm120", 1, 0, lines[0])
    ]
    assert list(text_findings(lines, [parse_pattern("sm120")])) == []


def test_a_line_whose_view_differs_and_matches_neither_way_is_no_finding() -> None:
    lines = ('"\\u0078"',)

    assert list(text_findings(lines, [parse_pattern("sm120")], ('"x"',))) == []


def test_a_line_like_its_view_is_reported_once() -> None:
    lines = ("sm120",)

    assert list(text_findings(lines, [parse_pattern("sm120")], lines)) == [
        text("sm120", 1, 0, "sm120")
    ]


def test_the_view_of_each_line_is_its_own() -> None:
    lines = ("a", "b", "c")
    views = ("a", "sm120", "c")

    assert [f.occurrence.line for f in text_findings(lines, [parse_pattern("sm120")], views)] == [2]


# ---------------------------------------------------------------- line_findings


def test_a_whole_line_pattern_matches_lines_whatever_their_indentation() -> None:
    lines = ("import sm120", "    import sm120", "import sm120  # no", "x")

    assert list(line_findings(lines, [parse_pattern("line:import sm120")])) == [
        text("line:import sm120", 1, 0, "import sm120"),
        text("line:import sm120", 2, 4, "    import sm120"),
    ]


def test_a_pinned_line_pattern_looks_at_its_line_only() -> None:
    lines = ("import sm120", "x", "\timport sm120")
    pinned = parse_pattern("line@3:import sm120")

    assert list(line_findings(lines, [pinned])) == [text(pinned.text, 3, 1, "\timport sm120")]
    assert list(line_findings(lines, [parse_pattern("line@2:import sm120")])) == []


@pytest.mark.parametrize("body", ["import sm120", "XXXX", "x"])
def test_a_pinned_line_past_the_end_matches_nothing_whatever_it_holds(body: str) -> None:
    assert list(line_findings(("import sm120",), [parse_pattern(f"line@2:{body}")])) == []


def test_every_line_pattern_is_tried() -> None:
    lines = ("a = 1", "b = 2")
    patterns = [parse_pattern("line:b = 2"), parse_pattern("line@1:a = 1")]

    assert list(line_findings(lines, patterns)) == [
        text("line:b = 2", 2, 0, "b = 2"),
        text("line@1:a = 1", 1, 0, "a = 1"),
    ]


def test_a_line_matches_by_its_bytes_where_the_files_decoding_reads_them_otherwise() -> None:
    lines = ("# coding: latin-1", "x = 'caf\u00c3\u00a9'", "y = 'caf\u00e9'")  # as latin-1 reads
    raw = ("# coding: latin-1", "x = 'caf\u00e9'", "y = 'caf\udce9'")  # as UTF-8, bytes kept
    utf8, kept = parse_pattern("line:x = 'café'"), parse_pattern("line:y = 'caf\udce9'")

    assert list(line_findings(lines, [utf8, kept], raw)) == [
        text(utf8.text, 2, 0, lines[1]),
        text(kept.text, 3, 0, lines[2]),
    ]
    assert list(line_findings(lines, [utf8, kept])) == []


# ---------------------------------------------------------------- allow_comments

ALLOW = "# cleantree: allow no-sm120 -- kept for the old cards"


def test_the_comments_that_hold_the_mark_with_their_lines() -> None:
    source = f"import os\nx = 1  {ALLOW}\n# cleantree\n# other\n"

    assert allow_comments(source.encode()) == ((2, ALLOW), (3, "# cleantree"))


def test_the_mark_in_a_string_is_no_comment() -> None:
    source = f'x = "{ALLOW}"\ny = """\n{ALLOW}\n"""\n'

    assert allow_comments(source.encode()) == ()


def test_a_file_without_the_mark_has_none() -> None:
    assert allow_comments(b"x = 1  # allow\n") == ()
    assert ALLOW_MARK == "cleantree"


def test_lines_are_counted_with_a_lone_cr_ending_one() -> None:
    source = f"a = 1\rb = 2\r\nc = 3  {ALLOW}\n"

    assert allow_comments(source.encode()) == ((3, ALLOW),)


def test_the_file_is_decoded_as_python_does() -> None:
    data = f"# coding: latin-1\nx = 1  {ALLOW}, caf\xe9\n".encode("latin-1")

    assert allow_comments(data) == ((2, f"{ALLOW}, caf\xe9"),)


def test_a_file_python_cannot_decode_is_read_as_utf8_its_bytes_kept() -> None:
    data = f"x = 1  {ALLOW}, ".encode() + b"caf\xe9\n"

    assert allow_comments(data) == ((1, f"{ALLOW}, caf\udce9"),)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (f"def f(:\n    pass  {ALLOW}\n", ((2, ALLOW),)),
        (f"x = (1,\n  {ALLOW}\n", ((2, ALLOW),)),
        (f"if x:\n        y = 1  {ALLOW}\n    z = 2  {ALLOW}\n", ((2, ALLOW), (3, ALLOW))),
        (f'x = 1  {ALLOW}\ny = """never closed\n{ALLOW}\n', ((1, ALLOW),)),
    ],
    ids=["unclosed-bracket", "unclosed-bracket-at-the-end", "bad-dedent", "unclosed-string"],
)
def test_a_file_the_tokenizer_refuses_still_gives_its_comments(
    source: str, expected: tuple[tuple[int, str], ...]
) -> None:
    assert allow_comments(source.encode()) == expected


def test_a_refused_file_gives_each_comment_that_holds_the_mark_on_its_line() -> None:
    source = f"x = (\n# other\n\n  1  {ALLOW}\ny = 'cleantree'  # cleantree too\n"

    assert allow_comments(source.encode()) == ((4, ALLOW), (5, "# cleantree too"))


# ---------------------------------------------------------------- with_allows


def _analysis(path: str, data: bytes, *args: object, **kwargs: object) -> FileAnalysis:
    return FileAnalysis(path, tuple(data.decode().splitlines()), (), f"{args} {kwargs}")


def test_a_python_file_gets_its_allow_comments() -> None:
    analyze = with_allows(_analysis)
    data = f"x = 1  {ALLOW}\n".encode()

    analysis = analyze("pkg/mod.py", data, 1, flag=True)

    assert analysis == FileAnalysis(
        "pkg/mod.py", (f"x = 1  {ALLOW}",), (), "(1,) {'flag': True}", allows=((1, ALLOW),)
    )
    assert analyze("pkg/mod.py", b"x = 1\n").allows == ()
    assert analyze.__name__ == "_analysis"


def test_a_file_that_is_not_python_keeps_its_allows_unset() -> None:
    analysis = with_allows(_analysis)("notes.txt", f"{ALLOW}\n".encode())

    assert analysis.allows is None
