"""The symbol graph's per-file parts persist by content: a warm qualified run parses no module."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_cleantree.names import modules_to_read, spellings
from pytest_cleantree.names.modules import name_tree
from pytest_cleantree.names.spellings import pattern_spellings
from pytest_cleantree.run.cache import AnalysisStore
from pytest_cleantree.run.graphstore import StoredGraph
from pytest_cleantree.sources.local import LocalSource

TREE = {
    "pkg/__init__.py": "from .core import f\n",
    "pkg/core.py": "def f():\n    pass\n",
    "pkg/other.py": "from pkg import f\n",
    "use.py": "from pkg.other import f\n\nf()\n",
}
PATTERN = "pkg.core.f"
#: ``use.f`` is a spelling no import of the tree reaches: not asked for
SPELLINGS = {"pkg.core.f", "pkg.f", "pkg.other.f"}


def spelt(root: Path, store: AnalysisStore) -> frozenset[str]:
    source = LocalSource(root)
    naming = name_tree(source, sorted(TREE), ())
    found = pattern_spellings(source, [PATTERN], naming.bases, naming.tree, StoredGraph(store))
    store.flush()
    return found.names[PATTERN]


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files written just now count as settled (their ctime is now: racy by default)."""
    monkeypatch.setattr("pytest_cleantree.run.cache.RACY_NS", 0)


def test_a_warm_run_parses_nothing_and_finds_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, settled: None
) -> None:
    root = tmp_path / "tree"
    for name, text in TREE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
        os.utime(root / name, (1_000_000_000, 1_000_000_000))
    cold = spelt(root, AnalysisStore(tmp_path / "cache"))
    assert cold == SPELLINGS

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("a warm run parsed a module")

    monkeypatch.setattr(modules_to_read, "parse_module_exports", refuse)
    monkeypatch.setattr(modules_to_read, "import_summary", refuse)
    monkeypatch.setattr(spellings, "parse_module_exports", refuse)
    assert spelt(root, AnalysisStore(tmp_path / "cache")) == cold


def test_a_changed_file_is_read_again(tmp_path: Path, settled: None) -> None:
    root = tmp_path / "tree"
    for name, text in TREE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
        os.utime(root / name, (1_000_000_000, 1_000_000_000))
    assert spelt(root, AnalysisStore(tmp_path / "cache")) == SPELLINGS
    (root / "pkg/other.py").write_text("from pkg import f as g\n", encoding="utf-8")
    (root / "use.py").write_text("from pkg.other import g\n\ng()\n", encoding="utf-8")
    expected = SPELLINGS - {"pkg.other.f"} | {"pkg.other.g"}
    assert spelt(root, AnalysisStore(tmp_path / "cache")) == expected
