"""An agent of another protocol version is refused by name, through a real sshd, never misread.

The client ships its own agent with every request, so the versions differ only when what
runs on the server is not what was sent: here the server's "python" is a wrapper that
rewrites the shipped agent's version line on its way in (as an agent of another release
would declare), then runs this interpreter.  The same wrapper leaving the line alone is the
control: the check then runs as always.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_cleantree.agent import wire
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.sources.base import FileRead
from pytest_cleantree.sources.ssh import SSHSource

pytestmark = pytest.mark.ssh
SourceFactory = Callable[..., SSHSource]

LINE = f"PROTOCOL = {wire.PROTOCOL}"


def _wrapper(folder: Path, version: int) -> Path:
    """A remote interpreter whose agent declares ``version``."""
    script = folder / f"python-v{version}"
    script.write_text(
        f"#!/bin/sh\nsed -u 's/^{LINE}$/PROTOCOL = {version}/' | exec {sys.executable} \"$@\"\n"
    )
    script.chmod(0o755)
    return script


def test_the_wrapper_alone_changes_nothing(tmp_path: Path, make_ssh_source: SourceFactory) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    source = make_ssh_source(tmp_path, python=str(_wrapper(tmp_path, wire.PROTOCOL)))
    assert source.read(["a.py"]) == {"a.py": FileRead(b"x = 1\n")}
    assert LINE.encode() in Path(wire.__file__).read_bytes().splitlines()


@pytest.mark.parametrize("version", [1, wire.PROTOCOL + 1])
def test_an_agent_of_another_version_is_an_error_naming_both(
    tmp_path: Path, make_ssh_source: SourceFactory, version: int
) -> None:
    (tmp_path / "a.py").write_text("x = 1\n")
    source = make_ssh_source(tmp_path, python=str(_wrapper(tmp_path, version)))
    with pytest.raises(SourceError) as caught:
        source.read(["a.py"])
    assert str(caught.value) == (
        f"{source.host}: the remote helper speaks protocol version {version}, this client "
        f"speaks version {wire.PROTOCOL}: the helper and the client come from different releases"
    )


def test_the_cli_exits_2_naming_both_versions(tmp_path: Path, ssh_setup: Any) -> None:
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text("import sm120\n")
    (tmp_path / "cleantree.toml").write_text(
        '[[rule]]\nid = "gone"\nfiles = ["**/*.py"]\nforbid = ["sm120"]\n'
    )
    done = subprocess.run(
        [
            *(sys.executable, "-m", "pytest_cleantree", "check"),
            *("--host", f"{ssh_setup.alias}:{tree}", "--ssh-config", str(ssh_setup.ssh_config)),
            *("--known-hosts", str(ssh_setup.known_hosts)),
            *("--python", str(_wrapper(tmp_path, 1))),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert (
        f"the remote helper speaks protocol version 1, this client speaks version "
        f"{wire.PROTOCOL}" in done.stdout + done.stderr
    )
