"""The ``cleantree`` command fits the habits of ruff, grep and semgrep users: run in a
subprocess as they run it (pipes, subfolders, flags)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CLEANTREE = [sys.executable, "-m", "pytest_cleantree"]


def run(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLEANTREE, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture
def many_hits(tmp_path: Path) -> Path:
    """A tree whose report is far larger than a pipe's buffer (64 KiB)."""
    (tmp_path / "big.py").write_text("".join(f"sm120_{i} = {i}\n" for i in range(6000)))
    (tmp_path / "cleantree.toml").write_text('[[rule]]\nfiles = ["big.py"]\nforbid = ["sm120"]\n')
    return tmp_path


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_reader_that_stops_early_ends_the_run_quietly(many_hits: Path, fmt: str) -> None:
    completed = subprocess.run(
        ["sh", "-c", f'"$0" -m pytest_cleantree check --format {fmt} | head -1', sys.executable],
        cwd=many_hits,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.stderr == ""
    assert len(completed.stdout.splitlines()) == 1


def test_a_reader_that_stops_early_keeps_the_exit_code_of_a_dirty_tree(many_hits: Path) -> None:
    completed = subprocess.run(
        [
            "bash",
            "-c",
            '"$0" -m pytest_cleantree check | head -1; echo "${PIPESTATUS[0]}"',
            sys.executable,
        ],
        cwd=many_hits,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.stderr == ""
    assert completed.stdout.splitlines()[-1] in {"1", "2"}  # never 0: never a false "clean"
