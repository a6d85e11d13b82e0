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
    from pytest_cleantree.frontends.pytest.report import SessionReport
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
    config.pluginmanager.register(_ReportCollector(config.stash[_STATE]))
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
    if call.when != "setup":  # the check runs in setup: its report carries the result
        return
    report = outcome.get_result()  # type: ignore[attr-defined]
    lines = getattr(item, "_cleantree_annotations", None)
    if lines:
        setattr(report, _ANNOTATIONS, lines)
    part = getattr(item, "_cleantree_part", None)
    if part is not None:
        from pytest_cleantree.frontends.pytest.report import RESULT_ATTRIBUTE

        setattr(report, RESULT_ATTRIBUTE, part)


class _ReportCollector:
    """Gathers annotations and results where the terminal is: in the controller under
    pytest-xdist."""

    def __init__(self, state: _State) -> None:
        self.state = state

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        lines = getattr(report, _ANNOTATIONS, None)
        if lines and isinstance(lines, list):
            self.state.annotations.extend(str(line) for line in lines)
        from pytest_cleantree.frontends.pytest.report import (
            RESULT_ATTRIBUTE,
            SessionReport,
            decode_part,
        )

        part = getattr(report, RESULT_ATTRIBUTE, None)
        if isinstance(part, str):
            if self.state.report is None:
                self.state.report = SessionReport()
            self.state.report.add(decode_part(part))

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        from pytest_cleantree.frontends.pytest.report import (
            ERROR_ATTRIBUTE,
            SessionReport,
            error_of,
        )

        payload = getattr(report, ERROR_ATTRIBUTE, None)
        if isinstance(payload, list) and payload:
            if self.state.report is None:
                self.state.report = SessionReport()
            self.state.report.errors.append(error_of([str(part) for part in payload]))


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[None]:
    """A manifest that could not start carries why on its collect report (see report.py)."""
    outcome = yield
    payload = getattr(collector, "_cleantree_error", None)
    if payload is not None:
        from pytest_cleantree.frontends.pytest.report import ERROR_ATTRIBUTE

        setattr(outcome.get_result(), ERROR_ATTRIBUTE, payload)  # type: ignore[attr-defined]


def _report_options(config: pytest.Config) -> dict[str, Any]:
    from pytest_cleantree.frontends.options import OPTIONS

    base = config.invocation_params.dir
    values = pytest_values(config.getoption, base)
    return {option.dest: values[option.dest] for option in OPTIONS if option.report}


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Write the output files of the session's report (in the controller only)."""
    config = session.config
    state = config.stash.get(_STATE, None)
    if state is None or state.report is None or hasattr(config, "workerinput"):
        return
    from pytest_cleantree.frontends.pytest.report import write_error_outputs, write_outputs

    options = _report_options(config)
    outputs = {"sarif": options["sarif_output"], "json": options["json_output"]}
    manifests = state.report.manifests()
    base = config.invocation_params.dir
    if not state.report.parts:  # nothing ran: say why in each file, as the CLI does
        state.problems += write_error_outputs(outputs, state.report.errors[0], base)
    elif len(manifests) > 1 and any(outputs.values()):
        state.problems.append(
            f"--cleantree-sarif-output, --cleantree-json-output: one report is one manifest; "
            f"this session checked {len(manifests)} ({', '.join(manifests)}): run one at a time"
        )
    else:
        context = state.report.context(options, base)
        state.problems += write_outputs(outputs, state.report.results(), context)
    if state.problems and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The session's report in the chosen format (the text format: its summary line), and on
    GitHub Actions the annotations of the remaining lines."""
    config = terminalreporter.config
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    fmt = str(config.getoption("cleantree_format"))
    if fmt != "github":  # the github report holds them
        for line in dict.fromkeys(state.annotations):  # once each, in the order the checks ran
            terminalreporter.write_line(line)
    for where, why in dict.fromkeys(state.unchecked):  # allowed: said, never silent
        terminalreporter.write_line(f"cleantree: not checked: {where}: {why}")
    if state.report is not None and not state.report.parts:
        from pytest_cleantree.frontends.pytest.report import error_context
        from pytest_cleantree.report.registry import render_error

        error = state.report.errors[0]
        shown = render_error(fmt, error, error_context(error, config.invocation_params.dir))
        if shown:  # the format's own account of why nothing ran (pytest shows the error)
            terminalreporter.write_sep("-", "cleantree")
            terminalreporter.write_line(shown)
    elif state.report is not None:
        from pytest_cleantree.frontends.pytest.report import render_terminal

        results = state.report.results()
        context = state.report.context(_report_options(config), config.invocation_params.dir)
        text = render_terminal(fmt, results, context)
        if text:
            terminalreporter.write_sep("-", "cleantree")
            terminalreporter.write_line(text)
    for problem in state.problems:
        terminalreporter.write_line(f"cleantree: error: {problem}", red=True)


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is not None:
        for runner in state.runners.values():
            runner.close()
        state.failed.clear()  # pytest's cleanup garbage-collects five times: hold no results


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
        self.result: Result

    def setup(self) -> None:
        """Run the check.  A host that cannot be reached (or whose key is unknown) is an
        error of the run, not a rule that failed: the item ends as ``error`` naming the host."""
        from pytest_cleantree.frontends.pytest.report import Part, as_typed, encode_part

        parent = self.parent
        assert isinstance(parent, ManifestFile)
        state = self.config.stash[_STATE]
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
            self._cleantree_annotations = _github_annotations(self.config, runner, self.result)
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
