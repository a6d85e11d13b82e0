"""Where the manifest is, seen from the current folder: as ruff and pytest find their
configuration, by walking up from the current folder, stopping at the repository root.
"""

from __future__ import annotations

from pathlib import Path

from pytest_cleantree.config.manifest import find_manifest

__all__ = ["discover_manifest"]


def discover_manifest(start: Path) -> Path | None:
    """The nearest manifest from ``start`` upwards: a folder's ``cleantree.toml``, else its
    ``pyproject.toml`` with a ``[tool.cleantree]`` table.

    The walk stops at the first folder holding ``.git`` (a folder, or a file in a git
    worktree or submodule): a manifest above the repository belongs to another project.
    Without a repository it goes up to the filesystem's root.
    """
    folder = start.absolute()
    for candidate in (folder, *folder.parents):
        found = find_manifest(candidate)
        if found is not None:
            return found
        if (candidate / ".git").exists():
            return None
    return None
