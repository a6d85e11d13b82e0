"""The inputs that once gave a false clean, a crash or a wrong line (issue 11).

Each case holds the fast path to two answers: the finding a reader of the file
expects (line and kind, written here), and the reference path's answer,
finding for finding.  ``tests/frontends/cli/test_soundness_cli.py`` runs the same files
through the real CLI.
"""

from __future__ import annotations

import random
import sys
from collections.abc import Iterable

import pytest

from pytest_cleantree.analysis import Finding, analyze, analyze_reference
from pytest_cleantree.analysis.pieces import layout
from pytest_cleantree.core.patterns import parse_pattern

FULLWIDTH_SM = "\uff53\uff4d"  # "sm" in fullwidth letters: NFKC makes it "sm"

#: (id, source, pattern, {line: kinds}) — the forbidden name is in place in each
CASES = [
    (
        "escaped string beside a literal needle (4)",
        'Y = 1  # sm120\nX = "\\x73m120"\n',
        "sm120",
        {1: {"comment"}, 2: {"string"}},
    ),
    (
        "backslash-newline inside a string (5)",
        'x = 1\nX = "sm\\\n120"\n',
        "sm120",
        {2: {"string"}},
    ),
    (
        "implicitly joined strings",
        'x = 1\nX = ("sm"\n     "120")\n',
        "sm120",
        {2: {"string"}},
    ),
    (
        "a join that stands wholly on the literal's second line (issue 42)",
        'x = ("a"\n     "sm" "120")\n',
        "sm120",
        {2: {"string"}},
    ),
    (
        "a join of escaped, plain and raw pieces on the literal's third line (issue 42)",
        'x = ("a"\n     "b"\n     "s\\x6d" \'1\' r"20")\n',
        "sm120",
        {3: {"string"}},
    ),
    (
        "a join on the second line of an f-string's concatenation (issue 42)",
        'y = 1\nx = (f"a{y}"\n     "sm" "120")\n',
        "sm120",
        {3: {"string"}},
    ),
    (
        "relative import without a space (7)",
        "from..utils import f as ok\n\ndef g():\n    return ok()\n",
        "pkg.utils.f",
        {1: {"import"}, 4: {"call"}},
    ),
    (
        "relative import with two spaces (7)",
        "from  ..utils import f as ok\n\ndef g():\n    return ok()\n",
        "pkg.utils.f",
        {1: {"import"}, 4: {"call"}},
    ),
    (
        "NFKC identifier (8)",
        f"def g():\n    return is_{FULLWIDTH_SM}120_supported()\n",
        "sm120",
        {2: {"call"}},
    ),
    (
        "NFKC identifier, exact pattern (8)",
        f"def g():\n    return is_{FULLWIDTH_SM}120_supported()\n",
        "=is_sm120_supported",
        {2: {"call"}},
    ),
    (
        "continued dotted import (15)",
        "import os.\\\n    sm120\n",
        "sm120",
        {2: {"import"}},
    ),
    (
        "continued from-import module (15)",
        "from os.\\\n    sm120 import x\n",
        "sm120",
        {2: {"import"}},
    ),
    (
        "a joined piece that reads as a prefix between quotes",
        'x = 1\nX = ("f" "lashinfer")\n',
        "flashinfer",
        {2: {"string"}},
    ),
    (
        "joined pieces that read as prefixes, whole word",
        'x = 1\n\n\ndef f():\n    return g("r" "b" "sm" f"120")\n',
        "=rbsm120",
        {5: {"string"}},
    ),
    (
        "a joined prefix-like piece after a comment and a continued line",
        'x = 1\nX = ("u"  # why\n     "sm120" \\\n)\nY = "b" \\\n  "sm120"\n',
        "usm120",
        {2: {"string"}},
    ),
    (
        "form feed before a def",
        "x = 1\n\x0cdef f():\n    return sm120()\n",
        "sm120",
        {3: {"call"}},
    ),
]


def placed(findings: Iterable[Finding]) -> list[tuple[object, ...]]:
    return sorted(
        (f.pattern, f.occurrence.line, f.occurrence.col, f.occurrence.kind.value) for f in findings
    )


def kinds_by_line(findings: Iterable[Finding]) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for finding in findings:
        out.setdefault(finding.occurrence.line, set()).add(finding.occurrence.kind.value)
    return out


@pytest.mark.parametrize(
    ("source", "pattern", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_each_once_missed_occurrence_is_found_on_its_own_line(
    source: str, pattern: str, expected: dict[int, set[str]]
) -> None:
    patterns = [parse_pattern(pattern)]
    fast = analyze("pkg/sub/mod.py", source.encode(), patterns)
    reference = analyze_reference("pkg/sub/mod.py", source.encode(), patterns)
    assert fast.problem is None, fast.problem
    assert kinds_by_line(fast.findings) == expected
    assert placed(fast.findings) == placed(reference.findings)


F_STRING_FAKE_DEF = "x = 1\ns = f\"{'''\ndef b():\n'''}\"\ndef real():\n    return sm120()\n"


@pytest.mark.skipif(sys.version_info < (3, 12), reason="PEP 701 f-strings parse on 3.12+")
def test_a_fake_def_inside_a_nested_f_string_does_not_cut_the_module() -> None:
    patterns = [parse_pattern("sm120")]
    fast = analyze("m.py", F_STRING_FAKE_DEF.encode(), patterns)
    assert fast.problem is None
    assert kinds_by_line(fast.findings) == {6: {"call"}}
    assert placed(fast.findings) == placed(
        analyze_reference("m.py", F_STRING_FAKE_DEF.encode(), patterns).findings
    )


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="before PEP 701 the file does not parse")
def test_a_nested_f_string_that_does_not_parse_here_is_a_problem() -> None:
    fast = analyze("m.py", F_STRING_FAKE_DEF.encode(), [parse_pattern("sm120")])
    assert fast.problem is not None
    assert "not valid Python" in fast.problem
    assert 6 in kinds_by_line(fast.findings)  # the text match is still listed


@pytest.mark.parametrize("codec", ["rot13", "base64", "zlib", "hex"])
def test_a_coding_cookie_naming_a_non_text_codec_is_that_files_problem(codec: str) -> None:
    data = f"# -*- coding: {codec} -*-\nsm120 = 1\n".encode()
    for engine in (analyze, analyze_reference):
        result = engine("m.py", data, [parse_pattern("sm120")])
        assert result.problem is not None
        assert "encoding problem" in result.problem
        assert kinds_by_line(result.findings) == {2: {"text"}}


def test_a_deep_expression_that_python_compiles_is_checked() -> None:
    source = "x = " + "+".join(["a"] * 600) + "\nsm120 = 1\n"
    compile(source, "m.py", "exec")  # Python itself compiles it
    for engine in (analyze, analyze_reference):
        result = engine("m.py", source.encode(), [parse_pattern("sm120"), parse_pattern("a")])
        assert result.problem is None
        assert kinds_by_line(f for f in result.findings if f.pattern == "sm120") == {
            2: {"assignment"}
        }
        assert len([f for f in result.findings if f.pattern == "a"]) == 600


def test_astroid_resolution_leaves_the_docstrings_in_place() -> None:
    # ``Popen`` is rebound, so astroid resolves it; its rebuilder used to take the
    # module docstring out of the tree the scan walks
    source = '"""Docstring: sm120."""\nfrom subprocess import Popen\nPopen = 1\nPopen()\n'
    patterns = [parse_pattern("subprocess.Popen"), parse_pattern("sm120")]
    for engine in (analyze, analyze_reference):
        result = engine("m.py", source.encode(), patterns)
        assert {1: {"docstring"}}.items() <= kinds_by_line(result.findings).items()


def test_a_string_ending_in_an_escaped_quote_at_a_line_end_is_not_cut_around() -> None:
    """``"x\\"`` then a newline is unterminated: the lexer steps aside, the error is seen."""
    source = 'def a():\n    return "x\\"\n\ndef b():\n    return sm120()\n'
    assert layout(source) is None
    patterns = [parse_pattern("sm120")]
    fast = analyze("m.py", source.encode(), patterns)
    reference = analyze_reference("m.py", source.encode(), patterns)
    assert reference.problem is not None, "the file does not parse (test premise)"
    assert fast.problem == reference.problem


def joined_literal(seed: int) -> tuple[str, str]:
    """(source, needle): a needle cut anywhere into string literals that Python joins, each
    with any prefix and quotes, separated by anything the tokenizer allows between them."""
    rng = random.Random(seed)
    needle = rng.choice(["sm120", "is_sm120_supported", "flashinfer", "rb", "fur"])
    cuts = sorted(rng.sample(range(1, len(needle)), rng.randint(1, min(3, len(needle) - 1))))
    pieces = [needle[a:b] for a, b in zip([0, *cuts], [*cuts, len(needle)], strict=True)]
    separators = ["", " ", "\n    ", " \\\n ", "  # a comment\n  ", "\t"]
    literal = []
    for index, piece in enumerate(pieces):
        quote = rng.choice(['"', "'", '"""', "'''"])
        prefix = rng.choice(["", "", "r", "u", "f", "R", "F", "rf"])
        glue = rng.choice(separators) if index else ""
        literal.append(f"{glue}{prefix}{quote}{piece}{quote}")
    return f"x = 1\n\n\ndef f():\n    return g({''.join(literal)})\n", needle


@pytest.mark.parametrize("seed", range(60))
def test_a_needle_cut_into_joined_literals_is_found_as_the_reference_finds_it(seed: int) -> None:
    source, needle = joined_literal(seed)
    patterns = [parse_pattern(needle)]
    fast = analyze("pkg/sub/mod.py", source.encode(), patterns)
    reference = analyze_reference("pkg/sub/mod.py", source.encode(), patterns)
    assert reference.problem is None, (reference.problem, source)
    assert kinds_by_line(reference.findings) == {5: {"string"}}, source
    assert placed(fast.findings) == placed(reference.findings), source
