"""What one planned listing saw of the tree: literal lookups answered from it where it decides.

A qualified check's symbol graph asks, after the first listing, whether files exist (each
package's ``__init__.py``, ``pyproject.toml``, the files a module may be): each was a request
of its own.  The listing already holds the answer wherever it scanned the folder the path is
in: the agent's walk records every entry of every folder it scanned
(:func:`pytest_cleantree.agent.walk`: a file as listed, anything else as met), so a name
absent from a scanned folder is absent, as ``lstat`` would say (:func:`~pytest_cleantree.agent.
lexists`).  A folder counts as scanned only when the walk recorded an entry in it: a folder
not entered (a dot folder, a link out of the root or back up its own path, one that could not
be listed) records nothing inside, nor does an empty one, and a path there is asked of the
server as before.  Never a wrong "absent": ``tests/sources/test_walk_snapshot.py`` holds it to
``lexists`` on generated trees.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from pytest_cleantree.sources.base import Expansion, Listing


class KeptStore(Protocol):
    """Where a tree's Python files sent whole are kept by content digest, between runs
    (:class:`pytest_cleantree.run.graphstore.KeptContent`, over the analyses' store)."""

    def offered(self, where: str) -> dict[str, str]:
        """Each file's digest, as the tree ``where`` last sent it."""
        ...

    def content(self, wanted: str) -> bytes | None:
        """The content with this digest (checked), or None."""
        ...

    def keep(
        self, where: str, files: Mapping[str, bytes], others: Mapping[str, str] | None = None
    ) -> None:
        """What the tree holds now, for the next run to offer."""
        ...


class WalkSnapshot:
    """The paths a run's planned listing met, and the folders it scanned."""

    def __init__(self) -> None:
        self._files: set[str] = set()
        self._others: set[str] = set()
        self._scanned: set[str] = set()

    def add(self, listing: Listing) -> None:
        """Take in one base's walk (its paths are relative to the root)."""
        self._files.update(listing.files)
        self._others.update(listing.others)
        for path in (*listing.files, *listing.others):
            self._scanned.add(path.rpartition("/")[0])

    def lists(self, path: str) -> bool:
        """Did the listing meet ``path`` as a file?"""
        return path in self._files

    def clear(self) -> None:
        self._files.clear()
        self._others.clear()
        self._scanned.clear()

    def lookup(self, entry: str) -> Expansion | None:
        """A literal's answer as the agent's ``lexists`` gives it (``(entry,)`` or ``()``), or
        None when the listing does not decide it (ask the server).

        Each folder on the way down must have been scanned: a name it does not hold is absent
        (``lstat`` fails there), and so is anything below a regular file (a listed file is a
        file or a link to one; a path met both ways is a link whose target could not be told).
        """
        parts = entry.split("/")
        if entry.startswith("/") or any(part in ("", ".", "..") for part in parts):
            return None  # not a plain path under the root: the server resolves it
        for depth in range(1, len(parts) + 1):
            if "/".join(parts[: depth - 1]) not in self._scanned:
                return None
            path = "/".join(parts[:depth])
            if path not in self._files and path not in self._others:
                return ()
            if depth == len(parts):
                return (entry,)
            if path not in self._others:  # a file: nothing is below it
                return ()
        return None  # (unreached: the last depth answers)
