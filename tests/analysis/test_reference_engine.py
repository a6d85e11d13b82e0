"""The reference engine end to end on bytes: each way a file is read, and what it is told.

:mod:`.test_reference` states the building blocks; here ``analyze_reference`` is held to
what it hands them (the path, the lines, the module, the stars, the comments asked for).
"""

from __future__ import annotations

import pytest

from pytest_cleantree.analysis import reference
from pytest_cleantree.analysis import text as text_module
from pytest_cleantree.analysis.reference import analyze_reference, unparsed
from pytest_cleantree.core.findings import FileAnalysis, Finding
from pytest_cleantree.core.model import Kind, Occurrence
from pytest_cleantree.core.patterns import parse_pattern


def _analyze(path: str, data: bytes, *patterns: str, **options: object) -> FileAnalysis:
    return analyze_reference(path, data, [parse_pattern(p) for p in patterns], **options)  # type: ignore[arg-type]


def _found(analysis: FileAnalysis) -> list[tuple[str, int, int, str, str, tuple[str, ...]]]:
    return [
        (f.pattern, o.line, o.col, o.kind.value, o.name, o.qualified)
        for f in analysis.findings
        for o in (f.occurrence,)
    ]


def test_a_file_that_does_not_parse_keeps_its_path_lines_problem_line_and_text_findings() -> None:
    analysis = _analyze("a/m.py", b"def f(:\n  sm120\n", "sm120")
    assert analysis.path == "a/m.py"
    assert analysis.lines == ("def f(:", "  sm120", "")
    assert _found(analysis) == [("sm120", 2, 2, "text", "  sm120", ())]
    assert analysis.problem is not None
    assert analysis.problem.startswith("not valid Python")
    assert "invalid syntax at line 1" in analysis.problem
    assert analysis.problem_line == 1


def test_a_file_python_refuses_to_decode_keeps_its_path_lines_and_text_findings() -> None:
    analysis = _analyze("a/m.py", b"x = 1\x00\nsm120 = 2\n", "sm120")
    assert (analysis.path, analysis.lines) == ("a/m.py", ("x = 1\x00", "sm120 = 2", ""))
    assert _found(analysis) == [("sm120", 2, 0, "text", "sm120 = 2", ())]
    assert analysis.problem is not None
    assert "null bytes" in analysis.problem


def test_a_file_whose_bytes_do_not_decode_is_read_as_utf_8_with_escapes() -> None:
    analysis = _analyze("m.py", b's = "\xff"\nsm120 = 1\n', "sm120")
    assert analysis.lines == ('s = "\udcff"', "sm120 = 1", "")
    assert _found(analysis) == [("sm120", 2, 0, "text", "sm120 = 1", ())]
    assert (
        analysis.problem
        == "cannot decode as Python source: invalid or missing encoding declaration"
    )


def test_a_file_over_the_parse_limit_is_matched_as_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(text_module, "MAX_PARSE_BYTES", 10)
    data = b'x = sm120\ny = "o" "ther"\n'
    analysis = _analyze("a/m.py", data, "sm120", "other", "os.sep")
    assert analysis == FileAnalysis(
        "a/m.py",
        ("x = sm120", 'y = "o" "ther"', ""),
        (Finding("sm120", Occurrence(1, 4, Kind.TEXT, "x = sm120")),),
        "0 MiB is over the 0 MiB parse limit: matched as text, so aliases of qualified names "
        "are not resolved; the text may spell 'other' through an escape, a join of strings or "
        "NFKC letters, which only a parse sees",
        allows=(),
    )
    two = _analyze("m.py", b'x = 1\ny = "o" "ther"  "sm" "120"\n', "sm120", "other")
    assert two.problem == (
        "0 MiB is over the 0 MiB parse limit: matched as text, so the text may spell 'sm120', "
        "'other' through an escape, a join of strings or NFKC letters, which only a parse sees"
    )
    # at the limit itself, the file is parsed
    assert _found(_analyze("m.py", b"x = sm120\n", "sm120")) == [
        ("sm120", 1, 4, "reference", "sm120", ())
    ]


def test_a_package_s_init_is_the_package_for_relative_imports() -> None:
    analysis = _analyze("pkg/sub/__init__.py", b"from . import x\nx()\n", "pkg.sub.x")
    assert _found(analysis) == [
        ("pkg.sub.x", 1, 14, "import", "x", (".pkg.sub.x",)),
        ("pkg.sub.x", 2, 0, "call", "x", (".pkg.sub.x",)),
    ]
    assert analysis.problem is None
    assert _found(_analyze("pkg/sub.py", b"from . import x\nx()\n", "pkg.sub.x")) == []


def test_the_module_given_is_the_file_s_name() -> None:
    data = b"def f(): pass\n"
    assert _found(_analyze("a/b.py", data, "lib.mod.f", module="lib.mod")) == [
        ("lib.mod.f", 1, 4, "definition", "f", (".lib.mod.f",))
    ]
    assert _found(_analyze("a/b.py", data, "lib.mod.f")) == []
    assert _found(_analyze("lib/mod.py", data, "lib.mod.f")) == [
        ("lib.mod.f", 1, 4, "definition", "f", (".lib.mod.f",))
    ]


def test_the_stars_given_are_what_a_star_import_binds() -> None:
    data = b"from lib import *\nf()\n"
    assert _found(_analyze("a/b.py", data, "lib.f", stars={"lib": frozenset({"f"})})) == [
        ("lib.f", 2, 0, "call", "f", ("lib.f",))
    ]
    assert _found(_analyze("a/b.py", data, "lib.f")) == []


def test_aliases_are_followed_and_comments_read_unless_told_not_to() -> None:
    data = b"import os\nj = os.path.join\nj() # sm120\n"
    analysis = _analyze("a/b.py", data, "os.path.join", "sm120")
    assert (analysis.path, analysis.problem) == ("a/b.py", None)
    assert _found(analysis) == [
        ("os.path.join", 2, 12, "reference", "join", ("os.path.join",)),
        ("os.path.join", 3, 0, "call", "j", ("os.path.join",)),
        ("sm120", 3, 4, "comment", "# sm120", ()),
    ]
    assert _found(_analyze("a/b.py", data, "os.path.join", "sm120", comments=False)) == [
        ("os.path.join", 2, 12, "reference", "join", ("os.path.join",)),
        ("os.path.join", 3, 0, "call", "j", ("os.path.join",)),
    ]


def test_a_syntax_error_without_a_line_has_problem_line_zero() -> None:
    analysis = unparsed("m.py", ("sm120",), [parse_pattern("sm120")], SyntaxError("no line"))
    assert analysis.problem_line == 0


def test_a_file_python_refuses_after_its_bom_is_read_as_its_cookie_says() -> None:
    data = b"\xef\xbb\xbf# coding: latin-1\nx = sm120\n"
    assert _analyze("a/m.py", data, "sm120") == FileAnalysis(
        "a/m.py",
        ("\ufeff# coding: latin-1", "x = sm120", ""),
        (Finding("sm120", Occurrence(2, 4, Kind.TEXT, "x = sm120")),),
        "cannot decode as Python source: encoding problem: utf-8",
        allows=(),
    )


def test_a_list_of_patterns_is_split_once_and_answers_alike_each_time() -> None:
    patterns = [parse_pattern("sm120"), parse_pattern("line:x = sm120")]
    first = analyze_reference("m.py", b"x = sm120\n", patterns)
    again = analyze_reference("m.py", b"x = sm120\n", patterns)
    assert first == again
    assert [f.pattern for f in again.findings] == ["sm120", "line:x = sm120"]


def test_a_resolution_that_fails_is_the_file_s_problem(monkeypatch: pytest.MonkeyPatch) -> None:
    def failing(*_: object, **__: object) -> dict[object, object]:
        raise RuntimeError("astroid gave up")

    monkeypatch.setattr(reference, "resolve_reference", failing)
    analysis = _analyze("a/b.py", b"from os import sep\nsep\n", "os.sep")
    assert analysis.problem == (
        "qualified names could not be resolved through imports (RuntimeError('astroid gave up'))"
    )
    # what needs no resolution is still found: the import, not the use
    assert _found(analysis) == [("os.sep", 1, 15, "import", "sep", ("os.sep",))]


def test_a_coding_python_refuses_gives_the_text_its_cookie_decodes_and_python_s_verdict() -> None:
    analysis = _analyze("a/m.py", b"# coding: latin-1\nx = (\ny = 'caf\xe9 sm120'\n", "sm120")
    assert (analysis.path, analysis.lines) == (
        "a/m.py",
        ("# coding: latin-1", "x = (", "y = 'café sm120'", ""),
    )
    assert _found(analysis) == [("sm120", 3, 10, "text", "y = 'café sm120'", ())]
    assert analysis.problem is not None
    assert "'(' was never closed at line 2" in analysis.problem
    assert analysis.problem_line == 2
