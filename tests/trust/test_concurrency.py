"""Concurrency: xdist workers, simultaneous runs and a shared analysis cache agree.

The tree is a copy of seven standard-library packages (about 100 files, 1.7 MB); the
manifest has a glob entry per package in each rule, so that ``pytest -n 2`` spreads
sixteen items over two workers, each of which reads and analyses the tree on its own.

* ``pytest --cleantree`` serially without a cache, with ``-n 2`` on an empty shared cache
  (both workers writing the same entries at once), then serially from the warm cache:
  every item has the same outcome and the same failure text.
* The CLI alone without a cache, then two CLI runs started together on an empty shared
  cache (each also parsing in worker processes: ``--jobs``), then a run from the warm
  cache, then one after every cache entry was cut in half: the same JSON every time, no
  half-written entry left behind.

The tree is unchanged after all of it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path

import pytest

from pytest_cleantree.run.cachedir import CACHE_ENV

Snapshot = Callable[[Path], dict[str, tuple[bytes, int]]]
PACKAGES = ("json", "email", "asyncio", "importlib", "logging", "http", "urllib")
PYTEST = (sys.executable, "-m", "pytest", "--cleantree", "-q", "-p", "no:cacheprovider")
PYTEST_PLUGINS_OFF = ("-p", "no:benchmark")


@pytest.fixture(scope="module")
def stdlib_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("concurrency")
    tree = folder / "tree"
    for package in PACKAGES:
        origin = Path(__import__(package).__file__).parent  # type: ignore[arg-type]
        shutil.copytree(origin, tree / package, ignore=shutil.ignore_patterns("__pycache__"))
    globs = ", ".join(f'"{package}/**/*.py"' for package in PACKAGES)
    (folder / "cleantree.toml").write_text(
        'root = "tree"\n'
        f'[[rule]]\nid = "names"\nfiles = [{globs}]\n'
        'forbid = ["encode", "_parse*", "re:^Message$"]\n'
        f'[[rule]]\nid = "all"\nfiles = [{globs}]\nexpect = ["__all__"]\n'
        '[[rule]]\nid = "gone"\nabsent = ["json/tool.py", "json/gone.py"]\n'
    )
    return folder


def cache_env(cache: Path | None) -> dict[str, str]:
    """This environment with the analysis cache in ``cache`` (None: no cache at all)."""
    return {**os.environ, CACHE_ENV: "" if cache is None else str(cache)}


def cache_entries(cache: Path) -> list[Path]:
    return [path for path in cache.rglob("*") if path.is_file()]


def junit_report(
    folder: Path, cache: Path | None, *extra: str
) -> dict[tuple[str, str], tuple[str, str]]:
    """Each item's (outcome, failure text), from pytest's JUnit XML."""
    report = folder / "report.xml"
    completed = subprocess.run(
        [*PYTEST, *PYTEST_PLUGINS_OFF, f"--junitxml={report}", *extra],
        capture_output=True,
        text=True,
        cwd=folder,
        env=cache_env(cache),
        timeout=300,
        check=False,
    )
    assert completed.returncode == 1, completed.stdout[-3000:] + completed.stderr
    found: dict[tuple[str, str], tuple[str, str]] = {}
    for case in ElementTree.parse(report).iter("testcase"):
        failure = case.find("failure")
        outcome = ("failed", failure.text or "") if failure is not None else ("passed", "")
        found[(case.get("classname", ""), case.get("name", ""))] = outcome
    report.unlink()
    return found


@pytest.mark.slow
def test_xdist_serial_and_cached_runs_give_identical_reports(
    stdlib_tree: Path, tmp_path: Path, snapshot: Snapshot
) -> None:
    before = snapshot(stdlib_tree / "tree")
    cache = tmp_path / "cache"
    serial = junit_report(stdlib_tree, None)
    assert junit_report(stdlib_tree, cache, "-n", "2") == serial
    assert cache_entries(cache), "the workers wrote no cache entry"
    assert junit_report(stdlib_tree, cache) == serial
    outcomes = [outcome for outcome, _ in serial.values()]
    assert len(serial) == 2 * len(PACKAGES) + 2
    assert outcomes.count("failed") >= 10
    assert outcomes.count("passed") >= 3
    assert any("json/encoder.py:" in text for _, text in serial.values())
    assert snapshot(stdlib_tree / "tree") == before


def cli_json(folder: Path, cache: Path | None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pytest_cleantree", "check", "--format", "json", "--jobs", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=folder,
        env=cache_env(cache),
    )


def finish(process: subprocess.Popen[str]) -> str:
    try:
        out, err = process.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise
    assert process.returncode == 1, err
    assert "Traceback" not in err
    return out


@pytest.mark.slow
def test_two_cli_runs_at_once_on_one_cache_print_what_one_run_alone_prints(
    stdlib_tree: Path, tmp_path: Path, snapshot: Snapshot
) -> None:
    before = snapshot(stdlib_tree / "tree")
    cache = tmp_path / "cache"
    alone = finish(cli_json(stdlib_tree, None))
    assert '"hits": ' in alone
    first, second = cli_json(stdlib_tree, cache), cli_json(stdlib_tree, cache)
    assert [finish(first), finish(second)] == [alone, alone]
    entries = cache_entries(cache)
    assert entries
    assert not [entry for entry in entries if entry.name.startswith(".tmp-")]
    assert finish(cli_json(stdlib_tree, cache)) == alone  # warm
    for entry in entries:
        entry.write_bytes(entry.read_bytes()[: entry.stat().st_size // 2])
    assert finish(cli_json(stdlib_tree, cache)) == alone  # every entry damaged
    assert snapshot(stdlib_tree / "tree") == before
