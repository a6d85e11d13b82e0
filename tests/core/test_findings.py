"""``core/findings.py`` called directly: what an analysis answers, and its compact form."""

from __future__ import annotations

from pytest_cleantree.core.findings import FileAnalysis, Finding
from pytest_cleantree.core.model import Kind, Occurrence

LINES = ("import os", "os.sep  # cleantree: allow r -- why", "x = 1")


def found(pattern: str, line: int) -> Finding:
    return Finding(pattern, Occurrence(line, 0, Kind.REFERENCE, "os"))


def test_a_line_is_read_by_its_1_based_number_and_none_out_of_range() -> None:
    analysis = FileAnalysis("a.py", LINES, ())
    assert [analysis.source_line(n) for n in range(5)] == ["", *LINES, ""]
    assert analysis.source_line(-1) == ""


def test_an_allow_is_read_from_the_comments_of_a_python_file_else_from_the_line() -> None:
    python = FileAnalysis("a.py", LINES, (), allows=((2, "# cleantree: allow r -- why"),))
    assert [python.allow_text(n) for n in (1, 2, 3)] == ["", "# cleantree: allow r -- why", ""]
    other = FileAnalysis("a.cfg", LINES, ())
    assert [other.allow_text(n) for n in (1, 2, 3)] == list(LINES)
    assert FileAnalysis("e.py", LINES, (), allows=()).allow_text(2) == ""


def test_the_patterns_found_are_those_with_a_finding() -> None:
    analysis = FileAnalysis("a.py", LINES, (found("os", 1), found("os.sep", 2), found("os", 2)))
    assert analysis.patterns_found == frozenset({"os", "os.sep"})
    assert FileAnalysis("a.py", LINES, ()).patterns_found == frozenset()


def test_the_compact_form_keeps_only_the_lines_findings_point_at() -> None:
    analysis = FileAnalysis("a.py", LINES, (found("os", 1), found("os", 2)), allows=((2, "# c"),))
    compact = analysis.compact()
    assert compact == FileAnalysis(
        "a.py",
        (),
        analysis.findings,
        kept={1: "import os", 2: LINES[1]},
        allows=((2, "# c"),),
    )
    assert [compact.source_line(n) for n in (1, 2, 3)] == ["import os", LINES[1], ""]
    assert compact.compact() is compact  # no lines left: nothing to drop
    empty = FileAnalysis("b.py", (), (), problem="cannot decode", problem_line=0)
    assert empty.compact() is empty
