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
such an alias or a use of one (:class:`AliasBinders`): where a value starts
with a name an import binds on a pattern's path, then wherever a name bound
to a pattern (or inside one) is spelt, until nothing changes.

A name assigned under ``global`` or ``nonlocal`` is an alias in the scope
that owns it (:func:`.bindings.scope_bindings` says which names a scope
binds and declares).  Out of reach: walrus targets, unpacking
(``a, b = os.path, os.sep``), and attributes of objects (``self.join = os.path.join``).
"""

from __future__ import annotations

import ast
import unicodedata
from collections.abc import Iterator

from pytest_cleantree.core.nameindex import Covering

from .bindings import Assignment, scope_bindings, spans
from .pieces import Followed
from .reader import (
    ALIAS_VIAS,
    Key,
    assignment_values,
    attribute_chain,
    key_of,
    parameter_defaults,
    refers_to,
    value_chain,
)
from .resolve import Wanted, covers_any, import_bound_targets, on_path, table_of
from .text import PatternSet, lines_at, word_offsets

__all__ = ["AliasBinders", "with_aliases"]

_SCOPES = (
    ast.Module,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.Lambda,
    ast.ClassDef,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)


class _Scope:
    """One scope: what it binds, and the aliases assigned in it (the binding model's)."""

    def __init__(self, node: ast.AST, parent: _Scope | None, lines: list[int] | None) -> None:
        self.parent = parent
        self.is_class = isinstance(node, ast.ClassDef)
        #: a binding spells its name on a line of its statement: only those lines matter
        scope = scope_bindings(node, lines)
        self.bound = set(scope.names)
        self.declared, self.globals = scope.declared, scope.globals
        self.assigned = [
            (b.name, b.value)
            for b in scope.bindings
            if isinstance(b, Assignment) and b.via in ALIAS_VIAS and b.value is not None
        ]
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            self.assigned += [(arg.id, value) for arg, value in parameter_defaults(node.args)]

    def home(self, name: str) -> _Scope | None:
        """The scope an assignment of ``name`` here binds (``global``/``nonlocal`` move it)."""
        if name in self.globals:
            root = self
            while root.parent is not None:
                root = root.parent
            root.bound.add(name)  # the module binds it, if only from a function
            return root
        scope: _Scope | None = self
        if name in self.declared:  # nonlocal: the nearest enclosing function binding it
            scope = self.parent
            while scope is not None and (scope.is_class or name not in scope.bound):
                scope = scope.parent
        return scope

    def owner(self, name: str) -> _Scope | None:
        """The scope a load of ``name`` here is looked up in (enclosing classes are skipped)."""
        scope: _Scope | None = self
        first = True
        while scope is not None:
            if (first or not scope.is_class) and name in scope.bound:
                return scope
            scope, first = scope.parent, False
        return None


class _Uses(ast.NodeVisitor):
    """The loads of the alias names, each with its scope, and the attribute chains on them."""

    def __init__(self, names: set[str], lines: list[int] | None) -> None:
        self.names = names  # the only names whose uses can be an alias's
        self.lines = lines  # the lines that spell one (``None``: unknown), ascending
        self.scopes: list[_Scope] = []
        self.loads: list[tuple[ast.Name, _Scope]] = []
        self.chains: dict[int, list[tuple[ast.Attribute, str]]] = {}  # id(base) -> chains
        self._stack: list[_Scope] = []

    def generic_visit(self, node: ast.AST) -> None:
        """Visit the children, less the statements on no line that spells an alias's name.

        Such a statement holds no use of an alias, and binds none of the names.
        """
        for _, value in ast.iter_fields(node):
            for child in value if isinstance(value, list) else (value,):
                if isinstance(child, ast.AST) and self._may_hold(child):
                    self.visit(child)

    def _may_hold(self, node: ast.AST) -> bool:
        if self.lines is None or not isinstance(node, ast.stmt | ast.excepthandler):
            return True
        return spans(node, self.lines)  # type: ignore[arg-type]

    def _open(self, node: ast.AST) -> None:
        # decorators, defaults and annotations are evaluated in the enclosing scope;
        # visiting them inside is harmless: they do not bind the names they use
        scope = _Scope(node, self._stack[-1] if self._stack else None, self.lines)
        self.scopes.append(scope)
        self._stack.append(scope)
        try:
            self.generic_visit(node)
        finally:
            self._stack.pop()

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, _SCOPES):
            self._open(node)
        else:
            super().visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load) and node.id in self.names:
            self.loads.append((node, self._stack[-1]))

    def visit_Attribute(self, node: ast.Attribute) -> None:
        base, chain = attribute_chain(node)
        if isinstance(base, ast.Name) and base.id in self.names:
            self.chains.setdefault(id(base), []).append((node, chain))
        self.generic_visit(node)


def with_aliases(
    tree: ast.Module,
    resolved: dict[Key, tuple[str, ...]],
    text: str | None = None,
    wanted: Wanted | None = None,
) -> dict[Key, tuple[str, ...]]:
    """``resolved`` with the uses of assignment aliases of resolved names added.

    ``text``, the module's source, lets the walk skip the statements that spell
    no alias's name (its identifiers as the parser reads them: NFKC-normalised).
    ``wanted``, the qualified patterns: only an alias of one, or of something on
    its way, is followed (see :func:`_leads_to`); ``None``: every alias.
    """
    names, stores = _alias_names(tree, resolved) if resolved else (set(), 0)
    if not names:
        return resolved  # no value is a resolved name: no alias (the common case, and cheap)
    lines = None
    if text is not None:
        lines = _spelling_lines(text, names, stores)
        if lines is None:
            return resolved  # each spelling of the names is an assignment to one: no use
    uses = _Uses(names, lines)
    uses.visit(tree)
    assignments = [
        (home, name, value)
        for scope in uses.scopes
        for name, value in scope.assigned
        if (home := scope.home(name)) is not None
    ]
    if not assignments:
        return resolved
    out = dict(resolved)
    owners = [(use, scope.owner(use.id)) for use, scope in uses.loads]
    table = None if wanted is None else table_of(wanted)
    for _ in range(len(assignments) + 1):  # each round follows one more alias of an alias
        if not _follow(out, assignments, owners, uses.chains, table):
            break
    return out


def _spelling_lines(text: str, names: set[str], stores: int) -> list[int] | None:
    """The lines that spell the names; ``None`` when every spelling is an assignment."""
    if not text.isascii() and not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)  # keeps lines (see .text.TextViews)
    offsets = word_offsets(text, names)
    if len(offsets) <= stores:
        return None
    return sorted(lines_at(text, offsets))


def _follow(
    out: dict[Key, tuple[str, ...]],
    assignments: list[tuple[_Scope, str, ast.expr]],
    owners: list[tuple[ast.Name, _Scope | None]],
    chains: dict[int, list[tuple[ast.Attribute, str]]],
    wanted: Covering | None,
) -> bool:
    """One round: add to each use of an alias what its value resolves to; true if any changed."""
    aliases: dict[tuple[int, str], set[str]] = {}
    for scope, name, value in assignments:
        found = [t for t in refers_to(value, out) if _leads_to(t, wanted)]
        if found:
            aliases.setdefault((id(scope), name), set()).update(found)
    changed = False
    for use, owner in owners:
        targets = aliases.get((id(owner), use.id)) if owner is not None else None
        if not targets:
            continue
        changed |= _add(out, key_of(use), targets)
        for chain, suffix in chains.get(id(use), ()):
            changed |= _add(out, key_of(chain), {t + suffix for t in targets})
    return changed


def _leads_to(target: str, wanted: Covering | None) -> bool:
    """Is an alias of ``target`` an alias of a wanted name, or of something on its way?

    Not of something *inside* one: after ``mode = ForwardMode.EXTEND`` (a value
    of the class), ``mode`` is no use of ``ForwardMode``; the assignment line is.
    """
    if wanted is None or target.startswith("."):  # relative: known only in part
        return True
    return wanted.leads_into(target)  # a look-up, however many names are wanted (issue 44)


def _alias_names(tree: ast.Module, resolved: dict[Key, tuple[str, ...]]) -> tuple[set[str], int]:
    """Every name that may be an alias (assigned a resolved name, or from such a name),
    and how many assignment targets in the tree spell one of them (none is a use)."""
    names: set[str] = set()
    assigned = []
    targets: list[str] = []
    for nodes, value in assignment_values(tree):
        aliases = [target.id for target in nodes]
        targets += aliases
        chain = value_chain(value)
        if chain is None:
            continue
        if refers_to(value, resolved):
            names.update(aliases)
        else:
            assigned.append((aliases, chain[0].id))
    while names:
        more = {a for aliases, base in assigned if base in names for a in aliases} - names
        if not more:
            break
        names |= more
    return names, sum(target in names for target in targets)


def _add(out: dict[Key, tuple[str, ...]], key: Key, targets: set[str]) -> bool:
    known = out.get(key, ())
    more = tuple(sorted(set(targets) - set(known)))
    if more:
        out[key] = (*known, *more)
    return bool(more)


class AliasBinders:
    """What the partial parse follows so that no alias, nor a use of one, is left out.

    The names imports bind on a pattern's path, then every name assigned from
    one of those (or from such an alias) while what it is assigned stays on a
    pattern's path (``x = subprocess.PIPE`` cannot lead to ``subprocess.Popen``).
    A name bound to a pattern or to something inside one is followed wherever
    it is spelt.  A name bound to something on the way (``os``, ``p = os.path``)
    spells the rest of the pattern, its needle included, wherever it is used
    for it: only where it is assigned from is followed, since an alias made
    there may not spell it (``join = p.join`` does, ``e = os.environ`` then ``e[k]``
    does not).
    """

    def __init__(self, patterns: PatternSet, module: str, *, is_package: bool) -> None:
        self._wanted = patterns.covering
        self._module = module
        self._is_package = is_package
        self._last: tuple[ast.Module, set[str]] | None = None

    def __call__(self, tree: ast.Module) -> Followed:
        wanted = self._wanted
        bound = import_bound_targets(
            tree, module=self._module, is_package=self._is_package, wanted=wanted
        )
        self._last = (tree, set(bound))
        assigned = list(_assignments(tree))
        for _ in range(len(assigned) + 1):  # each round follows one more alias of an alias
            more = False
            for alias, base, suffix in assigned:
                for target in tuple(bound.get(base, ())):
                    value = target + suffix
                    if value not in bound.get(alias, ()) and on_path(value, wanted):
                        bound.setdefault(alias, set()).add(value)
                        more = True
            if not more:
                break
        inside = {
            name for name, targets in bound.items() if any(covers_any(t, wanted) for t in targets)
        }
        return Followed(inside, set(bound) - inside)

    def imported_names(self, tree: ast.Module) -> set[str] | None:
        """The names the imports of ``tree`` bind on a pattern's path, when it was followed
        last (the tree the partial parse returns): resolution need not walk it for them."""
        if self._last is None or self._last[0] is not tree:
            return None
        return self._last[1]


def _assignments(tree: ast.Module) -> Iterator[tuple[str, str, str]]:
    """(alias, the name its value starts with, the rest) for each ``alias = name.attr...``."""
    for targets, value in assignment_values(tree):
        chain = value_chain(value)
        if chain is not None:
            base, suffix = chain
            for target in targets:
                yield target.id, base.id, suffix
