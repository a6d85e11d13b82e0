"""The pytest adapter: ``pytest --cleantree`` and the ``cleantree`` fixture.

Inert unless ``--cleantree`` is given: without it, no hook does anything but
register the option, the marker and the fixture, and nothing heavy (astroid,
paramiko) is imported.  Items are collected from the manifest alone (one per
rule and entry), so node ids do not depend on the tree's state; files are
read and analysed when items run.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_cleantree.core.errors import CleanTreeError
from pytest_cleantree.frontends.options import parse_forks, parse_seconds

if TYPE_CHECKING:
    from pytest_cleantree.core.checks import Check
    from pytest_cleantree.core.model import Manifest, Result
    from pytest_cleantree.frontends.pytest.fixture import CleanTree
    from pytest_cleantree.run.runner import Runner
    from pytest_cleantree.sources import HostTarget, RemoteOptions


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

    def checks_of(self, session: pytest.Session, parent: pytest.Collector) -> list[Check]:
        """The checks selected in ``parent``: built at the first item, not once per item."""
        if self.siblings is None:
            self.siblings = {}
            for item in session.items:
                if isinstance(item, CleanTreeItem) and item.parent is not None:
                    self.siblings.setdefault(item.parent.nodeid, []).append(item.check)
        return self.siblings.get(parent.nodeid, [])


_STATE = pytest.StashKey[_State]()
#: each ``--cleantree-*`` option's default (by dest), read from the option group itself
_DEFAULTS: dict[str, object] = {}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cleantree", "check that reverted symbols are gone (pytest-cleantree)")
    group.addoption(
        "--cleantree",
        action="store_true",
        default=False,
        help="check the tree against the cleantree manifest (cleantree.toml or "
        "[tool.cleantree] in pyproject.toml); implied by any --cleantree-* option",
    )
    group.addoption(
        "--cleantree-manifest",
        metavar="PATH",
        default=None,
        help="the manifest to check (default: cleantree.toml, else pyproject.toml with "
        "[tool.cleantree], in the current folder or the nearest parent up to the repository's "
        "root)",
    )
    group.addoption(
        "--cleantree-root",
        metavar="DIR",
        default=None,
        help="check this folder instead of the manifest's root (relative to the current folder)",
    )
    group.addoption(
        "--cleantree-exclude",
        metavar="PATTERN",
        action="append",
        default=[],
        help="leave out files matching this gitignore-style pattern (relative to the root), "
        "on top of the manifest's exclude; repeatable",
    )
    group.addoption(
        "--cleantree-no-cache",
        action="store_true",
        default=False,
        help="do not keep analyses between runs (default cache: $CLEANTREE_CACHE_DIR, else "
        "~/.cache/pytest-cleantree; never in the checked tree)",
    )
    group.addoption(
        "--cleantree-reverted",
        metavar="REV",
        default=None,
        help="check that commit REV (or a range A..B) is fully reverted in the work tree: "
        "the manifest is derived from its diff (see `cleantree from-diff`); implies --cleantree",
    )
    group.addoption(
        "--cleantree-host",
        metavar="HOST",
        action="append",
        default=[],
        help="check the tree on this host over SSH (user@host:/path, an alias from "
        "~/.ssh/config, or a name from the manifest's [hosts]); repeat for a fleet; "
        "'local' is this machine",
    )
    group.addoption(
        "--cleantree-known-hosts",
        metavar="PATH",
        default=None,
        help="known_hosts file to verify host keys against (default: ~/.ssh/known_hosts)",
    )
    group.addoption(
        "--cleantree-accept-new-host-key",
        action="store_true",
        default=False,
        help="accept (and record) the key of a host never seen before; a changed key is "
        "always refused",
    )
    group.addoption(
        "--cleantree-ssh-config",
        metavar="PATH",
        default=None,
        help="ssh client config to honour (default: ~/.ssh/config)",
    )
    group.addoption(
        "--cleantree-python",
        metavar="PYTHON",
        default="python3",
        help="the remote interpreter that resolves module: roots (e.g. a venv's python)",
    )
    group.addoption(
        "--cleantree-timeout",
        metavar="SECONDS",
        type=parse_seconds,
        default=60.0,
        help="timeout of one remote command (default: 60)",
    )
    group.addoption(
        "--cleantree-connect-timeout",
        metavar="SECONDS",
        type=parse_seconds,
        default=10.0,
        help="timeout of connecting to a host, handshake and login included (default: 10)",
    )
    group.addoption(
        "--cleantree-forks",
        metavar="N",
        type=parse_forks,
        default=None,
        help="check N hosts at once (default: every host, up to 32); an item waits for its "
        "own host only",
    )
    _DEFAULTS.update(
        (option.dest, getattr(option, "default", None))
        for option in group.options
        if option.dest != "cleantree"
    )


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
    if any(config.getoption(dest) != default for dest, default in _DEFAULTS.items()):
        return True
    return any(arg.startswith("--cleantree-") for arg in config.invocation_params.args)


def _selected_manifest(config: pytest.Config, *, required: bool = True) -> Path | None:
    from pytest_cleantree.config.discovery import discover_manifest

    explicit: str | None = config.getoption("cleantree_manifest")
    invocation = config.invocation_params.dir
    if explicit:
        path = (invocation / explicit).resolve()
        if not path.is_file():
            raise pytest.UsageError(f"--cleantree-manifest: no such file: {explicit}")
        return path
    named = [_arg_path(config, arg) for arg in config.args]
    if any(path.suffix == ".toml" and path.is_file() for path in named):
        return None  # manifests named on the command line are collected as given
    found = discover_manifest(invocation)
    if found is None and not required:
        return None
    if found is None:
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


def _targets(config: pytest.Config, manifest: Manifest) -> list[HostTarget]:
    from pytest_cleantree.run.runner import LOCAL_TARGET
    from pytest_cleantree.sources import resolve_hosts

    names: list[str] = config.getoption("cleantree_host")
    if not names:
        return [LOCAL_TARGET]
    try:
        return resolve_hosts(names, dict(manifest.hosts))
    except ValueError as exc:
        raise pytest.UsageError(f"--cleantree-host: {exc}") from None


def _remote_options(config: pytest.Config) -> RemoteOptions:
    from pytest_cleantree.sources import RemoteOptions

    def path(option: str) -> Path | None:
        value: str | None = config.getoption(option)
        return config.invocation_params.dir / value if value else None

    return RemoteOptions(
        known_hosts=path("cleantree_known_hosts"),
        accept_new_host_key=config.getoption("cleantree_accept_new_host_key"),
        ssh_config=path("cleantree_ssh_config"),
        connect_timeout=config.getoption("cleantree_connect_timeout"),
        command_timeout=config.getoption("cleantree_timeout"),
        python=config.getoption("cleantree_python"),
    )


def _github_annotations(config: pytest.Config, runner: Runner, result: Result) -> list[str]:
    """On GitHub Actions, a failed check's ``::error`` lines (computed where the check ran)."""
    if os.environ.get("GITHUB_ACTIONS") != "true":
        return []
    from pytest_cleantree.report.formats import render_github

    workspace = Path(os.environ.get("GITHUB_WORKSPACE") or config.invocation_params.dir)
    root = getattr(runner.source(result.host), "root", "")
    shown = os.path.relpath(root, workspace) if root and not result.host else root
    lines = render_github([result], root=shown).splitlines()
    return [line for line in lines if not line.startswith("::notice")]


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


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is not None:
        for runner in state.runners.values():
            runner.close()
        state.failed.clear()  # pytest's cleanup garbage-collects five times: hold no results


class ManifestFile(pytest.File):
    """A manifest, collected into one item per rule and file entry."""

    manifest: Manifest

    def load(self) -> Manifest:
        from pytest_cleantree.config.manifest import load_manifest

        return load_manifest(self.path)

    def collect(self) -> Iterator[CleanTreeItem]:
        from pytest_cleantree.config.exclusions import with_exclusions
        from pytest_cleantree.core.checks import iter_checks
        from pytest_cleantree.run.cache import default_cache_dir
        from pytest_cleantree.run.engine import default_jobs
        from pytest_cleantree.run.runner import Runner

        manifest = self.load()
        try:
            self.manifest = with_exclusions(manifest, self.config.getoption("cleantree_exclude"))
        except ValueError as exc:
            raise pytest.UsageError(f"--cleantree-exclude: {exc}") from None
        runner = Runner(
            self.manifest,
            root_override=self.config.getoption("cleantree_root"),
            override_base=self.config.invocation_params.dir,
            targets=_targets(self.config, self.manifest),
            remote=_remote_options(self.config),
            cache_dir=None if self.config.getoption("cleantree_no_cache") else default_cache_dir(),
            # under pytest-xdist the workers are the parallelism
            jobs=1 if hasattr(self.config, "workerinput") else default_jobs(),
            forks=self.config.getoption("cleantree_forks"),
        )
        self.config.stash[_STATE].runners[self.path] = runner
        for check in iter_checks(self.manifest.rules):
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

    def load(self) -> Manifest:
        from pytest_cleantree.revert.git import derive_manifest_for_revert

        return derive_manifest_for_revert(self.revision, self.config.invocation_params.dir)


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
        from pytest_cleantree.report.text import render_result, shown_root

        if excinfo.errisinstance(CleanTreeFailure):
            assert isinstance(excinfo.value, CleanTreeFailure)
            parent = self.parent
            assert isinstance(parent, ManifestFile)
            source = self.config.stash[_STATE].runners[parent.path].source(self.host)
            root = "" if self.host else getattr(source, "root", "")
            shown = shown_root(root, str(self.config.invocation_params.dir))
            return render_result(excinfo.value.result, shown)
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
