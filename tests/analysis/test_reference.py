"""The reference path's building blocks, stated directly (the fast path shares them):
a file that is not Python, one that does not decode or parse or is too large, the module
a path is, whole-line patterns, and resolution that fails."""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence

import pytest

from pytest_cleantree.analysis.reader import Key
from pytest_cleantree.analysis.records import parse_problem
from pytest_cleantree.analysis.reference import (
    analyze_reference,
    analyze_text,
    module_of,
    prepare,
    resolve_names,
    scan_file,
    too_large,
    unparsed,
    with_line_patterns,
)
from pytest_cleantree.analysis.scan import Scanner
from pytest_cleantree.analysis.text import PatternSet
from pytest_cleantree.core.findings import FileAnalysis, Finding
from pytest_cleantree.core.model import Kind, Occurrence, Pattern
from pytest_cleantree.core.patterns import parse_pattern

SM = [parse_pattern("sm120")]


def text(pattern: str, line: int, col: int, name: str) -> Finding:
    return Finding(pattern, Occurrence(line, col, Kind.TEXT, name))


# ---------------------------------------------------------------- prepare, analyze_text


def test_a_python_file_is_decoded_and_split_into_lines() -> None:
    assert prepare("m.py", b"x = 1\r\ny = sm120\n", SM) == (
        "x = 1\r\ny = sm120\n",
        ("x = 1", "y = sm120", ""),
    )


def test_a_file_that_is_not_python_is_matched_line_by_line() -> None:
    data = b'{"k": "sm\\u0031\\u0032\\u0030"}\n# sm120 cleantree\n'

    assert prepare("a.json", data, SM) == analyze_text("a.json", data, SM)
    assert analyze_text("a.json", data, SM) == FileAnalysis(
        "a.json",
        ('{"k": "sm\\u0031\\u0032\\u0030"}', "# sm120 cleantree", ""),
        (
            text("sm120", 1, 0, '{"k": "sm\\u0031\\u0032\\u0030"}'),
            text("sm120", 2, 2, "# sm120 cleantree"),
        ),
        None,
        allows=(),
    )


def test_the_allows_of_a_text_file_are_its_comments_that_hold_the_mark() -> None:
    data = b"a: 1  # cleantree: allow r -- why\nb: 2  # other\n"

    assert analyze_text("x.yaml", data, SM).allows == ((1, "# cleantree: allow r -- why"),)
    assert analyze_text("notes.txt", data, SM).allows is None


def test_an_allow_in_a_file_of_an_unknown_language_counts_for_nothing() -> None:
    """Its strings are not read here: the same text in a string and in a comment cannot be
    told apart, so no line is a comment (it was read from the whole line: the string's
    allow silenced the line)."""
    data = b'run(sm120, note="# cleantree: allow r -- why")\n'

    assert analyze_text("launch.foo", data, SM).allows == ()
    assert analyze_text("launch", data, SM).allows is None  # no suffix, no #!: plain text
    script = b"#!/bin/sh\n" + data
    assert analyze_text("launch", script, SM).allows == ()  # the shell's string


def test_a_text_file_that_may_hide_a_pattern_says_so() -> None:
    analysis = analyze_text("a.txt", b"caf\xe9\n", [parse_pattern("=café")])

    assert analysis.problem is not None
    assert analysis.lines == ("caf\udce9", "")


def test_a_python_file_whose_bytes_do_not_decode_is_a_problem_with_text_findings() -> None:
    data = b"x = 'sm120'  # caf\xe9"

    analysis = prepare("m.py", data, SM)

    assert isinstance(analysis, FileAnalysis)
    assert (analysis.path, analysis.lines) == ("m.py", ("x = 'sm120'  # caf\udce9",))
    assert analysis.findings == (text("sm120", 1, 5, "x = 'sm120'  # caf\udce9"),)
    assert str(analysis.problem).startswith("cannot decode as Python source: ")


def test_a_python_file_python_refuses_to_decode_is_as_one_that_does_not_parse() -> None:
    # a coding cookie python does not accept after the BOM
    data = b"\xef\xbb\xbf# coding: latin-1\nx = sm120\n"

    analysis = prepare("m.py", data, SM)

    assert isinstance(analysis, FileAnalysis)
    assert analysis.problem is not None
    assert [f.occurrence.line for f in analysis.findings] == [2]


# ---------------------------------------------------------------- too_large, unparsed


def test_a_file_too_large_is_matched_as_text_and_complete_when_nothing_hides() -> None:
    lines = ("x = sm120", "y = 1")

    assert too_large("m.py", 9 * 2**20, "x = sm120\ny = 1\n", lines, SM) == FileAnalysis(
        "m.py", lines, (text("sm120", 1, 4, "x = sm120"),)
    )


def test_a_file_too_large_that_may_spell_a_pattern_otherwise_says_so() -> None:
    lines = ('x = "sm" "120"', "import os")
    patterns = [parse_pattern("sm120"), parse_pattern("os.path.join"), parse_pattern("other")]

    analysis = too_large("m.py", 9 * 2**20 + 1, "\n".join(lines) + "\n", lines, patterns)

    assert analysis == FileAnalysis(
        "m.py",
        lines,
        (),
        "9 MiB is over the 8 MiB parse limit: matched as text, so aliases of qualified names "
        "are not resolved; the text may spell 'sm120' through an escape, a join of strings or "
        "NFKC letters, which only a parse sees",
    )


def test_a_file_too_large_with_a_qualified_pattern_only() -> None:
    lines = ("import os",)

    analysis = too_large("m.py", 12 * 2**20, "import os\n", lines, [parse_pattern("os.path.join")])

    assert analysis.problem == (
        "12 MiB is over the 8 MiB parse limit: matched as text, so aliases of qualified names "
        "are not resolved"
    )


def test_a_file_that_does_not_parse_gives_its_problem_line_and_text_findings() -> None:
    with pytest.raises(SyntaxError) as raised:
        ast.parse("x = 1\ndef (:\n  sm120\n")
    lines = ("x = 1", "def (:", "  sm120")

    assert unparsed("m.py", lines, SM, raised.value) == FileAnalysis(
        "m.py",
        lines,
        (text("sm120", 3, 2, "  sm120"),),
        parse_problem(raised.value),
        problem_line=2,
    )


def test_a_file_too_deep_to_parse_has_no_problem_line() -> None:
    error = RecursionError("too deep")

    analysis = unparsed("m.py", ("sm120",), SM, error)

    assert (analysis.problem, analysis.problem_line) == (parse_problem(error), 0)
    assert len(analysis.findings) == 1


# ---------------------------------------------------------------- module_of


@pytest.mark.parametrize(
    ("path", "module", "expected"),
    [
        ("pkg/mod.py", None, ("pkg.mod", False)),
        ("pkg/__init__.py", None, ("pkg", True)),
        ("src/pkg/__init__.pyi", "pkg", ("pkg", True)),
        ("src/pkg/mod.py", "pkg.mod", ("pkg.mod", False)),
        ("pkg/__init__x.py", None, ("pkg.__init__x", False)),
        ("__init__.py", None, ("", True)),
    ],
)
def test_the_module_a_path_is(path: str, module: str | None, expected: tuple[str, bool]) -> None:
    assert module_of(path, module) == expected


# ---------------------------------------------------------------- with_line_patterns

Call = tuple[str, bytes, tuple[str, ...], bool, "str | None", "Mapping[str, frozenset[str]] | None"]


def _recording(calls: list[Call], lines: tuple[str, ...] = ()) -> object:
    def analyze(
        path: str,
        data: bytes,
        patterns: Sequence[Pattern],
        *,
        comments: bool = True,
        module: str | None = None,
        stars: Mapping[str, frozenset[str]] | None = None,
    ) -> FileAnalysis:
        calls.append((path, data, tuple(p.text for p in patterns), comments, module, stars))
        return FileAnalysis(path, lines, (text("other", 1, 0, "x"),))

    return analyze


def test_whole_line_patterns_are_matched_apart_the_rest_analysed_as_usual() -> None:
    calls: list[Call] = []
    stars = {"m": frozenset({"x"})}
    analyze = with_line_patterns(_recording(calls, ("import sm120", "x")))  # type: ignore[arg-type]
    patterns = [parse_pattern("line:import sm120"), parse_pattern("other")]

    analysis = analyze("m.py", b"ignored\n", patterns, comments=False, module="pkg.m", stars=stars)

    assert calls == [("m.py", b"ignored\n", ("other",), False, "pkg.m", stars)]
    assert analysis.findings == (
        text("other", 1, 0, "x"),
        text("line:import sm120", 1, 0, "import sm120"),
    )


def test_without_whole_line_patterns_the_analysis_is_as_it_was() -> None:
    calls: list[Call] = []
    analyze = with_line_patterns(_recording(calls))  # type: ignore[arg-type]

    analysis = analyze("m.py", b"a\n", [parse_pattern("other")], module="m", stars=None)

    assert calls == [("m.py", b"a\n", ("other",), True, "m", None)]
    assert analysis.findings == (text("other", 1, 0, "x"),)


def test_line_patterns_read_the_bytes_when_the_analysis_kept_no_lines() -> None:
    calls: list[Call] = []
    analyze = with_line_patterns(_recording(calls))  # type: ignore[arg-type]

    analysis = analyze(
        "m.py", b"a\n  import sm120\xe9\n", [parse_pattern("line:import sm120\udce9")]
    )

    assert calls == [("m.py", b"a\n  import sm120\xe9\n", (), True, None, None)]
    assert analysis.findings[1:] == (text("line:import sm120\udce9", 2, 2, "  import sm120\udce9"),)


# ---------------------------------------------------------------- resolve_names, scan_file


def test_resolution_not_wanted_is_not_run() -> None:
    def fail() -> dict[Key, tuple[str, ...]]:
        raise AssertionError("not to be called")

    assert resolve_names(ast.parse("x = 1\n"), fail, wanted=False) == ({}, None)


def test_resolution_that_fails_is_a_problem_not_a_crash() -> None:
    def fail() -> dict[Key, tuple[str, ...]]:
        raise ValueError("boom")

    assert resolve_names(ast.parse("x = 1\n"), fail, wanted=True) == (
        {},
        "qualified names could not be resolved through imports (ValueError('boom'))",
    )


def test_resolution_adds_the_aliases() -> None:
    tree = ast.parse("import os\nj = os.path.join\nj('a')\n")
    attribute = tree.body[1].value  # type: ignore[attr-defined]
    key: Key = ("Attribute", 2, 4, 2, 16)
    assert (attribute.lineno, attribute.col_offset) == (2, 4)

    resolved, problem = resolve_names(
        tree, lambda: {key: ("os.path.join",)}, wanted=True, bodies=("os.path.join",)
    )

    assert problem is None
    assert resolved == {key: ("os.path.join",), ("Name", 3, 0, 3, 1): ("os.path.join",)}


@pytest.mark.parametrize("comments", [True, False])
def test_scan_file_walks_the_tree_and_the_comments_when_asked(comments: bool) -> None:
    source = "x = sm120  # sm120 here\n"
    lines = ("x = sm120  # sm120 here",)
    scanner = Scanner(lines, PatternSet.of(SM), "m", {}, None)

    analysis = scan_file(scanner, "m.py", source, ast.parse(source), comments=comments, problem="p")

    kinds = [f.occurrence.kind for f in analysis.findings]
    assert kinds == ([Kind.REFERENCE, Kind.COMMENT] if comments else [Kind.REFERENCE])
    assert (analysis.path, analysis.lines, analysis.problem) == ("m.py", lines, "p")


def test_the_reference_finds_what_the_blocks_say() -> None:
    data = b"import os\nj = os.path.join\nj('a')  # cleantree: allow r -- why\n"

    analysis = analyze_reference("pkg/m.py", data, [parse_pattern("os.path.join")])

    assert [(f.occurrence.line, f.occurrence.kind) for f in analysis.findings] == [
        (2, Kind.REFERENCE),
        (3, Kind.CALL),
    ]
    assert analysis.allows == ((3, "# cleantree: allow r -- why"),)
