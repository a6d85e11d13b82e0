"""One checking run: a manifest, its sources (one per host), a shared analysis cache.

Shared by the pytest plugin, the ``cleantree`` fixture and the CLI, so that
all three resolve roots, read files and judge rules in exactly the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pytest_cleantree.engine import AnalysisCache, Check, check_all
from pytest_cleantree.errors import SourceError
from pytest_cleantree.model import Manifest, Result
from pytest_cleantree.sources import Source, open_local_source


class Runner:
    """Runs checks for one manifest, opening each source lazily and once."""

    def __init__(self, manifest: Manifest, *, root_override: str | None = None) -> None:
        self.manifest = manifest
        self.base = Path(manifest.path).parent
        self.root = manifest.root if root_override is None else root_override
        self.cache = AnalysisCache()
        self._sources: dict[str, Source | SourceError] = {}
        self._results: dict[tuple[str, Check], Result] = {}

    def source(self, host: str = "") -> Source | SourceError:
        if host not in self._sources:
            try:
                self._sources[host] = self._open(host)
            except SourceError as exc:
                self._sources[host] = exc
        return self._sources[host]

    def _open(self, host: str) -> Source:
        if host:
            raise SourceError(f"{host}: remote hosts are not supported yet")
        return open_local_source(
            self.root, self.base, allow_outside_root=self.manifest.allow_outside_root
        )

    def run(self, checks: Sequence[Check], host: str = "") -> dict[Check, Result]:
        """Results for ``checks`` on ``host``, computing the ones not known yet in one batch."""
        todo = [check for check in checks if (host, check) not in self._results]
        if todo:
            source = self.source(host)
            if isinstance(source, SourceError):
                fresh = {c: Result(c.rule, c.label, host, problems=(str(source),)) for c in todo}
            else:
                fresh = check_all(todo, source, self.cache)
            for check, result in fresh.items():
                self._results[(host, check)] = result
        return {check: self._results[(host, check)] for check in checks}

    def close(self) -> None:
        for source in self._sources.values():
            if not isinstance(source, SourceError):
                source.close()
