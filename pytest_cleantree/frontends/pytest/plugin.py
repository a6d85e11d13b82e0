"""The pytest adapter: ``pytest --cleantree`` and the ``cleantree`` fixture, as hooks.

Inert unless ``--cleantree`` is given: without it, no hook does anything but
register the option, the marker and the fixture, and nothing heavy (astroid,
paramiko) is imported.  The collectors and items the hooks make (one item per
rule and entry, collected from the manifest alone) are in :mod:`.items`; the
session's report, where the terminal is, in :mod:`.report`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_cleantree.frontends.declare import (
    add_pytest_options,
    pytest_options_given,
    pytest_values,
)
from pytest_cleantree.frontends.pytest.items import (
    STATE,
    ManifestFile,
    PluginState,
    RevertedCommit,
)

if TYPE_CHECKING:
    from pytest_cleantree.frontends.pytest.fixture import CleanTree


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
    config.stash[STATE] = PluginState(manifest_path)
    config.pluginmanager.register(_ReportCollector(config.stash[STATE]))
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
    state = parent.config.stash.get(STATE, None)
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

    def __init__(self, state: PluginState) -> None:
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
    state = config.stash.get(STATE, None)
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
    state = config.stash.get(STATE, None)
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
    state = config.stash.get(STATE, None)
    if state is not None:
        for runner in state.runners.values():
            runner.close()
        state.failed.clear()  # pytest's cleanup garbage-collects five times: hold no results


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Add the checks of ``--cleantree-reverted REV`` (no manifest file: derived from git)."""
    state = config.stash.get(STATE, None)
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


@pytest.fixture
def cleantree(request: pytest.FixtureRequest) -> CleanTree:
    """Check the tree from inside a test: ``cleantree.forbid("srt/server_args.py", "sm120")``.

    Paths are relative to pytest's rootdir; ``cleantree.at(folder)`` checks
    another tree.  Same semantics and same failure text as the manifest.
    """
    from pytest_cleantree.frontends.pytest.fixture import CleanTree

    return CleanTree(request.config.rootpath)
