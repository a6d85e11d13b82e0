"""Fail closed, round 3, class 4 (issue 23): every segment of a dotted module path is a name.

``import pkg.sm120_kernels`` and ``from pkg.sm120_kernels import run`` were not matched by
``sm120*``, ``=sm120_kernels`` or ``re:^sm120``, though ``import sm120_kernels`` was: a
non-first segment of a module path was never tested.  Through the real ``cleantree check``,
on both engines.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from runs import check_tree as check
from runs import one_rule as rule

from pytest_cleantree.analysis import analyze_fast, analyze_reference
from pytest_cleantree.core.findings import FileAnalysis
from pytest_cleantree.core.model import Kind
from pytest_cleantree.core.patterns import parse_pattern

ENGINES = ["fast", "reference"]


# class 4: every segment of a dotted module path
MODULE_CASES = [
    ("import", b"import pkg.sm120_kernels\n"),
    ("import as", b"import pkg.sm120_kernels as k\n"),
    ("from", b"from pkg.sm120_kernels import run\n"),
    ("deep from", b"from pkg.sm120_kernels.sub import run\n"),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("pattern", ["sm120*", "=sm120_kernels", "re:^sm120", "sm120"])
@pytest.mark.parametrize("source", [c[1] for c in MODULE_CASES], ids=[c[0] for c in MODULE_CASES])
def test_a_middle_segment_of_a_module_path_is_a_name(
    tmp_path: Path, engine: str, pattern: str, source: bytes
) -> None:
    done = check(tmp_path, rule(f'"{pattern}"'), {"m.py": source}, engine=engine)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "m.py:1:" in done.stdout, done.stdout
    assert "import" in done.stdout, done.stdout


SEGMENT_POSITIONS = [
    (b"import pkg.sm120_kernels\n", (1, 11)),
    (b"import a, pkg.sm120_kernels as k\n", (1, 14)),
    (b"from pkg.sm120_kernels import run\n", (1, 9)),
    (b"from .pkg.sm120_kernels.sub import run\n", (1, 10)),
    (b"from pkg. \\\n  sm120_kernels import run\n", (2, 2)),
    (b"if x:\n    import pkg.sub.sm120_kernels\n", (2, 19)),
]


@pytest.mark.parametrize("analyze", [analyze_fast, analyze_reference])
@pytest.mark.parametrize(("source", "where"), SEGMENT_POSITIONS)
@pytest.mark.parametrize("pattern", ["sm120*", "=sm120_kernels", "re:^sm120"])
def test_a_segment_is_reported_at_its_own_line_and_column(
    analyze: Callable[..., FileAnalysis], source: bytes, where: tuple[int, int], pattern: str
) -> None:
    found = analyze("m.py", source, [parse_pattern(pattern)]).findings
    places = [(f.occurrence.line, f.occurrence.col, f.occurrence.kind) for f in found]
    assert places == [(*where, Kind.IMPORT)]
    assert found[0].occurrence.name == "sm120_kernels"


def test_a_pattern_the_whole_path_matches_is_reported_once_on_the_path() -> None:
    found = analyze_fast("m.py", b"import pkg.sm120_kernels\n", [parse_pattern("sm120")]).findings
    assert [(f.occurrence.col, f.occurrence.name) for f in found] == [(7, "pkg.sm120_kernels")]
