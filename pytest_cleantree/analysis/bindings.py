"""The binding model: which names a scope binds, and to what (issue 21).

One answer for every path (the export map, the scan, resolution, aliases), in
the manner of pyflakes' ``Binding`` hierarchy: small frozen records, one per
binding, in source order, for one scope at a time.  Flow-insensitive, as
Python decides scopes: a name bound anywhere in a scope is that scope's,
whatever the order, unless the scope declares it ``global`` or ``nonlocal``.

A scope is a module, ``def``, ``lambda``, ``class`` or comprehension.  Its
bindings are those of its own statements, the bodies of its
``if``/``for``/``while``/``with``/``try``/``match`` blocks included, and of
the parts of nested scopes that run in it (decorators, defaults, annotations,
bases, a comprehension's walrus targets: PEP 572 binds those in the nearest
enclosing scope that is not a comprehension).  The bodies of nested scopes
are theirs.  What each binding kind covers:

- :class:`Importation` ``import m [as n]``; :class:`ImportationFrom`
  ``from m import a [as n]``; :class:`StarImportation` ``from m import *``
  (binds names only the imported module knows: not in :attr:`ScopeBindings.names`);
- :class:`Assignment`: ``=``, ``+=``, ``x: T [= v]``, unpacking and starred
  targets, ``for``/``with``/``except`` targets, walrus, comprehension targets,
  match captures (``case x``, ``case [*x]``, ``case {**x}``): ``via`` says which;
- :class:`Definition`: ``def``, ``class``, ``type X = ...`` and type parameters
  (PEP 695, Python 3.12+; counted in the scope of the ``def``/``class`` they belong to);
- :class:`Argument`, :class:`Deletion` (``del x`` makes ``x`` local too),
  :class:`Global` and :class:`Nonlocal` declarations;

What ``__all__`` holds is :mod:`.allnames`'s answer, not a binding.

Built on the stdlib ``ast`` only.  A test holds the model to the standard
library's own ``symtable`` on every module of the running Python.
"""

from __future__ import annotations

import ast
import bisect
import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "Argument",
    "Assignment",
    "Binding",
    "Definition",
    "Deletion",
    "Global",
    "Importation",
    "ImportationFrom",
    "Nonlocal",
    "ScopeBindings",
    "StarImportation",
    "scope_bindings",
    "spans",
]


@dataclass(frozen=True)
class Importation:
    """``import module [as name]``: ``import a.b`` binds ``a`` to the module ``a``.

    ``dotted``: the whole name the statement imports (``a.b``), which it loads.
    """

    name: str
    module: str
    line: int
    col: int
    dotted: str = field(default="", compare=False)


@dataclass(frozen=True)
class ImportationFrom:
    """``from {'.' * level}{module} import attr [as name]`` (``module`` as written, maybe "")."""

    name: str
    module: str
    attr: str
    level: int
    line: int
    col: int


@dataclass(frozen=True)
class StarImportation:
    """``from {'.' * level}{module} import *``: binds what the module exports."""

    module: str
    level: int
    line: int
    col: int
    name: str = "*"


@dataclass(frozen=True)
class Assignment:
    """A name bound to a value: ``value`` is the node when the name takes it whole.

    ``via`` is one of :data:`VIAS`; ``value`` is set for ``assign``,
    ``annotated`` with a value, and ``walrus``; ``None`` for the others
    (``a, b = v`` binds neither to ``v``; ``a += v`` binds ``a`` to a sum).
    """

    name: str
    value: ast.expr | None = field(compare=False, repr=False)
    line: int
    col: int
    via: str = "assign"


#: how an :class:`Assignment` binds
VIAS = (
    "assign",
    "annotated",
    "augmented",
    "unpack",
    "for",
    "with",
    "except",
    "walrus",
    "comprehension",
    "match",
)


@dataclass(frozen=True)
class Definition:
    """``def`` / ``class`` / ``type`` alias / type parameter: ``kind`` says which."""

    name: str
    kind: str  # "def", "class", "type" or "typeparam"
    line: int
    col: int


@dataclass(frozen=True)
class Argument:
    """A parameter of a ``def`` or ``lambda``."""

    name: str
    line: int
    col: int


@dataclass(frozen=True)
class Deletion:
    """``del name``: no value, but the name is the scope's own (Python's rule)."""

    name: str
    line: int
    col: int


@dataclass(frozen=True)
class Global:
    """``global name``: the name is the module's, not this scope's."""

    name: str
    line: int
    col: int


@dataclass(frozen=True)
class Nonlocal:
    """``nonlocal name``: the name is an enclosing function's, not this scope's."""

    name: str
    line: int
    col: int


Binding = (
    Importation
    | ImportationFrom
    | StarImportation
    | Assignment
    | Definition
    | Argument
    | Deletion
    | Global
    | Nonlocal
)
#: the kinds that give the scope a value of its own (``scope.name`` is made here)
_OWN = (Assignment, Definition)


@dataclass(frozen=True)
class ScopeBindings:
    """Every binding of one scope, in source order.

    ``is_module``: a module's ``global`` declarations change nothing (its names are global).
    """

    bindings: tuple[Binding, ...]
    is_module: bool = False

    @functools.cached_property
    def declared(self) -> frozenset[str]:
        """Names declared ``global`` or ``nonlocal`` here (not the scope's own)."""
        if self.is_module:
            return frozenset()
        return frozenset(b.name for b in self.bindings if isinstance(b, Global | Nonlocal))

    @functools.cached_property
    def globals(self) -> frozenset[str]:
        """Names declared ``global`` here: bound here, they are the module's."""
        return frozenset(b.name for b in self.bindings if isinstance(b, Global))

    @functools.cached_property
    def names(self) -> frozenset[str]:
        """The names local to the scope (what a load here looks up here first)."""
        bound = {b.name for b in self.bindings if not isinstance(b, _NOT_LOCAL)}
        return frozenset(bound - self.declared)

    @functools.cached_property
    def defined(self) -> frozenset[str]:
        """The names the scope gives a value of its own (assignments and definitions)."""
        return frozenset(b.name for b in self.bindings if isinstance(b, _OWN)) - self.declared

    @property
    def stars(self) -> tuple[StarImportation, ...]:
        return tuple(b for b in self.bindings if isinstance(b, StarImportation))

    def bound(self, name: str) -> tuple[Binding, ...]:
        """The bindings of ``name``, in source order."""
        return tuple(b for b in self.bindings if b.name == name)


_NOT_LOCAL = (StarImportation, Global, Nonlocal)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def spans(node: ast.stmt, lines: Sequence[int]) -> bool:
    """Does the statement, decorators included, span one of these ascending lines?"""
    first = node.lineno
    for decorator in getattr(node, "decorator_list", ()):
        first = min(first, decorator.lineno)
    index = bisect.bisect_left(lines, first)
    return index < len(lines) and lines[index] <= (node.end_lineno or node.lineno)


def scope_bindings(scope: ast.AST, lines: Sequence[int] | None = None) -> ScopeBindings:
    """The bindings of a module, ``def``, ``lambda``, ``class`` or comprehension.

    ``lines`` (ascending): skip the statements that span none of them.  A
    binding spells its name inside its statement, so a caller asking only
    about names spelt on those lines loses nothing, and walks less.
    """
    is_module = isinstance(scope, ast.Module)
    walker = _Walker(lines)
    walker.scope(scope)
    return ScopeBindings(tuple(walker.out), is_module)


class _Walker:
    """Collects one scope's bindings: statements by kind, expressions for walrus only."""

    def __init__(self, lines: Sequence[int] | None) -> None:
        self.lines = lines
        self.out: list[Binding] = []

    # -- scopes

    def scope(self, node: ast.AST) -> None:
        if isinstance(node, ast.Module):
            self.statements(node.body)
        elif isinstance(node, _FUNCTIONS):
            self.arguments(node.args)
            self.type_params(node)
            self.statements(node.body)
        elif isinstance(node, ast.Lambda):
            self.arguments(node.args)
            self.expression(node.body)
        elif isinstance(node, ast.ClassDef):
            self.type_params(node)
            self.statements(node.body)
        elif isinstance(node, _COMPREHENSIONS):
            for generator in node.generators:  # walrus inside binds the enclosing scope
                self.target(generator.target, None, "comprehension")
        else:
            raise TypeError(f"not a scope: {type(node).__name__}")

    def arguments(self, args: ast.arguments) -> None:
        for arg in (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg):
            if arg is not None:
                self.out.append(Argument(arg.arg, arg.lineno, arg.col_offset))

    def type_params(self, node: ast.AST) -> None:
        for param in getattr(node, "type_params", ()):  # Python 3.12+
            name: str = param.name
            self.out.append(Definition(name, "typeparam", param.lineno, param.col_offset))

    # -- statements

    def statements(self, body: Iterable[ast.stmt]) -> None:
        lines = self.lines
        for stmt in body:
            if lines is None or spans(stmt, lines):
                handler = _STATEMENTS.get(type(stmt).__name__, _Walker.other)
                handler(self, stmt)

    def other(self, node: ast.AST) -> None:
        """A statement that binds nothing itself: walrus in its expressions, its bodies."""
        for _, value in ast.iter_fields(node):
            for child in value if isinstance(value, list) else (value,):
                if isinstance(child, ast.expr):
                    self.expression(child)
        for name in ("body", "orelse", "finalbody"):
            self.statements(getattr(node, name, ()))

    def definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        outer: list[ast.expr] = list(node.decorator_list)
        if isinstance(node, ast.ClassDef):
            outer += node.bases + [keyword.value for keyword in node.keywords]
            kind = "class"
        else:
            outer += _argument_expressions(node.args) + ([node.returns] if node.returns else [])
            kind = "def"
        for expression in outer:
            self.expression(expression)
        self.out.append(Definition(node.name, kind, node.lineno, node.col_offset))

    def import_(self, node: ast.Import) -> None:
        for alias in node.names:
            top = alias.name.split(".", 1)[0]
            bound, module = (alias.asname, alias.name) if alias.asname else (top, top)
            self.out.append(Importation(bound, module, alias.lineno, alias.col_offset, alias.name))

    def import_from(self, node: ast.ImportFrom) -> None:
        module, level = node.module or "", node.level
        for alias in node.names:
            line, col = alias.lineno, alias.col_offset
            if alias.name == "*":
                self.out.append(StarImportation(module, level, line, col))
            else:
                bound = alias.asname or alias.name
                self.out.append(ImportationFrom(bound, module, alias.name, level, line, col))

    def assign(self, node: ast.Assign) -> None:
        self.expression(node.value)
        for target in node.targets:
            self.target(target, node.value, "assign")

    def ann_assign(self, node: ast.AnnAssign) -> None:
        for part in (node.annotation, node.value):
            if part is not None:
                self.expression(part)
        if node.simple or node.value is not None:  # ``(x): int`` binds nothing (symtable)
            self.target(node.target, node.value, "annotated")
        else:
            self.expression(node.target)

    def aug_assign(self, node: ast.AugAssign) -> None:
        self.expression(node.value)
        self.target(node.target, None, "augmented")

    def expr(self, node: ast.Expr) -> None:
        self.expression(node.value)

    def for_(self, node: ast.For | ast.AsyncFor) -> None:
        self.expression(node.iter)
        self.target(node.target, None, "for")
        self.statements(node.body)
        self.statements(node.orelse)

    def with_(self, node: ast.With | ast.AsyncWith) -> None:
        for item in node.items:
            self.expression(item.context_expr)
            if item.optional_vars is not None:
                self.target(item.optional_vars, None, "with")
        self.statements(node.body)

    def try_(self, node: ast.Try) -> None:
        self.statements(node.body)
        for handler in node.handlers:
            if self.lines is not None and not spans(handler, self.lines):  # type: ignore[arg-type]
                continue
            if handler.type is not None:
                self.expression(handler.type)
            if handler.name:
                where = (handler.lineno, handler.col_offset)
                self.out.append(Assignment(handler.name, None, *where, via="except"))
            self.statements(handler.body)
        self.statements(node.orelse)
        self.statements(node.finalbody)

    def match(self, node: ast.Match) -> None:
        self.expression(node.subject)
        for case in node.cases:
            for pattern in ast.walk(case.pattern):
                name = _capture(pattern)
                if name and isinstance(pattern, ast.pattern):
                    where = (pattern.lineno, pattern.col_offset)
                    self.out.append(Assignment(name, None, *where, via="match"))
            if case.guard is not None:
                self.expression(case.guard)
            self.statements(case.body)

    def delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                self.out.append(Deletion(target.id, target.lineno, target.col_offset))
            elif isinstance(target, ast.Tuple | ast.List):
                self.delete(ast.Delete(targets=target.elts))
            else:
                self.expression(target)

    def declare(self, node: ast.Global | ast.Nonlocal) -> None:
        kind = Global if isinstance(node, ast.Global) else Nonlocal
        for name in node.names:
            self.out.append(kind(name, node.lineno, node.col_offset))

    def type_alias(self, node: ast.stmt) -> None:
        name: ast.Name = node.name  # type: ignore[attr-defined]
        self.out.append(Definition(name.id, "type", name.lineno, name.col_offset))

    # -- targets and expressions

    def target(self, node: ast.expr, value: ast.expr | None, via: str) -> None:
        if isinstance(node, ast.Name):
            self.out.append(Assignment(node.id, value, node.lineno, node.col_offset, via))
        elif isinstance(node, ast.Tuple | ast.List):
            for element in node.elts:
                self.target(element, None, "unpack" if via == "assign" else via)
        elif isinstance(node, ast.Starred):
            self.target(node.value, None, "unpack" if via == "assign" else via)
        else:  # an attribute or subscript: binds no name, may hold a walrus
            self.expression(node)

    def expression(self, node: ast.expr) -> None:
        """Walrus targets in an expression, comprehensions in it included (PEP 572).

        A lambda's body is its own scope; its defaults run here.
        """
        stack: list[ast.AST] = [node]
        while stack:
            current = stack.pop()
            if isinstance(current, ast.NamedExpr):
                target = current.target
                where = (target.lineno, target.col_offset)
                self.out.append(Assignment(target.id, current.value, *where, via="walrus"))
                stack.append(current.value)
            elif isinstance(current, ast.Lambda):
                stack.extend(_argument_expressions(current.args, annotations=False))
            elif isinstance(current, ast.comprehension):
                stack.append(current.iter)
                stack.extend(current.ifs)
            else:
                stack.extend(ast.iter_child_nodes(current))


def _argument_expressions(args: ast.arguments, *, annotations: bool = True) -> list[ast.expr]:
    """What a ``def``'s or ``lambda``'s parameters evaluate in the enclosing scope."""
    found = [*args.defaults, *(d for d in args.kw_defaults if d is not None)]
    if annotations:
        every = (*args.posonlyargs, *args.args, args.vararg, *args.kwonlyargs, args.kwarg)
        found += [arg.annotation for arg in every if arg is not None and arg.annotation]
    return found


def _capture(pattern: ast.AST) -> str | None:
    """The name a match pattern node captures (``case x``, ``[*x]``, ``{**x}``)."""
    if isinstance(pattern, ast.MatchAs | ast.MatchStar):
        return pattern.name
    if isinstance(pattern, ast.MatchMapping):
        return pattern.rest
    return None


_STATEMENTS: dict[str, Callable[[_Walker, Any], None]] = {
    "FunctionDef": _Walker.definition,
    "AsyncFunctionDef": _Walker.definition,
    "ClassDef": _Walker.definition,
    "Import": _Walker.import_,
    "ImportFrom": _Walker.import_from,
    "Assign": _Walker.assign,
    "AnnAssign": _Walker.ann_assign,
    "AugAssign": _Walker.aug_assign,
    "Expr": _Walker.expr,
    "For": _Walker.for_,
    "AsyncFor": _Walker.for_,
    "With": _Walker.with_,
    "AsyncWith": _Walker.with_,
    "Try": _Walker.try_,
    "TryStar": _Walker.try_,
    "Match": _Walker.match,
    "Delete": _Walker.delete,
    "Global": _Walker.declare,
    "Nonlocal": _Walker.declare,
    "TypeAlias": _Walker.type_alias,
}
