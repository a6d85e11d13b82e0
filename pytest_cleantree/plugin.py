"""The pytest adapter: ``pytest --cleantree`` and the ``cleantree`` fixture.

Inert unless ``--cleantree`` is given: without it, no hook does anything but
register the option, the marker and the fixture, and nothing heavy (astroid,
paramiko) is imported.  Items are collected from the manifest alone (one per
rule and entry), so node ids do not depend on the tree's state; files are
read and analysed when items run.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_cleantree.errors import CleanTreeError

if TYPE_CHECKING:
    from pytest_cleantree.engine import Check
    from pytest_cleantree.fixture import CleanTree
    from pytest_cleantree.model import Manifest, Result
    from pytest_cleantree.runner import Runner


class _State:
    """Per-run state, kept in ``config.stash``."""

    def __init__(self, manifest_path: Path | None) -> None:
        self.manifest_path = manifest_path
        self.runners: dict[Path, Runner] = {}


_STATE = pytest.StashKey[_State]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("cleantree", "check that reverted symbols are gone (pytest-cleantree)")
    group.addoption(
        "--cleantree",
        action="store_true",
        default=False,
        help="check the tree against the cleantree manifest (cleantree.toml or "
        "[tool.cleantree] in pyproject.toml)",
    )
    group.addoption(
        "--cleantree-manifest",
        metavar="PATH",
        default=None,
        help="the manifest to check (default: cleantree.toml, else pyproject.toml, in the "
        "current folder)",
    )
    group.addoption(
        "--cleantree-root",
        metavar="DIR",
        default=None,
        help="check this folder instead of the manifest's root (relative to the current folder)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "cleantree: a pytest-cleantree check collected from a manifest"
    )
    if not config.getoption("cleantree"):
        return
    manifest_path = _selected_manifest(config)
    config.stash[_STATE] = _State(manifest_path)
    if manifest_path is not None and not _covered_by_args(config, manifest_path):
        config.args.append(str(manifest_path))


def _selected_manifest(config: pytest.Config) -> Path | None:
    from pytest_cleantree.manifest import find_manifest

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
    found = find_manifest(invocation)
    if found is None:
        raise pytest.UsageError(
            f"--cleantree: no cleantree.toml (or pyproject.toml with [tool.cleantree]) in "
            f"{invocation}; pass the manifest's path, or --cleantree-manifest PATH"
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
        return ManifestFile.from_parent(parent, path=file_path)
    return None


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is not None:
        for runner in state.runners.values():
            runner.close()


class ManifestFile(pytest.File):
    """A manifest, collected into one item per rule and file entry."""

    manifest: Manifest

    def collect(self) -> Iterator[CleanTreeItem]:
        from pytest_cleantree.engine import iter_checks
        from pytest_cleantree.manifest import load_manifest
        from pytest_cleantree.runner import Runner

        self.manifest = load_manifest(self.path)
        state = self.config.stash[_STATE]
        root = self.config.getoption("cleantree_root")
        if root is not None:
            root = str((self.config.invocation_params.dir / root).resolve())
        state.runners[self.path] = Runner(self.manifest, root_override=root)
        for check in iter_checks(self.manifest.rules):
            name = f"{check.rule.id}[{check.label}]"
            item = CleanTreeItem.from_parent(self, name=name, check=check)
            item.add_marker("cleantree")
            yield item

    def repr_failure(  # type: ignore[override, unused-ignore]
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str:
        if excinfo.errisinstance(CleanTreeError):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))


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
        runner = self.config.stash[_STATE].runners[parent.path]
        siblings = [
            item.check
            for item in self.session.items
            if isinstance(item, CleanTreeItem) and item.parent is parent and item.host == self.host
        ]
        result = runner.run(siblings or [self.check], self.host)[self.check]
        if not result.ok:
            raise CleanTreeFailure(result)

    def repr_failure(  # type: ignore[override, unused-ignore]
        self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None
    ) -> str:
        from pytest_cleantree.report import render_result

        if excinfo.errisinstance(CleanTreeFailure):
            assert isinstance(excinfo.value, CleanTreeFailure)
            return render_result(excinfo.value.result)
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
    from pytest_cleantree.fixture import CleanTree

    return CleanTree(request.config.rootpath)
