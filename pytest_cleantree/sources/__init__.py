"""File sources, found through a registry that imports lazily.

``paramiko`` is imported only when a host is actually named, so local runs
(and pytest sessions that never pass ``--cleantree``) never pay for it.
"""

from __future__ import annotations

from pathlib import Path

from pytest_cleantree.sources.base import Source
from pytest_cleantree.sources.local import LocalSource, resolve_local_root

__all__ = ["Source", "open_local_source"]


def open_local_source(root: str, manifest_dir: Path, *, allow_outside_root: bool = False) -> Source:
    """The manifest's ``root`` on this machine, relative to the manifest's folder."""
    return LocalSource(
        resolve_local_root(root, manifest_dir), allow_outside_root=allow_outside_root
    )
