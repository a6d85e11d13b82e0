"""Fixtures shared by the plugin and CLI suites: a private copy of the runnable example,
the rows its story must produce, and a snapshot to prove a run changed nothing."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import pytest
from needs import in_ci

from pytest_cleantree.run.cachedir import CACHE_ENV

#: the marked tiers: a test file's folder under tests/ says which one it belongs to
TIERS = ("trust", "integration", "examples", "oracle")


#: ``CLEANTREE_SLOW=1`` runs the slow tier in a plain ``pytest`` (CI always runs it)
SLOW_ENV = "CLEANTREE_SLOW"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with its tier (``pytest -m integration``), from its folder alone; leave
    the slow tier out of a plain run (see :func:`runs_slow`), deselected out loud."""
    here = Path(__file__).parent
    for item in items:
        try:
            folder = item.path.relative_to(here).parts[0]
        except ValueError:  # pytester's inner sessions collect files outside tests/
            continue
        if folder in TIERS:
            item.add_marker(folder)
    if runs_slow(config):
        return
    slow = [item for item in items if item.get_closest_marker("slow")]
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if not item.get_closest_marker("slow")]


def runs_slow(config: pytest.Config) -> bool:
    """Does this run include the slow tier?  Under CI always; else with ``CLEANTREE_SLOW=1``,
    or when ``-m`` chooses the tests itself (``-m slow`` runs exactly them)."""
    return in_ci() or os.environ.get(SLOW_ENV) == "1" or bool(config.option.markexpr)


def pytest_report_header(config: pytest.Config) -> str:
    """Say which tiers this run holds: a left-out tier is never silent."""
    if runs_slow(config):
        return "cleantree tests: every tier (slow included)"
    return (
        f"cleantree tests: the slow tier is left out (deselected below); {SLOW_ENV}=1 or "
        "CI=true runs it, -m slow runs only it"
    )


@pytest.fixture(autouse=True, scope="session")
def _private_analysis_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Every run in the suite, subprocesses included, caches analyses in a temporary folder."""
    previous = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(tmp_path_factory.mktemp("analysis-cache"))
    yield
    if previous is None:
        del os.environ[CACHE_ENV]
    else:
        os.environ[CACHE_ENV] = previous


#: The example the README tells: a manifest, a partially reverted tree and a fixed one.
EXAMPLE = Path(__file__).resolve().parent.parent / "pytest_cleantree" / "examples" / "sm120"

#: The lines a complete revert must remove, as read from the example's partial-revert tree by
#: hand (``grep -n sm120``): (path under the root, 1-based line, kinds as the report joins them).
STORY_ROWS = frozenset(
    {
        ("srt/layers/communicator.py", 15, "import"),
        ("srt/layers/communicator.py", 24, "assignment,call"),
        ("srt/layers/communicator.py", 53, "condition"),
        ("srt/server_args.py", 17, "import"),
        ("srt/server_args.py", 46, "condition"),
    }
)

# "partial-revert/python/sglang/srt/server_args.py:46:8  condition  if ...": a remaining line
# as every front end prints it (path relative to the current folder, line, 1-based column).
_ROW = re.compile(
    r"^(?P<path>\S+?):(?P<line>\d+)(?::\d+)? +(?P<kinds>[a-z]+(?:,[a-z]+)*)(?: {2}|$)"
)
#: the folder of the example's trees, as the path printed starts (dropped: rows are root-relative)
_EXAMPLE_ROOT = re.compile(r"^(?:\S*/)?python/sglang/")

Row = tuple[str, int, str]
Snapshot = dict[str, tuple[bytes, int]]


@pytest.fixture(scope="session")
def example_source() -> Path:
    """The example in the repository (never run in place: tests use a copy)."""
    assert (EXAMPLE / "cleantree.toml").is_file(), f"the example is missing: {EXAMPLE}"
    return EXAMPLE


@pytest.fixture
def example_tree(tmp_path: Path, example_source: Path) -> Path:
    """A fresh copy of ``pytest_cleantree/examples/sm120``; the returned folder holds its
    ``cleantree.toml``."""
    return Path(shutil.copytree(example_source, tmp_path / "sm120"))


@pytest.fixture(scope="session")
def story_rows(example_source: Path) -> frozenset[Row]:
    """The five rows of the story, after checking that the example still says what they say."""
    tree = example_source / "partial-revert" / "python" / "sglang"
    for path in {path for path, _, _ in STORY_ROWS}:
        lines = (tree / path).read_text(encoding="utf-8").splitlines()
        by_grep = {number for number, text in enumerate(lines, 1) if "sm120" in text}
        expected = {line for row_path, line, _ in STORY_ROWS if row_path == path}
        assert by_grep == expected, f"the example's {path} changed: update STORY_ROWS"
    return STORY_ROWS


def parse_rows(lines: Iterable[str]) -> set[Row]:
    """Every ``path:line:col  kinds`` row in some output lines, its path relative to the
    example's root (``python/sglang``) when it is under one."""
    rows: set[Row] = set()
    for text in lines:
        found = _ROW.match(text)
        if found:
            path = _EXAMPLE_ROOT.sub("", found["path"])
            rows.add((path, int(found["line"]), found["kinds"]))
    return rows


@pytest.fixture(scope="session")
def rows_in() -> Callable[[Iterable[str]], set[Row]]:
    """``rows_in(lines)``: the ``path:line  kinds`` rows printed in ``lines``."""
    return parse_rows


def take_snapshot(root: Path) -> Snapshot:
    """Everything under ``root``: each file's bytes and each entry's modification time (ns).

    Folders are keyed with a trailing ``/``: a file added or removed changes their mtime.
    """
    found: Snapshot = {}
    for path in sorted(root.rglob("*")):
        name = path.relative_to(root).as_posix()
        if path.is_dir():
            found[name + "/"] = (b"", path.stat().st_mtime_ns)
        else:
            found[name] = (path.read_bytes(), path.stat().st_mtime_ns)
    return found


@pytest.fixture(scope="session")
def snapshot() -> Callable[[Path], Snapshot]:
    """``snapshot(root)``: bytes and mtimes of every file under ``root``, to compare after a run."""
    return take_snapshot
