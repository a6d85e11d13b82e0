"""Each way a check can fail, as a user sees it in ``pytest --cleantree``: a missing file, a glob
that matches nothing, a file that must be gone, an expected name that is not there, and a
file that is not valid Python.  Every failure names the file, and none shows a traceback."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest


@pytest.fixture
def tree(pytester: pytest.Pytester) -> Path:
    """A small tree under ``src/``: three valid modules, and one in ``legacy/`` that does not
    parse."""
    src = pytester.mkdir("src")
    (src / "kernels.py").write_text(
        textwrap.dedent(
            """\
            from gpu import is_sm90, is_sm120

            def pick():
                if is_sm120():
                    return "sm120"
                return "sm90" if is_sm90() else "cpu"
            """
        )
    )
    (src / "clean.py").write_text("def pick():\n    return 'sm90'\n")
    (src / "more.py").write_text("from gpu import is_sm120 as fast\n")
    src.joinpath("legacy").mkdir()
    (src / "legacy" / "broken.py").write_text(
        "import os\nuse_sm120 = True\ndef f(:\n    launch_sm120()\n"
    )
    return src


def run(pytester: pytest.Pytester, rules: str, *args: str) -> pytest.RunResult:
    pytester.makefile(".toml", cleantree='root = "src"\n\n' + textwrap.dedent(rules))
    result = pytester.runpytest("--cleantree", *args)
    assert "Traceback" not in result.stdout.str()
    return result


def test_a_missing_file_is_an_error_naming_it(pytester: pytest.Pytester, tree: Path) -> None:
    result = run(pytester, '[[rule]]\nid = "r"\nfiles = ["gone.py"]\nforbid = ["sm120"]\n')

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*cleantree r[[]gone.py[]]*",
            "error: src/gone.py: no such file under */src (set missing_ok = true to allow)",
        ]
    )


def test_missing_ok_lets_a_missing_file_pass(pytester: pytest.Pytester, tree: Path) -> None:
    result = run(
        pytester,
        '[[rule]]\nid = "r"\nfiles = ["gone.py"]\nforbid = ["sm120"]\nmissing_ok = true\n',
    )

    result.assert_outcomes(passed=1)


def test_missing_ok_still_checks_a_file_that_exists(pytester: pytest.Pytester, tree: Path) -> None:
    result = run(
        pytester,
        '[[rule]]\nid = "r"\nfiles = ["kernels.py"]\nforbid = ["sm120"]\nmissing_ok = true\n',
    )

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["src/kernels.py:1:*  import*", "src/kernels.py:4:*  *"])


def test_a_glob_matching_nothing_is_an_error(pytester: pytest.Pytester, tree: Path) -> None:
    result = run(pytester, '[[rule]]\nid = "r"\nfiles = ["ops/**/*.py"]\nforbid = ["sm120"]\n')

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "error: src/ops/**/*.py: glob matches no file under */src"
            " (set missing_ok = true to allow)"
        ]
    )


def test_a_glob_checks_every_file_it_matches(pytester: pytest.Pytester, tree: Path) -> None:
    result = run(
        pytester,
        '[[rule]]\nid = "r"\nfiles = ["*.py"]\nforbid = ["is_sm120"]\nkinds = ["import"]\n',
    )

    result.assert_outcomes(failed=1)
    assert [line for line in result.outlines if ".py:" in line and "::" not in line] == [
        "src/kernels.py:1:26  import  from gpu import is_sm90, is_sm120",
        "src/more.py:1:17     import  from gpu import is_sm120 as fast",
    ]


def test_an_absent_file_that_exists_fails(pytester: pytest.Pytester, tree: Path) -> None:
    result = run(pytester, '[[rule]]\nid = "r"\nabsent = ["clean.py", "gone.py"]\n')

    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        ["*cleantree r[[]absent:clean.py[]]*", "src/clean.py  present  must not exist"]
    )
    assert "absent:gone.py] " not in result.stdout.str()


def test_an_expect_failure_names_the_pattern_and_the_file(
    pytester: pytest.Pytester, tree: Path
) -> None:
    result = run(
        pytester,
        '[[rule]]\nid = "r"\nfiles = ["kernels.py", "clean.py"]\nexpect = ["is_sm90", "pick"]\n',
    )

    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        ["*cleantree r[[]clean.py[]]*", "src/clean.py  missing  expected 'is_sm90'"]
    )
    assert "expected 'pick'" not in result.stdout.str()


def test_an_unparseable_file_fails_and_still_shows_its_matching_lines(
    pytester: pytest.Pytester, tree: Path
) -> None:
    result = run(pytester, '[[rule]]\nid = "r"\nfiles = ["legacy/*.py"]\nforbid = ["sm120"]\n')

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "src/legacy/broken.py:2:5   text   use_sm120 = True",
            "src/legacy/broken.py:4:12  text   launch_sm120()",
            "error: src/legacy/broken.py:3: not valid Python *invalid syntax at line 3*",
        ]
    )


def test_a_missing_root_is_an_error_of_every_check_naming_the_root(
    pytester: pytest.Pytester, tree: Path
) -> None:
    """The check could not run: an error (pytest's outcome for it), not a rule that failed."""
    result = run(
        pytester,
        '[[rule]]\nid = "r"\nfiles = ["kernels.py", "clean.py"]\nforbid = ["sm120"]\n',
        "--cleantree-root",
        "nowhere",
    )

    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        ["cleantree: error: cannot check the tree here: root '*/nowhere' does not exist"] * 2
    )
    assert "Traceback" not in result.stdout.str()


def test_kinds_limit_what_a_rule_reports(pytester: pytest.Pytester, tree: Path) -> None:
    result = run(
        pytester,
        '[[rule]]\nid = "r"\nfiles = ["kernels.py"]\nforbid = ["sm120"]\nkinds = ["string"]\n',
    )

    result.assert_outcomes(failed=1)
    rows = [line for line in result.outlines if line.startswith("src/kernels.py")]
    assert rows == ['src/kernels.py:5:17  string  return "sm120"']
