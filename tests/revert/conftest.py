"""Temporary git repositories for the from-diff suite, isolated from the machine's git setup."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _isolated_git(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Every git run (ours, and the tool's own) ignores global and system configuration and
    uses fixed dates, so commits and diffs are the same on every machine."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("GIT_AUTHOR_DATE", "2025-01-01T00:00:00+0000")
    monkeypatch.setenv("GIT_COMMITTER_DATE", "2025-01-01T00:00:00+0000")
