"""The release shape: a licence, a changelog, and one version in one place.

The version is written once, as ``pytest_cleantree.__version__`` (the analysis cache key reads
it without importing package metadata); ``pyproject.toml`` declares it dynamic, so the
metadata pip installs says the same, and the newest version of CHANGELOG.md is that version.
The installed metadata itself (``importlib.metadata.version`` in a fresh venv) is held to it by
``test_action.py``, which installs this checkout as the action does.
"""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
from pathlib import Path

import pytest_cleantree

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
#: a released version's heading: ``## [0.2.0] - 2026-12-04``
VERSION_HEADING = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", re.M)


def newest_changelog_version() -> str:
    """The first version heading of CHANGELOG.md, after checking ``Unreleased`` is above it."""
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    first = VERSION_HEADING.search(text)
    assert first is not None, "CHANGELOG.md has no '## [X.Y.Z] - YYYY-MM-DD' heading"
    unreleased = text.find("\n## Unreleased\n")
    assert 0 <= unreleased < first.start(), "'## Unreleased' must stand above the newest version"
    return first[1]


def test_the_version_is_written_once() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"]
    assert project["project"]["dynamic"] == ["version"]
    dynamic = project["tool"]["setuptools"]["dynamic"]["version"]
    assert dynamic == {"attr": "pytest_cleantree.__version__"}
    literal = re.findall(
        r'^__version__ = "([^"]+)"$',
        (REPO / "pytest_cleantree" / "__init__.py").read_text(encoding="utf-8"),
        re.M,
    )
    assert literal == [pytest_cleantree.__version__]


def test_the_built_metadata_the_package_and_the_changelog_agree(tmp_path: Path) -> None:
    """What setuptools writes for this checkout (the metadata pip installs) is the version."""
    setup = "from setuptools import setup; setup()"
    subprocess.run(
        [sys.executable, "-c", setup, "-q", "egg_info", "--egg-base", str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    (info,) = tmp_path.glob("*.egg-info")
    metadata = importlib.metadata.Distribution.at(info)
    assert metadata.metadata["Name"] == "pytest-cleantree"
    assert metadata.version == pytest_cleantree.__version__ == newest_changelog_version()


def test_the_licence_is_the_one_pyproject_names() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["license"] == {"text": "MIT"}
    licence = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License\n")
    assert "Copyright (c) 2026 the pytest-cleantree authors" in licence


def test_the_cli_reports_the_version() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert pytest_cleantree.__version__ in completed.stdout
