"""The local file system as a :class:`~pytest_cleantree.sources.base.Source`."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from pytest_cleantree import agent
from pytest_cleantree.agent import MODULE_PREFIX
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.model import Manifest
from pytest_cleantree.core.patterns import glob_base, is_path_glob
from pytest_cleantree.sources.base import (
    Expansion,
    FileStat,
    Listing,
    Needles,
    ReadAnswer,
    could_hold,
    listing_of,
    literal_answer,
    match_listing,
    read_answer,
)

__all__ = ["MODULE_PREFIX", "LocalSource", "local_root", "resolve_local_root"]


def local_root(manifest: Manifest, override: str | None, base: Path) -> tuple[str, Path]:
    """This machine's root as written, and the folder it is relative to: ``override``
    (``--root``) from ``base``, else the manifest's ``root`` from the manifest's folder."""
    if override is not None:
        return override, base
    return manifest.root, Path(manifest.path).parent


def resolve_local_root(root: str, base: Path) -> Path:
    """Turn a manifest ``root`` (a path, or ``module:NAME``) into an existing folder.

    Raises :class:`SourceError` when it points nowhere: a check against a
    missing root would find nothing and pass, which is never acceptable.
    """
    if root.startswith(MODULE_PREFIX):
        name = root[len(MODULE_PREFIX) :]
        try:
            spec = agent.find_module_spec(name)
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
            return literal_answer(entry, agent.lexists(self.root, entry))  # as the servers tell
        listing = self._walk(glob_base(entry), lambda folder: could_hold(entry, folder))
        return match_listing(entry, listing, any_kind=any_kind)

    def _walk(self, base: str, worth: Callable[[str], bool]) -> Listing:
        """Everything under ``base``: the servers' walk (:func:`pytest_cleantree.agent.walk`)."""
        real_root = None if self._allow_outside_root else self._real_root
        return listing_of(agent.walk(str(self._root), base, real_root, worth))

    # not FiltersNeedles: the local prefilter is as cheap as reading, ``needles`` are ignored

    def read(
        self, paths: Sequence[str], needles: Needles | None = None
    ) -> Mapping[str, ReadAnswer]:
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
                    if not self._allow_outside_root and not agent.inside(
                        os.path.realpath(full), self._real_root
                    ):
                        continue
                    info = os.stat(full)
                elif not self._allow_outside_root:
                    folder = os.path.dirname(full)
                    if folder not in inside:
                        real = agent.real_folder(folder, self._real_folders)
                        inside[folder] = agent.inside(real, self._real_root)
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

    def modes(self, paths: Sequence[str]) -> dict[str, str | SourceError]:
        """Each path's mode as git writes it (:func:`pytest_cleantree.agent.git_mode`), the
        path itself, not a link's target: git records a link as a link."""
        found: dict[str, str | SourceError] = {}
        for path in paths:
            try:
                found[path] = agent.git_mode(os.lstat(os.path.join(self._root, path)).st_mode)
            except OSError as exc:
                found[path] = SourceError(f"{path}: cannot read its mode: {exc.strerror or exc}")
        return found

    def _read_one(self, path: str) -> ReadAnswer:
        """One file, read as the servers read (:func:`pytest_cleantree.agent.read_one`)."""
        real_root = None if self._allow_outside_root else self._real_root
        full = os.path.join(self._root, path)
        return read_answer(path, agent.read_one(full, real_root, self._real_folders))

    def close(self) -> None:
        """Nothing to release."""
