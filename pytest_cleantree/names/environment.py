"""Modules outside the tree, read from the environment that runs the check (issue 48).

``os.path.join`` is ``posixpath.join`` (``os`` does ``import posixpath as path``),
and neither module is in the tree: the symbol graph reads them from the Python
that runs ``cleantree``, so a pattern written either way finds both spellings.
A module is looked for only when no module of the tree is named like it or any
package above it: the tree always wins.

Found as the import system would find it (:class:`importlib.machinery.PathFinder`
on ``sys.path`` without the current folder, package by package), never imported:
nothing of the environment runs.  A module without Python source (built in,
frozen only, an extension) or a namespace package is not read; a spelling through
it is matched as written, as before.  Read lazily (only modules a pattern's chain
or a tree import names), and parsed once per content for the process.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
from dataclasses import dataclass
from importlib.machinery import PathFinder

from pytest_cleantree.analysis import decode_python
from pytest_cleantree.names.exports import ModuleExports, parse_module_exports

__all__ = ["EnvironmentModule", "find_module", "read_module"]


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


def find_module(module: str) -> tuple[str, bool] | None:
    """(file, is package) of the environment's ``module`` with Python source, else ``None``."""
    if not all(part.isidentifier() for part in module.split(".")):
        return None
    return _find(module, tuple(_search_path()))


#: (content digest, module, is package) -> (text, exports): each content parsed once
_PARSED: dict[tuple[str, str, bool], tuple[str, ModuleExports]] = {}


def _parsed(data: bytes, module: str, is_package: bool) -> tuple[str, ModuleExports]:
    key = (hashlib.blake2b(data, digest_size=16).hexdigest(), module, is_package)
    if key not in _PARSED:
        text = decode_python(data)
        _PARSED[key] = (text, parse_module_exports(module, text, is_package=is_package))
    return _PARSED[key]


def read_module(module: str) -> EnvironmentModule | None:
    """The environment's ``module`` read and parsed (``None``: not found, or not readable)."""
    found = find_module(module)
    if found is None:
        return None
    path, is_package = found
    try:
        with open(path, "rb") as handle:
            data = handle.read()
        text, exports = _parsed(data, module, is_package)
    except (OSError, LookupError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return EnvironmentModule(module, path, text, exports)
