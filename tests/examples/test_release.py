"""The release shape: a licence, a changelog, and one version in one place.

The version is written once, as ``pytest_cleantree.__version__`` (the analysis cache key reads
it without importing package metadata); ``pyproject.toml`` declares it dynamic, so the
metadata pip installs says the same, and the newest version of CHANGELOG.md is that version.
The installed metadata itself (``importlib.metadata.version`` in a fresh venv) is held to it by
``test_action.py``, which installs this checkout as the action does.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

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
    assert project["project"]["license"] == "MIT"  # an SPDX expression (PEP 639)
    assert project["project"]["license-files"] == ["LICENSE"]
    assert not [c for c in project["project"]["classifiers"] if c.startswith("License ::")]
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


# ---------------------------------------------------------------- what the release carries

#: what a user of the wheel runs, and what its commands write out (issue 36)
RUNNABLE = (
    "pytest_cleantree/examples/sm120/cleantree.toml",
    "pytest_cleantree/examples/sm120/partial-revert/python/sglang/srt/layers/communicator.py",
    "pytest_cleantree/examples/sm120/partial-revert/python/sglang/srt/server_args.py",
    "pytest_cleantree/examples/sm120/partial-revert/python/sglang/sitecustomize.py",
    "pytest_cleantree/examples/sm120/reverted/python/sglang/srt/layers/communicator.py",
    "pytest_cleantree/examples/sm120/reverted/python/sglang/srt/server_args.py",
    "pytest_cleantree/examples/sm120/reverted/python/sglang/sitecustomize.py",
    "pytest_cleantree/examples/prelaunch/launch_server.sh",
    "pytest_cleantree/examples/ansible/cleantree.yml",
    "pytest_cleantree/examples/ci/cleantree.yml",
    "pytest_cleantree/examples/ci/cleantree-pip.yml",
    "pytest_cleantree/schemas/manifest-v1.json",
    "pytest_cleantree/schemas/report-v1.json",
    "pytest_cleantree/py.typed",
)
#: what the sdist carries beyond the package
READING = ("CHANGELOG.md", "LICENSE", "README.md", "action.yml", "pyproject.toml")

BUILD = """
import setuptools.build_meta as backend, sys
out = sys.argv[1]
print(backend.build_sdist(out))
print(backend.build_wheel(out))
"""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    """The sdist, the wheel, and the build's output, built as ``python -m build
    --no-isolation`` would (the PEP 517 hooks) from a copy of the files git knows, as a clean
    clone has them: the checkout itself gets no ``build/`` or ``.egg-info``."""
    source, out = tmp_path_factory.mktemp("source"), tmp_path_factory.mktemp("dist")
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        if (REPO / name).is_file():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    done = subprocess.run(
        [sys.executable, "-W", "always", "-c", BUILD, str(out)],
        cwd=source,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    built = sorted(out.iterdir(), key=lambda path: path.suffix)
    assert [path.suffix for path in built] == [".gz", ".whl"], done.stdout + done.stderr
    sdist, wheel = built
    return sdist, wheel, done.stdout + done.stderr


def test_the_build_does_not_warn(built: tuple[Path, Path, str]) -> None:
    """A deprecated setting (the TOML-table licence) warns here before it breaks a release."""
    _, _, output = built
    assert [line for line in output.splitlines() if "warn" in line.lower()] == []


def test_the_wheel_carries_the_runnable_material(built: tuple[Path, Path, str]) -> None:
    _, wheel, _ = built
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        mode = archive.getinfo("pytest_cleantree/examples/prelaunch/launch_server.sh")
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(info).decode()
    assert set(RUNNABLE) <= names, sorted(set(RUNNABLE) - names)
    assert not [name for name in names if "__pycache__" in name or name.endswith(".pyc")]
    assert mode.external_attr >> 16 & 0o111, "launch_server.sh is not executable in the wheel"
    assert "License-Expression: MIT" in metadata.splitlines()
    assert any(line.startswith("License-File: LICENSE") for line in metadata.splitlines())
    for classifier in ("Framework :: Pytest", "Typing :: Typed", "Environment :: Console"):
        assert f"Classifier: {classifier}" in metadata.splitlines()
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    homepage = project["project"]["urls"]["Homepage"]
    assert f"Project-URL: Homepage, {homepage}" in metadata.splitlines()


def test_the_sdist_carries_the_docs_and_the_changelog(built: tuple[Path, Path, str]) -> None:
    sdist, _, _ = built
    with tarfile.open(sdist) as archive:
        top = archive.getnames()[0].split("/")[0]
        names = {name.removeprefix(f"{top}/") for name in archive.getnames()}
    docs = {f"docs/{p.name}" for p in (REPO / "docs").glob("*.md")}
    assert "docs/releasing.md" in docs
    assert docs <= names, sorted(docs - names)
    assert set(READING) <= names
    assert set(RUNNABLE) <= names, sorted(set(RUNNABLE) - names)


# ---------------------------------------------------------------- how a release is made


def test_the_release_workflow_builds_runs_the_quick_start_and_publishes() -> None:
    import yaml

    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())
    assert workflow.get("on", workflow.get(True)) == {"push": {"tags": ["v*"]}}  # YAML 1.1: on
    assert workflow["permissions"] == {"contents": "read"}
    build, release, pypi = (workflow["jobs"][job] for job in ("build", "github-release", "pypi"))
    runs = [str(step.get("run", "")) for step in build["steps"]]
    built = next(i for i, run in enumerate(runs) if "python -m build" in run)
    smoke = next(i for i, run in enumerate(runs) if "bash .ci/wheel-smoke dist/*.whl" in run)
    assert built < smoke
    assert any('"v${version}"' in run and "cat-file -t" in run for run in runs[:built])
    assert pypi["needs"] == "build"
    assert release["needs"] == ["build", "wheelhouse"]  # no release without the wheelhouses
    assert release["permissions"] == {"contents": "write"}
    assert any("gh release create" in str(step.get("run", "")) for step in release["steps"])
    assert pypi["permissions"] == {"id-token": "write"}  # trusted publishing, nothing else
    assert pypi["environment"]["name"] == "pypi"
    assert pypi["steps"][-1] == {"uses": "pypa/gh-action-pypi-publish@release/v1"}


def test_each_platform_and_python_gets_a_wheelhouse_installed_offline_before_release() -> None:
    """The offline route (issue 46): per supported platform and Python, the wheel and every
    dependency, installed with ``--no-index`` by the smoke test, attached to the release."""
    import yaml

    workflow = yaml.safe_load((REPO / ".github" / "workflows" / "release.yml").read_text())
    job = workflow["jobs"]["wheelhouse"]
    pythons = re.findall(
        r'"Programming Language :: Python :: (3\.\d+)"', (REPO / "pyproject.toml").read_text()
    )
    assert job["strategy"]["matrix"]["python"] == pythons
    assert {"ubuntu-latest", "macos-latest"} <= set(job["strategy"]["matrix"]["os"])
    runs = [str(step.get("run", "")) for step in job["steps"]]
    download = next(i for i, run in enumerate(runs) if "pip download -d wheelhouse" in run)
    smoke = next(
        i for i, run in enumerate(runs) if "WHEELHOUSE=wheelhouse bash .ci/wheel-smoke" in run
    )
    assert download < smoke
    release = workflow["jobs"]["github-release"]
    fetched = [
        step["with"] for step in release["steps"] if "download-artifact" in step.get("uses", "")
    ]
    assert {"pattern": "wheelhouse-*", "path": "dist/", "merge-multiple": True} in fetched
    script = (REPO / ".ci" / "wheel-smoke").read_text(encoding="utf-8")
    assert "--no-index" in script


def test_ci_runs_the_same_wheel_smoke_after_lint_and_before_the_tests() -> None:
    script = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    lint, smoke = (
        script.index("\nlint-imports\n"),
        script.index("\nWHEEL_SMOKE_PLAYBOOK=1 bash .ci/wheel-smoke "),
    )
    assert lint < smoke < script.index("\npython3 -m pytest ")
    assert os.access(REPO / ".ci" / "wheel-smoke", os.X_OK)
