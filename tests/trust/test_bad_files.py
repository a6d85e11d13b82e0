"""The bad files catalogue: every odd input has a defined outcome, and none is a pass."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from needs import unavailable

from pytest_cleantree.core.checks import Check, iter_checks
from pytest_cleantree.core.model import Result, Rule
from pytest_cleantree.core.patterns import parse_pattern
from pytest_cleantree.run.check import check_all
from pytest_cleantree.sources.local import LocalSource


def run_rule(root: Path, *files: str, forbid: str = "sm120", **source: bool) -> Result:
    rule = Rule(id="r", files=files, forbid=(parse_pattern(forbid),))
    checks: list[Check] = list(iter_checks([rule]))
    (result,) = check_all(checks, LocalSource(root, **source)).values()
    return result


def write(root: Path, name: str, data: bytes) -> str:
    (root / name).write_bytes(data)
    return name


BAD_FILES: dict[str, tuple[Callable[[Path], str], str]] = {
    "syntax error": (lambda r: write(r, "a.py", b"def f(:\n    sm120()\n"), "not valid Python"),
    "null bytes": (lambda r: write(r, "a.py", b"x = 1\x00\nsm120 = 2\n"), "not valid Python"),
    "invalid utf-8": (lambda r: write(r, "a.py", b"x = '\xff'\nsm120 = 1\n"), "cannot decode"),
    "wrong coding line": (
        lambda r: write(r, "a.py", b"# coding: ascii\nx = '\xc3\xa9'\nsm120 = 1\n"),
        "cannot decode",
    ),
    "unknown coding": (
        lambda r: write(r, "a.py", b"# coding: klingon\nsm120 = 1\n"),
        "cannot decode",
    ),
    "folder where a file is expected": (lambda r: (r / "a.py").mkdir() or "a.py", "is a folder"),
    "symlink loop": (lambda r: os.symlink("a.py", r / "a.py") or "a.py", "symbolic links"),
    "symlink leaving the root": (
        lambda r: os.symlink(sys.executable, r / "a.py") or "a.py",
        "leads outside the root",
    ),
    "dangling symlink": (lambda r: os.symlink("gone.py", r / "a.py") or "a.py", "no such file"),
    "fifo": (lambda r: os.mkfifo(r / "a.py") or "a.py", "FIFO"),
    "missing file": (lambda r: "a.py", "no such file"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_file_fails_loudly(case: str, tmp_path: Path) -> None:
    make, message = BAD_FILES[case]
    name = make(tmp_path)
    result = run_rule(tmp_path, name)
    assert not result.ok
    assert len(result.problems) == 1
    assert message in str(result.problems[0])
    assert str(result.problems[0]).startswith(name)
    assert result.problems[0].path == name  # attached to its file


@pytest.mark.parametrize(
    "case", ["syntax error", "null bytes", "invalid utf-8", "wrong coding line"]
)
def test_unparseable_file_still_lists_matching_lines(case: str, tmp_path: Path) -> None:
    name = BAD_FILES[case][0](tmp_path)
    result = run_rule(tmp_path, name)
    assert [hit.line for hit in result.hits] == [2 if "coding" not in case else 3]


def test_empty_file_is_clean_and_complete(tmp_path: Path) -> None:
    result = run_rule(tmp_path, write(tmp_path, "a.py", b""))
    assert result.ok
    assert result.files == ("a.py",)


def test_link_outside_the_root_is_read_when_allowed(tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("sm120 = 1\n")
    (tmp_path / "tree").mkdir()
    os.symlink(outside, tmp_path / "tree" / "a.py")
    result = run_rule(tmp_path / "tree", "a.py", allow_outside_root=True)
    assert [hit.line for hit in result.hits] == [1]


def test_fifo_matched_by_a_glob_does_not_hang(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.py")
    write(tmp_path, "real.py", b"sm120 = 1\n")
    done: list[Result] = []
    worker = threading.Thread(target=lambda: done.append(run_rule(tmp_path, "*.py")), daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert done, "the check hung on a FIFO"
    assert [(hit.path, hit.line) for hit in done[0].hits] == [("real.py", 1)]


@pytest.mark.slow
def test_large_file_is_checked(tmp_path: Path) -> None:
    line = b"value = compute(alpha, beta)  # padding padding padding\n"
    data = line * (50 * 1024 * 1024 // len(line)) + b"sm120_left = 1\n"
    result = run_rule(tmp_path, write(tmp_path, "big.py", data))
    assert [hit.line for hit in result.hits] == [data.count(b"\n")]


def test_file_deleted_during_the_run(tmp_path: Path) -> None:
    """The file exists when the glob expands and is gone when it is read."""

    class Vanishing(LocalSource):
        def read(self, paths):  # type: ignore[no-untyped-def]
            for path in paths:
                (tmp_path / path).unlink()
            return super().read(paths)

    write(tmp_path, "a.py", b"sm120 = 1\n")
    rule = Rule(id="r", files=("*.py",), forbid=(parse_pattern("sm120"),))
    (result,) = check_all(list(iter_checks([rule])), Vanishing(tmp_path)).values()
    assert not result.ok
    assert "no such file" in str(result.problems[0])


@pytest.mark.parametrize(
    "name", ["with space.py", "quote'\"s.py", "new\nline.py", "ünïcødé.py", "$(touch x).py"]
)
def test_odd_paths(name: str, tmp_path: Path) -> None:
    write(tmp_path, name, b"import os\nsm120 = 1\n")
    result = run_rule(tmp_path, name)
    assert [(hit.path, hit.line) for hit in result.hits] == [(name, 2)]
    assert not (tmp_path / "x").exists()


def test_unreadable_file_without_root_privileges(tmp_path: Path) -> None:
    """Root reads everything: the real CLI runs with the file-permission capabilities dropped."""
    setpriv = shutil.which("setpriv")
    if os.geteuid() != 0 or setpriv is None:
        unavailable("needs root and setpriv (util-linux) to test unreadable files")
    secret = tmp_path / "secret.py"
    secret.write_text("sm120 = 1\n")
    secret.chmod(0)
    manifest = tmp_path / "cleantree.toml"
    manifest.write_text('[[rule]]\nfiles = ["secret.py"]\nforbid = ["sm120"]\n')
    drop = "--bounding-set=-dac_override,-dac_read_search"
    command = [setpriv, drop, "--", sys.executable, "-m", "pytest_cleantree", "check"]
    completed = subprocess.run(
        [*command, "--manifest", str(manifest)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 2, completed.stderr
    assert "secret.py: permission denied" in completed.stdout
    assert stat.S_IMODE(secret.stat().st_mode) == 0


def test_too_large_file_with_a_qualified_pattern_is_incomplete(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pytest_cleantree.analysis.text.MAX_PARSE_BYTES", 1024)
    data = b"from a.b import c as alias\n" + b"x = 1\n" * 400 + b"alias()\n"
    write(tmp_path, "big.py", data)
    qualified = run_rule(tmp_path, "big.py", forbid="a.b.c")
    assert "parse limit" in str(qualified.problems[0])
    substring = run_rule(tmp_path, "big.py", forbid="alias")
    assert substring.problems == ()
    assert [hit.line for hit in substring.hits] == [1, 402]
