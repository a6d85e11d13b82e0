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
    result.stdout.fnmatch_lines(["m.py:1  assignment  sm120 = 1  # \\x1b[2K\\x1b[1Aall clean"])
    assert "\x1b" not in result.stdout.str()
