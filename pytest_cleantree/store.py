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
from pathlib import Path

from pytest_cleantree import __version__
from pytest_cleantree.analysis import FileAnalysis, Finding
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
    for name in ("analysis.py", "patterns.py", "model.py", "store.py"):
        digest.update((here / name).read_bytes())
    return digest.hexdigest()


class AnalysisStore:
    """Compact analyses on disk, keyed by everything they depend on.

    An entry holds the findings, the problem, and the source lines the
    findings point at, so a warm run neither parses nor decodes a file.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder / _code_digest()
        self._base = str(self.folder)

    def get(self, key: str, path: str) -> FileAnalysis | None:
        try:
            with open(os.path.join(self._base, key[:2], key), encoding="utf-8") as handle:
                entry = json.load(handle)
            findings = tuple(
                Finding(pattern, Occurrence(line, col, Kind(kind), name, tuple(qualified)))
                for pattern, line, col, kind, name, qualified in entry["findings"]
            )
            problem: str | None = entry["problem"]
            kept = {int(line): str(text) for line, text in entry["lines"].items()}
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None  # missing, or unreadable: analyse again
        return FileAnalysis(path, (), findings, problem, kept)

    def put(self, key: str, analysis: FileAnalysis) -> None:
        """Store a compact analysis (see :meth:`FileAnalysis.compact`)."""
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
                for f in analysis.findings
            ],
            "problem": analysis.problem,
            "lines": {str(line): text for line, text in analysis.kept.items()},
        }
        folder = os.path.join(self._base, key[:2])
        temporary = None
        try:
            os.makedirs(folder, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(entry, handle, ensure_ascii=False)
            os.replace(temporary, os.path.join(folder, key))
            temporary = None
        except OSError:
            pass  # a cache that cannot be written only costs time
        finally:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
