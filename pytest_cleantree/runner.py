"""One checking run: a manifest, its sources (one per host), a shared analysis cache.

Shared by the pytest plugin and the CLI, so that both resolve roots, reach
hosts, read files and judge rules in exactly the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from pytest_cleantree.engine import AnalysisCache, Check, check_all
from pytest_cleantree.errors import SourceError
from pytest_cleantree.model import Manifest, Result
from pytest_cleantree.sources import (
    HostTarget,
    RemoteOptions,
    Source,
    open_local_source,
    open_remote_source,
)
from pytest_cleantree.store import AnalysisStore

LOCAL_TARGET = HostTarget("", None)


class Runner:
    """Runs checks for one manifest on one or more hosts, opening each source lazily and once.

    ``root_override`` replaces the manifest's root: on this machine it is
    relative to ``override_base`` (the current folder), on a remote host it is
    taken as written.  A host spec's own root (``gpu-a:/srv/sglang``) wins.
    ``cache_dir`` keeps analyses between runs; ``jobs`` parses in that many
    processes when a batch is large.
    """

    def __init__(
        self,
        manifest: Manifest,
        *,
        root_override: str | None = None,
        override_base: Path | None = None,
        targets: Sequence[HostTarget] = (LOCAL_TARGET,),
        remote: RemoteOptions | None = None,
        cache_dir: Path | None = None,
        jobs: int = 1,
    ) -> None:
        self.manifest = manifest
        self.root_override = root_override
        self.override_base = override_base or Path.cwd()
        self.targets = {target.label: target for target in targets}
        self.remote = remote or RemoteOptions()
        store = AnalysisStore(cache_dir) if cache_dir is not None else None
        self.cache = AnalysisCache(store, jobs=jobs)
        self._sources: dict[str, Source | SourceError] = {}
        self._results: dict[tuple[str, Check], Result] = {}
        #: every rule id of the manifest, which inline allows may name
        self.rule_ids = frozenset(rule.id for rule in manifest.rules)

    @property
    def hosts(self) -> list[str]:
        """The labels of the hosts to check; ``""`` is this machine."""
        return list(self.targets)

    def source(self, host: str = "") -> Source | SourceError:
        if host not in self._sources:
            try:
                self._sources[host] = self._open(self.targets[host])
            except SourceError as exc:
                self._sources[host] = exc
        return self._sources[host]

    def _open(self, target: HostTarget) -> Source:
        allow = self.manifest.allow_outside_root
        if target.spec is None:
            if self.root_override is not None:
                return open_local_source(
                    self.root_override, self.override_base, allow_outside_root=allow
                )
            base = Path(self.manifest.path).parent
            return open_local_source(self.manifest.root, base, allow_outside_root=allow)
        root = self.root_override if self.root_override is not None else self.manifest.root
        return open_remote_source(target, root, self.remote, allow_outside_root=allow)

    def run(self, checks: Sequence[Check], host: str = "") -> dict[Check, Result]:
        """Results for ``checks`` on ``host``, computing the ones not known yet in one batch."""
        todo = [check for check in checks if (host, check) not in self._results]
        if todo:
            source = self.source(host)
            if isinstance(source, SourceError):
                fresh = {c: Result(c.rule, c.label, host, problems=(str(source),)) for c in todo}
            else:
                fresh = check_all(
                    todo,
                    source,
                    self.cache,
                    rule_ids=self.rule_ids,
                    import_roots=self.manifest.import_roots,
                )
                fresh = {check: _on_host(result, host) for check, result in fresh.items()}
            for check, result in fresh.items():
                self._results[(host, check)] = result
        return {check: self._results[(host, check)] for check in checks}

    def run_fleet(self, checks: Sequence[Check]) -> dict[tuple[str, Check], Result]:
        """Results for ``checks`` on every host, the hosts checked concurrently.

        A host that cannot be reached gives its own checks an error; the other
        hosts go on.
        """
        hosts = self.hosts
        if len(hosts) == 1:
            return {(hosts[0], c): r for c, r in self.run(checks, hosts[0]).items()}
        from concurrent.futures import ThreadPoolExecutor  # a fleet only: 10 ms saved otherwise

        with ThreadPoolExecutor(max_workers=min(8, len(hosts))) as pool:
            per_host = list(pool.map(lambda host: self.run(checks, host), hosts))
        return {
            (host, check): result
            for host, results in zip(hosts, per_host, strict=True)
            for check, result in results.items()
        }

    def close(self) -> None:
        for source in self._sources.values():
            if not isinstance(source, SourceError):
                source.close()


def _on_host(result: Result, host: str) -> Result:
    """Results carry the host's label as the user named it, not the source's own."""
    return result if result.host == host else replace(result, host=host)
