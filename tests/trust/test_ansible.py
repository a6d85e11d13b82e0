"""The Ansible way: the example playbook, and ``cleantree check --inventory``, on real sshd.

One inventory, as a user keeps it: two healthy hosts (real sshd on loopback), one
whose tree is missing, one that cannot be reached.  ``ansible-playbook -i inventory
pytest_cleantree/examples/ansible/cleantree.yml`` runs the check on each host with the host's own
Python and gathers one summary with each host's exit status; ``cleantree check
--inventory inventory --group gpu`` reads the same file for its own fan-out.
"""

from __future__ import annotations

import getpass
import json
import os
import re
import shutil
import subprocess
import sys
import venv
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from needs import missing
from runs import cleantree

pytestmark = pytest.mark.ssh
SSHServer = Any  # tests/integration/conftest.py's SSHServer
REPO = Path(__file__).resolve().parents[2]
PLAYBOOK = REPO / "pytest_cleantree" / "examples" / "ansible" / "cleantree.yml"


def ansible_playbook() -> str:
    """The ``ansible-playbook`` beside this Python (ansible-core is in the test extra)."""
    beside = Path(sys.executable).parent / "ansible-playbook"
    found = str(beside) if beside.exists() else shutil.which("ansible-playbook")
    if found is None:
        missing("ansible-playbook", "pip install -e '.[test-tools]'")
    return found


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def site(
    tmp_path: Path,
    sshd: SSHServer,
    make_sshd: Callable[..., SSHServer],
    client_key: Path,
) -> Path:
    """A controller folder: the inventory, ssh files, the manifest, and a tree per host."""
    second = make_sshd()
    for name, body in (("dirty", "if is_sm120_supported():\n    pass\n"), ("clean", "x = 1\n")):
        (tmp_path / name).mkdir()
        (tmp_path / name / "server_args.py").write_text(body)
    (tmp_path / "cleantree.toml").write_text(
        '[[rule]]\nid = "sm120"\nfiles = ["server_args.py"]\nforbid = ["sm120"]\n'
    )
    known = tmp_path / "known_hosts"
    known.write_text(sshd.known_hosts_line + second.known_hosts_line)
    ssh_args = f"-o UserKnownHostsFile={known} -o StrictHostKeyChecking=yes -o IdentitiesOnly=yes"
    environment = json.dumps({"PYTHONPATH": str(REPO)})
    (tmp_path / "inventory").write_text(
        "[gpu]\n"
        f"gpu-a ansible_host=127.0.0.1 ansible_port={sshd.port} cleantree_root={tmp_path}/dirty\n"
        f"gpu-b ansible_host=127.0.0.1 ansible_port={second.port} "
        f"cleantree_root={tmp_path}/clean\n"
        f"gpu-c ansible_host=127.0.0.1 ansible_port={sshd.port} "
        f"cleantree_root={tmp_path}/missing\n"
        "[dead]\n"
        f"gpu-dead ansible_host=127.0.0.1 ansible_port={free_port()}\n"
        "[all:vars]\n"
        f"ansible_user={getpass.getuser()}\n"
        f"ansible_ssh_private_key_file={client_key}\n"
        f"ansible_ssh_common_args='{ssh_args}'\n"
        f"ansible_python_interpreter={sys.executable}\n"
        f"cleantree_chdir={tmp_path}\n"
        f"cleantree_environment={environment}\n"
    )
    (tmp_path / "ssh_config").write_text(
        f"Host 127.0.0.1\n    IdentityFile {client_key}\n    IdentitiesOnly yes\n"
    )
    return tmp_path


def run_playbook(site: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "ANSIBLE_LOCAL_TEMP": str(site / ".ansible-local"),
        "ANSIBLE_REMOTE_TMP": str(site / ".ansible-remote"),
        # no multiplexing: no ssh master left running after the test, and no socket path
        # (under a deep temporary folder) too long for a Unix socket
        "ANSIBLE_SSH_ARGS": "-o ControlMaster=no -o ControlPath=none",
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_RETRY_FILES_ENABLED": "0",
        "ANSIBLE_TIMEOUT": "10",
    }
    env.pop("ANSIBLE_CONFIG", None)
    return subprocess.run(
        [ansible_playbook(), "-i", "inventory", str(PLAYBOOK), *extra],
        capture_output=True,
        text=True,
        cwd=site,
        env=env,
        timeout=300,
        check=False,
    )


@pytest.mark.slow
def test_the_playbook_gathers_every_hosts_report_and_status(site: Path) -> None:
    completed = run_playbook(site)
    output = completed.stdout + completed.stderr
    assert completed.returncode != 0, output  # not every host is clean: the play fails
    assert (site / "cleantree-fleet.json").exists(), output
    summary = json.loads((site / "cleantree-fleet.json").read_text())
    assert {host: row["exit"] for host, row in summary.items()} == {
        "gpu-a": 1,
        "gpu-b": 0,
        "gpu-c": 2,
        "gpu-dead": None,
    }, output
    assert summary["gpu-dead"]["status"] == "unreachable"
    hits = [hit for result in summary["gpu-a"]["report"]["results"] for hit in result["hits"]]
    assert [(hit["file"], hit["line"]) for hit in hits] == [("server_args.py", 1)]
    assert summary["gpu-b"]["report"]["summary"]["clean"] is True
    assert "missing" in summary["gpu-c"]["stderr"]
    assert "not clean: gpu-a, gpu-c, gpu-dead" in output


@pytest.mark.slow
def test_the_playbook_passes_on_a_clean_group(site: Path) -> None:
    completed = run_playbook(site, "-e", "cleantree_hosts=gpu-b")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    summary = json.loads((site / "cleantree-fleet.json").read_text())
    assert {host: row["status"] for host, row in summary.items()} == {"gpu-b": "clean"}


@pytest.mark.slow
def test_the_cli_reads_the_same_inventory(site: Path) -> None:
    options = ["--ssh-config", str(site / "ssh_config"), "--known-hosts", str(site / "known_hosts")]
    completed = cleantree(
        "check",
        "--format",
        "json",
        "--inventory",
        "inventory",
        "--group",
        "gpu",
        *options,
        "--python",
        sys.executable,
        cwd=site,
    )
    assert completed.returncode == 2, completed.stderr
    document = json.loads(completed.stdout)
    by_host = {result["host"]: result for result in document["results"]}
    assert sorted(by_host) == ["gpu-a", "gpu-b", "gpu-c"]
    assert [hit["line"] for hit in by_host["gpu-a"]["hits"]] == [1]
    assert by_host["gpu-b"]["ok"] is True
    assert "does not exist" in by_host["gpu-c"]["problems"][0]
    missing = cleantree("check", "--inventory", "inventory", "--group", "gpus", cwd=site)
    assert missing.returncode == 2
    assert "--group 'gpus': no such group (groups: dead, gpu)" in missing.stderr
    alone = cleantree("check", "--group", "gpu", cwd=site)
    assert alone.returncode == 2
    assert "--group needs --inventory FILE" in alone.stderr


def add_broken_host(site: Path, **variables: str) -> str:
    """A host of group ``broken`` on gpu-b's sshd whose check cannot start (``variables``)."""
    inventory = (site / "inventory").read_text()
    port = re.search(r"^gpu-b ansible_host=127\.0\.0\.1 ansible_port=(\d+)", inventory, re.M)
    assert port is not None
    settings = " ".join(f"{key}={value}" for key, value in variables.items())
    line = f"gpu-broken ansible_host=127.0.0.1 ansible_port={port[1]} {settings}"
    (site / "inventory").write_text(f"{inventory}[broken]\n{line}\n")
    return "gpu-broken"


STALE = '{"gpu-b": {"exit": 0, "status": "clean", "report": null, "stderr": "stale"}}\n'


@pytest.mark.parametrize(
    ("variables", "why"),
    [
        pytest.param(
            {"cleantree_python": "/no/such/python"},
            "cannot execute /no/such/python (no such interpreter?)",
            id="no-python",
        ),
        # a Python without the tool: "did not run", never "violations" (exit 3 of the bootstrap)
        pytest.param(
            {"cleantree_python": "BARE", "cleantree_environment": "'{}'"},
            "pytest-cleantree is not installed for BARE",
            id="no-tool",
        ),
        pytest.param({"cleantree_chdir": "/no/such/folder"}, "change directory", id="no-folder"),
        # the module itself cannot run there (cleantree_python defaults to this one too)
        pytest.param(
            {"ansible_python_interpreter": "/no/such/python"}, "/no/such/python", id="no-module"
        ),
    ],
)
def test_a_host_whose_check_did_not_start_is_marked_and_the_summary_is_this_runs(
    site: Path, variables: dict[str, str], why: str
) -> None:
    """The command cannot start on one host (no such Python, no such folder): that host is
    "did not run: <why>" (no exit status), the others are reported, the play fails, and the
    summary on disk is this run's, not the previous one."""
    if variables.get("cleantree_python") == "BARE":
        venv.create(site / "bare")  # a Python that cannot import pytest-cleantree
        bare = str(site / "bare" / "bin" / "python")
        variables = {**variables, "cleantree_python": bare}
        why = why.replace("BARE", bare)
    host = add_broken_host(site, **variables)
    (site / "cleantree-fleet.json").write_text(STALE)
    completed = run_playbook(site, "-e", f"cleantree_hosts=gpu-b:{host}")
    output = completed.stdout + completed.stderr
    assert completed.returncode != 0, output
    summary = json.loads((site / "cleantree-fleet.json").read_text())
    assert sorted(summary) == ["gpu-b", host], output
    assert summary["gpu-b"]["status"] == "clean"
    assert summary["gpu-b"]["stderr"] != "stale"  # this run's row, not the old file's
    assert summary[host]["exit"] is None, summary[host]
    assert summary[host]["report"] is None
    assert summary[host]["status"].startswith("did not run: "), summary[host]
    assert why in summary[host]["status"], summary[host]
    assert f"not clean: {host}" in output
    assert not list(site.glob(".*cleantree-fleet*")), "a temporary file was left behind"


def test_the_manifest_is_copied_from_the_controller(site: Path) -> None:
    """``cleantree_manifest_copy`` checks each host against the controller's manifest (copied to
    a temporary folder there), not the host's own."""
    (site / "controller.toml").write_text(
        '[[rule]]\nid = "ones"\nfiles = ["server_args.py"]\nforbid = ["=x"]\n'
    )
    completed = run_playbook(
        site, "-e", "cleantree_hosts=gpu-b", "-e", f"cleantree_manifest_copy={site}/controller.toml"
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode != 0, output
    summary = json.loads((site / "cleantree-fleet.json").read_text())
    assert summary["gpu-b"]["status"] == "violations", summary
    (result,) = summary["gpu-b"]["report"]["results"]
    assert result["rule"] == "ones"
    assert [hit["line"] for hit in result["hits"]] == [1]


def test_a_run_that_checks_nothing_leaves_no_stale_summary(site: Path) -> None:
    """A host pattern that matches no host fails, and removes the previous summary first: no
    summary on disk can be mistaken for this run's."""
    (site / "cleantree-fleet.json").write_text(STALE)
    completed = run_playbook(site, "-e", "cleantree_hosts=gpu-typo")
    output = completed.stdout + completed.stderr
    assert completed.returncode != 0, output
    assert "no host matches 'gpu-typo': nothing was checked" in output
    assert not (site / "cleantree-fleet.json").exists(), output
