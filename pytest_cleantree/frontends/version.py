"""What ``cleantree --version`` says: the version pip installed, and the commit of a checkout.

A wheel's metadata is the version the user installed.  A tree run from source (an editable
install, or ``PYTHONPATH`` pointing at a checkout) has metadata that may be stale (it was
written at install time), so such a tree reports its own ``__version__`` and, when it is a
git checkout of pytest-cleantree, the commit: the two things a bug report needs.
"""

from __future__ import annotations

import subprocess
from importlib import metadata
from pathlib import Path

import pytest_cleantree

DISTRIBUTION = "pytest-cleantree"


def installed_version() -> str:
    """The package metadata's version when this very package was installed from it, else
    ``__version__`` (the source tree's own)."""
    here = Path(pytest_cleantree.__file__).resolve()
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return pytest_cleantree.__version__
    listed = Path(str(dist.locate_file("pytest_cleantree/__init__.py")))
    if listed.exists() and listed.resolve() == here:
        return dist.version
    return pytest_cleantree.__version__


def checkout_commit() -> str:
    """The short commit of the git checkout holding the package, ``""`` when the package is
    not in a checkout (a wheel in site-packages), or git is missing or fails."""
    package = Path(pytest_cleantree.__file__).resolve().parent
    command = ["git", "-C", str(package), "rev-parse", "--show-toplevel", "--short", "HEAD"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return ""
    lines = done.stdout.split()
    if done.returncode != 0 or len(lines) != 2:
        return ""
    top, commit = lines
    if package.parent != Path(top).resolve():  # a wheel inside someone else's repository
        return ""
    return commit


def render_version() -> str:
    """``cleantree (pytest-cleantree) 0.2.0`` and, in a checkout, ``(commit 06fd54e)``."""
    commit = checkout_commit()
    return f"cleantree (pytest-cleantree) {installed_version()}" + (
        f" (commit {commit})" if commit else ""
    )
