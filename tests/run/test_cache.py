"""The persistent analysis cache: a warm run reads answers, a changed file is analysed again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_cleantree.core.checks import iter_checks
from pytest_cleantree.core.model import Rule
from pytest_cleantree.core.patterns import parse_pattern
from pytest_cleantree.run.analyses import AnalysisCache
from pytest_cleantree.run.cache import AnalysisStore
from pytest_cleantree.run.check import check_all
from pytest_cleantree.sources.local import LocalSource


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
        "pytest_cleantree.analysis.analyze",
        lambda path, *a, **k: calls.append(path),  # would crash the run if it were used
    )
    assert lines(tree, AnalysisCache(AnalysisStore(tmp_path / "cache"))) == cold
    assert calls == []  # every answer came from the store, as a new run reads it


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
    next_run = AnalysisStore(tmp_path / "cache")
    assert lines(tree, AnalysisCache(next_run)) == expected
    assert all(json.loads(entry.read_text()) for entry in entries)  # rewritten


def test_parallel_analysis_agrees_with_serial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pytest_cleantree.run.parallel.PARALLEL_MIN_BYTES", 0)
    tree = tmp_path / "many"
    tree.mkdir()
    for index in range(80):  # the workers prefilter too: a third spell nothing
        body = f"if sm120_{index}:\n    pass\n" if index % 3 else "sm12 = 0\n"
        (tree / f"m{index}.py").write_text(f"x = {index}\n{body}")
    serial = lines(tree, AnalysisCache(jobs=1))
    assert len(serial) == 53
    import pytest_cleantree.run.parallel as engine

    batches: list[int] = []
    real = engine._parallel

    def recorded(items: list[engine.FileWork], jobs: int) -> list[engine.FileAnalysis]:
        batches.append(len(items))
        return real(items, jobs)

    monkeypatch.setattr(engine, "_parallel", recorded)
    assert lines(tree, AnalysisCache(jobs=2)) == serial
    assert batches == [80], "every file went to the workers"


def test_a_tree_with_little_to_parse_starts_no_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Workers pay for their start only where files will be parsed: a guess from the bytes."""
    import pytest_cleantree.run.parallel as engine

    monkeypatch.setattr(engine, "PARALLEL_MIN_BYTES", 2000)
    tree = tmp_path / "many"
    tree.mkdir()
    for index in range(80):  # 80 files of 100 bytes, 5 of which spell the needle
        body = "sm120()\n" if index % 16 == 0 else "pass\n"
        (tree / f"m{index}.py").write_text(body.ljust(100, "#"))
    started: list[int] = []
    monkeypatch.setattr(engine, "_parallel", lambda items, jobs: started.append(1))
    assert len(lines(tree, AnalysisCache(jobs=2))) == 5
    assert started == []


def test_a_pack_keeps_one_entry_per_path_and_merges_with_a_concurrent_run(
    tree: Path, tmp_path: Path
) -> None:
    first, second = AnalysisStore(tmp_path / "cache"), AnalysisStore(tmp_path / "cache")
    lines(tree, AnalysisCache(first))
    (tree / "c.py").write_text("sm120()\n")
    lines(tree, AnalysisCache(second))  # adds c.py
    (tree / "a.py").write_text("x = sm120\n")
    lines(tree, AnalysisCache(first))  # its in-memory pack predates c.py: merged, not lost
    (pack,) = [p for p in (tmp_path / "cache").rglob("*.json")]
    entries = json.loads(pack.read_text())
    assert sorted(entries) == ["a.py", "b.py", "c.py"]
    assert lines(tree, AnalysisCache(AnalysisStore(tmp_path / "cache"))) == [
        ("a.py", 1, "x = sm120"),
        ("c.py", 1, "sm120()"),
    ]


def test_the_cache_key_covers_every_module_the_analysis_loads() -> None:
    """Move a scanner helper to a new module and the key must still change with it.

    The key's files are found by following imports statically; Python's own
    import of the analysis (in a fresh interpreter) is the oracle.
    """
    import json
    import subprocess
    import sys

    from pytest_cleantree.run.cache import findings_code

    probe = (
        "import json, sys, pytest_cleantree.analysis as a\n"
        "a.analyze('m.py', b'import os\\nos.path.join(sm120)\\n', [])\n"
        "print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items()"
        " if n.startswith('pytest_cleantree') and getattr(m, '__file__', None))))"
    )
    loaded = json.loads(
        subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True
        ).stdout
    )
    keyed = {str(path) for path in findings_code()}
    assert loaded, "the probe saw no module"
    assert set(loaded) <= keyed


def test_the_cache_key_names_the_astroid_that_resolves_without_importing_it() -> None:
    """A new astroid may resolve otherwise: its version is in the key, read from its files."""
    import subprocess
    import sys

    probe = (
        "import sys; from pytest_cleantree.run.cachedir import _which_astroid; "
        "text = _which_astroid(); print('astroid' in sys.modules); print(text)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    imported, text = out.split("\n", 1)
    assert imported == "False"
    import astroid

    assert f'"{astroid.__version__}"' in text


def test_the_stars_key_is_the_key_of_what_the_mapping_holds() -> None:
    """Keyed once per mapping (issue 44), yet two mappings alike share a key and a changed
    one does not (the key is part of every analysis' store key: a stale one is a false
    answer)."""
    from pytest_cleantree.run.analyses import _stars_key

    one = {"m": frozenset({"a", "b"})}
    assert _stars_key(one) == _stars_key(one) == _stars_key({"m": frozenset({"b", "a"})})
    assert _stars_key(one) != _stars_key({"m": frozenset({"a"})})
