"""A persistent cache of file analyses, so that a run on an unchanged tree parses nothing.

Entries are keyed by the file's path and content, the patterns asked for, and
the exact code of the analysis (the package version and a digest of the
modules that decide findings): a changed analyser never reads an old answer.
They are JSON (never pickle: a cache folder is not trusted code), written to a
temporary file and renamed into place, so concurrent runs never see half an
entry.  The cache lives in the user's cache folder, never in the checked tree.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from pytest_cleantree import __version__
from pytest_cleantree.analysis import Finding
from pytest_cleantree.model import Kind, Occurrence

#: set to a folder to move the cache, or to an empty string to disable it
CACHE_ENV = "CLEANTREE_CACHE_DIR"


def default_cache_dir() -> Path | None:
    """``$CLEANTREE_CACHE_DIR``, else ``$XDG_CACHE_HOME/pytest-cleantree`` or ``~/.cache/...``."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        return Path(configured) if configured else None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pytest-cleantree"


def _code_digest() -> str:
    """What findings depend on besides the file: this code, the Python that parses, astroid."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        astroid_version = version("astroid")
    except PackageNotFoundError:  # pragma: no cover - astroid is a dependency
        astroid_version = "?"
    here = Path(__file__).parent
    material = f"{__version__} {sys.version_info[:3]} {astroid_version}"
    digest = hashlib.blake2b(material.encode(), digest_size=8)
    for name in ("analysis.py", "patterns.py", "model.py"):
        digest.update((here / name).read_bytes())
    return digest.hexdigest()


class AnalysisStore:
    """Findings on disk, keyed by everything they depend on."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder / _code_digest()

    def get(self, key: str) -> tuple[tuple[Finding, ...], str | None] | None:
        try:
            with open(self.folder / key[:2] / key, encoding="utf-8") as handle:
                entry = json.load(handle)
            findings = tuple(
                Finding(pattern, Occurrence(line, col, Kind(kind), name, tuple(qualified)))
                for pattern, line, col, kind, name, qualified in entry["findings"]
            )
            problem: str | None = entry["problem"]
        except (OSError, ValueError, KeyError, TypeError):
            return None  # missing, or unreadable: analyse again
        return findings, problem

    def put(self, key: str, findings: Sequence[Finding], problem: str | None) -> None:
        entry = {
            "findings": [
                [
                    f.pattern,
                    f.occurrence.line,
                    f.occurrence.col,
                    f.occurrence.kind.value,
                    f.occurrence.name,
                    list(f.occurrence.qualified),
                ]
                for f in findings
            ],
            "problem": problem,
        }
        folder = self.folder / key[:2]
        temporary = None
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(entry, handle, ensure_ascii=False)
            os.replace(temporary, folder / key)
            temporary = None
        except OSError:
            pass  # a cache that cannot be written only costs time
        finally:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
