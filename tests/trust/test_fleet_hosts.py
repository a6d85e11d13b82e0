"""Fleets: how many hosts are checked at once, and a hung host holds no other's results.

Real sshd servers; the hung host is a proxy in front of one that never forwards a
byte (so no SSH banner ever arrives: the connect timeout bounds it).  Which host
is reported first is the observable: with every host at once, the healthy ones
come before the hung one; with ``--forks 1``, in the order given.
"""

from __future__ import annotations

import getpass
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from faultproxy import FaultProxy, Plan
from runs import cleantree

from pytest_cleantree.config.manifest import load_manifest
from pytest_cleantree.core.checks import iter_checks
from pytest_cleantree.run.runner import Runner, default_forks
from pytest_cleantree.sources import RemoteOptions, resolve_hosts

pytestmark = pytest.mark.ssh
SSHServer = Any  # tests/integration/conftest.py's SSHServer
HOSTS = ["hung", "gpu-a", "gpu-b"]


class Fleet:
    """A tree, a manifest, and an ssh config naming two healthy hosts and a hung one."""

    def __init__(self, folder: Path, good: SSHServer, hung_port: int, key: Path) -> None:
        self.folder = folder
        self.tree = folder / "tree"
        self.tree.mkdir()
        (self.tree / "a.py").write_text("import os\nif is_sm120_supported():\n    pass\n")
        (self.tree / "b.py").write_text("x = 1\n")
        self.manifest = folder / "cleantree.toml"
        self.manifest.write_text(
            'root = "tree"\n[[rule]]\nid = "sm120"\nfiles = ["*.py"]\nforbid = ["sm120"]\n'
        )
        blocks = [
            f"Host {alias}\n    HostName 127.0.0.1\n    Port {port}\n"
            f"    User {getpass.getuser()}\n    IdentityFile {key}\n    IdentitiesOnly yes\n"
            for alias, port in (("gpu-a", good.port), ("gpu-b", good.port), ("hung", hung_port))
        ]
        self.ssh_config = folder / "ssh_config"
        self.ssh_config.write_text("".join(blocks))
        self.known_hosts = folder / "known_hosts"
        self.known_hosts.write_text(
            good.known_hosts_line + f"[127.0.0.1]:{hung_port} {good.host_key}\n"
        )

    def specs(self, hosts: list[str]) -> list[str]:
        return [f"{host}:{self.tree}" for host in hosts]

    def options(self) -> RemoteOptions:
        return RemoteOptions(
            known_hosts=self.known_hosts,
            ssh_config=self.ssh_config,
            connect_timeout=2,
            command_timeout=20,
            python=sys.executable,
        )

    def cli_options(self) -> list[str]:
        return [
            "--ssh-config",
            str(self.ssh_config),
            "--known-hosts",
            str(self.known_hosts),
            "--python",
            sys.executable,
            "--connect-timeout",
            "2",
        ]


@pytest.fixture
def fleet(
    tmp_path: Path,
    sshd: SSHServer,
    client_key: Path,
    make_proxy: Callable[[tuple[str, int]], FaultProxy],
) -> Fleet:
    proxy = make_proxy((sshd.host, sshd.port))
    proxy.plan = Plan("stall", "down", 0)
    return Fleet(tmp_path, sshd, proxy.port, client_key)


def reported(fleet: Fleet, forks: int | None) -> list[tuple[str, bool, str]]:
    """(host, ok, first problem) per host, in the order the runner handed them over."""
    manifest = load_manifest(fleet.manifest)
    targets = resolve_hosts(fleet.specs(HOSTS), {})
    runner = Runner(manifest, targets=targets, remote=fleet.options(), forks=forks)
    checks = list(iter_checks(manifest.rules))
    try:
        order = []
        for host, results in runner.iter_fleet(checks):
            (result,) = results.values()
            order.append((host, result.ok, str(result.problems[0]) if result.problems else ""))
        return order
    finally:
        runner.close()


@pytest.mark.slow
def test_a_hung_host_is_reported_after_the_healthy_ones(fleet: Fleet) -> None:
    order = reported(fleet, None)
    assert [host for host, _, _ in order[:2]] in (["gpu-a", "gpu-b"], ["gpu-b", "gpu-a"])
    assert [ok for _, ok, _ in order] == [False, False, False]
    assert [problem for _, _, problem in order[:2]] == ["", ""]  # a hit, not an error
    assert order[2][2].startswith("hung"), order[2][2]
    assert "within 2 s" in order[2][2], order[2][2]


@pytest.mark.slow
def test_forks_bounds_the_hosts_checked_at_once(fleet: Fleet) -> None:
    # one at a time, in the order given: the hung host, first, holds the others
    assert [host for host, _, _ in reported(fleet, 1)] == HOSTS


def test_the_default_is_every_host_up_to_32() -> None:
    assert [default_forks(n) for n in (0, 1, 3, 32, 33, 500)] == [1, 1, 3, 32, 32, 32]


@pytest.mark.slow
def test_the_cli_reports_the_fleet_with_forks(fleet: Fleet) -> None:
    completed = cleantree(
        "check",
        "--format",
        "json",
        "--forks",
        "2",
        *[arg for spec in fleet.specs(HOSTS) for arg in ("--host", spec)],
        *fleet.cli_options(),
        cwd=fleet.folder,
    )
    assert completed.returncode == 2, completed.stderr
    document = json.loads(completed.stdout)
    by_host = {result["host"]: result for result in document["results"]}
    assert sorted(by_host) == sorted(HOSTS)
    assert [hit["line"] for hit in by_host["gpu-a"]["hits"]] == [2]
    assert by_host["gpu-b"]["problems"] == []
    assert by_host["hung"]["problems"]


@pytest.mark.parametrize("value", ["0", "-3", "two"])
def test_a_bad_forks_value_is_refused_by_name(fleet: Fleet, value: str) -> None:
    completed = cleantree("check", "--forks", value, cwd=fleet.folder)
    assert completed.returncode == 2
    assert f"argument --forks: {value!r} is not a number of hosts (1 or more)" in (completed.stderr)


@pytest.mark.slow
def test_pytest_items_of_healthy_hosts_pass_beside_a_hung_one(
    fleet: Fleet, pytester: pytest.Pytester
) -> None:
    (fleet.tree / "a.py").write_text("x = 2\n")  # clean everywhere it can be read
    options = fleet.cli_options()
    renamed = [
        "--cleantree-" + option[2:] if option.startswith("--") else option for option in options
    ]
    result = pytester.runpytest_subprocess(
        str(fleet.manifest),
        "-p",
        "no:cacheprovider",
        "--cleantree-forks",
        "3",
        *[arg for spec in fleet.specs(HOSTS) for arg in ("--cleantree-host", spec)],
        *renamed,
    )
    result.assert_outcomes(passed=2, errors=1)  # the hung host's item errs: no rule failed
    result.stdout.fnmatch_lines(["*sm120*[[]*.py@hung[]]*", "*hung*within 2 s*"])
