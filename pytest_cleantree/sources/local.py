"""The local file system as a :class:`~pytest_cleantree.sources.base.Source`."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

from pytest_cleantree.errors import SourceError
from pytest_cleantree.patterns import compile_path_glob, glob_base, is_path_glob

MODULE_PREFIX = "module:"
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def resolve_local_root(root: str, base: Path) -> Path:
    """Turn a manifest ``root`` (a path, or ``module:NAME``) into an existing folder.

    Raises :class:`SourceError` when it points nowhere: a check against a
    missing root would find nothing and pass, which is never acceptable.
    """
    if root.startswith(MODULE_PREFIX):
        name = root[len(MODULE_PREFIX) :]
        try:
            spec = find_module_spec(name)
        except (ImportError, ValueError) as exc:
            raise SourceError(f"root {root!r}: cannot import {name!r}: {exc}") from None
        if spec is None:
            raise SourceError(f"root {root!r}: no module named {name!r} on this Python's path")
        locations = list(spec.submodule_search_locations or [])
        if locations:
            return Path(locations[0])
        if spec.origin:
            return Path(spec.origin).parent
        raise SourceError(f"root {root!r}: module {name!r} has no folder on disk")
    path = (base / root) if root else base
    if not path.exists():
        raise SourceError(f"root {str(path)!r} does not exist")
    if not path.is_dir():
        raise SourceError(f"root {str(path)!r} is not a folder")
    return path


def find_module_spec(name: str) -> importlib.machinery.ModuleSpec | None:
    """Where module ``name`` lives, found as ``import`` would find it, without running it.

    ``importlib.util.find_spec("pkg.sub")`` imports ``pkg`` first: its
    ``__init__`` would run, and may write ``__pycache__`` into the checked tree.
    Only the top-level name goes through ``sys.meta_path`` (editable installs);
    each part below is looked for in its parent's folders, as the remote
    helper does.
    """
    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        raise ValueError(f"{name!r} is not a dotted module name")
    spec = importlib.util.find_spec(parts[0])
    for index in range(1, len(parts)):
        if spec is None or not spec.submodule_search_locations:
            return None
        spec = importlib.machinery.PathFinder.find_spec(
            ".".join(parts[: index + 1]), list(spec.submodule_search_locations)
        )
    return spec


class LocalSource:
    """Files under a local folder, read-only.

    A file reached through a link that leaves the root is refused unless
    ``allow_outside_root``: the manifest speaks of this tree, not of ``/etc``.
    """

    host = ""

    def __init__(self, root: Path, *, allow_outside_root: bool = False) -> None:
        self._root = root
        self._real_root = os.path.realpath(root)
        self._allow_outside_root = allow_outside_root
        self.root = str(root)
        self._real_folders: dict[str, str] = {}

    def expand(self, entries: Sequence[str]) -> Mapping[str, tuple[str, ...]]:
        if not self._root.is_dir():
            raise SourceError(f"root {self.root!r} is not an existing folder")
        return {entry: self._expand_one(entry) for entry in entries}

    def _expand_one(self, entry: str) -> tuple[str, ...]:
        if not is_path_glob(entry):
            return (entry,) if os.path.lexists(self._root / entry) else ()
        regex = compile_path_glob(entry)
        base = glob_base(entry)
        start = self._root / base if base else self._root
        found: list[str] = []
        folders = [(str(start), base + "/" if base else "")]
        while folders:  # os.walk, keeping scandir's entries: their types cost no stat
            folder, prefix = folders.pop()
            try:
                items = list(os.scandir(folder))
            except OSError:
                continue  # as os.walk: an unreadable folder lists nothing
            for item in items:
                rel = prefix + item.name
                if _is_dir(item):
                    if not item.name.startswith(".") and not item.is_symlink():
                        folders.append((item.path, rel + "/"))
                elif regex.match(rel) and _is_file(item):
                    found.append(rel)
        return tuple(sorted(found))

    def read(self, paths: Sequence[str]) -> Mapping[str, bytes | SourceError]:
        return {path: self._read_one(path) for path in paths}

    def _read_one(self, path: str) -> bytes | SourceError:
        full = os.path.join(self._root, path)
        try:
            if not self._allow_outside_root:
                real = self._real_path(full)
                if os.path.commonpath([real, self._real_root]) != self._real_root:
                    return SourceError(
                        f"{path}: leads outside the root (to {real}); "
                        "set allow_outside_root = true to allow it"
                    )
            # O_NONBLOCK: a FIFO planted in the tree must not hang the check
            fd = os.open(full, os.O_RDONLY | _O_NONBLOCK | _O_CLOEXEC)
        except FileNotFoundError:
            return SourceError(f"{path}: no such file (or a dangling link)")
        except PermissionError:
            return SourceError(f"{path}: permission denied")
        except OSError as exc:
            return SourceError(f"{path}: cannot read: {exc.strerror or exc}")
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            os.close(fd)
            what = "is a folder" if stat.S_ISDIR(mode) else "is a FIFO, socket or device"
            return SourceError(f"{path}: {what}, not a file")
        with os.fdopen(fd, "rb") as handle:
            try:
                return handle.read()
            except OSError as exc:
                return SourceError(f"{path}: cannot read: {exc.strerror or exc}")

    def _real_path(self, full: str) -> str:
        """``os.path.realpath``, resolving each folder once (most files are no links)."""
        folder, name = os.path.split(full)
        real_folder = self._real_folders.get(folder)
        if real_folder is None:
            real_folder = self._real_folders[folder] = os.path.realpath(folder)
        if os.path.islink(full):
            return os.path.realpath(full)
        return os.path.join(real_folder, name)

    def close(self) -> None:
        """Nothing to release."""


def _is_file(entry: os.DirEntry[str]) -> bool:
    """A regular file, or a link to one (as ``os.walk`` lists it)."""
    try:
        return entry.is_file()
    except OSError:
        return False


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False
