"""The pytest plugin's collectors and items: a manifest (or a reverted commit) collected
into one item per rule and file entry, each item running its check in ``setup``.

Collected from the manifest alone, so node ids do not depend on the tree's state; files are
read and analysed when items run.  :class:`PluginState` is the run's state, kept in
``config.stash`` under :data:`STATE` by :mod:`.plugin`, whose hooks build and read it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_cleantree.core.errors import CleanTreeError
from pytest_cleantree.frontends.declare import pytest_values, session_request
from pytest_cleantree.frontends.options import pytest_flag

if TYPE_CHECKING:
    from pytest_cleantree.core.checks import Check
    from pytest_cleantree.core.model import Manifest, Result
    from pytest_cleantree.frontends.pytest.report import SessionReport
    from pytest_cleantree.run.runner import Runner
    from pytest_cleantree.run.session import SessionRequest


class PluginState:
    """Per-run state, kept in ``config.stash``."""

    def __init__(self, manifest_path: Path | None) -> None:
        self.manifest_path = manifest_path
        self.runners: dict[Path, Runner] = {}
        self.failed: list[tuple[Path, Result]] = []
        #: the selected checks of each manifest (by node id), indexed once per session
        self.siblings: dict[str, list[Check]] | None = None
        #: each item's position among the session's items (the report's order)
        self.positions: dict[int, int] | None = None
        #: every check's result, for the session's report (filled where the terminal is)
        self.report: SessionReport | None = None
        #: GitHub ``::error`` lines of failed checks, from this process or xdist's workers
        self.annotations: list[str] = []
        #: with ``--cleantree-allow-unchecked-changes``: what the reverted change holds that no
        #: check sees (path, why), said in the summary
        self.unchecked: list[tuple[str, str]] = []
        #: what went wrong writing the session's report (each fails the run)
        self.problems: list[str] = []

    def checks_of(self, session: pytest.Session, parent: pytest.Collector) -> list[Check]:
        """The checks selected in ``parent``: built at the first item, not once per item."""
        if self.siblings is None:
            self.siblings = {}
            for item in session.items:
                if isinstance(item, CleanTreeItem) and item.parent is not None:
                    self.siblings.setdefault(item.parent.nodeid, []).append(item.check)
        return self.siblings.get(parent.nodeid, [])

    def position(self, session: pytest.Session, item: pytest.Item) -> int:
        if self.positions is None:
            self.positions = {id(found): n for n, found in enumerate(session.items)}
        return self.positions.get(id(item), len(self.positions))


STATE = pytest.StashKey[PluginState]()


def github_annotations(config: pytest.Config, runner: Runner, result: Result) -> list[str]:
    """On GitHub Actions, a failed check's ``::error`` lines (computed where the check ran)."""
    if os.environ.get("GITHUB_ACTIONS") != "true":
        return []
    from pytest_cleantree.report.context import RenderContext
    from pytest_cleantree.report.registry import render

    # a remote host's root is shown as written: it is no path of this workspace
    workspace = "" if result.host else str(_workspace(config))
    root = getattr(runner.source(result.host), "root", "")
    context = RenderContext(root=root, workspace=workspace)
    lines = render("github", [result], context).splitlines()
    return [line for line in lines if not line.startswith("::notice")]


def _workspace(config: pytest.Config) -> Path:
    return Path(os.environ.get("GITHUB_WORKSPACE") or config.invocation_params.dir)


class ManifestFile(pytest.File):
    """A manifest, collected into one item per rule and file entry."""

    manifest: Manifest
    #: see :meth:`~pytest_cleantree.run.session.Session.mirror`
    mirror: str = ""

    def request(self) -> SessionRequest:
        """This manifest's run, with the ``--cleantree-*`` options."""
        base = self.config.invocation_params.dir
        values = pytest_values(self.config.getoption, base)
        # under pytest-xdist the workers are the parallelism
        jobs = 1 if hasattr(self.config, "workerinput") else None
        return session_request(
            {**values, "manifest": self.path, "reverted": None, "jobs": jobs},
            base,
            flag=pytest_flag,
        )

    def collect(self) -> Iterator[CleanTreeItem]:
        from pytest_cleantree.run.session import OptionError, open_session

        try:
            session = open_session(self.request())
        except OptionError as exc:
            raise pytest.UsageError(f"{pytest_flag(exc.option)}: {exc.problem}") from None
        except CleanTreeError as exc:  # a collection error; the report files say it too
            from pytest_cleantree.frontends.pytest.report import error_payload

            self._cleantree_error = error_payload(exc)
            raise
        self.manifest = session.manifest
        self.mirror = session.mirror()
        self.config.stash[STATE].unchecked.extend(session.unchecked)
        runner = session.runner
        self.config.stash[STATE].runners[self.path] = runner
        for check in session.checks:
            for host in runner.hosts:
                name = (
                    f"{check.rule.id}[{check.label}@{host}]"
                    if host
                    else f"{check.rule.id}[{check.label}]"
                )
                # an explicit node id: pytest >= 9.2 parses ids read from its cache into
                # name and [params], and must derive the same structure for this item
                item = CleanTreeItem.from_parent(
                    self, name=name, nodeid=f"{self.nodeid}::{name}", check=check, host=host
                )
                item.add_marker("cleantree")
                # with `-n N --dist loadgroup`, a manifest's checks share one worker, so each
                # file is read and parsed once per run
                item.add_marker(pytest.mark.xdist_group(f"cleantree:{self.nodeid}"))
                yield item

    def repr_failure(  # type: ignore[override, unused-ignore]
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str:
        if excinfo.errisinstance(CleanTreeError):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))


class RevertedCommit(ManifestFile):
    """The manifest derived from a commit's own diff (``--cleantree-reverted REV``)."""

    revision: str

    def request(self) -> SessionRequest:
        found = super().request()
        return dataclasses.replace(found, manifest=None, reverted=self.revision)


class CleanTreeFailure(Exception):
    """Raised by an item whose check failed; rendered without a traceback."""

    def __init__(self, result: Result) -> None:
        self.result = result
        super().__init__(result.rule.id)


class CleanTreeItem(pytest.Item):
    """One rule on one file entry (a path, a glob, or an ``absent`` path)."""

    def __init__(self, *, check: Check, host: str = "", **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.check = check
        self.host = host
        self.result: Result

    def setup(self) -> None:
        """Run the check.  A host that cannot be reached (or whose key is unknown) is an
        error of the run, not a rule that failed: the item ends as ``error`` naming the host."""
        from pytest_cleantree.frontends.pytest.report import Part, as_typed, encode_part

        parent = self.parent
        assert isinstance(parent, ManifestFile)
        state = self.config.stash[STATE]
        runner = state.runners[parent.path]
        # the first item of a manifest starts every selected item on every host at once:
        # each file is read and parsed once, each host reached once, the fleet concurrently;
        # an item waits for its own host only
        siblings = state.checks_of(self.session, parent)
        self.result = runner.fleet_result(siblings or [self.check], self.host, self.check)
        # this item's own host only: its source is open (another host's may still be opening)
        root = getattr(runner.source(self.host), "root", "")
        base = self.config.invocation_params.dir
        self._cleantree_part = encode_part(
            Part(
                as_typed(parent.path, base),
                state.position(self.session, self),
                self.result,
                root="" if self.host else as_typed(root, base),
                host_root=root if self.host else "",
                mirror=parent.mirror,
            )
        )
        if not self.result.ok:
            state.failed.append((parent.path, self.result))
            self._cleantree_annotations = github_annotations(self.config, runner, self.result)
        from pytest_cleantree.report.fleet import is_host_problem

        whole = [problem.message for problem in self.result.problems if is_host_problem(problem)]
        if whole:  # the tree or host as a whole could not be read
            from pytest_cleantree.report.text import escape_controls

            shown = escape_controls("; ".join(dict.fromkeys(whole)))
            if not self.host:
                shown = f"cannot check the tree here: {shown}"
            elif self.host not in shown:
                shown = f"cannot check host {self.host}: {shown}"
            pytest.fail(f"cleantree: error: {shown}", pytrace=False)

    def runtest(self) -> None:
        if not self.result.ok:
            raise CleanTreeFailure(self.result)

    def repr_failure(  # type: ignore[override, unused-ignore]
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str:
        from pytest_cleantree.report.context import PathFrame
        from pytest_cleantree.report.text import render_result

        if excinfo.errisinstance(CleanTreeFailure):
            assert isinstance(excinfo.value, CleanTreeFailure)
            parent = self.parent
            assert isinstance(parent, ManifestFile)
            runner = self.config.stash[STATE].runners[parent.path]
            local = runner.source() if "" in runner.hosts or not self.host else None
            root = getattr(local, "root", "")
            remote = getattr(runner.source(self.host), "root", "") if self.host else ""
            frame = PathFrame(root, str(self.config.invocation_params.dir), ((self.host, remote),))
            return render_result(excinfo.value.result, frame)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = self.check.rule.line - 1 if self.check.rule.line else None
        return self.path, line, f"cleantree {self.name}"
