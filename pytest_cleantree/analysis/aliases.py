"""Aliases made by assignment: ``join = os.path.join``, ``p = os.path`` (issue 12, cause 6).

After imports are resolved, a name assigned a resolved name or attribute
(``TestCase = unittest.TestCase``) stands for it too: every load of that
name that Python would look up in the assigning scope is an occurrence of
the target, and ``p.join`` of ``os.path.join``.  Flow-insensitive per scope,
as Python decides scopes: a use anywhere in the scope (before the assignment
too) and in the functions nested in it that do not bind the name themselves;
when the name is bound several ways in that scope, the alias targets are
added to whatever else it resolves to (more findings, never fewer).

Both engines run :func:`with_aliases` on their resolution, over the tree
they parsed.  The fast path's partial parse keeps every piece that can hold
such an alias or a use of one (:func:`alias_binders`): the pieces spelling a
name that an import binds on a pattern's path, then those spelling a name
assigned from one, until nothing changes.

Out of reach: a name assigned in a function under ``global`` or ``nonlocal``
(counted as the function's own), walrus targets, unpacking
(``a, b = os.path, os.sep``), and attributes of objects (``self.join = os.path.join``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Sequence

from .resolve import _Key, import_bound_names, key_of
from .scan import scope_bindings
from .text import PatternSet

__all__ = ["alias_binders", "with_aliases"]

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class _Scope:
    """One scope: what it binds, and the aliases assigned in it."""

    def __init__(self, node: ast.AST, parent: _Scope | None) -> None:
        self.node = node
        self.parent = parent
        self.is_class = isinstance(node, ast.ClassDef)
        if isinstance(node, _COMPREHENSIONS):
            self.bound = {
                name.id
                for generator in node.generators
                for name in ast.walk(generator.target)
                if isinstance(name, ast.Name)
            }
        else:
            self.bound = scope_bindings(node)
        self.assigned: list[tuple[str, ast.expr]] = []  # (alias, value)

    def owner(self, name: str) -> _Scope | None:
        """The scope a load of ``name`` here is looked up in (enclosing classes are skipped)."""
        scope: _Scope | None = self
        first = True
        while scope is not None:
            if (first or not scope.is_class) and name in scope.bound:
                return scope
            scope, first = scope.parent, False
        return None


class _Collector(ast.NodeVisitor):
    def __init__(self) -> None:
        self.scopes: list[_Scope] = []
        self.loads: list[tuple[ast.Name, _Scope]] = []
        self.chains: dict[int, list[tuple[ast.Attribute, str]]] = {}  # id(base) -> chains
        self._stack: list[_Scope] = []

    def visit_Module(self, node: ast.Module) -> None:
        self._open(node)

    def _open(self, node: ast.AST) -> None:
        scope = _Scope(node, self._stack[-1] if self._stack else None)
        self.scopes.append(scope)
        self._stack.append(scope)
        try:
            self.generic_visit(node)
        finally:
            self._stack.pop()

    def _scoped(self, node: ast.AST) -> None:
        # decorators, defaults and annotations are evaluated in the enclosing scope;
        # visiting them inside is harmless: they do not bind the names they use
        self._open(node)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = visit_ClassDef = _scoped
    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = _scoped

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                self._stack[-1].assigned.append((target.id, node.value))
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if isinstance(node.target, ast.Name) and node.value is not None:
            self._stack[-1].assigned.append((node.target.id, node.value))
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.loads.append((node, self._stack[-1]))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        suffix = [node.attr]
        base: ast.expr = node.value
        while isinstance(base, ast.Attribute):
            suffix.append(base.attr)
            base = base.value
        if isinstance(base, ast.Name):
            chain = "." + ".".join(reversed(suffix))
            self.chains.setdefault(id(base), []).append((node, chain))
        self.generic_visit(node)


def with_aliases(
    tree: ast.Module, resolved: dict[_Key, tuple[str, ...]]
) -> dict[_Key, tuple[str, ...]]:
    """``resolved`` with the uses of assignment aliases of resolved names added."""
    if not resolved:
        return resolved
    collector = _Collector()
    collector.visit(tree)
    assignments = [
        (scope, name, value) for scope in collector.scopes for name, value in scope.assigned
    ]
    if not assignments:
        return resolved
    out = dict(resolved)
    owners = [(use, scope.owner(use.id)) for use, scope in collector.loads]
    for _ in range(len(assignments) + 1):  # each round follows one more alias of an alias
        aliases: dict[tuple[int, str], set[str]] = {}
        for scope, name, value in assignments:
            if isinstance(value, ast.Name | ast.Attribute):
                found = out.get(key_of(value), ())
                if found:
                    aliases.setdefault((id(scope), name), set()).update(found)
        changed = False
        for use, owner in owners:
            if owner is None:
                continue
            targets = aliases.get((id(owner), use.id))
            if not targets:
                continue
            changed |= _add(out, key_of(use), targets)
            for chain, suffix in collector.chains.get(id(use), ()):
                changed |= _add(out, key_of(chain), {t + suffix for t in targets})
        if not changed:
            break
    return out


def _add(out: dict[_Key, tuple[str, ...]], key: _Key, targets: set[str]) -> bool:
    known = out.get(key, ())
    more = tuple(sorted(set(targets) - set(known)))
    if more:
        out[key] = (*known, *more)
    return bool(more)


def alias_binders(
    patterns: PatternSet, module: str, *, is_package: bool
) -> Callable[[ast.Module], set[str]]:
    """What the partial parse follows so that no alias, nor a use of one, is left out.

    The names imports bind on a pattern's path (a piece spelling one may
    assign an alias of it), then every name assigned from one of those, or
    from such an alias, anywhere in what was parsed.
    """
    wanted = patterns.qualified_bodies

    def binders(tree: ast.Module) -> set[str]:
        names = import_bound_names(tree, module=module, is_package=is_package, wanted=wanted)
        assigned = list(_assignments(tree))
        while True:
            more = {name for name, base in assigned if base in names} - names
            if not more:
                return names
            names |= more

    return binders


def _assignments(tree: ast.Module) -> Iterator[tuple[str, str]]:
    """(alias, the name its value starts with) for each ``alias = name.attr...``."""
    for node in ast.walk(tree):
        targets: Sequence[ast.expr]
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        while isinstance(value, ast.Attribute):
            value = value.value
        if not isinstance(value, ast.Name):
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                yield target.id, value.id
