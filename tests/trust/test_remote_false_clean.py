"""Never a false clean over SSH: trees the user named twice, folders the check cannot see into,
links between folders, known_hosts files with markers.  The real CLI against the real sshd of
``tests/integration/conftest.py``; each case ends in a finding or an error, never in a pass."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from runs import cleantree

pytestmark = pytest.mark.ssh

Setup = Any  # tests/integration/conftest.py's SSHClientSetup


def options(setup: Setup) -> list[str]:
    return [
        "--ssh-config",
        str(setup.ssh_config),
        "--known-hosts",
        str(setup.known_hosts),
        "--python",
        sys.executable,
    ]


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


MANIFEST = '[[rule]]\nid = "r"\nfiles = ["**/*.py"]\nforbid = ["sm120"]\n'


# ---------------------------------------------------------------- item 1: one host, two roots


def test_two_roots_on_one_host_are_both_checked(tmp_path: Path, ssh_setup: Setup) -> None:
    """``--host gpu:/srv/a --host gpu:/srv/b``: both trees, each under a label of its own."""
    dirty = write(tmp_path / "a", {"m.py": "sm120 = 1\n"})
    clean = write(tmp_path / "b", {"m.py": "x = 1\n"})
    (tmp_path / "cleantree.toml").write_text(MANIFEST)
    alias = ssh_setup.alias
    for order in ([dirty, clean], [clean, dirty]):
        hosts = [arg for root in order for arg in ("--host", f"{alias}:{root}")]
        completed = cleantree("check", *hosts, *options(ssh_setup), cwd=tmp_path)
        assert completed.returncode == 1, completed.stdout + completed.stderr
        assert f"{alias}:{dirty}:m.py:1  assignment  sm120 = 1" in completed.stdout
        assert "(1 rule, 2 files)" in completed.stdout
