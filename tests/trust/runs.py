"""The one way the trust tests run a front end in a process of its own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest


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


def unprivileged() -> list[str]:
    """A command prefix under which permission bits hold: empty for a user, and for root
    ``setpriv`` with the file-permission capabilities dropped (root reads everything).

    Tests of unreadable folders need it; without ``setpriv`` they skip, except under
    ``CI=true``, where they fail rather than pass having run nothing.
    """
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        message = "root needs setpriv (util-linux) to make a folder unreadable"
        if os.environ.get("CI") == "true":
            pytest.fail(message + " (CI=true: refusing to pass having run nothing)")
        pytest.skip(message)
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--"]
