"""Where the manifest is, seen from the current folder: as ruff and pytest find their
configuration, by walking up from the current folder, stopping at the repository root.
"""

from __future__ import annotations

import difflib
import sys
from collections.abc import Iterator
from pathlib import Path

from pytest_cleantree.config.manifest import PYPROJECT_NAME, find_manifest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

__all__ = ["discover_manifest", "misspelled_table"]


def discover_manifest(start: Path) -> Path | None:
    """The nearest manifest from ``start`` upwards: a folder's ``cleantree.toml``, else its
    ``pyproject.toml`` with a ``[tool.cleantree]`` table.

    The walk stops at the first folder holding ``.git`` (a folder, or a file in a git
    worktree or submodule): a manifest above the repository belongs to another project.
    Without a repository it goes up to the filesystem's root.
    """
    for candidate in _walk(start):
        found = find_manifest(candidate)
        if found is not None:
            return found
    return None


def _walk(start: Path) -> Iterator[Path]:
    """The folders discovery looks in: ``start`` and its parents, up to the repository's."""
    folder = start.absolute()
    for candidate in (folder, *folder.parents):
        yield candidate
        if (candidate / ".git").exists():
            return


def misspelled_table(start: Path) -> str | None:
    """When no manifest was found: a ``pyproject.toml`` on the walk whose ``[tool]`` table has
    a name close to ``cleantree`` (``[tool.cleantre]``), said as a did-you-mean; else ``None``.
    """
    for candidate in _walk(start):
        path = candidate / PYPROJECT_NAME
        try:
            tool = tomllib.loads(path.read_text(encoding="utf-8-sig")).get("tool")
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, RecursionError):
            continue
        names = [name for name in tool if isinstance(name, str)] if isinstance(tool, dict) else []
        close = difflib.get_close_matches("cleantree", names, n=1, cutoff=0.75)
        if close:
            return f"{path} has [tool.{close[0]}]: did you mean [tool.cleantree]?"
    return None
