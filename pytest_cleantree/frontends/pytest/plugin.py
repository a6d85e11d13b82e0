"""The pytest adapter: ``pytest --cleantree`` and the ``cleantree`` fixture.

Inert unless ``--cleantree`` is given: without it, no hook does anything but
register the option, the marker and the fixture, and nothing heavy (astroid,
paramiko) is imported.  Items are collected from the manifest alone (one per
rule and entry), so node ids do not depend on the tree's state; files are
read and analysed when items run.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_cleantree.core.errors import CleanTreeError
from pytest_cleantree.frontends.options import (
    add_pytest_options,
    pytest_flag,
    pytest_options_given,
    pytest_values,
    session_request,
)

if TYPE_CHECKING:
    from pytest_cleantree.core.checks import Check
    from pytest_cleantree.core.model import Manifest, Result
    from pytest_cleantree.frontends.pytest.fixture import CleanTree
    from pytest_cleantree.run.runner import Runner
    from pytest_cleantree.run.session import SessionRequest


class _State:
    """Per-run state, kept in ``config.stash``."""

    def __init__(self, manifest_path: Path | None) -> None:
        self.manifest_path = manifest_path
        self.runners: dict[Path, Runner] = {}
        self.failed: list[tuple[Path, Result]] = []
        #: the selected checks of each manifest (by node id), indexed once per session
        self.siblings: dict[str, list[Check]] | None = None
        #: GitHub ``::error`` lines of failed checks, from this process or xdist's workers
        self.annotations: list[str] = []
        #: with ``--cleantree-allow-unchecked-changes``: what the reverted change holds that no
        #: check sees (path, why), said in the summary
        self.unchecked: list[tuple[str, str]] = []

    def checks_of(self, session: pytest.Session, parent: pytest.Collector) -> list[Check]:
        """The checks selected in ``parent``: built at the first item, not once per item."""
        if self.siblings is None:
            self.siblings = {}
            for item in session.items:
                if isinstance(item, CleanTreeItem) and item.parent is not None:
                    self.siblings.setdefault(item.parent.nodeid, []).append(item.check)
        return self.siblings.get(parent.nodeid, [])


_STATE = pytest.StashKey[_State]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cleantree", "check that reverted symbols are gone (pytest-cleantree)")
    add_pytest_options(group)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "cleantree: a pytest-cleantree check collected from a manifest"
    )
    # pytest-xdist registers it too; without xdist, --strict-markers must still accept it
    config.addinivalue_line("markers", "xdist_group(name): run with other items of the group")
    reverted = config.getoption("cleantree_reverted")
    if not (config.getoption("cleantree") or _any_cleantree_option(config)):
        return
    manifest_path = _selected_manifest(config, required=not reverted)
    config.stash[_STATE] = _State(manifest_path)
    config.pluginmanager.register(_AnnotationCollector(config.stash[_STATE]))
    if reverted and manifest_path is None and config.args_source != pytest.Config.ArgsSource.ARGS:
        # `pytest --cleantree-reverted REV` alone runs the derived checks and nothing else
        config.args[:] = []
    if manifest_path is not None and not _covered_by_args(config, manifest_path):
        config.args.append(str(manifest_path))


def _any_cleantree_option(config: pytest.Config) -> bool:
    """Was any ``--cleantree-*`` option given?  Each implies ``--cleantree``.

    ``pytest --cleantree-manifest m.toml`` checking nothing would be a silent pass.
    (An option given with its default value is seen on the command line only.)
    """
    if any(pytest_options_given(config.getoption)):
        return True
    return any(arg.startswith("--cleantree-") for arg in config.invocation_params.args)


def _selected_manifest(config: pytest.Config, *, required: bool = True) -> Path | None:
    from pytest_cleantree.config.discovery import discover_manifest, misspelled_table

    explicit: str | None = config.getoption("cleantree_manifest")
    invocation = config.invocation_params.dir
    if explicit:
        path = (invocation / explicit).resolve()
        if not path.is_file():
            raise pytest.UsageError(f"--cleantree-manifest: no such file: {explicit}")
        return path
    named = [_arg_path(config, arg) for arg in config.args]
    for arg, path in zip(config.args, named, strict=True):
        if path.suffix == ".toml" and not path.exists():  # else: "none in <cwd>", misleading
            raise pytest.UsageError(f"--cleantree: {arg.split('::', 1)[0]}: no such file")
    if any(path.suffix == ".toml" and path.is_file() for path in named):
        return None  # manifests named on the command line are collected as given
    found = discover_manifest(invocation)
    if found is None and not required:
        return None
    if found is None:
        misspelled = misspelled_table(invocation)
        if misspelled:
            raise pytest.UsageError(f"--cleantree: {misspelled}")
        raise pytest.UsageError(
            f"--cleantree: no cleantree.toml (or pyproject.toml with [tool.cleantree]) in "
            f"{invocation} or a parent folder up to the repository's root; pass the "
            "manifest's path, or --cleantree-manifest PATH"
        )
    return found.resolve()


def _arg_path(config: pytest.Config, arg: str) -> Path:
    return (config.invocation_params.dir / arg.split("::", 1)[0]).resolve()


def _covered_by_args(config: pytest.Config, path: Path) -> bool:
    for arg in config.args:
        named = _arg_path(config, arg)
        if named == path or (named.is_dir() and named in path.parents):
            return True
    return False


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> ManifestFile | None:
    state = parent.config.stash.get(_STATE, None)
    if state is None or file_path.suffix != ".toml":
        return None
    resolved = file_path.resolve()
    named = {_arg_path(parent.config, arg) for arg in parent.config.args}
    if resolved == state.manifest_path or resolved in named:
        rootdir = parent.config.rootpath
        if rootdir in resolved.parents:
            return ManifestFile.from_parent(parent, path=file_path)
        # found above the rootdir (run from a subfolder): pytest would give it an empty node
        # id; name it as seen from the rootdir instead (``../../cleantree.toml``)
        nodeid = Path(os.path.relpath(resolved, rootdir)).as_posix()
        return ManifestFile.from_parent(parent, path=file_path, nodeid=nodeid)
    return None


def _github_annotations(config: pytest.Config, runner: Runner, result: Result) -> list[str]:
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


#: the report attribute carrying a failed check's annotations: a plain list of strings, so
#: that pytest-xdist carries it from the worker that ran the check to the controller
_ANNOTATIONS = "cleantree_github_annotations"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    lines = getattr(item, "_cleantree_annotations", None)
    if lines and call.when == "call":
        setattr(outcome.get_result(), _ANNOTATIONS, lines)  # type: ignore[attr-defined]


class _AnnotationCollector:
    """Gathers annotations where the terminal is: in the controller under pytest-xdist."""

    def __init__(self, state: _State) -> None:
        self.state = state

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        lines = getattr(report, _ANNOTATIONS, None)
        if lines and isinstance(lines, list):
            self.state.annotations.extend(str(line) for line in lines)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """On GitHub Actions, annotate the remaining lines in the PR diff as well."""
    state = terminalreporter.config.stash.get(_STATE, None)
    if state is None:
        return
    for line in dict.fromkeys(state.annotations):  # once each, in the order the checks ran
        terminalreporter.write_line(line)
    for where, why in dict.fromkeys(state.unchecked):  # allowed: said, never silent
        terminalreporter.write_line(f"cleantree: not checked: {where}: {why}")


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is not None:
        for runner in state.runners.values():
            runner.close()
        state.failed.clear()  # pytest's cleanup garbage-collects five times: hold no results


class ManifestFile(pytest.File):
    """A manifest, collected into one item per rule and file entry."""

    manifest: Manifest

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
        self.manifest = session.manifest
        self.config.stash[_STATE].unchecked.extend(session.unchecked)
        runner = session.runner
        self.config.stash[_STATE].runners[self.path] = runner
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


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Add the checks of ``--cleantree-reverted REV`` (no manifest file: derived from git)."""
    state = config.stash.get(_STATE, None)
    revision: str | None = config.getoption("cleantree_reverted")
    if state is None or not revision:
        return
    node = RevertedCommit.from_parent(
        session, path=config.invocation_params.dir / f"reverted-{revision}"
    )
    node.revision = revision
    report = node.ihook.pytest_make_collect_report(collector=node)
    node.ihook.pytest_collectreport(report=report)
    items.extend(item for item in report.result if isinstance(item, pytest.Item))


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

    def runtest(self) -> None:
        parent = self.parent
        assert isinstance(parent, ManifestFile)
        state = self.config.stash[_STATE]
        runner = state.runners[parent.path]
        # the first item of a manifest starts every selected item on every host at once:
        # each file is read and parsed once, each host reached once, the fleet concurrently;
        # an item waits for its own host only
        siblings = state.checks_of(self.session, parent)
        result = runner.fleet_result(siblings or [self.check], self.host, self.check)
        if not result.ok:
            state.failed.append((parent.path, result))
            self._cleantree_annotations = _github_annotations(self.config, runner, result)
            raise CleanTreeFailure(result)

    def repr_failure(  # type: ignore[override, unused-ignore]
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str:
        from pytest_cleantree.report.context import PathFrame
        from pytest_cleantree.report.text import render_result

        if excinfo.errisinstance(CleanTreeFailure):
            assert isinstance(excinfo.value, CleanTreeFailure)
            parent = self.parent
            assert isinstance(parent, ManifestFile)
            runner = self.config.stash[_STATE].runners[parent.path]
            local = runner.source() if "" in runner.hosts or not self.host else None
            root = getattr(local, "root", "")
            remote = getattr(runner.source(self.host), "root", "") if self.host else ""
            frame = PathFrame(root, str(self.config.invocation_params.dir), ((self.host, remote),))
            return render_result(excinfo.value.result, frame)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        line = self.check.rule.line - 1 if self.check.rule.line else None
        return self.path, line, f"cleantree {self.name}"


@pytest.fixture
def cleantree(request: pytest.FixtureRequest) -> CleanTree:
    """Check the tree from inside a test: ``cleantree.forbid("srt/server_args.py", "sm120")``.

    Paths are relative to pytest's rootdir; ``cleantree.at(folder)`` checks
    another tree.  Same semantics and same failure text as the manifest.
    """
    from pytest_cleantree.frontends.pytest.fixture import CleanTree

    return CleanTree(request.config.rootpath)
