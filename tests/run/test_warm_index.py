"""A warm local run trusts a file's stat instead of reading it, and only when that is sound.

Reads are counted through a wrapper source, never timed.  A file's stat is
trusted when device, inode, size, mtime and ctime are as recorded; a file
seen within two seconds of its last change is never recorded (git's racy rule).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from pytest_cleantree.core.checks import iter_checks
from pytest_cleantree.core.model import Result, Rule
from pytest_cleantree.core.patterns import parse_pattern
from pytest_cleantree.run.analyses import AnalysisCache
from pytest_cleantree.run.cache import AnalysisStore
from pytest_cleantree.run.check import check_all
from pytest_cleantree.sources.base import Expansion, FileStat, Needles, ReadAnswer
from pytest_cleantree.sources.local import LocalSource

HOUR_AGO = time.time() - 3600
#: a racy window no run outlasts, and a time well before it
A_DAY_NS = 86_400 * 10**9
TEN_DAYS_AGO = time.time() - 10 * 86_400


class Counting:
    """A local source that records every path it reads; ``stat`` as given (or none at all)."""

    host = ""

    def __init__(self, root: Path, *, stat: bool = True, ctime_blind: bool = False) -> None:
        self.inner = LocalSource(root)
        self.root = self.inner.root
        self.reads: list[str] = []
        self.ctime_blind = ctime_blind
        if stat:
            self.stat_many = self._stat_many

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
        self.reads += paths
        return self.inner.read(paths)

    def _stat_many(self, paths: Sequence[str]) -> dict[str, FileStat]:
        stats = self.inner.stat_many(paths)
        if self.ctime_blind:  # a file system whose rewrite within one tick keeps every stamp
            return {path: (*stat[:4], 0) for path, stat in stats.items()}
        return stats

    def close(self) -> None:
        self.inner.close()


RULES = [
    Rule(id="r", files=("**/*.py",), forbid=(parse_pattern("sm120"),)),
    Rule(id="t", files=("notes.txt",), forbid=(parse_pattern("sm120"),)),
]


def run(source: Counting | LocalSource, cache: AnalysisCache) -> dict[str, Result]:
    results = check_all(list(iter_checks(RULES)), source, cache)
    return {check.label + check.rule.id: result for check, result in results.items()}


def hits(results: Mapping[str, Result]) -> list[tuple[str, int, str]]:
    return sorted((h.path, h.line, h.source) for r in results.values() for h in r.hits)


def write(path: Path, text: str, *, when: float | None = HOUR_AGO) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    if when is not None:
        os.utime(path, (when, when))


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tree's files count as settled: their mtime is an hour back, but ``utime`` set their
    ctime to now, which no call can put back (the racy test keeps the real rule)."""
    monkeypatch.setattr("pytest_cleantree.run.cache.RACY_NS", 0)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    folder = tmp_path / "tree"
    write(folder / "a.py", "import os\nif sm120:\n    pass\n")
    write(folder / "pkg" / "b.py", "x = 1\n")
    write(folder / "bad.py", "def (:\n")  # a problem, kept as such
    write(folder / "notes.txt", "sm120 on the notes\n")
    return folder


def store(tmp_path: Path) -> AnalysisStore:
    return AnalysisStore(tmp_path / "cache")


def test_a_warm_run_with_nothing_changed_reads_no_file_and_agrees_with_a_cold_one(
    tree: Path, tmp_path: Path, settled: None
) -> None:
    cold = run(LocalSource(tree), AnalysisCache())  # no store at all
    first = Counting(tree)
    assert run(first, AnalysisCache(store(tmp_path))) == cold
    assert sorted(first.reads) == ["a.py", "bad.py", "notes.txt", "pkg/b.py"]
    warm = Counting(tree)
    assert run(warm, AnalysisCache(store(tmp_path))) == cold
    assert warm.reads == []
    assert hits(cold) == [("a.py", 2, "if sm120:"), ("notes.txt", 1, "sm120 on the notes")]


def test_a_warm_run_after_an_edit_reads_only_the_edited_file(
    tree: Path, tmp_path: Path, settled: None
) -> None:
    run(Counting(tree), AnalysisCache(store(tmp_path)))
    write(tree / "pkg" / "b.py", "x = sm120\n")
    warm = Counting(tree)
    assert hits(run(warm, AnalysisCache(store(tmp_path)))) == [
        ("a.py", 2, "if sm120:"),
        ("notes.txt", 1, "sm120 on the notes"),
        ("pkg/b.py", 1, "x = sm120"),
    ]
    assert warm.reads == ["pkg/b.py"]


def test_a_same_size_rewrite_with_its_mtime_put_back_is_read(
    tree: Path, tmp_path: Path, settled: None
) -> None:
    """Size, inode and mtime as before: only the ctime tells, and it must be enough."""
    run(Counting(tree), AnalysisCache(store(tmp_path)))
    target = tree / "a.py"
    before = target.stat()
    with open(target, "r+b") as handle:  # in place: the inode stays
        handle.write(b"import os\nif sm121:\n    pass\n")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = target.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )
    warm = Counting(tree)
    assert hits(run(warm, AnalysisCache(store(tmp_path)))) == [
        ("notes.txt", 1, "sm120 on the notes")
    ]
    assert warm.reads == ["a.py"]


def rewrite_keeping_stat(target: Path) -> None:
    before = target.stat()
    with open(target, "r+b") as handle:
        handle.write(b"import os\nif sm121:\n    pass\n")
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))


def test_a_file_changed_within_two_seconds_of_being_seen_is_read_again(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The racy case: a rewrite in the same timestamp tick keeps every stamp, ctime too.

    A ctime-blind stat stands for such a file system.  A file just written is
    not trusted on the next run; the same file older than the window is (the control:
    it is the racy rule, not luck, that makes the first read again).  The window is a
    day here, so that "just written" does not depend on how fast the machine runs.
    """
    monkeypatch.setattr("pytest_cleantree.run.cache.RACY_NS", A_DAY_NS)
    for path in tree.rglob("*"):
        if path.is_file():
            os.utime(path, (TEN_DAYS_AGO, TEN_DAYS_AGO))
    write(tree / "a.py", "import os\nif sm120:\n    pass\n", when=None)  # changed just now
    run(Counting(tree, ctime_blind=True), AnalysisCache(store(tmp_path)))
    rewrite_keeping_stat(tree / "a.py")
    racy = Counting(tree, ctime_blind=True)
    assert hits(run(racy, AnalysisCache(store(tmp_path)))) == [
        ("notes.txt", 1, "sm120 on the notes")
    ]
    assert racy.reads == ["a.py"]

    write(tree / "old.py", "import os\nif sm120:\n    pass\n", when=TEN_DAYS_AGO)
    run(Counting(tree, ctime_blind=True), AnalysisCache(store(tmp_path)))
    rewrite_keeping_stat(tree / "old.py")
    settled = Counting(tree, ctime_blind=True)
    run(settled, AnalysisCache(store(tmp_path)))
    assert "old.py" not in settled.reads  # trusted: only the racy rule protected a.py


def test_a_source_without_stat_is_read_in_full(tree: Path, tmp_path: Path) -> None:
    """A remote source has no ``stat_many``: its stat is never trusted."""
    run(Counting(tree, stat=False), AnalysisCache(store(tmp_path)))
    warm = Counting(tree, stat=False)
    run(warm, AnalysisCache(store(tmp_path)))
    assert sorted(warm.reads) == ["a.py", "bad.py", "notes.txt", "pkg/b.py"]


def test_the_index_is_per_host(
    tree: Path, tmp_path: Path, settled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(Counting(tree), AnalysisCache(store(tmp_path)))
    monkeypatch.setattr("socket.gethostname", lambda: "another-host")
    elsewhere = Counting(tree)
    run(elsewhere, AnalysisCache(store(tmp_path)))
    assert sorted(elsewhere.reads) == ["a.py", "bad.py", "notes.txt", "pkg/b.py"]


def test_the_index_is_never_in_the_checked_tree(tree: Path, tmp_path: Path, settled: None) -> None:
    before = sorted(p.relative_to(tree) for p in tree.rglob("*"))
    run(Counting(tree), AnalysisCache(store(tmp_path)))
    assert sorted(p.relative_to(tree) for p in tree.rglob("*")) == before
    assert list((tmp_path / "cache").rglob("*.index"))


@pytest.mark.slow
def test_a_warm_cli_run_sees_an_edit(tmp_path: Path) -> None:
    """The real command, twice on one cache: the second run after a same-size edit."""
    tree = tmp_path / "project"
    write(tree / "cleantree.toml", '[[rule]]\nid = "r"\nfiles = ["**/*.py"]\nforbid = ["sm120"]\n')
    write(tree / "m.py", "x = 1\ny = sm120\n")
    time.sleep(2.1)  # past the racy window of the files' ctime (set now by utime): recorded
    env = {**os.environ, "CLEANTREE_CACHE_DIR": str(tmp_path / "cache")}

    def check() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pytest_cleantree", "check"],
            cwd=tree,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    first = check()
    assert first.returncode == 1, first.stdout + first.stderr
    assert "m.py:2" in first.stdout
    (index,) = (tmp_path / "cache").rglob("*.index")
    assert "m.py" in index.read_text()  # the next run may trust it: only the ctime tells
    before = (tree / "m.py").stat()
    (tree / "m.py").write_text("y = sm120\nx = 1\n")  # same size, the hit moves
    os.utime(tree / "m.py", ns=(before.st_atime_ns, before.st_mtime_ns))
    second = check()
    assert second.returncode == 1, second.stdout + second.stderr
    assert "m.py:1" in second.stdout
    assert "m.py:2" not in second.stdout


@pytest.mark.slow
def test_a_closed_runner_holds_no_analysis_and_reads_again_from_disk(
    tree: Path, tmp_path: Path, settled: None
) -> None:
    """pytest ends a session with five full garbage collections: a closed runner must not
    keep 20,000 findings alive through them.  What it let go of is read back from disk."""
    import gc

    from pytest_cleantree.analysis import Finding
    from pytest_cleantree.core.model import Manifest
    from pytest_cleantree.run.runner import Runner

    def findings_alive() -> int:
        gc.collect()
        return sum(isinstance(o, Finding) for o in gc.get_objects())

    before = findings_alive()
    manifest = Manifest(str(tree / "cleantree.toml"), ".", tuple(RULES))
    runner = Runner(manifest, cache_dir=tmp_path / "cache")
    checks = list(iter_checks(RULES))
    first = runner.run(checks)
    assert findings_alive() > before
    runner.close()
    assert findings_alive() == before
    assert runner.run(checks) == first  # a closed runner may be used again


def test_stat_answers_only_for_regular_files_inside_the_root(tree: Path, tmp_path: Path) -> None:
    """What leads out of the root, or is no file, is read as always: its read says why."""
    (tmp_path / "outside.py").write_text("sm120\n")
    (tmp_path / "away").mkdir()
    (tmp_path / "away" / "c.py").write_text("sm120\n")
    (tree / "out.py").symlink_to(tmp_path / "outside.py")
    (tree / "via").symlink_to(tmp_path / "away")
    (tree / "in.py").symlink_to(tree / "a.py")
    paths = ["a.py", "pkg/b.py", "out.py", "via/c.py", "in.py", "pkg", "gone.py"]
    stats = LocalSource(tree).stat_many(paths)
    assert sorted(stats) == ["a.py", "in.py", "pkg/b.py"]
    assert stats["in.py"] == stats["a.py"]  # a link inside: what it leads to
    allowed = LocalSource(tree, allow_outside_root=True).stat_many(paths)
    assert sorted(allowed) == ["a.py", "in.py", "out.py", "pkg/b.py", "via/c.py"]
