"""The persistent analysis cache: a warm run reads answers, a changed file is analysed again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_cleantree.engine import AnalysisCache, check_all, iter_checks
from pytest_cleantree.model import Rule
from pytest_cleantree.patterns import parse_pattern
from pytest_cleantree.sources.local import LocalSource
from pytest_cleantree.store import AnalysisStore


def lines(tree: Path, cache: AnalysisCache) -> list[tuple[str, int, str]]:
    rule = Rule(id="r", files=("*.py",), forbid=(parse_pattern("sm120"),))
    (result,) = check_all(list(iter_checks([rule])), LocalSource(tree), cache).values()
    return [(hit.path, hit.line, hit.source) for hit in result.hits]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    folder = tmp_path / "tree"
    folder.mkdir()
    (folder / "a.py").write_text("import os\nif sm120:\n    pass\n")
    (folder / "b.py").write_text("x = 1\n")
    return folder


def test_a_warm_run_reads_the_store_and_agrees(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = AnalysisStore(tmp_path / "cache")
    cold = lines(tree, AnalysisCache(store))
    assert cold == [("a.py", 2, "if sm120:")]
    calls: list[str] = []
    monkeypatch.setattr(
        "pytest_cleantree.engine.analyze",
        lambda path, *a, **k: calls.append(path),  # would crash the run if it were used
    )
    assert lines(tree, AnalysisCache(store)) == cold
    assert calls == []  # every answer came from the store


def test_a_changed_file_is_analysed_again(tree: Path, tmp_path: Path) -> None:
    store = AnalysisStore(tmp_path / "cache")
    assert lines(tree, AnalysisCache(store)) == [("a.py", 2, "if sm120:")]
    (tree / "a.py").write_text("import os\n\n\nsm120 = 1\n")
    assert lines(tree, AnalysisCache(store)) == [("a.py", 4, "sm120 = 1")]


def test_a_corrupt_entry_is_ignored(tree: Path, tmp_path: Path) -> None:
    store = AnalysisStore(tmp_path / "cache")
    expected = lines(tree, AnalysisCache(store))
    entries = [p for p in store.folder.rglob("*") if p.is_file()]
    assert entries
    for entry in entries:
        entry.write_text("{not json")
    assert lines(tree, AnalysisCache(store)) == expected
    assert all(json.loads(entry.read_text()) for entry in entries)  # rewritten


def test_parallel_analysis_agrees_with_serial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pytest_cleantree.engine.PARALLEL_MIN_BYTES", 0)
    tree = tmp_path / "many"
    tree.mkdir()
    for index in range(80):
        (tree / f"m{index}.py").write_text(f"x = {index}\nif sm120_{index}:\n    pass\n")
    serial = lines(tree, AnalysisCache(jobs=1))
    assert len(serial) == 80
    assert lines(tree, AnalysisCache(jobs=2)) == serial
