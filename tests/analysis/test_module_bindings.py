"""Uses inside the defining module, and module-level constants (issue 12, causes 3 and 5).

A top-level ``def``/``class``/assignment binds ``module.name``; a use of that
name in the same module is an occurrence of it, unless the scope it stands in
binds the name itself.  Both engines, and the fast one equal to the reference
on real code.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_cleantree.analysis import FileAnalysis, analyze_fast, analyze_reference
from pytest_cleantree.core.model import Pattern
from pytest_cleantree.core.patterns import parse_pattern

ENGINES = [
    pytest.param(analyze_fast, id="fast"),
    pytest.param(analyze_reference, id="reference"),
]
Engine = Callable[..., FileAnalysis]

SOURCE = """\
import sys

LIMIT = 3
LIMIT: int = 4


def helper():
    return LIMIT


def shadowed(LIMIT=1):
    return LIMIT + helper()


def rebinds():
    global LIMIT
    LIMIT = 5


def local():
    helper = print
    return helper()


class K:
    helper = 1
    x = helper

    def m(self):
        return helper()


if helper():
    y = lambda helper: helper
"""


def rows(analysis: FileAnalysis) -> set[tuple[str, int, str]]:
    return {(f.pattern, f.occurrence.line, f.occurrence.kind.value) for f in analysis.findings}


@pytest.mark.parametrize("engine", ENGINES)
def test_uses_in_the_defining_module_are_occurrences_unless_a_scope_rebinds(
    engine: Engine,
) -> None:
    patterns = [parse_pattern("pkg.mod.LIMIT"), parse_pattern("pkg.mod.helper")]

    found = rows(engine("pkg/mod.py", SOURCE.encode(), patterns))

    limit, helper = "pkg.mod.LIMIT", "pkg.mod.helper"
    assert found == {
        (limit, 3, "assignment"),
        (limit, 4, "assignment"),
        (helper, 7, "definition"),
        (limit, 8, "reference"),
        (helper, 12, "call"),
        (limit, 17, "assignment"),
        (helper, 30, "call"),
        (helper, 33, "condition"),
    }


@pytest.mark.parametrize("engine", ENGINES)
def test_the_module_name_from_the_layout_decides(engine: Engine) -> None:
    patterns = [parse_pattern("sglang.srt.utils.common.LIMIT")]

    named = rows(
        engine("python/x/common.py", SOURCE.encode(), patterns, module="sglang.srt.utils.common")
    )
    unnamed = rows(engine("python/x/common.py", SOURCE.encode(), patterns))

    assert ("sglang.srt.utils.common.LIMIT", 8, "reference") in named
    assert unnamed == set()


STDLIB = Path(ast.__file__).parent
REAL_FILES = sorted(STDLIB.glob("[a-h]*.py")) + sorted((STDLIB / "email").glob("*.py"))


def own_names(path: Path) -> list[Pattern]:
    """Qualified patterns for some of the file's own top-level names."""
    tree = ast.parse(path.read_bytes())
    module = ".".join(path.relative_to(STDLIB).with_suffix("").parts)
    names = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))][:3]
    names += [
        t.id
        for n in tree.body
        if isinstance(n, ast.Assign)
        for t in n.targets
        if isinstance(t, ast.Name)
    ][:2]
    return [parse_pattern(f"{module}.{name}") for name in names]


@pytest.mark.slow
@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: str(p.relative_to(STDLIB)))
def test_fast_equals_reference_on_a_modules_own_names(path: Path) -> None:
    patterns = own_names(path)
    relative = str(path.relative_to(STDLIB))
    data = path.read_bytes()

    fast = analyze_fast(relative, data, patterns)
    reference = analyze_reference(relative, data, patterns)

    assert fast.problem == reference.problem
    placed = [(f.pattern, f.occurrence) for f in fast.findings]
    assert sorted(placed, key=repr) == sorted(
        [(f.pattern, f.occurrence) for f in reference.findings], key=repr
    )
