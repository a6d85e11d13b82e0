"""The scanner driven directly on a source string (shared by the scan's tests)."""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Mapping

from pytest_cleantree.analysis.reader import Key
from pytest_cleantree.analysis.scan import Scanner
from pytest_cleantree.analysis.text import compile_patterns, split_lines
from pytest_cleantree.core.patterns import parse_pattern

Hit = tuple[str, int, int, str, str, tuple[str, ...]]


def scanned(
    source: str,
    *patterns: str,
    module: str = "pkg.mod",
    resolved: dict[Key, tuple[str, ...]] | None = None,
    candidates: list[int] | None = None,
    is_package: bool = False,
    stars: Mapping[str, frozenset[str]] | None = None,
    comments: bool = False,
) -> list[Hit]:
    """Every finding as ``(pattern, line, col, kind, name, qualified)``, in the scan's order."""
    text = textwrap.dedent(source)
    scanner = Scanner(
        split_lines(text),
        compile_patterns([parse_pattern(p) for p in patterns]),
        module,
        resolved or {},
        candidates,
        is_package=is_package,
        stars=stars,
    )
    scanner.scan(ast.parse(text))
    if comments:
        scanner.scan_comments(text)
    return [
        (f.pattern, o.line, o.col, o.kind.value, o.name, o.qualified)
        for f in scanner.findings
        for o in (f.occurrence,)
    ]


def where(hits: list[Hit]) -> list[tuple[int, int, str, str]]:
    return [(line, col, kind, name) for _, line, col, kind, name, _ in hits]


def type_var(name: str, line: int, col: int, bound: ast.expr | None) -> ast.AST:
    """A PEP 695 type parameter: ``ast``'s own on 3.12+, one of its shape before."""
    node_type = getattr(ast, "TypeVar", None) or type(
        "TypeVar", (ast.AST,), {"_fields": ("name", "bound")}
    )
    node: ast.AST = node_type(name=name, bound=bound)
    node.lineno, node.col_offset = line, col  # type: ignore[attr-defined]
    return node
