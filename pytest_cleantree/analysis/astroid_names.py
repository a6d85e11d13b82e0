"""The astroid reading: what a name stands for through its imports, by astroid's lookup.

The only module that imports astroid (lazily: most runs never need it).  It is an
independent reading of the module on purpose: astroid rebuilds the tree and
follows every rebinding with its own scope-by-scope lookup, and this module maps
its answers onto the keys of the one ``ast`` reader (:func:`.reader.key_at`).
It is the oracle of :mod:`.resolve`'s ``ast`` resolution (``tests/analysis/
test_resolution.py`` holds the two to the same answers on the standard library),
and what that resolution falls back to for a name bound any way it does not
model (rebound, assigned, imported in a class body, two targets).
"""

from __future__ import annotations

import ast
import functools
import itertools
from typing import Any

from .reader import Key, absolute_module, from_target, key_at

__all__ = ["astroid_resolve"]

_UNIQUE = itertools.count()
#: the nodes whose first statement may be a docstring
_DOCUMENTED = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def astroid_resolve(
    text: str, parsed: ast.Module, module: str, only: set[str], *, is_package: bool
) -> dict[Key, tuple[str, ...]]:
    """Resolve the names in ``only`` with astroid's lookup, which follows every rebinding."""
    names = _rebuild(text, parsed, is_package=is_package)
    resolved: dict[Key, tuple[str, ...]] = {}
    for name_node in names:
        if name_node.name in only:
            found = _qualify(name_node, module, is_package=is_package)
            resolved.update(_chain_keys(name_node, found))
    return resolved


@functools.cache
def _recorder() -> type:
    """The rebuilder, noting names as it meets them (no second walk); built once, lazily."""
    from astroid import nodes
    from astroid.manager import AstroidManager
    from astroid.rebuilder import TreeRebuilder

    class Recorder(TreeRebuilder):  # type: ignore[misc]
        def __init__(self, manager: AstroidManager, data: str) -> None:
            super().__init__(manager, data)
            self.names: list[nodes.Name] = []

        def visit_name(self, node: ast.Name, parent: nodes.NodeNG) -> nodes.NodeNG:
            built = super().visit_name(node, parent)
            if isinstance(built, nodes.Name):
                self.names.append(built)
            return built

    return Recorder


def _rebuild(text: str, parsed: ast.Module, *, is_package: bool) -> list[Any]:
    """The names of astroid's tree of the parsed module, in the order they were built.

    Only what name lookup needs: the rebuilt tree and its locals.  No manager cache
    (every target stays apart), no inference of ``self.x`` assignments, no imports of
    other modules (``from m import *`` is left unresolved), no transforms.
    """
    from astroid.manager import AstroidManager

    manager = AstroidManager()
    if "builtins" not in manager.astroid_cache:  # what AstroidBuilder would do: once
        manager.bootstrap()
    builder = _recorder()(manager, text)
    # astroid's rebuilder takes docstrings out of the bodies it reads (``node.body =
    # node.body[1:]``): the scan that follows must still see them
    bodies = [(owner, owner.body) for owner in ast.walk(parsed) if isinstance(owner, _DOCUMENTED)]
    try:
        tree = builder.visit_module(parsed, f"__cleantree_target_{next(_UNIQUE)}__", "", is_package)
    finally:
        for owner, body in bodies:
            owner.body = body
    for from_node, global_names in builder._import_from_nodes:  # what the builder would do
        for name, asname in from_node.names:
            bound = asname or name
            if name == "*":
                continue
            target = tree if bound in global_names else from_node.parent
            target.set_local(bound, from_node)
            target.scope().locals[bound].sort(key=lambda n: n.fromlineno or 0)
    _nonlocal_imports(tree)
    return builder.names  # type: ignore[no-any-return]


def _qualify(node: Any, module: str, *, is_package: bool) -> tuple[str, ...]:
    """What the imports a name's lookup reaches bind it to (none: not an import)."""
    from astroid import nodes
    from astroid.exceptions import AttributeInferenceError

    _, assigned = node.lookup(node.name)
    names: list[str] = []
    for stmt in [*assigned, *_later_in_a_loop(node)]:
        try:
            real = stmt.real_name(node.name)
        except (AttributeError, AttributeInferenceError):  # not an import
            continue
        if isinstance(stmt, nodes.ImportFrom):
            base = absolute_module(module, stmt.level or 0, stmt.modname, is_package=is_package)
            names.append(from_target(base, real))
        elif isinstance(stmt, nodes.Import):
            names.append(real)
    return tuple(names)


def _chain_keys(name_node: Any, found: tuple[str, ...]) -> dict[Key, tuple[str, ...]]:
    """The name's key, and the key of each attribute on it (``sys.stderr``), with their targets.

    ``sys.stderr = x`` and ``del sys.x`` name ``sys.stderr`` as much as a load does.
    """
    from astroid import nodes

    attributes = (nodes.Attribute, nodes.AssignAttr, nodes.DelAttr)
    out: dict[Key, tuple[str, ...]] = {}
    node = name_node
    kind: type[ast.Name] | type[ast.Attribute] = ast.Name
    while found:
        out[key_at(kind, node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)] = (
            found
        )
        parent = node.parent
        if not (isinstance(parent, attributes) and parent.expr is node):
            break
        found = tuple(f"{base}.{parent.attrname}" for base in found)
        node, kind = parent, ast.Attribute
    return out


def _nonlocal_imports(tree: Any) -> None:
    """An import of a name declared ``nonlocal`` binds it in the function that owns it.

    astroid keeps it in the inner function's locals (it moves ``global`` ones
    only): add it to the owner's, where a use after the inner call looks it up.
    """
    from astroid import nodes

    for declared in tree.nodes_of_class(nodes.Nonlocal):
        scope = declared.scope()
        for name in declared.names:
            imports = [
                stmt
                for stmt in scope.locals.get(name, ())
                if isinstance(stmt, nodes.Import | nodes.ImportFrom)
            ]
            owner = scope.parent.scope() if imports and scope.parent else None
            while owner is not None and not isinstance(owner, nodes.Module):
                if isinstance(owner, nodes.FunctionDef | nodes.Lambda) and name in owner.locals:
                    for stmt in imports:
                        owner.set_local(name, stmt)
                    owner.locals[name].sort(key=lambda n: n.fromlineno or 0)
                    break
                owner = owner.parent.scope() if owner.parent else None


def _later_in_a_loop(node: Any) -> list[Any]:
    """The imports of the name later in its own frame, in a loop that also holds the use.

    astroid's lookup stops at the use's line; the loop's next turn runs the use
    after them (``for ...: f()`` then ``from m import f``).
    """
    from astroid import nodes

    frame = node.frame()
    loops = []
    parent = node.parent
    while parent is not None and parent is not frame:
        if isinstance(parent, nodes.For | nodes.While):
            loops.append(parent)
        parent = parent.parent
    if not loops:
        return []
    later = []
    for stmt in frame.locals.get(node.name, ()):
        if not isinstance(stmt, nodes.Import | nodes.ImportFrom) or stmt.fromlineno <= node.lineno:
            continue
        if any(loop.fromlineno <= stmt.fromlineno <= loop.tolineno for loop in loops):
            later.append(stmt)
    return later
