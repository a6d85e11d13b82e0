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
    """``path`` (relative to the checked folder) as seen from ``root``'s frame."""
    return posixpath.normpath(posixpath.join(root, path)) if root not in ("", ".") else path


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
