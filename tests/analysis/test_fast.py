"""The fast path, stated directly: a file that spells no pattern is not even parsed, and
what it does parse gives the reference's findings (here on small sources; the slow tier
holds the two together on real trees)."""

from __future__ import annotations

import pytest

from pytest_cleantree.analysis.fast import analyze_fast
from pytest_cleantree.analysis.reference import analyze_reference
from pytest_cleantree.analysis.text import MAX_PARSE_BYTES
from pytest_cleantree.core.findings import FileAnalysis
from pytest_cleantree.core.model import Kind
from pytest_cleantree.core.patterns import parse_pattern


def test_a_file_that_spells_no_pattern_is_not_parsed() -> None:
    data = b"def (:\n    pass\n"

    assert analyze_fast("m.py", data, [parse_pattern("sm120")]) == FileAnalysis(
        "m.py", ("def (:", "    pass", ""), (), allows=()
    )
    broken = analyze_fast("m.py", data + b"sm120\n", [parse_pattern("sm120")])
    assert broken.problem is not None
    assert broken.problem_line == 1


SOURCES = [
    "import os\nj = os.path.join\n\n\ndef f():\n    return j('a')\n",
    "from os import path as p\n\n\nclass C:\n    def m(self):\n        return p.join('a')\n",
    "x = 'sm' '120'  # sm120\n\n\ndef sm120():\n    pass\n",
    "import os\n\n\ndef other():\n    return 1\n\n\ndef g():\n    return os.path.join\n",
]


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("comments", [True, False])
def test_the_fast_path_finds_what_the_reference_finds(source: str, comments: bool) -> None:
    patterns = [parse_pattern("os.path.join"), parse_pattern("sm120")]

    fast = analyze_fast("pkg/m.py", source.encode(), patterns, comments=comments)

    assert fast == analyze_reference("pkg/m.py", source.encode(), patterns, comments=comments)
    assert fast.findings
    assert (Kind.COMMENT in {f.occurrence.kind for f in fast.findings}) is (
        comments and "# sm120" in source
    )


def test_a_relative_import_resolves_against_the_module_given() -> None:
    data = b"from .sub import helper\n\nhelper()\n"
    patterns = [parse_pattern("pkg.sub.helper")]

    found = analyze_fast("src/pkg/__init__.py", data, patterns, module="pkg")

    assert [(f.occurrence.line, f.occurrence.kind) for f in found.findings] == [
        (1, Kind.IMPORT),
        (3, Kind.CALL),
    ]
    assert analyze_fast("src/pkg/__init__.py", data, patterns, module="other").findings == ()


def test_a_star_import_binds_what_the_tree_says_it_does() -> None:
    data = b"from pkg.sub import *\n\nhelper()\n"
    patterns = [parse_pattern("pkg.sub.helper")]
    stars = {"pkg.sub": frozenset({"helper"})}

    found = analyze_fast("m.py", data, patterns, stars=stars)

    assert found == analyze_reference("m.py", data, patterns, stars=stars)
    assert [f.occurrence.line for f in found.findings] == [3]


def test_a_file_too_large_to_parse_is_matched_as_text() -> None:
    data = b"x = 'sm120'\n" + b"#" * MAX_PARSE_BYTES

    analysis = analyze_fast("m.py", data, [parse_pattern("sm120")])

    assert [(f.occurrence.line, f.occurrence.kind) for f in analysis.findings] == [(1, Kind.TEXT)]
    assert analysis.problem is None
