"""What a renderer needs besides the results: where the tree and the manifest are, and how the
reader should see them.  Shared by every format, so that none reads the environment itself."""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from pytest_cleantree.core.errors import CleanTreeError, ManifestError


@dataclass(frozen=True)
class RenderContext:
    """One report's frame.

    ``root`` is the checked folder on this machine (``""`` when only remote hosts ran, or
    when the root is a remote host's, as written); ``workspace`` is the folder that
    GitHub and SARIF paths are relative to (``""``: leave ``root`` as it is); ``cwd`` is
    the folder text paths are shown from.  ``uncovered`` are the files the user named that
    no rule covers (``cleantree check FILE...``).  ``statistics`` and ``quiet`` shape the
    text report only.
    """

    manifest: str = ""
    root: str = ""
    cwd: str = ""
    workspace: str = ""
    uncovered: tuple[str, ...] = ()
    statistics: bool = False
    quiet: bool = False
    #: each remote host's root folder, as the host reported it
    remote_roots: tuple[tuple[str, str], ...] = ()
    #: see :attr:`PathFrame.mirror`
    mirror: str = ""
    #: paint the text report for a colour terminal (the front end decides: a TTY,
    #: ``NO_COLOR``, ``FORCE_COLOR``)
    color: bool = False

    def text_frame(self) -> PathFrame:
        """How text (and JSON's ``path``) show paths: from the current folder."""
        return PathFrame(self.root, self.cwd, self.remote_roots, self.mirror)

    def workspace_root(self) -> str:
        """``root`` relative to the workspace, so that annotations land on the PR diff."""
        if self.root and self.workspace:
            return os.path.relpath(self.root, self.workspace)
        return self.root

    def workspace_manifest(self) -> str:
        """The manifest's path relative to the workspace, as code scanning should see it."""
        if not self.manifest:
            return ""
        workspace = self.workspace or os.getcwd()
        return Path(os.path.relpath(os.path.abspath(self.manifest), workspace)).as_posix()


def join_root(root: str, path: str) -> str:
    """``path`` (relative to the checked folder) as seen from ``root``'s frame: the one
    normalisation of every format (no ``.`` or ``..`` segments where the frame can drop them)."""
    joined = posixpath.join(root, path) if root not in ("", ".") else path
    return posixpath.normpath(joined) if joined else joined


@dataclass(frozen=True)
class PathFrame:
    """How a report shows the paths of a run: relative to ``base`` (the current folder, or the
    workspace) when under it, else absolute, never with ``..`` segments (as ruff shows them).

    ``root`` is this machine's checked folder (``""``: none, paths are shown as given, only
    normalised); ``remote_roots`` each remote host's root, as the host reported it.  A remote
    row is relative to its host's root; one that leaves the root (an ``allow_outside_root``
    entry) is shown as the same file of the local frame (``gpu-3:scripts/launch.sh``), else
    absolute on its host.
    """

    root: str = ""
    base: str = ""
    remote_roots: tuple[tuple[str, str], ...] = ()
    #: the local folder remote trees mirror when this machine is not checked (the manifest's
    #: root as written, from its folder): where a remote row that leaves its root is shown
    mirror: str = ""

    def prefix(self) -> str:
        """The root as it prefixes paths: ``""`` when it is ``base``, relative under it, else
        absolute."""
        return _relative_or_absolute(self.root, self.base) if self.root else ""

    def show(self, path: str, host: str = "") -> str:
        """``path`` (relative to the host's root) as the report shows it."""
        if host:
            return self._show_remote(path, host)
        if not self.root:
            return join_root("", path)
        absolute = os.path.normpath(os.path.join(os.path.abspath(self.root), path))
        return _relative_or_absolute(absolute, self.base)

    def _show_remote(self, path: str, host: str) -> str:
        shown = join_root("", path)
        if not _leaves(shown):
            return shown
        if self.root or self.mirror:
            local = PathFrame(self.root or self.mirror, self.base).show(path)
            if not posixpath.isabs(local):
                return local
        remote = dict(self.remote_roots).get(host, "")
        return join_root(remote, path) if posixpath.isabs(remote) else shown


def _leaves(path: str) -> bool:
    return path == ".." or path.startswith("../")


def _relative_or_absolute(path: str, base: str) -> str:
    """``path`` relative to ``base`` when under it (``""`` when it is ``base``), else
    absolute; ``/``-separated."""
    absolute = os.path.abspath(path)
    here = os.path.abspath(base) if base else ""
    if here and absolute == here:
        return ""
    if here and os.path.commonpath([absolute, here]) == here:
        return os.path.relpath(absolute, here).replace(os.sep, "/")
    return absolute.replace(os.sep, "/")


#: where a manifest problem or a TOML syntax error says it is: "(line 14)", "(at line 3, column 5)"
_PROBLEM_LINE = re.compile(r"\((?:at )?line (\d+)(?:, column (\d+))?\)")


def error_places(error: CleanTreeError, manifest: str) -> list[tuple[str, str, int, int]]:
    """(message, file, line, column) of each problem of a run that could not start; a line or
    column of 0 is unknown.  Manifest problems point into the manifest."""
    if isinstance(error, ManifestError):
        places = []
        for problem in error.problems:
            found = _PROBLEM_LINE.search(problem)
            line, column = (int(found[1]), int(found[2] or 0)) if found else (0, 0)
            places.append((problem, manifest, line, column))
        return places
    return [(str(error), "", 0, 0)]
