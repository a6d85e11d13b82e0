"""What a fleet's report says, run as a user runs it: the CLI against real sshd hosts.

Four rules, four hosts: ``gpu-1`` holds forbidden lines, ``gpu-2`` is clean, ``gpu-3`` and
``gpu-4`` refuse connections.  An unreachable host is one error, not one per rule (it was
"8 errors" for two such hosts); each host has a status line in text and an entry in the JSON
``hosts`` block; ``--statistics`` still says what the errors are.
"""

from __future__ import annotations

import getpass
import json
import re
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from runs import cleantree

import pytest_cleantree

pytestmark = pytest.mark.ssh
SSHServer = Any  # tests/integration/conftest.py's SSHServer
REPORT_SCHEMA = Path(pytest_cleantree.__file__).parent / "schemas" / "report-v1.json"
HOSTS = ["gpu-1", "gpu-2", "gpu-3", "gpu-4"]


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:  # bound, never listening: connections are refused
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.fixture
def fleet(tmp_path: Path, sshd: SSHServer, client_key: Path) -> tuple[Path, list[str]]:
    dirty, clean = tmp_path / "dirty", tmp_path / "clean"
    for tree in (dirty, clean):
        tree.mkdir()
        (tree / "a.py").write_text("x = 1\n")
    (dirty / "a.py").write_text("import os\nuse_sm120 = 1\nuse_sm121 = 2\nuse_sm122 = 3\n")
    rules = "".join(
        f'[[rule]]\nid = "r{n}"\nfiles = ["a.py"]\nforbid = ["{word}"]\n'
        for n, word in enumerate(["use_sm120", "use_sm121", "use_sm122", "nothing_here"])
    )
    (tmp_path / "cleantree.toml").write_text(rules)
    closed = _closed_port()
    ports = {"gpu-1": sshd.port, "gpu-2": sshd.port, "gpu-3": closed, "gpu-4": closed}
    (tmp_path / "ssh_config").write_text(
        "".join(
            f"Host {alias}\n    HostName 127.0.0.1\n    Port {port}\n"
            f"    User {getpass.getuser()}\n    IdentityFile {client_key}\n"
            "    IdentitiesOnly yes\n"
            for alias, port in ports.items()
        )
    )
    (tmp_path / "known_hosts").write_text(sshd.known_hosts_line)
    roots = {"gpu-1": dirty, "gpu-2": clean, "gpu-3": clean, "gpu-4": clean}
    args = [arg for host in HOSTS for arg in ("--host", f"{host}:{roots[host]}")]
    args += ["--ssh-config", str(tmp_path / "ssh_config")]
    args += ["--known-hosts", str(tmp_path / "known_hosts")]
    args += ["--python", sys.executable, "--connect-timeout", "5", "--no-cache"]
    return tmp_path, args


def test_text_says_each_hosts_status_and_an_unreachable_host_once(
    fleet: tuple[Path, list[str]],
) -> None:
    folder, args = fleet
    done = cleantree("check", *args, cwd=folder)
    assert done.returncode == 2, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == (
        "cleantree: 3 forbidden lines in 1 file; 2 errors: the check is incomplete "
        "(4 rules checked)"
    )
    status = [line for line in lines if re.match(r"gpu-\d: ", line)]
    assert status[:2] == ["gpu-1: 3 forbidden lines in 1 file", "gpu-2: clean"]
    assert [line.split(": ", 2)[:2] for line in status[2:]] == [
        ["gpu-3", "unreachable"],
        ["gpu-4", "unreachable"],
    ]
    assert len(status) == 4
    # each unreachable host's error is said once, in its status line: not one row per rule,
    # nor a row under a rule it has nothing to do with
    errors = [line.split()[0] for line in lines if re.match(r"\S+ +error ", line)]
    assert errors == []
    assert sum(line.startswith("gpu-3: unreachable") for line in lines) == 1


def test_json_has_a_hosts_block_valid_against_the_schema(fleet: tuple[Path, list[str]]) -> None:
    folder, args = fleet
    done = cleantree("check", *args, "--format", "json", cwd=folder)
    assert done.returncode == 2, done.stderr
    document = json.loads(done.stdout)
    jsonschema.validate(document, json.loads(REPORT_SCHEMA.read_text()))
    assert document["version"] == 1
    hosts = {entry["host"]: entry for entry in document["hosts"]}
    assert [entry["host"] for entry in document["hosts"]] == HOSTS
    assert {host: entry["status"] for host, entry in hosts.items()} == {
        "gpu-1": "dirty",
        "gpu-2": "clean",
        "gpu-3": "unreachable",
        "gpu-4": "unreachable",
    }
    assert (hosts["gpu-1"]["hits"], hosts["gpu-3"]["problems"]) == (3, 1)
    assert hosts["gpu-3"]["reason"]
    assert hosts["gpu-3"]["text"] == f"gpu-3: unreachable: {hosts['gpu-3']['reason']}"
    assert document["summary"]["problems"] == 2
    # each result of an unreachable host still fails with its error: none reads as clean
    unreachable = [r for r in document["results"] if r["host"] in ("gpu-3", "gpu-4")]
    assert len(unreachable) == 8
    assert all(not r["ok"] and len(r["problems"]) == 1 for r in unreachable)


def test_statistics_still_print_the_errors(fleet: tuple[Path, list[str]]) -> None:
    folder, args = fleet
    done = cleantree("check", *args, "--statistics", cwd=folder)
    assert done.returncode == 2, done.stderr
    lines = done.stdout.splitlines()
    errors = [line for line in lines if line.startswith(("gpu-3  error", "gpu-4  error"))]
    assert [line.split()[0] for line in errors] == ["gpu-3", "gpu-4"]
    assert "2 errors: the check is incomplete" in lines[-1]


@pytest.mark.parametrize("fmt", ["github", "sarif"])
def test_machine_formats_say_a_hosts_error_once(fmt: str, fleet: tuple[Path, list[str]]) -> None:
    folder, args = fleet
    done = cleantree("check", *args, "--format", fmt, cwd=folder)
    assert done.returncode == 2, done.stderr
    if fmt == "github":
        errors = [line for line in done.stdout.splitlines() if "cleantree r" in line]
        unreachable = [line for line in errors if "@gpu-3" in line or "@gpu-4" in line]
    else:
        (run,) = json.loads(done.stdout)["runs"]
        unreachable = run["invocations"][0]["toolExecutionNotifications"]
    assert len(unreachable) == 2
