"""The module each file of a tree is, asked of its source: the layout's names, read once.

Pure layout logic is in :mod:`pytest_cleantree.config.layout`; this asks the source for
what the layout needs (the ``__init__.py`` of every folder above the files) in one round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_cleantree.analysis import module_name_for
from pytest_cleantree.analysis.text import is_python_path
from pytest_cleantree.config.layout import Layout, LayoutError, parse_layout
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.names.graph import TreeModule
from pytest_cleantree.names.spellings import import_bases
from pytest_cleantree.sources.base import Source

__all__ = ["Naming", "module_names", "name_tree", "tree_modules"]


def module_names(
    source: Source, paths: Sequence[str], import_roots: Sequence[str]
) -> tuple[Layout, dict[str, str]]:
    """The module each Python file is, where the tree's layout says so.

    The layout needs the ``__init__.py`` of every folder above the files: the
    source is asked for them all in one round (a missing one expands to nothing).
    Files the layout does not name by a package chain or an import root keep the
    name of their path under the root (no entry here): that is what every
    version before the layout did, and a namespace package from the root.
    """
    # a file outside the root (allow_outside_root) is named by its path, as before
    python = [
        path
        for path in paths
        if is_python_path(path) and not path.startswith("/") and ".." not in path.split("/")
    ]
    inits: set[str] = set()
    for path in python:
        folder = path.rpartition("/")[0]
        while folder:
            inits.add(f"{folder}/__init__.py")
            folder = folder.rpartition("/")[0]
        inits.add("__init__.py")
    found = source.expand(sorted(inits - set(python)))
    known = set(python)
    for listed in found.values():
        if isinstance(listed, SourceError):  # which folders are packages is not known: fail
            raise listed
        known.update(listed)
    try:
        layout = parse_layout(known, import_roots=import_roots)
    except LayoutError as exc:
        raise SourceError(f"import_roots: {exc}") from None
    names: dict[str, str] = {}
    for path in python:
        if not layout.decides(path):
            continue  # not in a package, nor under an import root: the path is the name
        name = layout.module_name(path)
        if name is not None:
            names[path] = name
    return layout, names


def tree_modules(
    source: Source,
    paths: Sequence[str],
    import_roots: Sequence[str],
    named: Mapping[str, str] | None = None,
) -> list[TreeModule]:
    """Every Python file of the tree (and ``paths``) with the module check names it.

    The files a re-export can stand in, for the symbol graph
    (:func:`pytest_cleantree.names.graph.grow_chains`): a folder that cannot be
    listed adds nothing (its files are not checked either, and the check says so).
    ``named``: :func:`module_names` of ``paths``, reused when the tree holds no other file.
    """
    found = set(paths)
    for listed in source.expand(["**/*.py"]).values():
        if not isinstance(listed, SourceError):
            found.update(listed)
    python = sorted(p for p in found if is_python_path(p) and not p.startswith("/"))
    if named is None or set(python) - set(paths):
        _, named = module_names(source, python, import_roots)
    names = named
    modules = []
    for path in python:
        if ".." in path.split("/"):
            continue
        module = names.get(path) or module_name_for(path)
        modules.append(TreeModule(path, module, path.rsplit("/", 1)[-1] == "__init__.py"))
    return modules


@dataclass(frozen=True)
class Naming:
    """How a run names the tree's modules: ``check`` and ``explain`` both ask :func:`name_tree`."""

    layout: Layout
    #: the module of each checked file the layout names
    modules: Mapping[str, str]
    #: the folders module names are relative to (see :func:`.spellings.import_bases`)
    bases: Sequence[str]
    #: every Python file of the tree with its module: where the symbol graph looks
    tree: Sequence[TreeModule]


def name_tree(source: Source, paths: Sequence[str], import_roots: Sequence[str]) -> Naming:
    """The naming of a run that checks ``paths`` (one model for ``check`` and ``explain``)."""
    layout, modules = module_names(source, paths, import_roots)
    bases = import_bases(layout, modules, import_roots)
    return Naming(layout, modules, bases, tree_modules(source, paths, import_roots, modules))
