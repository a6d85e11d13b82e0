"""One way to show a path, in every format, run as a user runs the CLI.

A project whose manifest's root is ``src/fakeserve`` and whose rule also looks at
``../../scripts/launch.sh`` (``allow_outside_root``): text printed
``src/fakeserve/../../scripts/launch.sh:3:8`` while GitHub said ``scripts/launch.sh``; remote
rows said ``gpu-3:../../scripts/launch.sh``; from a subfolder every path was absolute.
"""

from __future__ import annotations

import getpass
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from runs import cleantree

SSHServer = Any  # tests/integration/conftest.py's SSHServer
MANIFEST = """\
root = "src/fakeserve"
allow_outside_root = true

[[rule]]
id = "no-sm120"
files = ["server.py", "../../scripts/launch.sh"]
forbid_lines = ["export USE_SM120=1"]
forbid = ["use_sm120"]
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    package = tmp_path / "src" / "fakeserve"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "server.py").write_text("x = 1\nuse_sm120 = True\n")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "launch.sh").write_text(
        "#!/bin/sh\nset -e\n       export USE_SM120=1\n"
    )
    (tmp_path / "cleantree.toml").write_text(MANIFEST)
    return tmp_path


def _places(text: str) -> set[str]:
    return set(re.findall(r"^(\S+:\d+:\d+)\s", text, flags=re.MULTILINE))


def test_every_format_shows_the_same_normalised_paths(project: Path) -> None:
    env = {**os.environ, "GITHUB_WORKSPACE": str(project)}
    text = cleantree("check", cwd=project, env=env)
    assert text.returncode == 1, text.stderr
    assert _places(text.stdout) == {"src/fakeserve/server.py:2:1", "scripts/launch.sh:3:8"}
    assert ".." not in text.stdout

    document = json.loads(cleantree("check", "--format", "json", cwd=project).stdout)
    hits = document["results"][0]["hits"] + document["results"][1]["hits"]
    assert {hit["path"] for hit in hits} == {"src/fakeserve/server.py", "scripts/launch.sh"}

    github = cleantree("check", "--format", "github", cwd=project, env=env).stdout
    assert set(re.findall(r"file=([^,]+)", github)) == {
        "src/fakeserve/server.py",
        "scripts/launch.sh",
    }

    sarif = json.loads(cleantree("check", "--format", "sarif", cwd=project, env=env).stdout)
    uris = {
        location["physicalLocation"]["artifactLocation"]["uri"]
        for result in sarif["runs"][0]["results"]
        for location in result["locations"]
    }
    assert uris == {"src/fakeserve/server.py", "scripts/launch.sh"}


def test_from_a_subfolder_paths_under_it_are_relative(project: Path) -> None:
    (project / "cleantree.toml").write_text(
        MANIFEST.replace('"src/fakeserve"', '"."').replace(
            '"server.py", "../../scripts/launch.sh"',
            '"src/fakeserve/server.py", "scripts/launch.sh"',
        )
    )
    done = cleantree("check", cwd=project / "src")
    assert done.returncode == 1, done.stderr
    launch = (project / "scripts" / "launch.sh").as_posix()
    assert _places(done.stdout) == {"fakeserve/server.py:2:1", f"{launch}:3:8"}


@pytest.mark.ssh
def test_remote_rows_leave_no_dot_dot_either(
    project: Path, sshd: SSHServer, client_key: Path
) -> None:
    (project / "ssh_config").write_text(
        f"Host gpu-3\n    HostName 127.0.0.1\n    Port {sshd.port}\n"
        f"    User {getpass.getuser()}\n    IdentityFile {client_key}\n    IdentitiesOnly yes\n"
    )
    (project / "known_hosts").write_text(sshd.known_hosts_line)
    done = cleantree(
        "check",
        "--host",
        f"gpu-3:{project / 'src' / 'fakeserve'}",
        "--ssh-config",
        str(project / "ssh_config"),
        "--known-hosts",
        str(project / "known_hosts"),
        "--python",
        sys.executable,
        cwd=project,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert _places(done.stdout) == {"gpu-3:server.py:2:1", "gpu-3:scripts/launch.sh:3:8"}
