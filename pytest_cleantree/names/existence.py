"""Does a qualified pattern name something: its module part, in the tree or the environment.

``sglang.srt.util.common.is_sm120_supported`` with ``sglang`` in the tree but no module
``sglang.srt.util`` can match nothing: a check of it says "clean" whatever the tree holds.
:func:`pattern_standing` tells such a pattern apart (an error, unless the rule says
``missing_ok``) from one on a package that is neither in the tree nor installed (a GPU
library checked on a laptop without it), which is matched as spelt.

What counts as naming no module, narrowly (a removed function or class is what a
manifest forbids, and must stay quiet): the pattern's longest prefix that is a module
is a *package*, and the part after it is neither a sub-module of it nor a name the
package may bind, while more parts follow (``pkg.gone.f``: ``gone`` was meant as a
module).  A package that may bind anything (``__getattr__``, a star import that cannot
be followed) names everything.
"""

from __future__ import annotations

import difflib
import importlib.machinery
import importlib.util
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from pytest_cleantree.analysis import decode_python
from pytest_cleantree.core.patterns import as_name
from pytest_cleantree.names.exports import BindingKind, ModuleExports, parse_module_exports
from pytest_cleantree.names.symbol_graph import ExportMap

__all__ = ["Standing", "pattern_standing", "standings", "tree_packages"]

#: the suffixes of a module file Python imports (sources, bytecode, extensions)
_SUFFIXES = tuple(importlib.machinery.all_suffixes())


@dataclass(frozen=True)
class Standing:
    """What a qualified pattern's module part names.

    ``where``: ``"tree"``, ``"environment"`` or ``"outside"`` (neither: matched as spelt).
    ``missing``: the module it spells that is not there (``""``: it names something),
    ``near``: the nearest module names, for "did you mean".
    """

    where: str
    missing: str = ""
    near: tuple[str, ...] = ()

    def message(self, pattern: str) -> str:
        """Why the pattern is an error (only when ``missing``)."""
        hint = f" (did you mean {', '.join(self.near)}?)" if self.near else ""
        return (
            f"{pattern!r} names no module: there is no module {self.missing} in the "
            f"{self.where}{hint}; set missing_ok = true to allow"
        )

    def note(self, pattern: str) -> str:
        """What ``explain`` says of the pattern's package, when worth saying (else ``""``)."""
        if self.missing:
            return self.message(pattern)
        if self.where == "outside":
            top = pattern.split(".", 1)[0]
            return f"{top} is neither in the tree nor installed: {pattern} is matched as spelt"
        return ""


def tree_packages(modules: Iterable[str]) -> frozenset[str]:
    """Every module of the tree and every package above one (namespace packages included)."""
    found: set[str] = set()
    for module in modules:
        parts = module.split(".")
        found.update(".".join(parts[:end]) for end in range(1, len(parts) + 1))
    return frozenset(found)


def pattern_standing(
    pattern: str, known: frozenset[str], files: frozenset[str], emap: ExportMap
) -> Standing:
    """What ``pattern`` names, given the tree's modules and packages (``known``:
    :func:`tree_packages`) and those of them some file is (``files``); the pattern as Python
    reads a name (NFKC: fullwidth letters are the ASCII ones)."""
    parts = as_name(pattern).split(".")
    if parts[0] in known:
        return _in_tree(parts, known, files, emap)
    found = _environment_module(parts[0])
    if found is None:
        return Standing("outside")
    return _in_environment(parts, found)


def _in_tree(
    parts: list[str], known: frozenset[str], files: frozenset[str], emap: ExportMap
) -> Standing:
    end = max(end for end in range(1, len(parts) + 1) if ".".join(parts[:end]) in known)
    package = ".".join(parts[:end])
    if len(parts) - end < 2:
        return Standing("tree")  # ``pkg.name``: a removed name is what rules forbid
    exports = emap.modules.get(package)
    if exports is None and package in files:
        return Standing("tree")  # a file not read: nothing is known of what it binds
    if exports is not None and (not exports.is_package or _may_bind(exports, parts[end], emap)):
        return Standing("tree")
    missing = ".".join(parts[: end + 1])
    return Standing("tree", missing, _near(".".join(parts[:-1]), missing, known))


def _may_bind(exports: ModuleExports, name: str, emap: ExportMap) -> bool:
    """May the module bind ``name``: its own binding, ``__getattr__``, or a star import
    whose names are not known or hold it."""
    if exports.bound(name) or exports.bound("__getattr__"):
        return True
    for binding in exports.bindings:
        if binding.kind is BindingKind.STAR:
            names = emap.exported_names(binding.module)
            if names is None or name in names:
                return True
    return False


def _near(intended: str, missing: str, known: Iterable[str]) -> tuple[str, ...]:
    choices = sorted(known)
    near = difflib.get_close_matches(intended, choices, n=3, cutoff=0.75)
    if not near:
        near = difflib.get_close_matches(missing, choices, n=3, cutoff=0.75)
    return tuple(near)


# ------------------------------------------------------------------ the environment


def _environment_module(top: str) -> list[str] | None:
    """Where an installed top-level module lives: its folders (``[]``: a plain module,
    nothing below it), ``None`` when it is not installed.  Nothing is imported."""
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None:
        return None
    return list(spec.submodule_search_locations or [])


def _in_environment(parts: list[str], folders: list[str]) -> Standing:
    """Walk the pattern's parts down an installed package's folders (never importing it)."""
    end = 1
    while folders and len(parts) - end >= 2:
        name = parts[end]
        below = [os.path.join(folder, name) for folder in folders]
        packages = [path for path in below if os.path.isdir(path)]
        if packages:
            folders = packages
            end += 1
            continue
        if any(_module_file(folder, name) for folder in folders):
            return Standing("environment")  # a plain module: what follows is its names
        if _init_may_bind(folders, ".".join(parts[:end]), name):
            return Standing("environment")
        missing = ".".join(parts[: end + 1])
        return Standing("environment", missing, _near_installed(folders, name, missing))
    return Standing("environment")


def _module_file(folder: str, name: str) -> bool:
    try:
        entries = os.listdir(folder)
    except OSError:
        return True  # cannot tell: it may be there
    return any(entry.startswith(name + ".") and entry.endswith(_SUFFIXES) for entry in entries)


def _init_may_bind(folders: list[str], package: str, name: str) -> bool:
    """May the installed package's ``__init__`` bind ``name`` (read and parsed, never run)?"""
    for folder in folders:
        init = os.path.join(folder, "__init__.py")
        if not os.path.isfile(init):
            continue
        try:
            with open(init, "rb") as handle:
                exports = parse_module_exports(
                    package, decode_python(handle.read()), is_package=True
                )
        except (OSError, LookupError, SyntaxError, ValueError, RecursionError, MemoryError):
            return True  # cannot tell
        if exports.bound(name) or exports.bound("__getattr__") or _stars(exports):
            return True
    return False


def _stars(exports: ModuleExports) -> bool:
    return any(binding.kind is BindingKind.STAR for binding in exports.bindings)


def _near_installed(folders: list[str], name: str, missing: str) -> tuple[str, ...]:
    package = missing.rpartition(".")[0]
    names: set[str] = set()
    for folder in folders:
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        names.update(entry.split(".", 1)[0] for entry in entries if not entry.startswith("_"))
    close = difflib.get_close_matches(name, sorted(names), n=3, cutoff=0.75)
    return tuple(f"{package}.{entry}" for entry in close)


def standings(
    patterns: Iterable[str],
    modules: Iterable[str],
    emap: ExportMap,
    outside: frozenset[str] = frozenset(),
) -> Mapping[str, Standing]:
    """Each pattern's :class:`Standing` against the tree's ``modules``, and those the tree's
    code imports (a module built or generated outside the tree's Python files, an extension,
    is named by its imports: a pattern on it is not a typo).  ``outside``: the modules the
    graph read from the environment, which are not the tree's (a pattern on one is judged
    against the environment)."""
    ours = {name: exports for name, exports in emap.modules.items() if name not in outside}
    imported = {
        binding.module
        for exports in ours.values()
        for binding in exports.bindings
        if binding.module
    }
    files = frozenset(modules) | frozenset(ours) | frozenset(imported)
    known = tree_packages(files) | emap.namespace_packages
    return {pattern: pattern_standing(pattern, known, files, emap) for pattern in patterns}
