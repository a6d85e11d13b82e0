"""``pytest --cleantree`` fits the habits of pytest users: run from a subfolder, clickable
locations, inline allows, exclusions (``pytester``, in-process)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def project(pytester: pytest.Pytester) -> Path:
    """A repository whose root holds the manifest; the checked code is in ``src/``."""
    root = pytester.path
    (root / ".git").mkdir()
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "new.py").write_text("if True:\n    use_sm120()\n")
    (root / "cleantree.toml").write_text(
        'root = "src"\n[[rule]]\nid = "no-sm120"\nfiles = ["new.py"]\nforbid = ["sm120"]\n'
    )
    return root


def test_pytest_from_a_subfolder_finds_the_projects_manifest(
    pytester: pytest.Pytester, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(project / "src" / "pkg")
    result = pytester.runpytest("--cleantree", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*no-sm120*new.py*", "FAILED ../../cleantree.toml::no-sm120*"])


def test_pytest_failure_text_prints_clickable_locations(
    pytester: pytest.Pytester, project: Path
) -> None:
    result = pytester.runpytest("--cleantree", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["src/new.py:2:5  call  use_sm120()"])


def test_pytest_leaves_out_excluded_files(pytester: pytest.Pytester, project: Path) -> None:
    (project / "src" / "test").mkdir()
    (project / "src" / "test" / "broken.py").write_text("def sm120(:\n")
    (project / "src" / "new.py").write_text("x = 1\n")
    (project / "cleantree.toml").write_text(
        'root = "src"\n[[rule]]\nid = "no-sm120"\nfiles = ["**/*.py"]\nforbid = ["sm120"]\n'
    )
    pytester.runpytest("--cleantree", "-p", "no:cacheprovider").assert_outcomes(failed=1)
    excluded = pytester.runpytest(
        "--cleantree", "-p", "no:cacheprovider", "--cleantree-exclude", "test/"
    )
    excluded.assert_outcomes(passed=1)


def test_pytest_honours_an_inline_allow(pytester: pytest.Pytester, project: Path) -> None:
    (project / "src" / "new.py").write_text(
        "if True:\n    use_sm120()  # cleantree: allow no-sm120 -- the A/B harness calls it\n"
    )
    pytester.runpytest("--cleantree", "-p", "no:cacheprovider").assert_outcomes(passed=1)


def test_pytest_shows_why_an_allow_was_refused(pytester: pytest.Pytester, project: Path) -> None:
    (project / "src" / "new.py").write_text(
        "if True:\n    use_sm120()  # cleantree: allow no-sm120\n"
    )
    result = pytester.runpytest("--cleantree", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["src/new.py:2:5  call  *[[]the allow gives no reason: *]"])
