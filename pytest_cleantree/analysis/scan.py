"""The occurrence scan: one walk of a module, classifying each name that matches a pattern.

A visitor per node kind, each delegating to :meth:`.emit.NameReporter._emit` with the
node's own position.  Positions are always taken from nodes (or from the
tokens of the one statement concerned), never guessed from the statement's
first line: in ``from x import (\\n a,\\n b,\\n)`` the line of ``b`` is ``b``'s
own line.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence

from pytest_cleantree.core.model import Kind

from .bindings import scope_bindings, spans
from .emit import NameReporter
from .positions import after_as
from .reader import (
    Key,
    absolute_module,
    attribute_chain,
    from_target,
    getattr_target,
    key_of,
    module_bindings,
    own_name,
    refers_to,
    star_bindings,
)
from .strings import comment_findings, string_findings
from .text import PatternSet


def candidate_lines(
    spelling: set[int] | None, resolved: dict[Key, tuple[str, ...]]
) -> list[int] | None:
    """The sorted lines where an occurrence can stand, or ``None`` when any line can.

    A name is reported on a line that spells it (see :func:`.text.spelling_lines`);
    the names resolved through imports are added (an alias spells nothing of
    the qualified name).  Statements that span none of these lines are not walked.
    """
    if spelling is None:
        return None
    found = set(spelling)
    for _, line, _, end_line, _ in resolved:
        found.update(range(line, (end_line or line) + 1))
    return sorted(found)


class Scanner(NameReporter):
    """Walks a module once, classifying each name that matches a pattern.

    ``condition`` is true inside the test of an
    if/elif/while/assert/ternary/comprehension-if/match guard.  ``candidates``
    are the lines where an occurrence can stand (see :func:`candidate_lines`;
    ``None``: any line, as on the reference path): statements that span none
    of them are not walked.
    """

    def __init__(
        self,
        lines: Sequence[str],
        patterns: PatternSet,
        module: str,
        resolved: dict[Key, tuple[str, ...]],
        candidates: list[int] | None,
        *,
        is_package: bool = False,
        stars: Mapping[str, frozenset[str]] | None = None,
    ) -> None:
        super().__init__(lines, patterns)
        self.stars = stars or {}
        self.is_package = is_package
        self.module = module
        self.resolved = resolved
        self.candidates = candidates
        #: how many def/class bodies enclose the node being visited
        self._depth = 0
        self._qualified = patterns.qualified
        self._ends = patterns.qualified_ends
        #: names the module scope gives a value (definitions, assignments): ``module.name``
        self._top: frozenset[str] = frozenset()
        #: names a ``from M import *`` of the module binds, with what each stands for (``M.name``)
        self._star: dict[str, tuple[str, ...]] = {}
        #: the function and class scopes around the node visited, with the names each binds
        self._scopes: list[tuple[bool, frozenset[str]]] = []  # (is_class, names)

    # -- walking

    def scan(self, tree: ast.Module) -> None:
        if self._qualified and (self.module or self.stars):
            module_scope = scope_bindings(tree)
            if self.module:
                # only the names a qualified pattern ends with: a use of one spells it, so
                # the fast path, which walks only lines that spell a pattern, sees it too
                # (the ends it defines first: the list's ends run to thousands, issue 44)
                ends = set(self._ends.intersection(module_scope.defined))
                self._top = module_bindings(module_scope, ends)
            if self.stars:
                self._star = star_bindings(module_scope, self.module, self.stars, self.is_package)
        self._body(tree.body, docstring_allowed=True)

    def _module_binding(self, name: str) -> str | None:
        """``.module.name`` when ``name`` here is the module's own top-level binding.

        Not when a function (or the class body the name stands in directly)
        binds it too: Python's scoping is per scope, whatever the order.
        """
        if name not in self._top or self._shadowed(name):
            return None
        return own_name(self.module, name)

    def _shadowed(self, name: str) -> bool:
        """Does a scope around the node bind ``name`` (so a load does not reach the module's)?"""
        for depth, (is_class, bound) in enumerate(reversed(self._scopes)):
            if is_class and depth > 0:
                continue  # a method does not see its class's names
            if name in bound:
                return True
        return False

    def _in_scope(self, node: ast.AST, is_class: bool, visit: Callable[[], None]) -> None:
        if not self._top and not self._star:
            visit()
            return
        self._scopes.append((is_class, scope_bindings(node).names))
        try:
            visit()
        finally:
            self._scopes.pop()

    def _body(self, body: Sequence[ast.stmt], *, docstring_allowed: bool) -> None:
        for index, stmt in enumerate(body):
            if (
                docstring_allowed
                and index == 0
                and isinstance(stmt, ast.Expr)
                and isinstance(stmt.value, ast.Constant)
                and isinstance(stmt.value.value, str)
            ):
                self._string(stmt.value, Kind.DOCSTRING)
            else:
                self.visit(stmt, condition=False)

    def visit(self, node: ast.AST, *, condition: bool, callee: bool = False) -> None:
        if isinstance(node, ast.stmt) and not self._may_hold(node):
            return
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is not None:
            method(node, condition=condition, callee=callee)
        else:
            self._children(node, condition=condition)

    def _may_hold(self, node: ast.stmt) -> bool:
        """Does the statement (decorators included) span a candidate line?"""
        return self.candidates is None or spans(node, self.candidates)

    def _children(self, node: ast.AST, *, condition: bool) -> None:
        for child in ast.iter_child_nodes(node):
            self.visit(child, condition=condition)

    def _use_kind(self, ctx: ast.expr_context, *, condition: bool, callee: bool) -> Kind:
        if isinstance(ctx, ast.Store):
            return Kind.ASSIGNMENT
        if condition:
            return Kind.CONDITION
        return Kind.CALL if callee else Kind.REFERENCE

    # imports

    def visit_Import(self, node: ast.Import, **_: bool) -> None:
        for alias in node.names:
            start = (alias.lineno, alias.col_offset)
            if (alias.end_lineno or alias.lineno) > alias.lineno and "." in alias.name:
                start = self._dotted_at(alias.name, start)
            self._emit(alias.name, *start, Kind.IMPORT, (alias.name,))
            self._segments(alias.name, (alias.lineno, alias.col_offset))
            if alias.asname:
                end = (alias.end_lineno or alias.lineno, 0)
                self._emit_located(
                    alias.asname, Kind.IMPORT, after_as(self.lines, start, end), (alias.name,)
                )

    def visit_ImportFrom(self, node: ast.ImportFrom, **_: bool) -> None:
        base = absolute_module(self.module, node.level, node.module, is_package=self.is_package)
        if node.module and self._wanted(node.module, (base,)):
            start = (node.lineno, node.col_offset + 4)
            self._emit(node.module, *self._dotted_at(node.module, start), Kind.IMPORT, (base,))
        if node.module:
            self._segments(node.module, (node.lineno, node.col_offset + 4))
        for alias in node.names:
            if alias.name == "*":
                continue
            qualified = (from_target(base, alias.name),)
            start = (alias.lineno, alias.col_offset)
            self._emit(alias.name, *start, Kind.IMPORT, qualified)
            if alias.asname:
                end = (alias.end_lineno or alias.lineno, 0)
                self._emit_located(
                    alias.asname, Kind.IMPORT, after_as(self.lines, start, end), qualified
                )

    # definitions

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef, **_: bool) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator, condition=False)
        self._definition_name(node)
        self._type_params(node)
        self.visit(node.args, condition=False)
        if node.returns:
            self.visit(node.returns, condition=False)
        self._in_scope(node, False, lambda: self._nested_body(node.body))

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef, **_: bool) -> None:
        for decorator in node.decorator_list:
            self.visit(decorator, condition=False)
        self._definition_name(node)
        self._type_params(node)
        for base in node.bases:
            self.visit(base, condition=False)
        for keyword in node.keywords:
            self.visit(keyword, condition=False)
        self._in_scope(node, True, lambda: self._nested_body(node.body))

    def _nested_body(self, body: Sequence[ast.stmt]) -> None:
        self._depth += 1
        try:
            self._body(body, docstring_allowed=True)
        finally:
            self._depth -= 1

    def _definition_name(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        """A module-level def or class *is* the qualified name ``module.name``."""
        top_level = self._depth == 0 and self.module
        qualified = (own_name(self.module, node.name),) if top_level else ()
        self._emit_located(node.name, Kind.DEFINITION, (node.lineno, node.col_offset), qualified)

    def _type_params(self, node: ast.AST) -> None:
        for param in getattr(node, "type_params", ()):
            self.visit(param, condition=False)

    def visit_TypeVar(self, node: ast.AST, **_: bool) -> None:
        """PEP 695 type parameters (``class C[T]``), Python 3.12+."""
        name: str = getattr(node, "name", "")
        line: int = getattr(node, "lineno", 0)
        self._emit_located(name, Kind.DEFINITION, (line, getattr(node, "col_offset", 0)))
        self._children(node, condition=False)

    visit_ParamSpec = visit_TypeVar
    visit_TypeVarTuple = visit_TypeVar

    def visit_arg(self, node: ast.arg, **_: bool) -> None:
        self._emit(node.arg, node.lineno, node.col_offset, Kind.DEFINITION)
        if node.annotation:
            self.visit(node.annotation, condition=False)

    def visit_Lambda(self, node: ast.Lambda, *, condition: bool, **_: bool) -> None:
        self.visit(node.args, condition=False)
        self._in_scope(node, False, lambda: self.visit(node.body, condition=condition))

    # names and attributes

    def visit_Name(self, node: ast.Name, *, condition: bool, callee: bool) -> None:
        kind = self._use_kind(node.ctx, condition=condition, callee=callee)
        resolved = self.resolved.get(key_of(node), ())
        own = self._module_binding(node.id) if self._top else None
        if own is not None and own not in resolved:
            resolved = (*resolved, own)
        star = self._star.get(node.id) if self._star else None
        if star and isinstance(node.ctx, ast.Load) and not self._shadowed(node.id):
            resolved = (*resolved, *(name for name in star if name not in resolved))
        self._emit(node.id, node.lineno, node.col_offset, kind, resolved)

    def visit_Attribute(self, node: ast.Attribute, *, condition: bool, callee: bool) -> None:
        kind = self._use_kind(node.ctx, condition=condition, callee=callee)
        line = node.end_lineno or node.lineno
        col = (node.end_col_offset or 0) - len(node.attr)
        resolved = self.resolved.get(key_of(node), ())
        base, chain = attribute_chain(node) if self._star else (None, "")
        if isinstance(base, ast.Name) and base.id in self._star and not self._shadowed(base.id):
            resolved = (*resolved, *(f"{name}{chain}" for name in self._star[base.id]))  # M.sub.f
        self._emit(node.attr, line, max(col, 0), kind, tuple(dict.fromkeys(resolved)))
        self.visit(node.value, condition=condition)

    def visit_Call(self, node: ast.Call, *, condition: bool, **_: bool) -> None:
        got = getattr_target(node)  # ``getattr(os.path, "join")``: at the literal, as os.path.join
        qualified = refers_to(node, self.resolved) if got is not None else ()
        if got is not None and qualified:
            literal = node.args[1]
            kind = Kind.CONDITION if condition else Kind.REFERENCE
            # a name only the literal spells: a qualified pattern's, the string's for the rest
            self._emit(
                got[1][1:], literal.lineno, literal.col_offset, kind, qualified, written=False
            )
        self.visit(node.func, condition=condition, callee=True)
        for arg in node.args:
            self.visit(arg, condition=condition)
        for keyword in node.keywords:
            self.visit(keyword, condition=condition)

    def visit_keyword(self, node: ast.keyword, *, condition: bool, **_: bool) -> None:
        if node.arg is not None:
            kind = Kind.CONDITION if condition else Kind.REFERENCE
            self._emit(node.arg, node.lineno, node.col_offset, kind)
        self.visit(node.value, condition=condition)

    def visit_Global(self, node: ast.Global | ast.Nonlocal, **_: bool) -> None:
        # after the keyword: ``nonlocal al`` holds an ``al`` before its name
        after = node.col_offset + len("global" if isinstance(node, ast.Global) else "nonlocal")
        for name in node.names:
            self._emit_located(name, Kind.REFERENCE, (node.lineno, after))

    visit_Nonlocal = visit_Global

    def visit_ExceptHandler(self, node: ast.ExceptHandler, **_: bool) -> None:
        if node.type:
            self.visit(node.type, condition=False)
        if node.name:
            after = (
                (node.type.end_lineno or node.lineno, node.type.end_col_offset or 0)
                if node.type
                else (node.lineno, node.col_offset)
            )
            self._emit_located(node.name, Kind.ASSIGNMENT, after)
        self._body(node.body, docstring_allowed=False)

    # conditions

    def visit_If(self, node: ast.If | ast.While, **_: bool) -> None:
        self.visit(node.test, condition=True)
        self._body(node.body, docstring_allowed=False)
        self._body(node.orelse, docstring_allowed=False)

    visit_While = visit_If

    def visit_Assert(self, node: ast.Assert, **_: bool) -> None:
        self.visit(node.test, condition=True)
        if node.msg:
            self.visit(node.msg, condition=False)

    def visit_IfExp(self, node: ast.IfExp, *, condition: bool, **_: bool) -> None:
        self.visit(node.test, condition=True)
        self.visit(node.body, condition=condition)
        self.visit(node.orelse, condition=condition)

    def visit_comprehension(self, node: ast.comprehension, *, condition: bool, **_: bool) -> None:
        self.visit(node.target, condition=condition)
        self.visit(node.iter, condition=condition)
        for test in node.ifs:
            self.visit(test, condition=True)

    def visit_match_case(self, node: ast.match_case, **_: bool) -> None:
        self.visit(node.pattern, condition=False)
        if node.guard:
            self.visit(node.guard, condition=True)
        self._body(node.body, docstring_allowed=False)

    def visit_MatchAs(self, node: ast.MatchAs | ast.MatchStar, **_: bool) -> None:
        if isinstance(node, ast.MatchAs) and node.pattern:
            self.visit(node.pattern, condition=False)
        if node.name:
            line = node.end_lineno or node.lineno
            col = (node.end_col_offset or 0) - len(node.name)
            self._emit(node.name, line, max(col, 0), Kind.ASSIGNMENT)

    visit_MatchStar = visit_MatchAs

    def visit_MatchMapping(self, node: ast.MatchMapping, **_: bool) -> None:
        self._children(node, condition=False)
        if node.rest:
            start = node.patterns[-1] if node.patterns else node
            position = (start.end_lineno or start.lineno, start.end_col_offset or 0)
            if start is node:
                position = (node.lineno, node.col_offset)
            self._emit_located(node.rest, Kind.ASSIGNMENT, position)

    def visit_MatchClass(self, node: ast.MatchClass, **_: bool) -> None:
        self.visit(node.cls, condition=False)
        for pattern in node.patterns:
            self.visit(pattern, condition=False)
        for attr, pattern in zip(node.kwd_attrs, node.kwd_patterns, strict=True):
            position = (node.cls.end_lineno or node.lineno, node.cls.end_col_offset or 0)
            self._emit_located(attr, Kind.REFERENCE, position)
            self.visit(pattern, condition=False)

    # strings

    def visit_Constant(self, node: ast.Constant, *, condition: bool, **_: bool) -> None:
        if isinstance(node.value, (str, bytes)):
            self._string(node, Kind.STRING)

    def visit_JoinedStr(self, node: ast.JoinedStr, *, condition: bool, **_: bool) -> None:
        for value in node.values:
            if isinstance(value, ast.FormattedValue):
                self.visit(value, condition=condition)
            elif isinstance(value, ast.Constant):
                self._string(value, Kind.STRING)

    def _string(self, node: ast.Constant, kind: Kind) -> None:
        self.findings.extend(string_findings(self.lines, node, kind, self._text_index))

    # comments

    def scan_comments(self, text: str) -> None:
        self.findings.extend(comment_findings(text, self.lines, self.candidates, self._text_index))
