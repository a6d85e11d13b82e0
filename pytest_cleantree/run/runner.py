"""One checking run: a manifest, its sources (one per host), a shared analysis cache.

Shared by the pytest plugin and the CLI, so that both resolve roots, reach
hosts, read files and judge rules in exactly the same way.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_cleantree.core.checks import Check
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.model import Manifest, Problem, Result
from pytest_cleantree.run.analyses import AnalysisCache
from pytest_cleantree.run.cache import AnalysisStore
from pytest_cleantree.run.check import check_all
from pytest_cleantree.sources import (
    HostTarget,
    RemoteOptions,
    Source,
    open_local_source,
    open_remote_source,
)
from pytest_cleantree.sources.local import local_root

__all__ = ["LOCAL_TARGET", "Runner", "local_root"]

if TYPE_CHECKING:  # imported when a fleet runs: 10 ms saved otherwise
    from concurrent.futures import Future, ThreadPoolExecutor

LOCAL_TARGET = HostTarget("", None)


class Runner:
    """Runs checks for one manifest on one or more hosts, opening each source lazily and once.

    ``root_override`` replaces the manifest's root: on this machine it is
    relative to ``override_base`` (the current folder), on a remote host it is
    taken as written.  A host spec's own root (``gpu-a:/srv/sglang``) wins.
    ``cache_dir`` keeps analyses between runs; ``jobs`` parses in that many
    processes when a batch is large; ``forks`` hosts are checked at once (default:
    :func:`default_forks`).
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
        forks: int | None = None,
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
        self.forks = forks or default_forks(len(self.targets))
        self._pool: ThreadPoolExecutor | None = None
        #: per set of checks, each host's run, started once (see :meth:`fleet_result`)
        self._fleets: dict[tuple[Check, ...], dict[str, Future[dict[Check, Result]]]] = {}

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
            root, base = local_root(self.manifest, self.root_override, self.override_base)
            return open_local_source(root, base, allow_outside_root=allow)
        root = self.root_override if self.root_override is not None else self.manifest.root
        return open_remote_source(target, root, self.remote, allow_outside_root=allow)

    def run(self, checks: Sequence[Check], host: str = "") -> dict[Check, Result]:
        """Results for ``checks`` on ``host``, computing the ones not known yet in one batch."""
        todo = [check for check in checks if (host, check) not in self._results]
        if todo:
            source = self.source(host)
            if isinstance(source, SourceError):
                fresh = {
                    c: Result(c.rule, c.label, host, problems=(Problem(str(source)),)) for c in todo
                }
            else:
                fresh = check_all(
                    todo,
                    source,
                    self.cache,
                    rule_ids=self.rule_ids,
                    import_roots=self.manifest.import_roots,
                    graph_budget=self.manifest.graph_budget,
                )
                fresh = {check: _on_host(result, host) for check, result in fresh.items()}
            for check, result in fresh.items():
                self._results[(host, check)] = result
        return {check: self._results[(host, check)] for check in checks}

    def run_fleet(self, checks: Sequence[Check]) -> dict[tuple[str, Check], Result]:
        """Results for ``checks`` on every host, ``forks`` hosts checked at once.

        A host that cannot be reached gives its own checks an error; the other
        hosts go on.
        """
        found = dict(self.iter_fleet(checks))
        return {(host, c): r for host in self.hosts for c, r in found[host].items()}

    def iter_fleet(self, checks: Sequence[Check]) -> Iterator[tuple[str, dict[Check, Result]]]:
        """Each host's results as soon as that host is done: a slow host holds no other.

        A host that hangs is bounded by the connect and command timeouts; the
        others are reported meanwhile.
        """
        if len(self.hosts) == 1:
            yield self.hosts[0], self.run(checks, self.hosts[0])
            return
        from concurrent.futures import as_completed

        futures = self._start(checks)
        hosts = {future: host for host, future in futures.items()}
        for future in as_completed(hosts):
            yield hosts[future], future.result()

    def fleet_result(self, checks: Sequence[Check], host: str, check: Check) -> Result:
        """One check's result on one host; the first call starts every host at once, and
        each call waits for its own host only."""
        if len(self.hosts) == 1:
            return self.run(checks, host)[check]
        return self._start(checks)[host].result()[check]

    def _start(self, checks: Sequence[Check]) -> dict[str, Future[dict[Check, Result]]]:
        """Start (once per set of checks) each host's run in the pool; the futures by host."""
        key = tuple(checks)
        if key not in self._fleets:
            if self._pool is None:
                from concurrent.futures import ThreadPoolExecutor

                self._pool = ThreadPoolExecutor(
                    max_workers=min(self.forks, len(self.hosts)), thread_name_prefix="cleantree"
                )
            pool = self._pool
            self._fleets[key] = {host: pool.submit(self.run, checks, host) for host in self.hosts}
        return self._fleets[key]

    def close(self) -> None:
        """Release connections and what this run holds in memory (results, analyses)."""
        self._results.clear()
        self.cache.forget()
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        self._fleets.clear()
        for source in self._sources.values():
            if not isinstance(source, SourceError):
                source.close()


#: hosts checked at once by default, at most: each is mostly waiting on its link
MAX_DEFAULT_FORKS = 32


def default_forks(hosts: int) -> int:
    """How many hosts to check at once when not told: all of them, up to 32."""
    return max(1, min(MAX_DEFAULT_FORKS, hosts))


def _on_host(result: Result, host: str) -> Result:
    """Results carry the host's label as the user named it, not the source's own."""
    return result if result.host == host else replace(result, host=host)
