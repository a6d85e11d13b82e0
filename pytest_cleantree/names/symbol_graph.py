"""The symbol graph of a set of modules: nodes ``(module, name)``, edges from the binding model.

A symbol is reachable under many spellings: its defining module's name, every
package ``__init__`` that re-exports it (``from .common import *``,
``from .kernel import qmm as quantized_matmul``), every module alias on the way
(``os`` does ``import posixpath as path``, so ``os.path.join`` is
``posixpath.join``).  Each top-level binding of a module (from
:mod:`.exports`, itself from :mod:`pytest_cleantree.analysis.bindings`) is one
edge out of the node it binds: a definition ends there, ``import M as n`` leads
to the module ``M``, ``from S import a as n`` to the node ``(S, a)``, a star
import of ``S`` to ``(S, n)`` for each name ``S`` exports (every name, when that
is not known).  An attribute a module does not bind is its sub-module.

Two questions, both answered by walks over a finite set of nodes with explicit
work lists (no recursion follows the input's shape; a cycle costs a visited
check), memoised per node:

- forward, :meth:`ExportMap.canonicals`: where a spelling leads, as attribute
  access on imported modules would at run time;
- backward, :meth:`ExportMap.reach`: every name from which a target is reached,
  each with the shortest continuation that gets there (the walk is
  :mod:`.reverse_walk`'s).

What a star import takes of one module's own names is its record's answer
(:meth:`.exports.ModuleExports.star_takes`); the walk over the modules it star-imports
is here.  Every walk counts its work against one :class:`~.budget.Meter`: a web that
would pass the run's :class:`~.budget.Budget` ends the run with
:class:`~.budget.GraphBudgetError` naming the module where it stopped (exit 2), never a
hang or a ``RecursionError``.

Out of reach (the spelling is then answered as written): names made at run time
(``importlib.import_module``, ``globals()[...]``, a module ``__getattr__``),
``sys.modules`` tricks, an alias made by assignment across modules (``fast = slow``
or ``fast = getattr(m, "slow")`` defines ``module.fast``), and modules not given to
the map.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pytest_cleantree.core.patterns import covers
from pytest_cleantree.names.budget import Meter
from pytest_cleantree.names.exports import (
    Binding,
    BindingKind,
    ModuleExports,
    Spelling,
    parse_module_exports,
)
from pytest_cleantree.names.reverse_walk import Reached, ReverseWalk

__all__ = ["ExportMap", "Reached", "build_export_map"]


@dataclass(frozen=True)
class _Target:
    name: str  # a dotted name: a module, a definition, or a spelling that could not be followed
    is_module: bool


#: a node: the name ``name`` as an attribute of the module ``module``
_Node = tuple[str, str]
#: one edge out of a node: where it ends (a target) or the node it continues at
_Step = _Target | _Node


class ExportMap:
    """The bindings of a set of modules, and the symbol graph they make.

    ``namespace_packages`` are packages without a file (their attributes are
    their sub-modules); ``known_modules``, when given, are every module of the
    tree (from :meth:`Layout.modules`): an attribute that a module does not bind
    is its sub-module only if that exists.  Without it, any unbound attribute
    may be a sub-module not read yet.  ``meter``: the run's budget, shared by
    every map the run builds.
    """

    def __init__(
        self,
        modules: Mapping[str, ModuleExports],
        *,
        namespace_packages: Iterable[str] = (),
        known_modules: Iterable[str] | None = None,
        meter: Meter | None = None,
    ) -> None:
        self.modules = dict(modules)
        self.namespace_packages = frozenset(namespace_packages) - set(self.modules)
        self.known_modules = None if known_modules is None else frozenset(known_modules)
        self.meter = meter or Meter()
        self._missing: set[str] = set()
        self._cache: dict[tuple[str, str, bool], tuple[tuple[_Target, ...], frozenset[str]]] = {}
        self._exports_cache: dict[str, tuple[frozenset[str] | None, frozenset[str]]] = {}
        self._backward = ReverseWalk(self)

    # ------------------------------------------------------------------ public API

    def canonical(self, qualified: str, *, module: str | None = None) -> str:
        """The ``module.name`` a spelling leads to; the spelling itself where it cannot be followed.

        The spelling's longest prefix that is a module is the module it starts
        from, as an import statement reads it (``a.b.f``: the module ``a.b``
        when there is one, even if ``a/__init__.py`` rebinds ``b``).  Give
        ``module`` when the split is known: ``from pkg import tqdm`` is
        ``canonical("pkg.tqdm", module="pkg")``, the attribute of ``pkg``.
        Where a name has several bindings, the last one in the module's text
        wins (as it would after the module ran top to bottom).
        """
        return self._resolve(qualified, module, every=False)[0].name

    def canonicals(self, qualified: str, *, module: str | None = None) -> frozenset[str]:
        """Every ``module.name`` some binding on the way may lead to.

        ``try: from ._fast import f`` / ``except ImportError: def f()`` leads to
        both; this is the sound answer for a check, :meth:`canonical` the likely one.
        """
        return frozenset(target.name for target in self._resolve(qualified, module, every=True))

    def is_module(self, qualified: str, *, module: str | None = None) -> bool:
        """Does the spelling lead to a module (``os.path`` does)?"""
        return self._resolve(qualified, module, every=False)[0].is_module

    def leads_to(self, qualified: str, targets: Iterable[str]) -> bool:
        """Does the spelling lead to one of ``targets``, or inside one (``t.attr``)?"""
        reached = self.canonicals(qualified)
        return any(covers(target, name) for target in targets for name in reached)

    def missing(self, qualified_names: Iterable[str]) -> frozenset[str]:
        """Modules not in the map that following these spellings needed."""
        self._missing = set()
        for name in qualified_names:
            self._resolve(name, None, every=True)
        found = frozenset(self._missing)
        self._missing = set()
        return found

    def definition(self, canonical: str) -> tuple[str, int] | None:
        """(module, line) of the top-level statement that defines ``canonical``.

        ``(module, 0)`` for a module; ``None`` when the map does not hold it
        (an attribute of a class, or a module not read).
        """
        if canonical in self.modules or canonical in self.namespace_packages:
            return (canonical, 0)
        module, _, name = canonical.rpartition(".")
        exports = self.modules.get(module)
        if exports is None:
            return None
        for binding in reversed(exports.bound(name)):
            if binding.kind is BindingKind.DEFINITION:
                return (module, binding.line)
        return None

    def exported_names(self, module: str) -> frozenset[str] | None:
        """The names ``from module import *`` binds; ``None`` when the map cannot tell.

        The module's static ``__all__`` (with any ``other.__all__`` it splices in),
        else every public name it binds, star-provided ones included: a walk over
        the star imports, a star cycle adding nothing new.
        """
        cached = self._exports_cache.get(module)
        if cached is not None:
            self._missing |= cached[1]
            return cached[0]
        outer, self._missing = self._missing, set()
        try:
            result = self._export_walk(module)
        finally:
            missing, self._missing = self._missing, outer | self._missing
        self._exports_cache[module] = (result, frozenset(missing))
        return result

    def star_needs(self) -> frozenset[str]:
        """Modules not in the map that what its modules' star imports bind needs.

        ``from pkg.sub import *`` binds ``pkg.sub``'s exports, and those of every module
        it star-imports in turn (or splices ``__all__`` from): until each is read, what
        the star binds is unknown.
        """
        needed: set[str] = set()
        for exports in self.modules.values():
            for binding in exports.bindings:
                if binding.kind is BindingKind.STAR:
                    self.exported_names(binding.module)
                    needed |= self._exports_cache[binding.module][1]
        return frozenset(needed)

    def spellings(self, canonical: str) -> list[Spelling]:
        """Every whole spelling of ``canonical`` (:meth:`.reverse_walk.ReverseWalk.spellings`)."""
        return self._backward.spellings(canonical)

    def reach(self, targets: Iterable[str]) -> dict[str, Reached]:
        """Every name from which one of ``targets`` is reached (:mod:`.reverse_walk`)."""
        return self._backward.reach(targets)

    # ------------------------------------------------------------------ forward

    def known(self, module: str) -> bool:
        """Is ``module`` a module (read, a namespace package, or listed)?"""
        if module in self.modules or module in self.namespace_packages:
            return True
        return self.known_modules is not None and module in self.known_modules

    def _resolve(self, qualified: str, module: str | None, *, every: bool) -> tuple[_Target, ...]:
        parts = [part for part in qualified.split(".") if part]
        if not parts:
            return (_Target(qualified, False),)
        if module is not None:
            start = module.count(".") + 1
            if ".".join(parts[:start]) != module:
                raise ValueError(f"{qualified!r} does not start with the module {module!r}")
            return self._walk(module, parts[start:], every)
        for start in range(len(parts), 0, -1):  # the longest prefix that is a module
            if self.known(".".join(parts[:start])):
                return self._walk(".".join(parts[:start]), parts[start:], every)
        if self.known_modules is None:
            self._missing.add(parts[0])
        return (_Target(qualified, False),)

    def _walk(self, module: str, attrs: list[str], every: bool) -> tuple[_Target, ...]:
        """Follow the attributes ``attrs`` from the module ``module``, one at a time."""
        frontier: tuple[_Target, ...] = (_Target(module, True),)
        for name in attrs:
            step: list[_Target] = []
            for target in frontier:
                if target.is_module:
                    step.extend(self._lookup(target.name, name, every))
                else:
                    step.append(_Target(f"{target.name}.{name}", False))
            frontier = tuple(dict.fromkeys(step))
        return frontier

    def _lookup(self, module: str, name: str, every: bool) -> tuple[_Target, ...]:
        """What ``module.name`` is: memoised with the modules found missing on the way."""
        key = (module, name, every)
        cached = self._cache.get(key)
        if cached is not None:
            self._missing |= cached[1]
            return cached[0]
        outer, self._missing = self._missing, set()
        try:
            found = self._follow_every(module, name) if every else self._follow_last(module, name)
        finally:
            missing, self._missing = self._missing, outer | self._missing
        self._cache[key] = (found, frozenset(missing))
        return found

    def _follow_last(self, module: str, name: str) -> tuple[_Target, ...]:
        """The binding that runs last, followed to where it ends (a cycle ends at its node)."""
        node: _Node = (module, name)
        seen: set[_Node] = set()
        while node not in seen:
            seen.add(node)
            self.meter.spend(node[0])
            cached = self._cache.get((*node, False)) if len(seen) > 1 else None
            if cached is not None:
                self._missing |= cached[1]
                return cached[0]
            step = self._steps(*node, every=False)[0]
            if isinstance(step, _Target):
                return (step,)
            node = step
        return (_Target(f"{node[0]}.{node[1]}", False),)

    def _follow_every(self, module: str, name: str) -> tuple[_Target, ...]:
        """Every end some binding on the way may lead to: a walk over the nodes reached."""
        start: _Node = (module, name)
        seen = {start}
        todo = [start]
        ends: list[_Target] = []
        while todo:
            node = todo.pop()
            self.meter.spend(node[0])
            cached = self._cache.get((*node, True)) if node != start else None
            if cached is not None:
                self._missing |= cached[1]
                ends.extend(cached[0])
                continue
            for step in self._steps(*node, every=True):
                if isinstance(step, _Target):
                    ends.append(step)
                elif step not in seen:
                    seen.add(step)
                    todo.append(step)
        return tuple(dict.fromkeys(ends)) or (_Target(f"{module}.{name}", False),)

    def _steps(self, module: str, name: str, *, every: bool) -> list[_Step]:
        """The edges out of the node ``(module, name)``, the binding that runs last first.

        Without ``every``, only that binding's (one step).
        """
        spelled = _Target(f"{module}.{name}", False)
        exports = self.modules.get(module)
        if exports is None:
            if module in self.namespace_packages:
                return [self._submodule(module, name, spelled)]
            self._missing.add(module)
            return [spelled]
        steps: list[_Step] = []
        for binding in reversed(exports.may_bind(name)):
            step = self._edge(module, name, binding, spelled)
            if step is None:
                continue
            steps.append(step)
            if not every:
                return steps
        if not steps:
            return [self._submodule(module, name, spelled)]
        if self.known(f"{module}.{name}"):  # the binding may hide a sub-module: both count
            steps.append(self._submodule(module, name, spelled))
        return steps

    def _edge(self, module: str, name: str, binding: Binding, spelled: _Target) -> _Step | None:
        """Where one binding of the module takes ``name`` (``None``: it does not bind it)."""
        if binding.kind is BindingKind.STAR:
            provided = self.exported_names(binding.module)
            if provided is None:  # a source not read, or not knowable: may provide it
                return spelled
            return (binding.module, name) if name in provided else None
        if binding.name != name:
            return None
        if binding.kind is BindingKind.DEFINITION:
            return spelled
        if binding.kind is BindingKind.MODULE:
            return _Target(binding.module, True)
        if (binding.module, binding.attr) == (module, name):
            # ``from . import sub`` in ``pkg/__init__.py``: not bound yet, so the sub-module
            return self._submodule(binding.module, binding.attr, spelled)
        return (binding.module, binding.attr)

    def _submodule(self, module: str, name: str, spelled: _Target) -> _Target:
        """An attribute a module does not bind: its sub-module when there is one."""
        submodule = f"{module}.{name}"
        if self.known(submodule):
            if submodule not in self.modules and submodule not in self.namespace_packages:
                self._missing.add(submodule)
            return _Target(submodule, True)
        if self.known_modules is None:
            self._missing.add(submodule)
        return spelled

    def _export_walk(self, module: str) -> frozenset[str] | None:
        """What a star import of ``module`` binds: a walk over the modules it star-imports."""
        names: set[str] = set()
        unknown = False
        seen = {module}
        todo = [module]
        while todo:
            current = todo.pop()
            self.meter.spend(current)
            cached = self._exports_cache.get(current) if current != module else None
            if cached is not None:
                self._missing |= cached[1]
                unknown = unknown or cached[0] is None
                before = len(names)
                names |= cached[0] or frozenset()
                self.meter.spend(current, len(names) - before)  # the names it adds
                continue
            exports = self.modules.get(current)
            if exports is None:
                if current not in self.namespace_packages:
                    self._missing.add(current)
                    unknown = True
                continue
            own = exports.star_takes()
            if own is None:  # a splice that cannot be followed: its names are unknown
                unknown = True
                continue
            added, more = own
            before = len(names)
            names.update(added)
            self.meter.spend(current, len(names) - before + len(more))  # names and edges added
            for other in more:
                if other not in seen:
                    seen.add(other)
                    todo.append(other)
        return None if unknown else frozenset(names)


def build_export_map(
    modules: Mapping[str, str],
    is_package: Mapping[str, bool],
    *,
    namespace_packages: Iterable[str] = (),
    known_modules: Iterable[str] | None = None,
) -> ExportMap:
    """The export map of these modules (module name -> source text).

    Raises ``SyntaxError``/``ValueError`` naming nothing: callers parse per
    file with :func:`parse_module_exports` to report which file failed.
    """
    parsed = {
        name: parse_module_exports(name, text, is_package=is_package.get(name, False))
        for name, text in modules.items()
    }
    return ExportMap(parsed, namespace_packages=namespace_packages, known_modules=known_modules)
