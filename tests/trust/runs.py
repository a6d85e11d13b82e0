"""The one way the trust tests run a front end in a process of its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def run_module(
    module: str, *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``python -m module args`` in ``cwd``: output as text, any exit code returned."""
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
        check=False,
    )


def cleantree(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """The CLI; a traceback on either stream fails the test, whatever the exit code."""
    completed = run_module("pytest_cleantree", *args, cwd=cwd, env=env, timeout=timeout)
    assert "Traceback" not in completed.stderr + completed.stdout, completed.stderr
    return completed
