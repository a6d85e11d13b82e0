"""The module each file of a tree is, asked of its source: the layout's names, read once.

Pure layout logic is in :mod:`pytest_cleantree.config.layout`; this asks the source for
what the layout needs (the ``__init__.py`` of every folder above the files) in one round.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_cleantree.analysis import module_name_for
from pytest_cleantree.analysis.text import is_python_path
from pytest_cleantree.config.layout import (
    Layout,
    LayoutError,
    import_file,
    normalize_folder,
    parse_layout,
)
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.names.modules_to_read import TreeModule
from pytest_cleantree.names.spellings import import_bases
from pytest_cleantree.sources.base import FileRead, Source

__all__ = ["TREE_PYTHON", "Naming", "module_names", "name_tree", "tree_modules"]

#: the entry that lists the tree's Python files (the modules the symbol graph may read)
TREE_PYTHON = "**/*.py"


#: the packaging metadata the layout reads (``package-dir`` and its kin), at the tree's root
PYPROJECT = "pyproject.toml"


def module_names(
    source: Source, paths: Sequence[str], import_roots: Sequence[str]
) -> tuple[Layout, dict[str, str]]:
    """The module each Python file is, where the tree's layout says so.

    The layout needs the ``__init__.py`` of every folder above the files, and the
    tree's ``pyproject.toml`` (its packaging settings map folders to packages): the
    source is asked for them all in one round (a missing one expands to nothing).
    Files the layout does not name by a package above them, an import root or a
    mapped folder keep the name of their path under the root (no entry here): that is
    what every version before the layout did, and a namespace package from the root.
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
    found = source.expand(sorted(inits - set(python) | {PYPROJECT}))
    known = set(python)
    for entry, listed in found.items():
        if isinstance(listed, SourceError):  # which folders are packages is not known: fail
            raise listed
        if entry != PYPROJECT:
            known.update(listed)
    pyproject = _pyproject(source) if found.get(PYPROJECT) else None
    try:
        layout = parse_layout(known, import_roots=import_roots, pyproject=pyproject)
    except LayoutError as exc:
        where = "" if str(exc).startswith(PYPROJECT) else "import_roots: "
        raise SourceError(f"{where}{exc}") from None
    names: dict[str, str] = {}
    for path in python:
        if not layout.decides(path):
            continue  # not in a package, nor under an import root: the path is the name
        name = layout.module_name(path)
        if name is not None:
            names[path] = name
    return layout, names


def _pyproject(source: Source) -> str | None:
    """The tree's ``pyproject.toml``; one that cannot be read is an error (the names
    would be a guess), one that is not UTF-8 holds no settings the layout could read."""
    read = source.read([PYPROJECT]).get(PYPROJECT)
    if isinstance(read, SourceError):
        raise read
    if not isinstance(read, FileRead):
        return None
    return read.data.decode("utf-8", errors="replace")


def tree_modules(
    source: Source,
    paths: Sequence[str],
    import_roots: Sequence[str],
    named: Mapping[str, str] | None = None,
) -> list[TreeModule]:
    """Every Python file of the tree (and ``paths``) with the module check names it.

    The files a re-export can stand in, for the symbol graph
    (:func:`pytest_cleantree.names.modules_to_read.grow_chains`): a folder that cannot be
    listed adds nothing (its files are not checked either, and the check says so).
    ``named``: :func:`module_names` of ``paths``, reused when the tree holds no other file.
    """
    python = _tree_files(source, paths, import_roots)
    if named is None or set(python) - set(paths):
        layout, named = module_names(source, python, import_roots)
        return _tree(python, named, layout, import_bases(layout, named, import_roots))
    return _tree(python, named, None)


def _tree_files(source: Source, paths: Sequence[str], import_roots: Sequence[str]) -> list[str]:
    """The tree's Python files: its walk (which enters no dot folder), the import roots'
    (``.vendor`` named in ``import_roots`` is entered), and ``paths``."""
    found = set(paths)
    entries = [TREE_PYTHON] + [
        f"{root}/**/*.py"
        for root in map(_folder, import_roots)
        if root.startswith(".") or "/." in root
    ]
    for listed in source.expand(entries).values():
        if not isinstance(listed, SourceError):
            found.update(listed)
    return sorted(p for p in found if is_python_path(p) and not p.startswith("/"))


def _folder(root: str) -> str:
    try:
        return normalize_folder(root)
    except LayoutError:
        return ""  # refused by the layout, which names it


def _tree(
    python: Sequence[str],
    names: Mapping[str, str],
    layout: Layout | None,
    bases: Sequence[str] = (),
) -> list[TreeModule]:
    """The files with their modules.  With the ``bases`` on ``sys.path``, a file whose
    name Python imports from another file (a package beside a same-named module, a
    namespace folder that loses to a module, a top name an earlier base holds) is named
    by its path from the root when that imports it, else left out: Python never
    imports it (:func:`~pytest_cleantree.config.layout.import_file` decides)."""
    files = {path for path in python if path.endswith(".py")}
    folders = {path.rsplit("/", end)[0] for path in files for end in range(1, path.count("/") + 1)}
    modules = []
    for path in python:
        if ".." in path.split("/"):
            continue
        module = names.get(path) or module_name_for(path)
        if layout is not None and path in files and not layout.is_mapped(path):
            module = _imported_as(path, module, bases, files, folders) or ""
            if not module:
                continue
        modules.append(TreeModule(path, module, path.rsplit("/", 1)[-1] == "__init__.py"))
    return modules


def _imported_as(
    path: str, module: str, bases: Sequence[str], files: set[str], folders: set[str]
) -> str | None:
    for name in dict.fromkeys((module, module_name_for(path))):
        dotted = all(part.isidentifier() for part in name.split("."))
        if dotted and import_file(name, bases, files, folders) == path:
            return name
    return None


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
    """The naming of a run that checks ``paths`` (one model for ``check`` and ``explain``).

    The whole tree is named, whatever files a rule checks: a test under ``tests/`` that
    imports ``pkg.mod`` of a ``src/`` layout is followed into ``src/pkg/mod.py``.
    """
    python = _tree_files(source, paths, import_roots)
    layout, names = module_names(source, python, import_roots)
    modules = {path: names[path] for path in paths if path in names}
    bases = import_bases(layout, names, import_roots)
    return Naming(layout, modules, bases, _tree(python, names, layout, bases))
