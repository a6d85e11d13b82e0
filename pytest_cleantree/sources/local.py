"""The local file system as a :class:`~pytest_cleantree.sources.base.Source`."""

from __future__ import annotations

import errno
import importlib.machinery
import importlib.util
import os
import stat
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.patterns import glob_base, is_path_glob
from pytest_cleantree.sources.base import (
    Expansion,
    FileStat,
    Listing,
    Needles,
    could_hold,
    match_listing,
    outside_link,
)

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

    def expand(
        self,
        entries: Sequence[str],
        *,
        any_kind: bool = False,
        read_ahead: Mapping[str, Sequence[str]] | None = None,
    ) -> Mapping[str, Expansion]:
        if not self._root.is_dir():
            raise SourceError(f"root {self.root!r} is not an existing folder")
        return {entry: self._expand_one(entry, any_kind) for entry in entries}

    def _expand_one(self, entry: str, any_kind: bool) -> Expansion:
        if not is_path_glob(entry):
            try:
                os.lstat(self._root / entry)
            except (FileNotFoundError, NotADirectoryError):
                return ()
            except OSError as exc:
                return SourceError(f"{entry}: cannot tell whether it exists: {exc.strerror or exc}")
            return (entry,)
        listing = self._walk(glob_base(entry), lambda folder: could_hold(entry, folder))
        return match_listing(entry, listing, any_kind=any_kind)

    def _walk(self, base: str, worth: Callable[[str], bool]) -> Listing:
        """Everything under ``base``, as os.walk sees it, but following links to folders.

        Folders whose name starts with ``.`` are listed, not entered; nor are
        folders where ``worth`` says nothing can match.  A link to a folder is
        followed when it stays in the root (or ``allow_outside_root``), unless
        it leads back to a folder on its own path (a cycle).
        """
        listing = Listing([], [], [])
        start = os.path.join(self._root, base) if base else str(self._root)
        parts = base.split("/") if base else []
        # the real paths of the root and of each folder down to base: a link back to one is a cycle
        chain = tuple(
            os.path.realpath(os.path.join(self._root, *parts[:depth]))
            for depth in range(len(parts) + 1)
        )
        # (folder, its path from the root, the real paths of the folders down to it)
        stack: list[tuple[str, str, tuple[str, ...]]] = [(start, base, chain)]
        while stack:
            folder, rel_folder, chain = stack.pop()
            prefix = rel_folder + "/" if rel_folder else ""
            try:
                items = list(os.scandir(folder))
            except (FileNotFoundError, NotADirectoryError):
                continue  # the base is no folder, or the folder vanished: nothing there
            except OSError as exc:
                listing.blocked.append((rel_folder, exc.strerror or str(exc)))
                continue
            for item in items:
                rel = prefix + item.name
                kind = _kind(item)
                if kind == "file":
                    listing.files.append(rel)
                    continue
                listing.others.append(rel)
                if isinstance(kind, OSError):  # a link to something unseen: a file? a folder?
                    listing.files.append(rel)  # read, it reports the error if the glob names it
                    listing.blocked.append((rel, kind.strerror or str(kind)))
                if kind != "folder" or item.name.startswith(".") or not worth(rel):
                    continue
                real = os.path.join(chain[-1], item.name)
                if item.is_symlink():
                    real = os.path.realpath(item.path)
                    if real in chain:
                        continue  # a cycle: its content is walked from the folder it leads to
                    inside = os.path.commonpath([real, self._real_root]) == self._real_root
                    if not inside and not self._allow_outside_root:
                        listing.blocked.append((rel, outside_link(real)))
                        continue
                stack.append((item.path, rel, (*chain, real)))
        return listing

    # not FiltersNeedles: the local prefilter is as cheap as reading, ``needles`` are ignored

    def read(
        self, paths: Sequence[str], needles: Needles | None = None
    ) -> Mapping[str, bytes | SourceError]:
        return {path: self._read_one(path) for path in paths}

    def stat_many(self, paths: Sequence[str]) -> dict[str, FileStat]:
        """What each regular file inside the root is now, to tell an unchanged one without reading.

        Only this machine's files have a stat to trust; a path that is no
        regular file, cannot be seen, or leads outside the root (unless
        allowed) is left out, and so is read as always (its read reports why).
        """
        found: dict[str, FileStat] = {}
        inside: dict[str, bool] = {}  # per folder: is its real path in the root?
        for path in paths:
            full = os.path.join(self._root, path)
            try:
                info = os.lstat(full)  # one call for most files, which are no links
                if stat.S_ISLNK(info.st_mode):
                    if not self._allow_outside_root and not self._inside(os.path.realpath(full)):
                        continue
                    info = os.stat(full)
                elif not self._allow_outside_root:
                    folder = os.path.dirname(full)
                    if folder not in inside:
                        inside[folder] = self._inside(self._real_folder(folder))
                    if not inside[folder]:
                        continue
            except (OSError, ValueError):
                continue
            if stat.S_ISREG(info.st_mode):
                found[path] = (
                    info.st_dev,
                    info.st_ino,
                    info.st_size,
                    info.st_mtime_ns,
                    info.st_ctime_ns,
                )
        return found

    def _inside(self, real: str) -> bool:
        return os.path.commonpath([real, self._real_root]) == self._real_root

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
        real_folder = self._real_folder(folder)
        if os.path.islink(full):
            return os.path.realpath(full)
        return os.path.join(real_folder, name)

    def _real_folder(self, folder: str) -> str:
        real = self._real_folders.get(folder)
        if real is None:
            real = self._real_folders[folder] = os.path.realpath(folder)
        return real

    def close(self) -> None:
        """Nothing to release."""


def _kind(entry: os.DirEntry[str]) -> str | OSError:
    """``file`` (regular, or a link to one), ``folder`` (or a link to one), or ``other``.

    A link that cannot be followed is ``other`` when it leads nowhere (dangling,
    a loop), and the error when what it leads to cannot be seen (permission).
    """
    try:
        if entry.is_dir():
            return "folder"
        return "file" if entry.is_file() else "other"
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ELOOP, errno.ENOTDIR):
            return "other"
        return exc
