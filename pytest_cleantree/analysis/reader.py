"""The one reader: what a binding or an expression of a module refers to (issue 47).

Each construct through which the fast engine lets a name stand for a qualified
name is read here, by one function: an import's target (:func:`import_targets`,
:func:`binding_target`), an attribute chain (:func:`attribute_chain`), the value
an alias takes (:func:`assignment_values`, :func:`parameter_defaults`,
:func:`value_chain`, :func:`getattr_target`), a star import's names
(:func:`star_bindings`), a module's own binding (:func:`module_bindings`,
:func:`own_name`); the answers are keyed by :data:`Key` (a node's kind and exact
span).  :mod:`.constructs` lists the constructs, each with its reading here and the
text tests the fast path asks.

The scanner (:mod:`.scan`), import resolution (:mod:`.resolve`) and the aliases
(:mod:`.aliases`) ask this module.  The astroid reading (:mod:`.astroid_names`) is
an independent reading on purpose: it shares only the keys (:func:`key_at`) and
the arithmetic of a relative import (:func:`absolute_module`).

What is read is what the engine models today, no more: ``import``, ``from ...
import`` (absolute, relative, ``*``), an attribute chain on a resolved name, an
assignment (``a = b = v``, ``a: T = v``) or a parameter default whose value is a
resolved name or a chain on one, or ``getattr`` of one with a literal name
(:func:`getattr_target`), the same under ``global`` or ``nonlocal``, and a
module's own top-level binding.  Any other binding of a name (:data:`NOT_FOLLOWED`:
unpacking, walrus, ``for``/``with``/``except`` targets, ...) is no alias: it only
rebinds, and resolution leaves such a name to astroid's lookup.
"""

from __future__ import annotations

import ast
import unicodedata
from collections.abc import Iterator, Mapping, Sequence

from .bindings import Importation, ImportationFrom, ScopeBindings, StarImportation

__all__ = [
    "ALIAS_VIAS",
    "NOT_FOLLOWED",
    "STATEMENT_FIELDS",
    "Key",
    "absolute_module",
    "assignment_values",
    "attribute_chain",
    "binding_target",
    "from_target",
    "getattr_target",
    "import_source",
    "import_targets",
    "iter_imports",
    "key_at",
    "key_of",
    "module_bindings",
    "own_name",
    "parameter_defaults",
    "refers_to",
    "resolve_relative",
    "star_bindings",
    "value_chain",
]

#: how a resolved node is found again: its ``ast`` kind (``Name``, ``Attribute``) and span
Key = tuple[str, int, int, int | None, int | None]


# --------------------------------------------------------------------------- keys


def key_of(node: ast.Name | ast.Attribute) -> Key:
    """How the scan finds a resolved node again: its kind and exact span.

    :func:`key_at` of the node's own class and span, spelt out (the scan asks it of
    every name it walks); a test holds the two to each other.
    """
    kind = "Name" if isinstance(node, ast.Name) else "Attribute"
    return (kind, node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)


def key_at(
    kind: type[ast.Name] | type[ast.Attribute],
    line: int,
    col: int,
    end_line: int | None,
    end_col: int | None,
) -> Key:
    """The key of a node of ``kind`` at this span (what another reading maps its nodes to)."""
    return (kind.__name__, line, col, end_line, end_col)


# --------------------------------------------------------------------------- expressions


def attribute_chain(node: ast.Attribute) -> tuple[ast.expr, str]:
    """Where an attribute chain starts, and the chain after it (``a.b.c``: ``a``, ``".b.c"``)."""
    suffix = [node.attr]
    base: ast.expr = node.value
    while isinstance(base, ast.Attribute):
        suffix.append(base.attr)
        base = base.value
    return base, "." + ".".join(reversed(suffix))


def value_chain(value: ast.expr) -> tuple[ast.Name, str] | None:
    """A value an alias can be: a name, or a chain on one (``os.path``: ``os``, ``".path"``),
    or :func:`getattr_target` on one (``getattr(os, "path")``: ``os``, ``".path"``)."""
    value, suffix = _unwrap_getattr(value)
    if isinstance(value, ast.Name):
        return value, suffix
    if isinstance(value, ast.Attribute):
        base, chain = attribute_chain(value)
        if isinstance(base, ast.Name):
            return base, chain + suffix
    return None


def _unwrap_getattr(value: ast.expr) -> tuple[ast.expr, str]:
    """The object under nested :func:`getattr_target` calls, and the attributes they read
    (a loop: the nesting, not the stack, bounds it)."""
    suffix = ""
    while (found := getattr_target(value)) is not None:
        value, suffix = found[0], found[1] + suffix
    return value, suffix


def getattr_target(value: ast.expr) -> tuple[ast.expr, str] | None:
    """``getattr(obj, "name")``: the object and the attribute it reads (``".name"``).

    The name must be one string literal (escapes and implicit concatenation are the
    parser's: ``"f\\x75nc"`` is ``func``) spelling an identifier exactly as written:
    ``getattr`` does not normalise it, so a fullwidth ``"\\uff46unc"`` reads no ``func``.  A third
    argument (the default) keeps it an alias: where the attribute exists, which is
    where a check of ``obj.name`` matters, the call returns it (an over-approximation:
    where it does not, the name holds the default).  Any other call (a name not a
    literal, keywords, a starred argument, ``builtins.getattr``) is no alias: nothing is
    guessed.  A module that rebinds ``getattr`` itself is read as if it did not (more
    findings, never fewer).
    """
    if not isinstance(value, ast.Call) or value.keywords or not 2 <= len(value.args) <= 3:
        return None
    func, (obj, name, *_) = value.func, value.args
    if not (isinstance(func, ast.Name) and func.id == "getattr"):
        return None
    if any(isinstance(arg, ast.Starred) for arg in value.args):
        return None
    if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
        return None
    attr = name.value
    plain = attr.isidentifier() and unicodedata.is_normalized("NFKC", attr)
    return (obj, "." + attr) if plain else None


def refers_to(value: ast.expr, resolved: Mapping[Key, tuple[str, ...]]) -> tuple[str, ...]:
    """What a value an alias can be (:func:`value_chain`) refers to, given what is resolved.

    A name or a chain on one refers to what resolution answered for its node, a
    :func:`getattr_target` to what its object refers to and the attribute; any other
    value to nothing.
    """
    value, suffix = _unwrap_getattr(value)
    if not isinstance(value, ast.Name | ast.Attribute) or value_chain(value) is None:
        return ()
    return tuple(target + suffix for target in resolved.get(key_of(value), ()))


# --------------------------------------------------------------------------- imports


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


def resolve_relative(module: str, is_package: bool, level: int, target: str | None) -> str | None:
    """The absolute module of ``from {'.' * level}{target} import ...`` inside ``module``.

    ``None`` when the dots climb above the top package (Python raises ImportError).
    """
    if level == 0:
        return target or None
    parts = module.split(".") if module else []
    if not is_package:
        parts = parts[:-1]
    climb = level - 1
    if climb > len(parts) or (climb == len(parts) and not target):
        return None
    base = parts[: len(parts) - climb]
    return ".".join([*base, *([target] if target else [])]) or None


def import_source(
    binding: ImportationFrom | StarImportation, module: str, *, is_package: bool
) -> str | None:
    """The module a ``from`` import of the binding model names, inside the module ``module``.

    For a reading that knows the module's whole name (the symbol graph's records): the
    absolute module (:func:`resolve_relative`), ``None`` when the dots climb above the
    top package.  :func:`binding_target` is the same for a file whose root is unknown.
    """
    return resolve_relative(module, is_package, binding.level, binding.module or None)


def from_target(base: str, attr: str) -> str:
    """What ``from base import attr`` binds: ``base.attr`` (``attr`` when the base is empty)."""
    return f"{base}.{attr}" if base else attr


def binding_target(binding: Importation | ImportationFrom, module: str, *, is_package: bool) -> str:
    """What an import binding of the binding model (:mod:`.bindings`) binds its name to."""
    if isinstance(binding, Importation):
        return binding.module
    base = absolute_module(module, binding.level, binding.module, is_package=is_package)
    return from_target(base, binding.attr)


def import_targets(
    stmt: ast.Import | ast.ImportFrom, module: str, *, is_package: bool
) -> Iterator[tuple[str, str]]:
    """(the name bound, what it is bound to) for each name an import statement binds.

    ``import a.b`` binds ``a`` to ``a``, ``import a.b as c`` binds ``c`` to ``a.b``;
    ``from m import *`` binds names only ``m`` knows (:func:`star_bindings`).
    """
    if isinstance(stmt, ast.Import):
        for alias in stmt.names:
            target = alias.name if alias.asname else alias.name.split(".", 1)[0]
            yield alias.asname or target, target
        return
    base = absolute_module(module, stmt.level, stmt.module, is_package=is_package)
    for alias in stmt.names:
        if alias.name != "*":
            yield alias.asname or alias.name, from_target(base, alias.name)


def iter_imports(body: Sequence[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
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


def own_name(module: str, name: str) -> str:
    """What a module's own top-level binding of ``name`` is: ``.module.name``."""
    return f".{module}.{name}"


def module_bindings(scope: ScopeBindings, ends: set[str]) -> frozenset[str]:
    """The names among ``ends`` the module's scope gives a value (definitions, assignments)."""
    return frozenset(scope.defined & ends)


def star_bindings(
    scope: ScopeBindings,
    module: str,
    stars: Mapping[str, frozenset[str]],
    is_package: bool,
) -> dict[str, tuple[str, ...]]:
    """What the module's ``from M import *`` bind: name -> ``M.name`` (issue 12, cause 7).

    ``stars`` holds, per module of the tree, the names its star import binds
    that a pattern can end with (from the export map); a module not in it
    binds nothing known.  A relative ``M`` matches the modules it can be
    completed into.  Star imports stand at module level only (Python refuses
    them elsewhere), in its ``if``/``try``/... blocks included.
    """
    bound: dict[str, list[str]] = {}
    for star in scope.stars:
        base = absolute_module(module, star.level, star.module, is_package=is_package)
        if base.startswith("."):
            modules = [name for name in stars if ("." + name).endswith(base)]
        else:
            modules = [base] if base in stars else []
        for star_module in modules:
            for name in stars[star_module]:
                bound.setdefault(name, []).append(f"{star_module}.{name}")
    return {name: tuple(dict.fromkeys(targets)) for name, targets in bound.items()}


# --------------------------------------------------------------------------- aliases


#: the binding model's assignments (:data:`.bindings.VIAS`) that make an alias: the name
#: takes the value whole (``a = b = v``, ``a: T = v``)
ALIAS_VIAS = frozenset({"assign", "annotated"})
#: the others, and why no alias is read from them: a name bound so stands for no qualified
#: name, and where an import binds it too, resolution leaves it to astroid's lookup
NOT_FOLLOWED = {
    "augmented": "``a += v`` binds ``a`` to a sum",
    "unpack": "``a, b = v`` binds neither to ``v`` (a tuple's items are not read)",
    "for": "a loop target takes an item of the iterable",
    "with": "a ``with`` target takes what ``__enter__`` returns",
    "except": "an ``except ... as e`` target takes the exception",
    "walrus": "out of reach today (see :mod:`.aliases`)",
    "comprehension": "a comprehension target takes an item of the iterable",
    "match": "a capture takes a part of the subject",
}


def parameter_defaults(args: ast.arguments) -> Iterator[tuple[ast.Name, ast.expr]]:
    """Each parameter with a default, as the name it binds in its function and that default.

    ``def f(_warn=warnings.warn): _warn()``: inside ``f``, ``_warn`` is an alias
    (unless a caller passes another value, which the check cannot see).
    """
    positional = [*args.posonlyargs, *args.args]
    pairs = [
        *zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True),
        *zip(args.kwonlyargs, args.kw_defaults, strict=True),
    ]
    for arg, value in pairs:
        if value is not None:
            name = ast.Name(arg.arg, ast.Store())
            ast.copy_location(name, arg)
            yield name, value


def assignment_values(tree: ast.Module) -> Iterator[tuple[list[ast.Name], ast.expr]]:
    """(the names assigned, value) of every statement that can make an alias, at any depth.

    ``a = b = v``, ``a: T = v``, and each parameter default (as a one-name target);
    targets that are no name (``a.b``, ``a[0]``, ``a, b``) bind no alias and are left out.
    Only statements are visited (their bodies, branches and handlers): an
    assignment is a statement, and expressions, most of a tree, hold none.
    """
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Assign:
            yield _names(node.targets), node.value  # type: ignore[attr-defined]
        elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            for name, value in parameter_defaults(node.args):  # type: ignore[attr-defined]
                yield [name], value
        elif kind is ast.AnnAssign and node.value is not None:  # type: ignore[attr-defined]
            yield _names([node.target]), node.value  # type: ignore[attr-defined]
        for field in STATEMENT_FIELDS.get(kind, ()):
            stack.extend(getattr(node, field))


def _names(targets: Sequence[ast.expr]) -> list[ast.Name]:
    return [target for target in targets if isinstance(target, ast.Name)]
