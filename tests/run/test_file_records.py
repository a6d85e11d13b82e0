"""A source answers one record per file (:class:`~pytest_cleantree.sources.base.FileRead`), and
the run passes it on whole: a fact a source adds to it reaches the analysis and the cache
with no change to ``run.check``, ``FileWork`` or the cache."""

from __future__ import annotations

import pickle
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from pytest_cleantree.core.checks import iter_checks
from pytest_cleantree.core.findings import FileAnalysis
from pytest_cleantree.core.model import Result, Rule
from pytest_cleantree.core.patterns import parse_pattern
from pytest_cleantree.run import parallel
from pytest_cleantree.run.analyses import AnalysisCache
from pytest_cleantree.run.cache import AnalysisStore
from pytest_cleantree.run.check import check_all
from pytest_cleantree.run.plan import PatternList
from pytest_cleantree.sources.base import (
    Expansion,
    FileRead,
    Needles,
    ReadAnswer,
    content_digest,
)
from pytest_cleantree.sources.local import LocalSource

RULE = Rule(id="r", files=("*.py",), forbid=(parse_pattern("sm120"),))


@dataclass(frozen=True)
class WithMode(FileRead):
    """A record with one more fact than the sources give today: the file's mode."""

    mode: str = ""


class Recorded:
    """A local tree whose every file read is given as ``record(read)`` says (no stat: every
    file is read, as from a remote source)."""

    def __init__(self, root: Path, record: type[FileRead] = FileRead, **fields: object) -> None:
        self.inner = LocalSource(root)
        self.host, self.root = "", str(root)
        self.record, self.fields = record, fields

    def expand(
        self,
        entries: Sequence[str],
        *,
        any_kind: bool = False,
        read_ahead: Mapping[str, Sequence[str]] | None = None,
    ) -> Mapping[str, Expansion]:
        return self.inner.expand(entries, any_kind=any_kind)

    def read(
        self, paths: Sequence[str], needles: Needles | None = None
    ) -> Mapping[str, ReadAnswer]:
        found = dict(self.inner.read(paths))
        for path, read in found.items():
            if isinstance(read, FileRead):
                found[path] = self.record(read.data, **self.fields)  # type: ignore[arg-type]
        return found

    def close(self) -> None:
        self.inner.close()


def _run(source: object, cache: AnalysisCache | None = None) -> Result:
    (result,) = check_all(list(iter_checks([RULE])), source, cache).values()  # type: ignore[arg-type]
    return result


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    folder = tmp_path / "tree"
    folder.mkdir()
    (folder / "a.py").write_text("import os\nsm120 = 1\n")
    return folder


def test_a_fact_a_source_adds_to_its_record_reaches_the_analysis_unchanged(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    given: list[FileRead] = []
    analyze = parallel._analyze

    def spy(item: parallel.FileWork) -> FileAnalysis:
        given.append(item.file)
        return analyze(item)

    monkeypatch.setattr(parallel, "_analyze", spy)
    result = _run(Recorded(tree, WithMode, mode="100755"))
    assert [(hit.path, hit.line) for hit in result.hits] == [("a.py", 2)]
    assert given == [WithMode(b"import os\nsm120 = 1\n", mode="100755")]
    assert type(given[0]) is WithMode


def test_the_record_crosses_to_a_worker_process_whole() -> None:
    work = parallel.FileWork(
        "a.py", WithMode(b"x = 1\n", "d" * 32, True, "100644"), PatternList(()), False
    )
    assert pickle.loads(pickle.dumps(work)) == work
    assert work.data == b"x = 1\n"


class Keys(AnalysisStore):
    """A store that records the digest each analysis is put under."""

    def __init__(self, folder: Path) -> None:
        super().__init__(folder)
        self.put_as: list[tuple[str, str]] = []

    def put(self, pack: str, path: str, digest: str, analysis: FileAnalysis) -> None:
        self.put_as.append((path, digest))
        super().put(pack, path, digest, analysis)


def test_the_digest_a_source_holds_keys_the_store_and_is_the_contents_own(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = (tree / "a.py").read_bytes()
    # a source that holds the digest (the SSH source's kept content): the store is keyed by it
    store = Keys(tmp_path / "cache")
    _run(Recorded(tree, digest="f" * 32), AnalysisCache(store))
    assert store.put_as == [("a.py", "f" * 32)]
    # one that does not: by the content's digest, the same a source holding it gives
    store = Keys(tmp_path / "cache")
    cold = _run(Recorded(tree), AnalysisCache(store))
    assert store.put_as == [("a.py", content_digest(data))]
    assert FileRead(data).content_digest() == content_digest(data)
    # so a run given the digest reads the entry a run that hashed wrote, and agrees
    monkeypatch.setattr(
        "pytest_cleantree.analysis.analyze",
        lambda path, *a, **k: pytest.fail("analysed again"),
    )
    warm = _run(
        Recorded(tree, digest=content_digest(data)), AnalysisCache(Keys(tmp_path / "cache"))
    )
    assert warm.hits == cold.hits
    assert [(hit.path, hit.line) for hit in warm.hits] == [("a.py", 2)]


def test_a_source_that_answers_no_record_is_an_error_never_a_pass(tree: Path) -> None:
    class Bare(Recorded):
        def read(
            self, paths: Sequence[str], needles: Needles | None = None
        ) -> Mapping[str, ReadAnswer]:
            return {path: read.data for path, read in super().read(paths).items()}  # type: ignore[misc, union-attr]

    result = _run(Bare(tree))
    assert not result.ok
    assert [str(problem) for problem in result.problems] == [
        "a.py: the source answered bytes, not a file read"
    ]
