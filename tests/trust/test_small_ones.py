"""The small things a new user met (issue 25, point 7), run as the user runs them: the CLI in a
process of its own, pytest through pytester, real sshd servers on loopback."""

from __future__ import annotations

import getpass
import importlib
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from runs import cleantree

SSHServer = Any  # tests/integration/conftest.py's SSHServer
TREE_RULE = '[[rule]]\nid = "sm120-reverted"\nfiles = ["a.py"]\nforbid = ["use_sm120"]\n'


def _project(folder: Path, manifest: str, source: str = "x = 1\n") -> Path:
    (folder / ".git").mkdir()
    (folder / "a.py").write_text(source)
    (folder / "cleantree.toml").write_text(manifest)
    return folder


# ---------------------------------------------------------------- manifests


def test_an_unknown_top_level_key_has_its_line(tmp_path: Path) -> None:
    _project(tmp_path, 'root = "."\n\n[[rules]]\nfiles = ["a.py"]\nforbid = ["x"]\n')
    done = cleantree("check", cwd=tmp_path)
    assert done.returncode == 2
    assert "  - unknown key 'rules' (did you mean 'rule'?) (at line 3)" in done.stderr.splitlines()
    github = cleantree("check", "--format", "github", cwd=tmp_path)
    assert (
        "::error file=cleantree.toml,line=3,title=cleantree could not check::unknown key 'rules'"
        in (github.stdout)
    )


def test_a_misspelled_tool_table_gets_a_did_you_mean(
    tmp_path: Path, pytester: pytest.Pytester
) -> None:
    (tmp_path / ".git").mkdir()
    pyproject = tmp_path / "pyproject.toml"
    pyproject.write_text(
        '[project]\nname = "x"\n\n[tool.cleantre]\n'
        + TREE_RULE.replace("[[rule]]", "[[tool.cleantre.rule]]")
    )
    done = cleantree("check", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        f"cleantree: error: {pyproject} has [tool.cleantre]: did you mean [tool.cleantree]?\n"
    )
    (pytester.path / ".git").mkdir()
    (pytester.path / "pyproject.toml").write_text(pyproject.read_text())
    result = pytester.runpytest_subprocess("--cleantree", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*--cleantree: *pyproject.toml has [[]tool.cleantre[]]: "
            "did you mean [[]tool.cleantree[]]?"
        ]
    )


def test_an_allow_with_a_misspelled_rule_id_gets_a_did_you_mean(tmp_path: Path) -> None:
    source = "use_sm120 = 1  # cleantree: allow sm120-revertd -- the A/B harness\n"
    _project(tmp_path, TREE_RULE, source)
    done = cleantree("check", cwd=tmp_path)
    assert done.returncode == 1
    assert (
        "[the allow names 'sm120-revertd', which is no rule of the manifest "
        "(did you mean 'sm120-reverted'?)]" in done.stdout
    )


# ---------------------------------------------------------------- SSH


def _unknown_key_files(folder: Path, sshd: SSHServer, client_key: Path) -> tuple[Path, Path]:
    config = folder / "ssh_config"
    config.write_text(
        f"Host gpu-3\n    HostName 127.0.0.1\n    Port {sshd.port}\n"
        f"    User {getpass.getuser()}\n    IdentityFile {client_key}\n    IdentitiesOnly yes\n"
    )
    known = folder / "known_hosts"
    known.write_text("")  # the host was never seen
    return config, known


@pytest.mark.ssh
def test_an_unknown_host_key_names_the_flag_of_each_front_end(
    tmp_path: Path, sshd: SSHServer, client_key: Path, pytester: pytest.Pytester
) -> None:
    _project(tmp_path, TREE_RULE)
    config, known = _unknown_key_files(tmp_path, sshd, client_key)
    options = ["--ssh-config", str(config), "--known-hosts", str(known), "--python", sys.executable]
    done = cleantree("check", "--host", f"gpu-3:{tmp_path}", *options, cwd=tmp_path)
    assert done.returncode == 2
    assert "or allow new host keys (--accept-new-host-key)" in done.stdout
    assert "accept_new_host_key" not in done.stdout

    (pytester.path / "a.py").write_text("x = 1\n")
    (pytester.path / "cleantree.toml").write_text(TREE_RULE)
    result = pytester.runpytest_subprocess(
        "cleantree.toml",
        "-p",
        "no:cacheprovider",
        "--cleantree-host",
        f"gpu-3:{pytester.path}",
        *["--cleantree-" + o[2:] if o.startswith("--") else o for o in options],
    )
    result.assert_outcomes(errors=1)  # the host's fault, not the tree's: an error, not a fail
    result.stdout.fnmatch_lines(["*or allow new host keys (--cleantree-accept-new-host-key)*"])


@pytest.mark.ssh
def test_the_inventory_key_file_reaches_the_connection(
    tmp_path: Path, sshd_binary: str, host_key: Path
) -> None:
    """A server that takes only a key of its own, named by ``ansible_ssh_private_key_file``
    (and reached by ``ansible_host``, ``ansible_port``, ``ansible_user``): no ssh config
    names it, it is not a default key."""
    fixtures = importlib.import_module("cleantree_trust_sshd_fixtures")
    key = tmp_path / "deploy_key"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True, timeout=60
    )
    authorized = tmp_path / "authorized_keys"
    authorized.write_text(key.with_suffix(".pub").read_text())
    (tmp_path / "project").mkdir()
    tree = _project(tmp_path / "project", TREE_RULE, "use_sm120 = 1\n")
    with fixtures.running_sshd(sshd_binary, tmp_path / "sshd", host_key, authorized) as server:
        (tmp_path / "known_hosts").write_text(server.known_hosts_line)
        (tmp_path / "ssh_config").write_text("")
        (tmp_path / "inventory.ini").write_text(
            "[gpu]\n"
            f"gpu-k ansible_host=127.0.0.1 ansible_port={server.port} "
            f"ansible_user={getpass.getuser()} ansible_ssh_private_key_file=deploy_key "
            f"cleantree_root={tree}\n"
        )
        done = cleantree(
            "check",
            "--manifest",
            str(tree / "cleantree.toml"),
            "--inventory",
            "inventory.ini",
            "--ssh-config",
            "ssh_config",
            "--known-hosts",
            "known_hosts",
            "--python",
            sys.executable,
            cwd=tmp_path,
        )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "gpu-k:a.py:1:1" in done.stdout
