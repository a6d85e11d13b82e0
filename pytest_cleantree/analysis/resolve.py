"""Qualified names: what a name in a file stands for through its imports.

The only module that imports astroid (lazily: most runs never need it).  A
name bound only by imports of one target is resolved from ``ast``, scope by
scope (:class:`_NameBindings`); any other (rebound, assigned, imported in a
class body, two targets) is resolved with astroid's lookup, which follows
every rebinding.  A test holds the two to the same answers on the standard
library.
"""

from __future__ import annotations

import ast
import itertools
import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import Any

from pytest_cleantree.core.patterns import Covering

from .bindings import Importation, ImportationFrom, scope_bindings, spans
from .text import PatternSet, is_python_path, lines_at, spells_word, word_offsets


def module_name_for(path: str) -> str:
    """The dotted module a file is, relative to the root (``a/b/__init__.py`` -> ``a.b``)."""
    stem = path.rsplit(".", 1)[0] if is_python_path(path) else path
    parts = [part for part in stem.split("/") if part]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


# --------------------------------------------------------------------------- resolution


#: ``from`` then dots: a relative import, however it is spaced (``from..x``, ``from \\`` ...);
#: not after a word character or a dot (checked apart: a leading lookbehind makes ``re``
#: try every position, where a literal start lets it skip to each ``from``)
_RELATIVE_FROM = re.compile(r"from(?:\s|\\)*\.")
_WORD_OR_DOT = re.compile(r"[\w.]")


def _relative_import(text: str) -> bool:
    return any(
        not m.start() or not _WORD_OR_DOT.match(text, m.start() - 1)
        for m in _RELATIVE_FROM.finditer(text)
    )


def needs_resolution(text: str, norm: str, patterns: PatternSet) -> bool:
    """Can a name in this file resolve to a qualified pattern through an import?

    Its last part must be spelt (by the import or the use), and the import
    must spell its first part, unless the import is relative.  ``norm`` is the
    text with identifiers NFKC-normalised, as the parser sees them.
    """
    if not patterns.qualified:
        return False
    relative = _relative_import(norm)
    for pattern in patterns.qualified:
        first, _, rest = pattern.body.partition(".")
        last = rest.rsplit(".", 1)[-1]
        if last in norm and (relative or spells_word(norm, first)):
            return True
    return False


def absolute_module(module: str, level: int, target: str | None, *, is_package: bool) -> str:
    """Resolve ``from {'.' * level}{target} import ...`` inside ``module``.

    The root's own package is unknown, so a relative result starts with ``.``
    (see :func:`pytest_cleantree.core.patterns.match_name`).
    """
    if level == 0:
        return target or ""
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    parts = parts[: len(parts) - (level - 1)] if level > 1 else parts
    base = ".".join(parts)
    tail = ".".join(x for x in (base, target or "") if x)
    return "." + tail


_Key = tuple[str, int, int, int | None, int | None]


def resolve_qualified(
    text: str,
    parsed: ast.Module,
    module: str,
    patterns: PatternSet,
    *,
    is_package: bool,
    norm: str | None = None,
    names: set[str] | None = None,
) -> dict[_Key, tuple[str, ...]]:
    """Map Name/Attribute uses to what they resolve to through imports.

    Only names bound by an import on a pattern's path matter.  Nearly all of
    them are bound by imports of one target in module or function scopes, and
    by nothing else: those are resolved here from the ``ast`` alone (see
    :class:`_NameBindings`).  A name also bound any other way (an assignment,
    a parameter, an import in a class body, ``global``, two different targets)
    is left to astroid's scope-by-scope lookup, which follows the rebindings.
    ``names``: those names, when the caller already has them (the partial parse's).
    """
    if names is None:
        wanted = patterns.qualified_bodies
        names = import_bound_names(parsed, module=module, is_package=is_package, wanted=wanted)
    if not names:
        return {}
    names_text = norm if norm is not None else text
    lines = sorted(lines_at(names_text, word_offsets(names_text, names)))
    bindings = _NameBindings(names, module, lines, is_package=is_package)
    bindings.visit(parsed)
    resolved = bindings.resolved()
    hard = names - bindings.simple
    if hard:
        resolved.update(astroid_resolve(text, parsed, module, hard, is_package=is_package))
    return resolved


def attribute_chain(node: ast.Attribute) -> tuple[ast.expr, str]:
    """Where an attribute chain starts, and the chain after it (``a.b.c``: ``a``, ``".b.c"``)."""
    suffix = [node.attr]
    base: ast.expr = node.value
    while isinstance(base, ast.Attribute):
        suffix.append(base.attr)
        base = base.value
    return base, "." + ".".join(reversed(suffix))


class _NameBindings(ast.NodeVisitor):
    """Every binding and use of some names, and the scopes each stands in.

    A name is *simple* when everything that binds it is an import in a module
    or function scope, all of one target.  A use of it then resolves to that
    target when an enclosing scope it can see imports it: its own scope, the
    functions around it (not their classes), the module.  As in astroid's
    lookup, a use in the very frame of an import but on an earlier line does
    not see that import, unless a loop holds both (its next turn does).  What
    each scope binds is the binding model's (:func:`.bindings.scope_bindings`);
    this walk adds the uses.
    """

    def __init__(self, names: set[str], module: str, lines: list[int], *, is_package: bool) -> None:
        self.names = names
        self.module = module
        self.is_package = is_package
        #: name -> scope id -> the lines of the imports of the name in that scope
        self.imports: dict[str, dict[int, list[int]]] = defaultdict(dict)
        #: frame scope id -> the (first, last) lines of each loop in it
        self.loops: dict[int, list[tuple[int, int]]] = defaultdict(list)
        self.targets: dict[str, set[str]] = defaultdict(set)
        #: names bound some other way (or imported in a class body): astroid resolves them
        self.other: set[str] = set()
        #: (node, statement line, visible scope ids innermost first, frame scope id)
        self.uses: list[tuple[ast.Name, int, tuple[int, ...], int]] = []
        self.chains: list[tuple[ast.Attribute, ast.Name, str]] = []  # (node, base, ".a.b")
        self._scopes: list[tuple[int, str]] = []
        self._scope_ids = itertools.count()
        self._line = 0
        #: the lines that spell one of the names (the others are not walked)
        self.lines = lines

    @property
    def simple(self) -> set[str]:
        return {n for n, targets in self.targets.items() if len(targets) == 1} - self.other

    def resolved(self) -> dict[_Key, tuple[str, ...]]:
        simple = self.simple
        out: dict[_Key, tuple[str, ...]] = {}
        resolvable: set[int] = set()
        for use, line, visible, frame in self.uses:
            name = use.id
            if name not in simple:
                continue
            imported = self.imports[name]
            for scope in visible:
                lines = imported.get(scope)
                if lines and (scope != frame or self._sees(frame, line, lines)):
                    resolvable.add(id(use))
                    out[key_of(use)] = (next(iter(self.targets[name])),)
                    break
        for chain, base, suffix in self.chains:
            if id(base) in resolvable:
                out[key_of(chain)] = (next(iter(self.targets[base.id])) + suffix,)
        return out

    def _sees(self, frame: int, line: int, imports: list[int]) -> bool:
        """Does a use on ``line`` of the frame see one of its imports of the name?

        One on an earlier line does, or a later one in a loop that holds both (the
        loop's next turn runs the use after the import).
        """
        if line >= imports[0]:
            return True
        return any(
            first <= line <= last and any(first <= at <= last for at in imports)
            for first, last in self.loops.get(frame, ())
        )

    def visit_For(self, node: ast.For | ast.AsyncFor | ast.While) -> None:
        frame = next(scope for scope, kind in reversed(self._scopes) if kind != "comprehension")
        self.loops[frame].append((node.lineno, node.end_lineno or node.lineno))
        self.generic_visit(node)

    visit_AsyncFor = visit_While = visit_For

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.stmt):
            if not spans(node, self.lines):
                return  # spells none of the names: neither binds nor uses them
            self._line = node.lineno
        super().visit(node)

    def _bindings(self, scope: int, kind: str, node: ast.AST) -> None:
        """Note what the scope opened binds of the names: imports, or anything else."""
        for binding in scope_bindings(node, self.lines).bindings:
            bound = binding.name
            if bound not in self.names:
                continue
            if kind == "class" or not isinstance(binding, Importation | ImportationFrom):
                self.other.add(bound)
                continue
            if isinstance(binding, Importation):
                target = binding.module
            else:
                base = absolute_module(
                    self.module, binding.level, binding.module, is_package=self.is_package
                )
                target = f"{base}.{binding.attr}" if base else binding.attr
            self.targets[bound].add(target)
            self.imports[bound].setdefault(scope, []).append(binding.line)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id not in self.names or not isinstance(node.ctx, ast.Load):
            return
        innermost = self._scopes[-1]
        visible = [innermost[0]]
        visible += [scope for scope, kind in reversed(self._scopes[:-1]) if kind != "class"]
        frame = next(scope for scope, kind in reversed(self._scopes) if kind != "comprehension")
        self.uses.append((node, self._line, tuple(visible), frame))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        base, chain = attribute_chain(node)
        if isinstance(base, ast.Name) and base.id in self.names:
            self.chains.append((node, base, chain))
        self.generic_visit(node)

    def _scoped(self, node: ast.AST, kind: str) -> None:
        """Visit a module, def, class, lambda or comprehension as the scope it opens.

        Decorators, defaults and annotations are visited inside it too: a use
        there then sees the scopes around, as it should, but never an import
        inside the body, whose lines all come after the ``def`` line.
        """
        scope = next(self._scope_ids)
        self._bindings(scope, kind, node)
        self._scopes.append((scope, kind))
        try:
            self.generic_visit(node)
        finally:
            self._scopes.pop()

    def visit_Module(self, node: ast.Module) -> None:
        self._scoped(node, "module")

    def visit_FunctionDef(self, node: ast.AST) -> None:
        self._scoped(node, "function")

    visit_AsyncFunctionDef = visit_Lambda = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._scoped(node, "class")

    def visit_ListComp(self, node: ast.expr) -> None:
        self._scoped(node, "comprehension")

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp


def key_of(node: ast.Name | ast.Attribute) -> _Key:
    """How the scan finds a resolved node again: its kind and exact span."""
    kind = "Name" if isinstance(node, ast.Name) else "Attribute"
    return (kind, node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


def astroid_resolve(
    text: str, parsed: ast.Module, module: str, only: set[str], *, is_package: bool
) -> dict[_Key, tuple[str, ...]]:
    """Resolve the names in ``only`` with astroid's lookup, which follows every rebinding."""
    from astroid import nodes
    from astroid.exceptions import AttributeInferenceError
    from astroid.manager import AstroidManager
    from astroid.rebuilder import TreeRebuilder

    class Recorder(TreeRebuilder):  # type: ignore[misc]
        """The rebuilder, noting names as it meets them (no second walk)."""

        def __init__(self, manager: AstroidManager, data: str) -> None:
            super().__init__(manager, data)
            self.names: list[nodes.Name] = []

        def visit_name(self, node: ast.Name, parent: nodes.NodeNG) -> nodes.NodeNG:
            built = super().visit_name(node, parent)
            if isinstance(built, nodes.Name):
                self.names.append(built)
            return built

    # Only what name lookup needs: the rebuilt tree and its locals.  No manager cache
    # (every target stays apart), no inference of ``self.x`` assignments, no imports of
    # other modules (``from m import *`` is left unresolved), no transforms.
    manager = AstroidManager()
    if "builtins" not in manager.astroid_cache:  # what AstroidBuilder would do: once
        manager.bootstrap()
    builder = Recorder(manager, text)
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

    def qualify(node: nodes.Name) -> tuple[str, ...]:
        _, assigned = node.lookup(node.name)
        names: list[str] = []
        for stmt in [*assigned, *_later_in_a_loop(node)]:
            try:
                real = stmt.real_name(node.name)
            except (AttributeError, AttributeInferenceError):  # not an import
                continue
            if isinstance(stmt, nodes.ImportFrom):
                level, modname = stmt.level or 0, stmt.modname
                base = absolute_module(module, level, modname, is_package=is_package)
                names.append(f"{base}.{real}" if base else real)
            elif isinstance(stmt, nodes.Import):
                names.append(real)
        return tuple(names)

    # ``sys.stderr = x`` and ``del sys.x`` name ``sys.stderr`` as much as a load does
    _ATTRIBUTES = (nodes.Attribute, nodes.AssignAttr, nodes.DelAttr)
    resolved: dict[_Key, tuple[str, ...]] = {}
    for name_node in builder.names:
        if name_node.name not in only:
            continue
        found = qualify(name_node)
        node: nodes.NodeNG = name_node
        kind = "Name"
        while found:
            resolved[(kind, node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)] = (
                found
            )
            parent = node.parent
            if not (isinstance(parent, _ATTRIBUTES) and parent.expr is node):
                break
            found = tuple(f"{base}.{parent.attrname}" for base in found)
            node, kind = parent, "Attribute"
    return resolved


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


def import_bound_names(
    tree: ast.Module,
    *,
    module: str,
    is_package: bool,
    wanted: Sequence[str],
    covering: bool = False,
) -> set[str]:
    """The local names that the file's imports bind to something on a wanted name's path.

    With ``covering``, only those bound to a wanted name or to something inside one.
    """
    return set(
        import_bound_targets(
            tree, module=module, is_package=is_package, wanted=wanted, covering=covering
        )
    )


def import_bound_targets(
    tree: ast.Module,
    *,
    module: str,
    is_package: bool,
    wanted: Sequence[str],
    covering: bool = False,
) -> dict[str, set[str]]:
    """:func:`import_bound_names`, each with what its imports bind it to."""
    targets = tuple(wanted)

    def relevant(target: str) -> bool:
        return covers_any(target, targets) if covering else on_path(target, targets)

    bound: dict[str, set[str]] = {}
    for stmt in _imports(tree.body):
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                target = alias.name if alias.asname else alias.name.split(".", 1)[0]
                if relevant(target):
                    bound.setdefault(alias.asname or target, set()).add(target)
            continue
        base = absolute_module(module, stmt.level, stmt.module, is_package=is_package)
        for alias in stmt.names:
            qualified = f"{base}.{alias.name}" if base else alias.name
            if alias.name != "*" and relevant(qualified):
                bound.setdefault(alias.asname or alias.name, set()).add(qualified)
    return bound


def _imports(body: Sequence[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement, nested ones included; no expression is visited."""
    stack: list[ast.AST] = list(body)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Import or kind is ast.ImportFrom:
            yield node  # type: ignore[misc]
        else:
            for field in STATEMENT_FIELDS.get(kind, ()):
                stack.extend(getattr(node, field))


_COMPOUND = (
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.ExceptHandler,
    ast.Match,
    ast.match_case,
    *(getattr(ast, name) for name in ("TryStar",) if hasattr(ast, name)),  # 3.11+
)

#: the fields of each node type that hold statements (or handlers and cases, which do):
#: a walk over these alone visits every statement and no expression
STATEMENT_FIELDS: dict[type, tuple[str, ...]] = {
    kind: tuple(
        field
        for field in ("body", "orelse", "finalbody", "handlers", "cases")
        if field in kind._fields
    )
    for kind in (ast.Module, *_COMPOUND)
}


def covers_any(imported: str, wanted: tuple[str, ...]) -> bool:
    """Is the imported name a wanted name, or something inside one?"""
    return covering_of(wanted).covers_any(imported)


def on_path(imported: str, wanted: tuple[str, ...]) -> bool:
    """Is the imported name on the way to a wanted qualified name, or inside one?"""
    return covering_of(wanted).on_path(imported)


def covering_of(wanted: tuple[str, ...]) -> Covering:
    """The wanted names as a table (:class:`Covering`), built once per tuple: a file's list
    hands the same tuple to every question (``PatternSet.qualified_bodies``), and a
    qualified pattern's spellings run to thousands (issue 44)."""
    known = _COVERINGS.get(id(wanted))
    if known is not None and known[0] is wanted:
        return known[1]
    if len(_COVERINGS) > 16:
        _COVERINGS.clear()
    covering = Covering(wanted)
    _COVERINGS[id(wanted)] = (wanted, covering)
    return covering


#: the tuples tabled (each held, so that its id is not reused), by identity
_COVERINGS: dict[int, tuple[tuple[str, ...], Covering]] = {}


_UNIQUE = itertools.count()
#: the nodes whose first statement may be a docstring
_DOCUMENTED = (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def resolve_reference(
    text: str, parsed: ast.Module, module: str, patterns: PatternSet, *, is_package: bool
) -> dict[_Key, tuple[str, ...]]:
    """The reference path: every name an import binds on a pattern's path, by astroid alone."""
    names = import_bound_names(
        parsed, module=module, is_package=is_package, wanted=patterns.qualified_bodies
    )
    return astroid_resolve(text, parsed, module, names, is_package=is_package) if names else {}
