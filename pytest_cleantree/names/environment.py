"""Modules outside the tree, read from the environment that runs the check (issue 48).

``os.path.join`` is ``posixpath.join`` (``os`` does ``import posixpath as path``),
and neither module is in the tree: the symbol graph reads them from the Python
that runs ``cleantree``, so a pattern written either way finds both spellings.
A module is looked for only when no module of the tree is named like it or any
package above it: the tree always wins.

Found as the import system would find it (:class:`importlib.machinery.PathFinder`
on ``sys.path`` without the current folder, package by package; a top module no path
entry holds is asked of the other finders, an editable install's), never imported:
nothing of the environment runs.  A module without Python source (built in,
frozen only, an extension) or a namespace package is not read; a spelling through
it is matched as written, as before.  Read lazily (only modules a pattern's chain
or a tree import names), and parsed once per content (for the process, and in the
run's graph store across runs).

The environment is the Python running ``cleantree``, for a remote check too: what
it adds are spellings (``os.path`` for ``posixpath``), and a pattern always keeps
its own, so an environment that differs from the server's adds lines, never hides one.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from dataclasses import dataclass
from importlib.machinery import BuiltinImporter, FrozenImporter, ModuleSpec, PathFinder

from pytest_cleantree.analysis import decode_python
from pytest_cleantree.names.exports import ModuleExports, parse_module_exports
from pytest_cleantree.names.modules_to_read import SummaryStore

__all__ = ["EnvironmentModule", "EnvironmentSource", "find_module", "read_module", "read_source"]


@dataclass(frozen=True)
class EnvironmentModule:
    """A module of the environment: its file, its text, what it binds."""

    module: str
    path: str  # absolute
    text: str
    exports: ModuleExports


def _search_path() -> list[str]:
    """``sys.path`` less the current folder (the tree's root, when run from it)."""
    here = os.getcwd()
    return [entry for entry in sys.path if entry and os.path.abspath(entry) != here]


@functools.lru_cache(maxsize=4096)
def _find(module: str, path: tuple[str, ...]) -> tuple[str, bool] | None:
    parts = module.split(".")
    search: list[str] | None = list(path)
    origin: str | None = None
    is_package = False
    for end in range(1, len(parts) + 1):
        if search is None:
            return None  # a module is no package: nothing below it
        try:
            spec = PathFinder.find_spec(".".join(parts[:end]), search)
            if spec is None and end == 1:
                spec = _installed_elsewhere(parts[0])
        except (ImportError, ValueError, OSError):
            return None
        if spec is None:
            return None
        locations = spec.submodule_search_locations
        search = list(locations) if locations is not None else None
        origin, is_package = spec.origin, locations is not None
    if not origin or not origin.endswith(".py") or not os.path.isfile(origin):
        return None
    return origin, is_package


def _installed_elsewhere(top: str) -> ModuleSpec | None:
    """A top module found by another finder of ``sys.meta_path`` (an editable install's).

    Finders are asked for where the module is, which runs none of it; built-in and
    frozen modules have no source here, and one in the current folder is the tree's.
    """
    here = os.getcwd()
    for finder in sys.meta_path:
        if finder in (BuiltinImporter, FrozenImporter, PathFinder):
            continue
        find = getattr(finder, "find_spec", None)
        try:
            spec = find(top, None) if find is not None else None
        except Exception:  # a finder that fails on the name has not found it
            continue
        origin = getattr(spec, "origin", None)
        if isinstance(origin, str) and not os.path.abspath(origin).startswith(here + os.sep):
            return spec
    return None


def find_module(module: str) -> tuple[str, bool] | None:
    """(file, is package) of the environment's ``module`` with Python source, else ``None``."""
    if not all(part.isidentifier() for part in module.split(".")):
        return None
    return _find(module, tuple(_search_path()))


#: (content digest, module, is package) -> (text, exports): each content parsed once
_PARSED: dict[tuple[str, str, bool], tuple[str, ModuleExports]] = {}


@dataclass(frozen=True)
class EnvironmentSource:
    """A module of the environment read but not parsed: :meth:`parse` when it is needed."""

    module: str
    path: str
    is_package: bool
    data: bytes

    @functools.cached_property
    def text(self) -> str:
        return decode_python(self.data)

    def parse(self, store: SummaryStore | None = None) -> EnvironmentModule | None:
        """The module parsed, once per content (for the process, and in ``store`` across runs).

        ``None``: it does not decode or parse (Python cannot import it either).
        """
        digest = hashlib.blake2b(self.data, digest_size=16).hexdigest()
        key = (digest, self.module, self.is_package)
        try:
            if key not in _PARSED:
                kept = (
                    store.whole(self.path, self.data, self.module, self.is_package)
                    if store
                    else None
                )
                exports = kept or parse_module_exports(
                    self.module, self.text, is_package=self.is_package
                )
                if store is not None and kept is None:
                    store.keep_whole(self.path, self.data, exports)
                _PARSED[key] = (self.text, exports)
        except (LookupError, SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        text, exports = _PARSED[key]
        return EnvironmentModule(self.module, self.path, text, exports)


def read_source(module: str) -> EnvironmentSource | None:
    """The environment's ``module`` read (``None``: not found, or not readable)."""
    found = find_module(module)
    if found is None:
        return None
    path, is_package = found
    try:
        with open(path, "rb") as handle:
            return EnvironmentSource(module, path, is_package, handle.read())
    except OSError:
        return None


def read_module(module: str, store: SummaryStore | None = None) -> EnvironmentModule | None:
    """The environment's ``module`` read and parsed (``None``: not found, or not readable)."""
    source = read_source(module)
    return source.parse(store) if source is not None else None
