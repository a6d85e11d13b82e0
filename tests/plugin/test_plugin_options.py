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
