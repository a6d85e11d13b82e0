"""Which module a file is, as Python imports it: names come from the layout, not the root.

The folder a check is pointed at says nothing about module names: a tree rooted
at a repository holds ``python/sglang/srt/utils.py``, which Python imports as
``sglang.srt.utils``.  As mypy and pyright do, the name is read from the layout:
walking up from the file's folder through folders that hold ``__init__.py``,
the first folder without one is where imports start.  Explicit import roots
(like pytest's ``pythonpath``) and the tree's ``[tool.setuptools]``
``package-dir``/``packages``/``packages.find`` say otherwise where the walk
cannot know (``src/`` layouts without ``__init__.py``, namespace packages).

Everything here is pure and works from a *listing* (the relative paths a
Source gave us, ``/``-separated), never from the filesystem, so the same code
serves a local tree and one read over SSH.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

__all__ = [
    "Layout",
    "LayoutError",
    "import_file",
    "module_name",
    "normalize_folder",
    "parse_layout",
    "pyproject_package_dirs",
]

PYTHON_SUFFIXES = (".py", ".pyi")
INIT_NAMES = ("__init__.py", "__init__.pyi")


class LayoutError(ValueError):
    """An import root or a pyproject setting that cannot describe a layout; names the key."""


def normalize_folder(folder: str) -> str:
    """``./python/`` -> ``python``; ``.`` and ``""`` -> ``""`` (the tree's root).

    Raises :class:`LayoutError` for a folder outside the tree (absolute or ``..``).
    """
    text = folder.replace("\\", "/").strip()
    if text.startswith("/"):
        raise LayoutError(f"{folder!r} is absolute; import roots are relative to the tree")
    parts = [part for part in text.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise LayoutError(f"{folder!r} leaves the tree; import roots are relative to the tree")
    return "/".join(parts)


def _parent(path: str) -> str:
    return path.rsplit("/", 1)[0] if "/" in path else ""


def _base(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _stem(path: str) -> str | None:
    """The module part a file contributes (``x`` for ``x.py``), ``""`` for ``__init__``."""
    name = _base(path)
    for suffix in PYTHON_SUFFIXES:
        if name.endswith(suffix):
            stem = name[: -len(suffix)]
            return "" if stem == "__init__" else stem
    return None


def _dotted(prefix: str, parts: Sequence[str]) -> str | None:
    """Join a package prefix and path parts; ``None`` when a part is not importable."""
    if not all(part.isidentifier() for part in parts):
        return None
    name = ".".join(part for part in (prefix, *parts) if part)
    return name or None


def _preference(path: str) -> tuple[bool, int, bool, str]:
    """The order of the files one module name stands for: the first is the module."""
    package = _stem(path) == ""
    depth = path.count("/") - (1 if package else 0)  # the depth of the module's own name
    return (path.endswith(".pyi"), depth, not package, path)


@dataclass(frozen=True)
class Layout:
    """Where imports start in one tree.

    ``mapped`` pairs a folder with the dotted package it is (``""`` for an
    import root, whose sub-folders are top-level packages, or e.g.
    ``("lib/pkg", "pkg")`` from ``package-dir``).  ``init_folders`` are the
    folders that hold an ``__init__.py``; ``files`` the Python files known.
    """

    files: frozenset[str]
    init_folders: frozenset[str]
    mapped: tuple[tuple[str, str], ...] = ()
    _by_module: dict[str, tuple[str, ...]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        index: dict[str, list[str]] = {}
        for path in self.files:
            name = self.module_name(path)
            if name is not None:
                index.setdefault(name, []).append(path)
        for name, paths in index.items():
            # a .py before its stub, then the shallowest (an explicit mapping rarely nests),
            # then a package before a same-named module (Python's finder looks for the
            # folder's __init__ first: pkg/mod/__init__.py shadows pkg/mod.py)
            paths.sort(key=_preference)
            self._by_module[name] = tuple(paths)

    def module_name(self, path: str) -> str | None:
        """The dotted module ``path`` is, or ``None`` (not Python, or not importable by name).

        A mapped folder containing the file wins (the deepest one), and every
        folder below it is a package, ``__init__.py`` or not (namespace
        packages).  Otherwise the name is the chain of ``__init__.py`` folders
        above the file.
        """
        stem = _stem(path)
        if stem is None:
            return None
        folder = _parent(path)
        mapping = self._mapping_for(folder)
        if mapping is not None:
            mapped_folder, prefix = mapping
            below = folder[len(mapped_folder) :].strip("/")
            parts = [part for part in below.split("/") if part]
            return _dotted(prefix, [*parts, stem] if stem else parts)
        base = self._package_base(folder)
        if base is None:
            return _dotted("", [stem] if stem else [])
        if base == "" and "" in self.init_folders:
            return None  # the root itself is a package of unknown name: map it explicitly
        below = folder[len(base) :].strip("/")
        parts = [part for part in below.split("/") if part]
        return _dotted("", [*parts, stem] if stem else parts)

    def _package_base(self, folder: str) -> str | None:
        """The folder imports start from for a file in ``folder``: above the nearest
        package (a folder with ``__init__.py``) at or above it, and the packages holding
        that one.  Folders without ``__init__.py`` below a package are namespace packages
        inside it, as Python imports them (``pkg/srt/layers/x.py``: ``pkg.srt.layers.x``).
        ``None`` when no package holds it (``""`` also when the root itself is one)."""
        while folder not in self.init_folders:
            if folder == "":
                return None
            folder = _parent(folder)
        while folder in self.init_folders and folder != "":
            folder = _parent(folder)
        return folder

    def decides(self, path: str) -> bool:
        """Is ``path``'s name read from the layout (a package above it, or an import root
        or mapped folder holding it) rather than only from its file name?"""
        folder = _parent(path)
        return self._package_base(folder) is not None or self._mapping_for(folder) is not None

    def _mapping_for(self, folder: str) -> tuple[str, str] | None:
        best: tuple[str, str] | None = None
        for mapped_folder, prefix in self.mapped:
            inside = (
                mapped_folder == ""
                or folder == mapped_folder
                or folder.startswith(mapped_folder + "/")
            )
            if inside and (best is None or len(mapped_folder) > len(best[0])):
                best = (mapped_folder, prefix)
        return best

    def is_mapped(self, path: str) -> bool:
        """Is ``path`` in a folder mapped to a named package (``package-dir``), which no
        folder on ``sys.path`` makes: the build backend does?"""
        mapping = self._mapping_for(_parent(path))
        return mapping is not None and mapping[1] != ""

    def paths_for(self, module: str) -> tuple[str, ...]:
        """The known files that are ``module``, the one to read first (``.py`` before ``.pyi``)."""
        return self._by_module.get(module, ())

    def is_package(self, path: str) -> bool:
        return _stem(path) == ""

    def modules(self) -> frozenset[str]:
        """Every module some known file is."""
        return frozenset(self._by_module)

    def namespace_packages(self) -> frozenset[str]:
        """Packages that no file is (folders below a mapped folder, without ``__init__.py``).

        They exist for Python; their only attributes are their sub-modules.
        """
        found: set[str] = set()
        for name in self._by_module:
            parts = name.split(".")
            for end in range(1, len(parts)):
                package = ".".join(parts[:end])
                if package not in self._by_module:
                    found.add(package)
        return frozenset(found)


def import_file(
    module: str, bases: Sequence[str], files: AbstractSet[str], folders: AbstractSet[str]
) -> str | None:
    """The file Python's path finder imports as ``module`` with ``bases`` on ``sys.path``, in
    order, over a listing: ``files`` (``.py``), ``folders`` (each folder holding one).

    Each part is looked for in each folder of the search path: a folder with
    ``__init__.py`` (a regular package, found first), then ``part.py``; a folder without
    one is a namespace portion, used only when no folder of the path holds either (its
    search path is every such portion).  A regular package searches its own folder only.
    ``None``: no file is ``module`` (a namespace package, or nothing).
    """
    search = list(bases)
    parts = module.split(".")
    for index, part in enumerate(parts):
        found, portions = _find_part(part, search, files, folders)
        last = index == len(parts) - 1
        if found is not None:
            if last:
                return found
            if _base(found) != "__init__.py":
                return None  # a plain module holds no sub-module
            search = [_parent(found)]
        elif portions and not last:
            search = portions
        else:
            return None
    return None


def _find_part(
    part: str, search: Sequence[str], files: AbstractSet[str], folders: AbstractSet[str]
) -> tuple[str | None, list[str]]:
    portions: list[str] = []
    for folder in search:
        stem = f"{folder}/{part}" if folder else part
        for found in (f"{stem}/__init__.py", f"{stem}.py"):
            if found in files:
                return found, []
        if stem in folders:
            portions.append(stem)
    return None, portions


def parse_layout(
    known_paths: Iterable[str],
    *,
    import_roots: Sequence[str] = (),
    package_dirs: Mapping[str, str] | None = None,
    pyproject: str | None = None,
    pyproject_folder: str = "",
) -> Layout:
    """The layout of a tree from its listing.

    ``known_paths``: the Python files of the tree (every ``__init__.py`` at
    least; modules not listed cannot be found by :meth:`Layout.paths_for`).
    ``import_roots``: folders on ``sys.path`` (the manifest's ``import_roots``).
    ``package_dirs``: folder -> dotted package, e.g. ``{"": "sglang"}`` when the
    tree's root is itself the package ``sglang``.  ``pyproject``: the text of
    the tree's ``pyproject.toml`` (in ``pyproject_folder``), whose setuptools,
    hatch and poetry package settings add mappings.  Raises :class:`LayoutError`.
    """
    files = frozenset(path for path in known_paths if _stem(path) is not None)
    init_folders = frozenset(_parent(path) for path in files if _base(path) in INIT_NAMES)
    mapped: dict[str, str] = {}
    if pyproject is not None:
        base = normalize_folder(pyproject_folder)
        for folder, prefix in pyproject_package_dirs(pyproject).items():
            mapped[normalize_folder(f"{base}/{folder}" if base else folder)] = prefix
    for root in import_roots:
        mapped[normalize_folder(root)] = ""
    for folder, prefix in (package_dirs or {}).items():
        if prefix and not all(part.isidentifier() for part in prefix.split(".")):
            raise LayoutError(f"package {prefix!r} (for {folder!r}) is not a dotted name")
        mapped[normalize_folder(folder)] = prefix
    return Layout(files, init_folders, tuple(sorted(mapped.items())))


def module_name(
    path: str,
    known_paths: Iterable[str],
    *,
    import_roots: Sequence[str] = (),
    package_dirs: Mapping[str, str] | None = None,
    pyproject: str | None = None,
) -> str | None:
    """The dotted module ``path`` is in the tree listed by ``known_paths`` (see :class:`Layout`).

    Builds the layout each call: to name many files, build one :func:`parse_layout`.
    """
    layout = parse_layout(
        known_paths, import_roots=import_roots, package_dirs=package_dirs, pyproject=pyproject
    )
    return layout.module_name(path)


def pyproject_package_dirs(text: str) -> dict[str, str]:
    """Folder -> dotted package, from a ``pyproject.toml``'s packaging settings.

    Read: setuptools ``package-dir`` (``{"" = "src"}`` makes ``src`` an import
    root; ``{"pkg" = "lib/pkg"}`` maps a folder to a package), ``packages``
    (each listed package's folder, under its ``package-dir``), and
    ``packages.find.where``; hatch's wheel ``packages`` (``"src/pkg"`` makes
    ``src`` a root) and ``sources``; poetry's ``packages`` ``from``.
    Raises :class:`LayoutError` naming the key at fault.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LayoutError(f"pyproject.toml: {exc}") from None
    tool = _table(data.get("tool", {}), "tool")
    result: dict[str, str] = {}
    setuptools = _table(tool.get("setuptools", {}), "tool.setuptools")
    package_dir = _table(setuptools.get("package-dir", {}), "tool.setuptools.package-dir")
    for package, folder in package_dir.items():
        key = "tool.setuptools.package-dir." + (package or '""')
        result[_folder(folder, key)] = _package(package, key)
    packages = setuptools.get("packages")
    if isinstance(packages, list):
        for index, package in enumerate(packages):
            key = f"tool.setuptools.packages[{index}]"
            result.setdefault(_folder_of(_package(package, key), package_dir), package)
    elif isinstance(packages, dict):
        find = _table(packages.get("find", {}), "tool.setuptools.packages.find")
        where = find.get("where", [])
        for index, folder in enumerate(_list(where, "tool.setuptools.packages.find.where")):
            result.setdefault(_folder(folder, f"tool.setuptools.packages.find.where[{index}]"), "")
    elif packages is not None:
        raise LayoutError("pyproject.toml: tool.setuptools.packages: expected a list or a table")
    hatch = _table(tool.get("hatch", {}), "tool.hatch")
    wheel = _table(
        _table(
            _table(hatch.get("build", {}), "tool.hatch.build").get("targets", {}), "targets"
        ).get("wheel", {}),
        "tool.hatch.build.targets.wheel",
    )
    for index, folder in enumerate(_list(wheel.get("packages", []), "hatch wheel packages")):
        path = _folder(folder, f"tool.hatch.build.targets.wheel.packages[{index}]")
        result.setdefault(_parent(path), "")
    poetry = _table(tool.get("poetry", {}), "tool.poetry")
    for index, entry in enumerate(_list(poetry.get("packages", []), "tool.poetry.packages")):
        key = f"tool.poetry.packages[{index}]"
        if isinstance(entry, dict) and "from" in entry:
            result.setdefault(_folder(entry["from"], f"{key}.from"), "")
    return result


def _table(value: object, key: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise LayoutError(f"pyproject.toml: {key}: expected a table")
    return value


def _list(value: object, key: str) -> list[object]:
    if not isinstance(value, list):
        raise LayoutError(f"pyproject.toml: {key}: expected a list")
    return value


def _folder(value: object, key: str) -> str:
    if not isinstance(value, str):
        raise LayoutError(f"pyproject.toml: {key}: expected a folder name")
    try:
        return normalize_folder(value)
    except LayoutError as exc:
        raise LayoutError(f"pyproject.toml: {key}: {exc}") from None


def _package(value: object, key: str) -> str:
    if not isinstance(value, str) or (
        value and not all(part.isidentifier() for part in value.split("."))
    ):
        raise LayoutError(f"pyproject.toml: {key}: expected a dotted package name")
    return value


def _folder_of(package: str, package_dir: Mapping[str, object]) -> str:
    """The folder setuptools takes ``package`` from: its nearest ``package-dir`` entry."""
    parts = package.split(".")
    for end in range(len(parts), -1, -1):
        prefix = ".".join(parts[:end])
        if prefix in package_dir:
            base = normalize_folder(str(package_dir[prefix]))
            rest = "/".join(parts[end:])
            return "/".join(part for part in (base, rest) if part)
    return "/".join(parts)
