"""What each module binds at its top level, as the symbol graph's records, read with ``ast``.

Module-level bindings are the module scope's (:mod:`.analysis.bindings`, the one
model of what a scope binds), the bodies of top-level ``if``/``try``/``with``/
``for``/``while``/``match`` statements included: every assignment
(``for``/``with``/``except`` targets, walrus, match captures too) and definition
defines ``module.name``; imports re-export.  A star import takes the source's
``__all__`` as :mod:`.analysis.allnames` bounds it (the names it may hold, and
every public name when it may be absent, every name when it cannot be read), else
every public name bound in the source (names imported into it included), as
Python and mypy do.  The graph over these records is :mod:`.symbol_graph`.
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

from pytest_cleantree.analysis import bindings
from pytest_cleantree.analysis.allnames import read_all
from pytest_cleantree.analysis.bindings import scope_bindings
from pytest_cleantree.analysis.reader import import_source

__all__ = [
    "Binding",
    "BindingKind",
    "ModuleExports",
    "Spelling",
    "exports_of_tree",
    "parse_module_exports",
    "taken_by_star",
]


class BindingKind(enum.Enum):
    DEFINITION = "definition"  # def, class, assignment: the module defines the name
    FROM = "from"  # from MODULE import ATTR [as NAME]
    MODULE = "module"  # import MODULE [as NAME]: the name is a module
    STAR = "star"  # from MODULE import *


#: the names the import system gives every module
_IMPLICIT = frozenset(
    {"__name__", "__doc__", "__file__", "__cached__", "__loader__", "__package__", "__spec__"}
    | {"__builtins__"}
)


@dataclass(frozen=True)
class Binding:
    """One top-level binding of a module, in source order."""

    name: str  # the name bound ("*" for a star import)
    kind: BindingKind
    line: int  # where the bound name (or the imported name) stands
    module: str = ""  # FROM, MODULE, STAR: the absolute module named
    attr: str = ""  # FROM: the name taken from it


@dataclass(frozen=True)
class ModuleExports:
    """What one module binds at its top level.

    ``all_names`` is every name ``__all__`` may hold (``None``: the module has
    none, a star takes every public name).  ``all_from`` names bindings whose
    ``__all__`` is spliced in (``__all__ = common.__all__ + [...]``).
    ``all_open`` says what a star takes besides: ``""`` nothing, ``"public"``
    every public name (``__all__`` may be deleted or unset), ``"every"`` every
    name bound (``__all__`` is computed in a way not read).
    """

    name: str
    is_package: bool
    bindings: tuple[Binding, ...]
    all_names: tuple[str, ...] | None = None
    all_from: tuple[str, ...] = ()
    all_open: str = ""
    _by_name: dict[str, list[Binding]] = field(default_factory=dict, compare=False, repr=False)
    _stars: list[tuple[int, Binding]] = field(default_factory=list, compare=False, repr=False)
    _order: dict[int, int] = field(default_factory=dict, compare=False, repr=False)
    _public: list[tuple[frozenset[str], tuple[str, ...]]] = field(
        default_factory=list, compare=False, repr=False
    )

    def __post_init__(self) -> None:
        for index, binding in enumerate(self.bindings):
            self._by_name.setdefault(binding.name, []).append(binding)
            self._order[id(binding)] = index
            if binding.kind is BindingKind.STAR:
                self._stars.append((index, binding))

    def every_name(self) -> set[str]:
        """Every name the module may hold: what a computed ``__all__`` may list.

        Its bindings (star imports aside), and the names every module has
        (``__name__``, ``__file__``, ...; ``__path__`` in a package), less ``__all__``.
        """
        names = {b.name for b in self.bindings if b.kind is not BindingKind.STAR}
        names.update(_IMPLICIT)
        if self.is_package:
            names.add("__path__")
        names.discard("__all__")
        return names

    def bound(self, name: str) -> list[Binding]:
        return self._by_name.get(name, [])

    def may_bind(self, name: str) -> list[Binding]:
        """The bindings that may bind ``name`` (its own and the star imports), in source order."""
        own = self._by_name.get(name, [])
        if not self._stars:
            return own
        if not own:
            return [binding for _, binding in self._stars]
        merged = [(self._order[id(b)], b) for b in own] + self._stars
        return [binding for _, binding in sorted(merged, key=lambda pair: pair[0])]

    def public(self) -> tuple[frozenset[str], tuple[str, ...]]:
        """The module's public names and the modules it star-imports (read once)."""
        if not self._public:
            self._public.append(
                (
                    frozenset(b.name for b in self.bindings if taken_by_star(b)),
                    tuple(b.module for b in self.bindings if b.kind is BindingKind.STAR),
                )
            )
        return self._public[0]

    def star_takes(self) -> tuple[Collection[str], Sequence[str]] | None:
        """What a star import takes of the module's own names, and the modules it goes on to.

        Without ``__all__``: every public name, then its star imports.  With one: the
        names it may hold and its splices' modules, and besides (``all_open``) every
        public name or every name, then its star imports.  ``None``: a splice
        (``other.__all__``) is not plainly a module's.
        """
        if self.all_names is None:
            return self.public()
        stars = [b.module for b in self.bindings if b.kind is BindingKind.STAR]
        names = set(self.all_names)
        more: list[str] = []
        for bound in self.all_from:
            other = self.module_bound(bound)
            if other is None:
                return None
            more.append(other)
        if self.all_open == "public":
            names.update(b.name for b in self.bindings if taken_by_star(b))
        elif self.all_open:
            names.update(self.every_name())
        return names, (more + stars if self.all_open else more)

    def module_bound(self, name: str) -> str | None:
        """The module that ``name`` is in this module by its own import that runs last.

        ``import pkg.common as common`` or ``from . import common``: what a spliced
        ``common.__all__`` names.  Only the module's own binding is read (not a star
        import's, nor a chain of re-exports): the walk over exports never waits on
        another lookup, so nothing here nests.  ``None``: not plainly a module.
        """
        for binding in reversed(self.bound(name)):
            if binding.kind is BindingKind.MODULE:
                return binding.module
            if binding.kind is BindingKind.FROM:  # a sub-module, if it is one (read if not yet)
                return f"{binding.module}.{binding.attr}"
            return None
        return None


@dataclass(frozen=True, order=True)
class Spelling:
    """A qualified spelling of a symbol and the statement that makes it (module, line)."""

    spelling: str
    module: str
    line: int


def parse_module_exports(name: str, text: str, *, is_package: bool) -> ModuleExports:
    """Read a module's top-level bindings; raises ``SyntaxError``/``ValueError`` on bad source.

    They are the module scope's, from :func:`.analysis.bindings.scope_bindings`.
    """
    return exports_of_tree(name, ast.parse(text), is_package=is_package, text=text)


def exports_of_tree(
    name: str, tree: ast.Module, *, is_package: bool, text: str | None = None
) -> ModuleExports:
    """A parsed module's top-level bindings (see :func:`parse_module_exports`).

    ``text``: its source, when the caller has it (reading ``__all__`` may then skip a walk).
    """
    scope = scope_bindings(tree)
    made: list[Binding] = []
    for binding in scope.bindings:
        made += _bindings(binding, name, is_package)
    found = read_all(tree, text)
    if found.public and not (found.every or found.names or found.spliced):
        return ModuleExports(name, is_package, tuple(made))  # no ``__all__``
    open_ = "every" if found.every else "public" if found.public else ""
    return ModuleExports(name, is_package, tuple(made), found.names, found.spliced, open_)


def _bindings(binding: bindings.Binding, module: str, is_package: bool) -> list[Binding]:
    """What one binding of the module scope makes: :func:`_binding`, after its submodule.

    A package that imports one of its own submodules (``from .sub import x``,
    ``from .sub import *``, ``import pkg.sub.deep as d``) has it as an attribute
    from then on: the import system sets ``pkg.sub`` when ``pkg.sub`` is loaded,
    before the statement binds its own names (``import pkg.sub`` too).
    """
    made = _binding(binding, module, is_package)
    if made is None:
        return []
    source = made.module if made.kind is not BindingKind.DEFINITION else ""
    if isinstance(binding, bindings.Importation) and binding.dotted:
        source = binding.dotted
    if not (is_package and module and source.startswith(f"{module}.")):
        return [made]
    first = source[len(module) + 1 :].split(".", 1)[0]
    return [Binding(first, BindingKind.FROM, made.line, module, first), made]


def _binding(binding: bindings.Binding, module: str, is_package: bool) -> Binding | None:
    """What one binding of the module scope makes of ``module.name`` (``None``: nothing).

    Every assignment and definition defines it; ``del`` and declarations make
    nothing; a relative import that climbs above the top package binds nothing
    Python accepts.
    """
    if isinstance(binding, bindings.Assignment | bindings.Definition):
        return Binding(binding.name, BindingKind.DEFINITION, binding.line)
    if isinstance(binding, bindings.Importation):
        return Binding(binding.name, BindingKind.MODULE, binding.line, binding.module)
    if not isinstance(binding, bindings.ImportationFrom | bindings.StarImportation):
        return None
    source = import_source(binding, module, is_package=is_package)
    if source is None:
        return None
    if isinstance(binding, bindings.StarImportation):
        return Binding("*", BindingKind.STAR, binding.line, source)
    return Binding(binding.name, BindingKind.FROM, binding.line, source, binding.attr)


def taken_by_star(binding: Binding) -> bool:
    """Does a star import of the module take this binding (no ``__all__``)?"""
    return binding.kind is not BindingKind.STAR and not binding.name.startswith("_")
