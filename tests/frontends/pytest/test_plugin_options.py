"""The plugin's command-line options, as a user types them: what each implies, and what a
value that makes no sense does (a usage error, never an internal error nor a silent pass)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("option", ["--cleantree-timeout", "--cleantree-connect-timeout"])
@pytest.mark.parametrize("value", ["nan", "-inf", "0"])
def test_a_timeout_that_is_no_duration_is_a_usage_error(
    pytester: pytest.Pytester, option: str, value: str
) -> None:
    pytester.makefile(".toml", cleantree='[[rule]]\nfiles = ["m.py"]\nforbid = ["x"]\n')
    pytester.makepyfile(m="y = 1\n")

    result = pytester.runpytest("--cleantree", f"{option}={value}")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*argument {option}: {value!r} is not a number of seconds*"])


def test_controls_in_a_reported_line_are_escaped_in_the_failure(pytester: pytest.Pytester) -> None:
    """Printed raw, ``ESC [2K`` then ``CR`` would erase the very line that fails the item."""
    pytester.makefile(".toml", cleantree='[[rule]]\nfiles = ["m.py"]\nforbid = ["sm120"]\n')
    (pytester.path / "m.py").write_text("sm120 = 1  # \x1b[2K\x1b[1Aall clean\n")

    result = pytester.runpytest("--cleantree")

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["m.py:1:1  assignment  sm120 = 1  # \\x1b[2K\\x1b[1Aall clean"])
    assert "\x1b" not in result.stdout.str()


@pytest.mark.parametrize(
    "options",
    [
        pytest.param(["--cleantree-manifest", "checks/m.toml"], id="manifest"),
        pytest.param(["--cleantree-manifest=checks/m.toml", "--cleantree-no-cache"], id="equals"),
        pytest.param(["--cleantree-root", "tree", "checks/m.toml"], id="root"),
        pytest.param(["--cleantree-timeout", "5", "checks/m.toml"], id="timeout"),
    ],
)
def test_any_cleantree_option_implies_cleantree(
    pytester: pytest.Pytester, options: list[str]
) -> None:
    """Without the implication these runs check nothing and pass: a false clean."""
    pytester.mkdir("checks")
    (pytester.path / "checks" / "m.toml").write_text(
        'root = "../tree"\n[[rule]]\nfiles = ["m.py"]\nforbid = ["sm120"]\n'
    )
    pytester.mkdir("tree")
    (pytester.path / "tree" / "m.py").write_text("sm120 = 1\n")

    result = pytester.runpytest(*options)

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*m.py:1:1  assignment  sm120 = 1"])


def test_cleantree_options_in_addopts_imply_cleantree(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toml", m='[[rule]]\nfiles = ["m.py"]\nforbid = ["sm120"]\n')
    pytester.makepyfile(m="sm120 = 1\n")
    pytester.makeini("[pytest]\naddopts = --cleantree-manifest m.toml\n")

    pytester.runpytest().assert_outcomes(failed=1)


def test_without_any_cleantree_option_the_plugin_stays_inert(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toml", cleantree='[[rule]]\nfiles = ["m.py"]\nforbid = ["sm120"]\n')
    pytester.makepyfile(m="sm120 = 1\n", test_plain="def test_plain():\n    pass\n")

    pytester.runpytest().assert_outcomes(passed=1)
