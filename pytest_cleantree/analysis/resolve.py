"""Qualified names: what a name in a file stands for through its imports.

A name bound only by imports of one target is resolved from ``ast``, scope by
scope (:class:`_NameBindings`), with the one reader's answers (:mod:`.reader`:
what an import binds, the keys, attribute chains); any other (rebound,
assigned, imported in a class body, two targets) is resolved with astroid's
lookup (:mod:`.astroid_names`, the only astroid importer), which follows every
rebinding.  A test holds the two to the same answers on the standard library.
"""

from __future__ import annotations

import ast
import itertools
from collections import defaultdict
from collections.abc import Sequence

from pytest_cleantree.core.identity import ByIdentity
from pytest_cleantree.core.nameindex import Covering

from .astroid_names import astroid_resolve
from .bindings import Importation, ImportationFrom, scope_bindings, spans
from .reader import Key, attribute_chain, binding_target, import_targets, iter_imports, key_of
from .text import PatternSet, is_python_path, lines_at, word_offsets

__all__ = [
    "covering_of",
    "covers_any",
    "import_bound_names",
    "import_bound_targets",
    "module_name_for",
    "on_path",
    "resolve_qualified",
    "resolve_reference",
    "table_of",
]


def module_name_for(path: str) -> str:
    """The dotted module a file is, relative to the root (``a/b/__init__.py`` -> ``a.b``)."""
    stem = path.rsplit(".", 1)[0] if is_python_path(path) else path
    parts = [part for part in stem.split("/") if part]
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


# --------------------------------------------------------------------------- resolution


def resolve_qualified(
    text: str,
    parsed: ast.Module,
    module: str,
    patterns: PatternSet,
    *,
    is_package: bool,
    norm: str | None = None,
    names: set[str] | None = None,
) -> dict[Key, tuple[str, ...]]:
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
        wanted = patterns.covering
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

    def resolved(self) -> dict[Key, tuple[str, ...]]:
        simple = self.simple
        out: dict[Key, tuple[str, ...]] = {}
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
            target = binding_target(binding, self.module, is_package=self.is_package)
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


def import_bound_names(
    tree: ast.Module,
    *,
    module: str,
    is_package: bool,
    wanted: Wanted,
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
    wanted: Wanted,
    covering: bool = False,
) -> dict[str, set[str]]:
    """:func:`import_bound_names`, each with what its imports bind it to."""
    table = table_of(wanted)
    relevant = table.covers_any if covering else table.on_path

    bound: dict[str, set[str]] = {}
    for stmt in iter_imports(tree.body):
        for name, target in import_targets(stmt, module, is_package=is_package):
            if relevant(target):
                bound.setdefault(name, set()).add(target)
    return bound


#: the wanted qualified names: a list's table (``PatternSet.covering``, a file's part a view of
#: its list's), or the names themselves (tabled once per tuple, see :func:`covering_of`)
Wanted = Covering | Sequence[str]


def table_of(wanted: Wanted) -> Covering:
    """The wanted names as a table: a table as it is, names by :func:`covering_of`."""
    return wanted if isinstance(wanted, Covering) else covering_of(tuple(wanted))


def covers_any(imported: str, wanted: Wanted) -> bool:
    """Is the imported name a wanted name, or something inside one?"""
    return table_of(wanted).covers_any(imported)


def on_path(imported: str, wanted: Wanted) -> bool:
    """Is the imported name on the way to a wanted qualified name, or inside one?"""
    return table_of(wanted).on_path(imported)


#: the wanted names as a table (:class:`Covering`), built once per tuple.  The analysis hands
#: every question its list's table (``PatternSet.covering``: a file's part a view of the run's
#: list's, never a table of its own, issue 44); this is for names given as such
covering_of: ByIdentity[tuple[str, ...], Covering] = ByIdentity(Covering)


def resolve_reference(
    text: str, parsed: ast.Module, module: str, patterns: PatternSet, *, is_package: bool
) -> dict[Key, tuple[str, ...]]:
    """The reference path: every name an import binds on a pattern's path, by astroid alone."""
    names = import_bound_names(
        parsed, module=module, is_package=is_package, wanted=patterns.covering
    )
    return astroid_resolve(text, parsed, module, names, is_package=is_package) if names else {}
