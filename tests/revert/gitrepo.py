"""Helpers of the from-diff suite: git in a temporary repository, and the command in a
subprocess (the autouse fixture in ``conftest.py`` isolates both from the machine)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

#: Commits need an identity; nothing else of the machine's configuration may leak in.
IDENTITY = ("-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *IDENTITY, "-C", str(repo), *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def cleantree(
    cwd: Path, *args: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the ``cleantree`` command in a subprocess, as a user would."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        check=False,
    )
    return subprocess.CompletedProcess(
        done.args, done.returncode, done.stdout.decode(), done.stderr.decode()
    )


def from_diff(
    cwd: Path, *args: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[str]:
    """``cleantree from-diff``, through the ``cleantree`` command itself."""
    return cleantree(cwd, "from-diff", *args, stdin=stdin)
