"""Python 3.6, the oldest a server may run the agent under: found, or (under CI) a failure."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from needs import unavailable

PYTHON36 = Path("/root/.pyenv/versions/3.6.15/bin/python3.6")


def _runs(python: str) -> bool:
    """Does it run (a pyenv shim for a version not selected exits 127)?"""
    try:
        done = subprocess.run([python, "-c", "pass"], capture_output=True, timeout=30)
    except OSError:
        return False
    return done.returncode == 0


@pytest.fixture(scope="session")
def python36() -> Path:
    """Python 3.6; under ``CI=true`` a missing one fails the test: CI must not pass having
    run nothing (CI's machine image holds /root/.pyenv/versions/3.6.15)."""
    candidates = [str(PYTHON36), shutil.which("python3.6")]
    found = next((c for c in candidates if c and Path(c).exists() and _runs(c)), None)
    if found is None:
        unavailable(
            f"no Python 3.6 here ({PYTHON36}, or a python3.6 that runs): the agent servers run"
        )
    return Path(found)
