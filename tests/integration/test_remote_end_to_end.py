"""The real CLI and ``pytest --cleantree`` against real sshd servers: one host, a fleet, faults.

Local and remote must agree line for line, on the story example and on a copy of
real code (the standard library); a host that cannot be reached is an error for its
own checks only, and the run fails.
"""

from __future__ import annotations

import getpass
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.ssh
Snapshot = Callable[[Path], dict[str, tuple[bytes, int]]]
Fleet = Any  # the ``fleet`` fixture's object (tests/integration/conftest.py)
SSHClientSetup = Any
ROOT = "partial-revert/python/sglang"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def hits(document: dict[str, Any]) -> list[tuple[str, str, int, tuple[str, ...], str]]:
    return sorted(
        (result["rule"], hit["file"], hit["line"], tuple(hit["kinds"]), hit["source"])
        for result in document["results"]
        for hit in result["hits"]
    )


@pytest.mark.slow
def test_story_remote_equals_local(example_tree: Path, fleet: Fleet, snapshot: Snapshot) -> None:
    before = snapshot(example_tree)
    local = cli("check", "--format", "json", cwd=example_tree)
    remote = cli(
        "check",
        "--format",
        "json",
        "--host",
        f"gpu-a:{example_tree / ROOT}",
        *fleet.cli_options(),
        cwd=example_tree,
    )
    assert (local.returncode, remote.returncode) == (1, 1), remote.stderr
    local_doc, remote_doc = json.loads(local.stdout), json.loads(remote.stdout)
    assert len(hits(local_doc)) == 5
    assert hits(remote_doc) == hits(local_doc)
    assert {r["host"] for r in remote_doc["results"]} == {"gpu-a"}
    assert snapshot(example_tree) == before


@pytest.mark.slow
def test_real_tree_remote_equals_local(tmp_path: Path, fleet: Fleet, snapshot: Snapshot) -> None:
    """A copy of standard-library packages: many files, many hits, byte-for-byte agreement."""
    tree = tmp_path / "stdlib"
    for package in ("json", "email", "importlib"):
        origin = Path(__import__(package).__file__).parent  # type: ignore[arg-type]
        shutil.copytree(origin, tree / package, ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "cleantree.toml").write_text(
        'root = "stdlib"\n'
        '[[rule]]\nid = "names"\nfiles = ["**/*.py"]\n'
        'forbid = ["encode", "_parse*", "re:^Message$"]\n'
        '[[rule]]\nid = "qualified"\nfiles = ["**/*.py"]\nforbid = ["email.utils.formatdate"]\n'
    )
    before = snapshot(tree)
    local = cli("check", "--format", "json", cwd=tmp_path)
    remote = cli(
        "check", "--format", "json", "--host", f"gpu-b:{tree}", *fleet.cli_options(), cwd=tmp_path
    )
    assert local.returncode == remote.returncode == 1, remote.stderr
    local_hits = hits(json.loads(local.stdout))
    assert len(local_hits) > 100
    assert hits(json.loads(remote.stdout)) == local_hits
    assert snapshot(tree) == before


@pytest.mark.slow
def test_fleet_reports_every_host_and_fails_on_the_unreachable_one(
    example_tree: Path, fleet: Fleet
) -> None:
    root = example_tree / ROOT
    completed = cli(
        "check",
        "--host",
        f"gpu-a:{root}",
        "--host",
        f"gpu-b:{root}",
        "--host",
        f"gpu-dead:{root}",
        *fleet.cli_options(),
        cwd=example_tree,
    )
    assert completed.returncode == 2
    out = completed.stdout
    for host in ("gpu-a", "gpu-b"):
        assert re.search(rf"^{host}:srt/server_args.py:46:36 +condition ", out, re.M)
        assert re.search(rf"^{host}:srt/layers/communicator.py:15:5 +import ", out, re.M)
    # the dead host's error is said once, under its host (the fleet's status line)
    assert re.search(r"^gpu-dead: unreachable: .*connection refused", out, re.M), out
    assert "gpu-dead:srt" not in out


def test_unknown_host_key_is_refused(example_tree: Path, fleet: Fleet) -> None:
    fleet.known_hosts.write_text("")
    completed = cli(
        "check", "--host", f"gpu-a:{example_tree / ROOT}", *fleet.cli_options(), cwd=example_tree
    )
    assert completed.returncode == 2
    assert "gpu-a" in completed.stdout
    assert "known_hosts" in completed.stdout
    assert fleet.known_hosts.read_text() == ""


def test_under_pytest_an_unknown_host_key_is_an_error_naming_the_host_not_a_failed_rule(
    example_tree: Path, fleet: Fleet
) -> None:
    """The host's checks end as pytest errors saying why; none reads as a dirty tree (a
    failed rule, its ``why`` above the message), and no key is recorded."""
    fleet.known_hosts.write_text("")
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--cleantree",
            "cleantree.toml",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            ".",
            "-rA",
            "--cleantree-host",
            f"gpu-a:{example_tree / ROOT}",
            *fleet.pytest_options(),
        ],
        capture_output=True,
        text=True,
        cwd=example_tree,
        timeout=300,
        check=False,
    )
    out = run.stdout
    assert run.returncode == 1, out + run.stderr
    assert re.search(r"^=+ 4 errors in ", out, re.M), out
    assert "FAILED" not in out
    assert "PASSED" not in out
    errors = [line for line in out.splitlines() if line.startswith("ERROR cleantree.toml::")]
    assert len(errors) == 4
    shown = [line for line in out.splitlines() if line.startswith("cleantree: error: gpu-a")]
    assert len(shown) == 4, out
    assert all("unknown host key" in line for line in shown), out
    assert "FlashInfer's TRTLLM" not in out  # no rule's why: nothing was checked
    assert "Traceback" not in out
    assert fleet.known_hosts.read_text() == ""


@pytest.mark.slow
def test_pytest_items_per_host_and_xdist(example_tree: Path, fleet: Fleet) -> None:
    root = example_tree / ROOT
    base = [
        sys.executable,
        "-m",
        "pytest",
        "--cleantree",
        "cleantree.toml",
        "-p",
        "no:cacheprovider",
        "--rootdir",
        ".",
        "-rA",
        "-q",
        "--cleantree-host",
        f"gpu-a:{root}",
        "--cleantree-host",
        f"gpu-b:{root}",
        *fleet.pytest_options(),
    ]

    def outcomes(*extra: str) -> dict[str, str]:
        run = subprocess.run(
            [*base, *extra],
            capture_output=True,
            text=True,
            cwd=example_tree,
            timeout=300,
            check=False,
        )
        assert run.returncode == 1, run.stdout + run.stderr
        found: dict[str, str] = {}
        for line in run.stdout.splitlines():
            word, _, node = line.partition(" ")
            if word in ("PASSED", "FAILED") and "::" in node:
                found[node.split(" - ")[0]] = word
        return found

    serial = outcomes()
    assert (
        serial["cleantree.toml::flashinfer-fusion-sm120-reverted[srt/server_args.py@gpu-a]"]
        == "FAILED"
    )
    assert (
        serial["cleantree.toml::sm90-sm100-paths-kept[srt/layers/communicator.py@gpu-b]"]
        == "PASSED"
    )
    assert len(serial) == 8
    assert outcomes("-n", "2") == serial


@pytest.mark.slow
def test_a_server_gone_before_the_run_is_an_error_not_a_pass(
    example_tree: Path, disposable_setup: SSHClientSetup
) -> None:
    disposable_setup.server.process.kill()
    disposable_setup.server.process.wait()
    completed = cli(
        "check",
        "--host",
        f"{disposable_setup.alias}:{example_tree / 'reverted/python/sglang'}",
        "--ssh-config",
        str(disposable_setup.ssh_config),
        "--known-hosts",
        str(disposable_setup.known_hosts),
        "--timeout",
        "10",
        cwd=example_tree,
    )
    assert completed.returncode == 2
    # one unreachable host is one error, whatever the number of rules (issue 25; it said 4)
    assert completed.stdout.splitlines()[-1].startswith(
        "cleantree: 1 error: the check is incomplete"
    )


#: runs the CLI in this process, then says whether invoke was imported
_INVOKE_PROBE = (
    "import sys\n"
    "from pytest_cleantree.frontends.cli.main import main\n"
    "code = main(sys.argv[1:])\n"
    "print('invoke imported:', 'invoke' in sys.modules, file=sys.stderr)\n"
    "sys.exit(code)\n"
)


@pytest.mark.slow
@pytest.mark.parametrize("match_exec", [False, True], ids=["plain config", "Match exec"])
def test_an_ssh_configs_match_exec_still_runs_though_paramiko_starts_without_invoke(
    example_tree: Path, ssh_setup: SSHClientSetup, client_key: Path, match_exec: bool
) -> None:
    """paramiko imports invoke (0.1 s) only for ``Match exec``: a config without one does
    not pay for it, and one with it is read as ssh reads it (here it holds the port)."""
    server = ssh_setup.server
    config = example_tree.parent / "ssh_config"
    plain = (
        f"Host box\n    HostName {server.host}\n    User {getpass.getuser()}\n"
        f"    IdentityFile {client_key}\n    IdentitiesOnly yes\n"
    )
    if match_exec:
        # the first value wins: the port only Match exec gives is the right one
        config.write_text(f'Match exec "test -n box"\n    Port {server.port}\n{plain}    Port 1\n')
    else:
        config.write_text(f"{plain}    Port {server.port}\n")
    done = subprocess.run(
        [
            *(sys.executable, "-c", _INVOKE_PROBE, "check", "--host", f"box:{example_tree / ROOT}"),
            *("--ssh-config", str(config), "--known-hosts", str(ssh_setup.known_hosts)),
        ],
        capture_output=True,
        text=True,
        cwd=example_tree,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert len(re.findall(r"^box:\S+:\d+", done.stdout, re.M)) == 5, done.stdout
    assert f"invoke imported: {match_exec}" in done.stderr
