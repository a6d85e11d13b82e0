"""Where a qualified name leads: the export map of a set of modules, read with ``ast``.

A symbol is reachable under many spellings: its defining module's name, every
package ``__init__`` that re-exports it (``from .common import *``,
``from .kernel import qmm as quantized_matmul``), every module alias on the way
(``os`` does ``import posixpath as path``, so ``os.path.join`` is
``posixpath.join``).  :meth:`ExportMap.canonical` follows a spelling through
those bindings, as attribute access on imported modules would at run time, to
the ``module.name`` that defines it; :meth:`ExportMap.spellings` goes the other
way.  Only the modules on a pattern's chains are needed:
:func:`.spellings.modules_to_read` and :func:`.spellings.next_reads` say which,
round by round, so a remote Source reads a few files in a few round trips.

Module-level bindings are the module scope's (:mod:`.analysis.bindings`),
the bodies of top-level ``if``/``try``/``with``/``for``/``while``/``match``
statements included: every assignment (``for``/``with``/``except`` targets,
walrus, match captures too) and definition defines ``module.name``; imports
re-export.  A star import takes the source's
``__all__`` when it is a static list of strings, else every public name
bound in the source (names imported into it included), as Python and mypy do.

Out of reach (the spelling is then answered as written): names made at run time
(``importlib.import_module``, ``getattr(mod, "name")``, ``globals()[...]``, a
module ``__getattr__``), ``sys.modules`` tricks, an alias made by assignment
(``fast = slow`` defines ``module.fast``), and modules not given to the map.
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

from pytest_cleantree.analysis import bindings
from pytest_cleantree.analysis.bindings import scope_bindings

__all__ = [
    "Binding",
    "BindingKind",
    "ExportMap",
    "ModuleExports",
    "Spelling",
    "build_export_map",
    "exports_of_tree",
    "parse_module_exports",
    "resolve_relative",
]

#: a bound on the spellings :meth:`ExportMap.spellings` explores (module-alias cycles)
MAX_SPELLINGS = 10_000


class BindingKind(enum.Enum):
    DEFINITION = "definition"  # def, class, assignment: the module defines the name
    FROM = "from"  # from MODULE import ATTR [as NAME]
    MODULE = "module"  # import MODULE [as NAME]: the name is a module
    STAR = "star"  # from MODULE import *


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

    ``all_names`` is the static ``__all__`` (``None`` when absent, or when it
    is computed in a way not read here: then a star takes every public name).
    ``all_from`` names bindings whose ``__all__`` is spliced in
    (``__all__ = common.__all__ + [...]``).
    """

    name: str
    is_package: bool
    bindings: tuple[Binding, ...]
    all_names: tuple[str, ...] | None = None
    all_from: tuple[str, ...] = ()
    _by_name: dict[str, list[Binding]] = field(default_factory=dict, compare=False, repr=False)
    _stars: list[tuple[int, Binding]] = field(default_factory=list, compare=False, repr=False)
    _order: dict[int, int] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        for index, binding in enumerate(self.bindings):
            self._by_name.setdefault(binding.name, []).append(binding)
            self._order[id(binding)] = index
            if binding.kind is BindingKind.STAR:
                self._stars.append((index, binding))

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


@dataclass(frozen=True, order=True)
class Spelling:
    """A qualified spelling of a symbol and the statement that makes it (module, line)."""

    spelling: str
    module: str
    line: int


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


def parse_module_exports(name: str, text: str, *, is_package: bool) -> ModuleExports:
    """Read a module's top-level bindings; raises ``SyntaxError``/``ValueError`` on bad source.

    They are the module scope's, from :func:`.analysis.bindings.scope_bindings`.
    """
    return exports_of_tree(name, ast.parse(text), is_package=is_package)


def exports_of_tree(name: str, tree: ast.Module, *, is_package: bool) -> ModuleExports:
    """A parsed module's top-level bindings (see :func:`parse_module_exports`)."""
    scope = scope_bindings(tree)
    made = [_binding(b, name, is_package) for b in scope.bindings]
    all_names, all_from = _static_all(scope.exports)
    return ModuleExports(
        name, is_package, tuple(b for b in made if b is not None), all_names, all_from
    )


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
    source = resolve_relative(module, is_package, binding.level, binding.module or None)
    if source is None:
        return None
    if isinstance(binding, bindings.StarImportation):
        return Binding("*", BindingKind.STAR, binding.line, source)
    return Binding(binding.name, BindingKind.FROM, binding.line, source, binding.attr)


def _static_all(
    exports: Iterable[bindings.Export],
) -> tuple[tuple[str, ...] | None, tuple[str, ...]]:
    """The static ``__all__`` (``None``: absent or not static) and the names spliced in."""
    names: list[str] = []
    spliced: list[str] = []
    seen = dynamic = False
    for export in exports:
        if export.replaces:
            names.clear()
            spliced.clear()
            seen = True
        names += export.names
        spliced += export.spliced
        dynamic = dynamic or export.dynamic
    return (None if dynamic or not seen else tuple(names)), tuple(spliced)


@dataclass(frozen=True)
class _Target:
    name: str  # a dotted name: a module, a definition, or a spelling that could not be followed
    is_module: bool


class ExportMap:
    """The bindings of a set of modules, and the spellings they make.

    ``namespace_packages`` are packages without a file (their attributes are
    their sub-modules); ``known_modules``, when given, are every module of the
    tree (from :meth:`Layout.modules`): an attribute that a module does not bind
    is its sub-module only if that exists.  Without it, any unbound attribute
    may be a sub-module not read yet.
    """

    def __init__(
        self,
        modules: Mapping[str, ModuleExports],
        *,
        namespace_packages: Iterable[str] = (),
        known_modules: Iterable[str] | None = None,
    ) -> None:
        self.modules = dict(modules)
        self.namespace_packages = frozenset(namespace_packages) - set(self.modules)
        self.known_modules = None if known_modules is None else frozenset(known_modules)
        self._missing: set[str] = set()
        self._stack: list[tuple[str, str]] = []
        self._cut = False  # a cycle was cut during the current lookup
        self._cache: dict[tuple[str, str, bool], tuple[tuple[_Target, ...], frozenset[str]]] = {}
        self._exports_cache: dict[str, tuple[frozenset[str] | None, frozenset[str]]] = {}
        self._index: dict[str, list[Spelling]] | None = None

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
        """The names ``from module import *`` binds; ``None`` when the map cannot tell."""
        return self._exports(module, frozenset())

    def spellings(self, canonical: str) -> list[Spelling]:
        """Every spelling, through the modules of the map, that leads to ``canonical``.

        Each comes with the statement that makes it (its module and line): the
        definition for the canonical spelling itself, the re-export (import,
        star import or module alias) for the others.  Sorted by spelling.
        """
        index = self._spelling_index()
        found: dict[str, Spelling] = {}
        where = self.definition(canonical)
        if where is not None:
            found[canonical] = Spelling(canonical, where[0], where[1])
        queue = [canonical]
        while queue and len(found) < MAX_SPELLINGS:
            spelling = queue.pop()
            parts = spelling.split(".")
            for end in range(len(parts), 0, -1):
                prefix, rest = ".".join(parts[:end]), parts[end:]
                for made in index.get(prefix, ()):
                    candidate = ".".join([made.spelling, *rest])
                    if candidate in found or self._goes_round(candidate):
                        continue
                    if canonical not in self.canonicals(candidate):
                        continue  # (any binding may be the one that runs: ``os.path``)
                    found[candidate] = Spelling(candidate, made.module, made.line)
                    queue.append(candidate)
        return sorted(found.values())

    def _goes_round(self, spelling: str) -> bool:
        """Does following a spelling pass through the same module twice?

        Modules that import each other make endless spellings, each longer and
        each leading to the same place (``astroid.nodes.node_classes.nodes.Const``,
        when ``node_classes`` imports ``nodes``): a use spelt so is a loop no code
        writes.  A name spelt twice is fine (``tqdm.tqdm``): only a module met
        again on the way counts.
        """
        parts = spelling.split(".")
        seen: set[str] = set()
        for end in range(1, len(parts)):
            target = self._resolve(".".join(parts[:end]), None, every=False)[0]
            if not target.is_module:
                return False
            if target.name in seen:
                return True
            seen.add(target.name)
        return False

    # ------------------------------------------------------------------ resolution

    def _known(self, module: str) -> bool:
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
            return self._walk(module, tuple(parts[start:]), every)
        for start in range(len(parts), 0, -1):  # the longest prefix that is a module
            if self._known(".".join(parts[:start])):
                return self._walk(".".join(parts[:start]), tuple(parts[start:]), every)
        if self.known_modules is None:
            self._missing.add(parts[0])
        return (_Target(qualified, False),)

    def _walk(self, module: str, attrs: tuple[str, ...], every: bool) -> tuple[_Target, ...]:
        """Follow the attributes ``attrs`` from the module ``module``."""
        if not attrs:
            return (_Target(module, True),)
        name, rest = attrs[0], attrs[1:]
        results: list[_Target] = []
        for target in self._lookup(module, name, every):
            if not rest:
                results.append(target)
            elif target.is_module:
                results.extend(self._walk(target.name, rest, every))
            else:
                results.append(_Target(".".join([target.name, *rest]), False))
        return tuple(dict.fromkeys(results))

    def _lookup(self, module: str, name: str, every: bool) -> tuple[_Target, ...]:
        """What ``module.name`` is, cycle-safe.

        Cached with the modules found missing on the way (so :meth:`missing`
        sees them on a cache hit), unless a cycle was cut below this lookup.
        """
        key = (module, name, every)
        cached = self._cache.get(key)
        if cached is not None:
            self._missing |= cached[1]
            return cached[0]
        if (module, name) in self._stack:
            self._cut = True
            return (_Target(f"{module}.{name}", False),)
        outer_missing, outer_cut = self._missing, self._cut
        self._missing, self._cut = set(), False
        self._stack.append((module, name))
        try:
            found = self._lookup_uncached(module, name, every)
        finally:
            self._stack.pop()
            missing, cut = self._missing, self._cut
            self._missing, self._cut = outer_missing | missing, outer_cut or cut
        if not cut:
            self._cache[key] = (found, frozenset(missing))
        return found

    def _lookup_uncached(self, module: str, name: str, every: bool) -> tuple[_Target, ...]:
        spelled = _Target(f"{module}.{name}", False)
        exports = self.modules.get(module)
        if exports is None:
            if module in self.namespace_packages:
                return self._submodule(module, name, spelled)
            self._missing.add(module)
            return (spelled,)
        results: list[_Target] = []
        for binding in reversed(exports.may_bind(name)):
            if binding.kind is BindingKind.STAR:
                provided = self._exports(binding.module, frozenset())
                if provided is None:  # a source not read, or not knowable: may provide it
                    results.append(spelled)
                    if not every:
                        return tuple(results)
                    continue
                if name not in provided:
                    continue
                results.extend(self._walk(binding.module, (name,), every))
            elif binding.name != name:
                continue
            elif binding.kind is BindingKind.DEFINITION:
                results.append(_Target(f"{module}.{name}", False))
            elif binding.kind is BindingKind.MODULE:
                results.append(_Target(binding.module, True))
            else:
                results.extend(self._from_import(binding.module, binding.attr, every))
            if not every:
                return tuple(results)
        if not results:
            return self._submodule(module, name, spelled)
        if self._known(f"{module}.{name}"):  # the binding may hide a sub-module: both count
            results.extend(self._submodule(module, name, spelled))
        return tuple(dict.fromkeys(results))

    def _from_import(self, source: str, attr: str, every: bool) -> tuple[_Target, ...]:
        """``from source import attr``: an attribute of the module, else its sub-module.

        ``from . import sub`` inside ``pkg/__init__.py`` looks ``sub`` up in the
        module binding it: the attribute is not bound yet, so it is the sub-module.
        """
        if (source, attr) in self._stack:
            return self._submodule(source, attr, _Target(f"{source}.{attr}", False))
        return self._walk(source, (attr,), every)

    def _submodule(self, module: str, name: str, spelled: _Target) -> tuple[_Target, ...]:
        """An attribute a module does not bind: its sub-module when there is one."""
        submodule = f"{module}.{name}"
        if self._known(submodule):
            if submodule not in self.modules and submodule not in self.namespace_packages:
                self._missing.add(submodule)
            return (_Target(submodule, True),)
        if self.known_modules is None:
            self._missing.add(submodule)
        return (spelled,)

    def _exports(self, module: str, seen: frozenset[str]) -> frozenset[str] | None:
        """The names a star import of ``module`` binds (cycle-safe); ``None``: cannot tell.

        Cached (with the modules found missing) only when asked from outside a
        star cycle: inside one, the answer is partial by design.
        """
        if not seen and module in self._exports_cache:
            cached, was_missing = self._exports_cache[module]
            self._missing |= was_missing
            return cached
        if module in seen:
            return frozenset()  # a star cycle adds nothing new
        outer_missing = self._missing
        self._missing = set()
        try:
            result = self._exports_uncached(module, seen | {module})
        finally:
            missing = self._missing
            self._missing = outer_missing | missing
        if not seen:
            self._exports_cache[module] = (result, frozenset(missing))
        return result

    def _exports_uncached(self, module: str, seen: frozenset[str]) -> frozenset[str] | None:
        exports = self.modules.get(module)
        if exports is None:
            if module in self.namespace_packages:
                return frozenset()
            self._missing.add(module)
            return None
        if exports.all_names is not None:
            names = set(exports.all_names)
            for bound in exports.all_from:
                spliced = self._spliced_all(exports, bound, seen)
                if spliced is None:
                    break
                names |= spliced
            else:
                return frozenset(names)
        # no __all__ (or one not read here): every public name bound, star-provided ones too
        public: set[str] = set()
        unknown = False
        for binding in exports.bindings:
            if binding.kind is BindingKind.STAR:
                provided = self._exports(binding.module, seen)
                if provided is None:
                    unknown = True
                else:
                    public |= provided
            elif not binding.name.startswith("_"):
                public.add(binding.name)
        return None if unknown else frozenset(public)

    def _spliced_all(
        self, exports: ModuleExports, bound: str, seen: frozenset[str]
    ) -> frozenset[str] | None:
        """``__all__ = other.__all__ + [...]``: the ``__all__`` of the module ``other`` names."""
        targets = self._lookup(exports.name, bound, False)
        if len(targets) != 1 or not targets[0].is_module:
            return None
        other = self.modules.get(targets[0].name)
        if other is None:
            self._missing.add(targets[0].name)
            return None
        if other.all_names is None or other.all_from:
            return self._exports(other.name, seen)
        return frozenset(other.all_names)

    # ------------------------------------------------------------------ spellings

    def _spelling_index(self) -> dict[str, list[Spelling]]:
        """canonical -> the spellings ``module.name`` one binding makes for it."""
        if self._index is not None:
            return self._index
        index: dict[str, list[Spelling]] = {}
        for module, exports in sorted(self.modules.items()):
            for name, line in _names_bound(self, exports):
                spelling = f"{module}.{name}"
                for target in self.canonicals(spelling, module=module):
                    if target != spelling:
                        index.setdefault(target, []).append(Spelling(spelling, module, line))
        self._index = index
        return index


def _names_bound(emap: ExportMap, exports: ModuleExports) -> Iterator[tuple[str, int]]:
    """Each name a module binds (star-provided ones included) with the binding's line."""
    seen: set[str] = set()
    for binding in reversed(exports.bindings):
        if binding.kind is BindingKind.STAR:
            for name in sorted(emap.exported_names(binding.module) or ()):
                if name not in seen:
                    seen.add(name)
                    yield name, binding.line
        elif binding.name not in seen:
            seen.add(binding.name)
            if binding.kind is BindingKind.MODULE and binding.name == binding.module:
                continue  # ``import os`` in m: ``m.os.path`` only repeats ``os.path``
            if _own_submodule(emap, binding):
                continue  # ``from . import case``: ``m.case.X`` only repeats ``pkg.case.X``
            if binding.kind is BindingKind.MODULE and _private(binding.name):
                continue  # ``import os as _os``: the module's own, used in it (resolved there)
            yield binding.name, binding.line


def _own_submodule(emap: ExportMap, binding: Binding) -> bool:
    """``from pkg import sub`` binding ``sub`` to the module ``pkg.sub`` under its own name."""
    return (
        binding.kind is BindingKind.FROM
        and binding.name == binding.attr
        and emap._known(f"{binding.module}.{binding.attr}")
    )


def _private(name: str) -> bool:
    """A name a module keeps to itself (``_os``), not a dunder (``__version__``)."""
    return name.startswith("_") and not name.endswith("__")


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
