"""A manifest named on the command line that does not exist is named in the error, by both
front ends, as the user wrote it: "none in the current folder" would send them looking in the
wrong place (issue 36: a wheel's user pointing at a path of the source tree)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

COMMANDS = {
    "cli": (["-m", "pytest_cleantree", "check", "--manifest"], 2),
    "pytest": (["-m", "pytest", "-p", "no:cacheprovider", "--cleantree"], 4),  # usage error
}


@pytest.mark.parametrize("front_end", sorted(COMMANDS))
@pytest.mark.parametrize("relative", [False, True], ids=["absolute", "relative"])
def test_a_missing_manifest_is_named_as_given(
    front_end: str, relative: bool, tmp_path: Path
) -> None:
    (tmp_path / "cleantree.toml").write_text('[[rule]]\nfiles = ["a.py"]\nforbid = ["x"]\n')
    named = "nosrc/cleantree.toml" if relative else str(tmp_path / "nosrc" / "cleantree.toml")
    command, code = COMMANDS[front_end]
    done = subprocess.run(
        [sys.executable, *command, named],
        cwd=tmp_path,  # a manifest here must not be taken instead of the one named
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == code, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    (line,) = [line for line in done.stderr.splitlines() if named in line]
    assert "no such file" in line
    assert "parent folder" not in done.stderr
