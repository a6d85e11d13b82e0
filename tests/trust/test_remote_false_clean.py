"""Never a false clean over SSH: trees the user named twice, folders the check cannot see into,
links between folders, known_hosts files with markers.  The real CLI against the real sshd of
``tests/integration/conftest.py``; each case ends in a finding or an error, never in a pass."""

from __future__ import annotations

import getpass
import os
import re
import shlex
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from runs import cleantree, unprivileged

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


@pytest.mark.slow
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
        assert f"{alias}:{dirty}:m.py:1:1  assignment  sm120 = 1" in completed.stdout
        # the summary counts what failed; each root's own status says it was checked
        assert "1 forbidden line in 1 file (1 rule checked)" in completed.stdout
        assert f"{alias}:{clean}: clean" in completed.stdout


# ---------------------------------------------------------------- item 2: unreadable folders

SFTP_SERVER = "/usr/lib/openssh/sftp-server"


def unprivileged_server(make_sshd: Any, tmp_path: Path, client_key: Path, sftp: bool) -> Setup:
    """An sshd whose sessions run without the file-permission capabilities (as root) or as
    the user: the helper's commands, or (``sftp``) only an SFTP server, for every request."""
    prefix = " ".join(shlex.quote(word) for word in unprivileged())
    if sftp:
        if not os.path.exists(SFTP_SERVER):
            pytest.fail(f"{SFTP_SERVER} is not installed (openssh-sftp-server)")
        command = f"{prefix} {SFTP_SERVER}"
    else:
        command = f'{prefix} /bin/sh -c "$SSH_ORIGINAL_COMMAND"'
    server = make_sshd(extra=[f"ForceCommand {command}"])
    folder = tmp_path / ("client-sftp" if sftp else "client")
    folder.mkdir()
    (folder / "ssh_config").write_text(
        f"Host locked\n    HostName {server.host}\n    Port {server.port}\n"
        f"    User {getpass.getuser()}\n    IdentityFile {client_key}\n    IdentitiesOnly yes\n"
    )
    (folder / "known_hosts").write_text(server.known_hosts_line)
    return SimpleNamespace(
        alias="locked", ssh_config=folder / "ssh_config", known_hosts=folder / "known_hosts"
    )


@pytest.mark.slow
@pytest.mark.parametrize("sftp", [False, True], ids=["helper", "sftp"])
@pytest.mark.parametrize(
    "rule",
    [
        pytest.param('files = ["src/**/*.py"]\nforbid = ["sm120"]', id="glob"),
        pytest.param(
            'files = ["src/locked/m.py"]\nforbid = ["sm120"]\nmissing_ok = true',
            id="literal-missing-ok",
        ),
        pytest.param('absent = ["src/locked/m.py"]', id="absent-literal"),
        pytest.param('absent = ["src/**/m.py"]', id="absent-glob"),
    ],
)
def test_an_unreadable_remote_folder_is_an_error_not_a_pass(
    tmp_path: Path, make_sshd: Any, client_key: Path, sftp: bool, rule: str
) -> None:
    setup = unprivileged_server(make_sshd, tmp_path, client_key, sftp)
    tree = write(tmp_path / "tree", {"src/ok.py": "x = 1\n", "src/locked/m.py": "sm120 = 1\n"})
    (tmp_path / "cleantree.toml").write_text(f"[[rule]]\n{rule}\n")
    (tree / "src" / "locked").chmod(0)
    try:
        completed = cleantree("check", "--host", f"locked:{tree}", *options(setup), cwd=tmp_path)
    finally:
        (tree / "src" / "locked").chmod(0o755)
    assert completed.returncode == 2, completed.stdout + completed.stderr
    assert re.search(r"src/locked(/m\.py)?: .*[Pp]ermission denied", completed.stdout)


# ---------------------------------------------------------------- items 3 and 9 over SSH


@pytest.mark.slow
def test_remote_globs_follow_links_and_absent_sees_folders(
    tmp_path: Path, ssh_setup: Setup
) -> None:
    tree = write(
        tmp_path / "tree",
        {"src/ok.py": "x = 1\n", "third_party/kernels/k.py": "sm120 = 1\n", "sm120_fused/a": ""},
    )
    (tree / "src" / "kernels").symlink_to("../third_party/kernels")
    (tmp_path / "cleantree.toml").write_text(
        '[[rule]]\nfiles = ["src/**/*.py"]\nforbid = ["sm120"]\n'
        '[[rule]]\nid = "gone"\nabsent = ["sm120*"]\n'
    )
    completed = cleantree(
        "check", "--host", f"{ssh_setup.alias}:{tree}", *options(ssh_setup), cwd=tmp_path
    )
    assert completed.returncode == 1, completed.stdout + completed.stderr
    alias = ssh_setup.alias
    assert f"{alias}:src/kernels/k.py:1:1  assignment  sm120 = 1" in completed.stdout
    assert f"{alias}:sm120_fused  present  must not exist" in completed.stdout


# ---------------------------------------------------------------- item 11: known_hosts markers


def known_hosts_setup(tmp_path: Path, ssh_setup: Setup, text: str) -> Setup:
    known = tmp_path / "known_hosts_marked"
    known.write_text(text)
    return SimpleNamespace(
        alias=ssh_setup.alias, ssh_config=ssh_setup.ssh_config, known_hosts=known
    )


def run_on(tmp_path: Path, setup: Setup, *extra: str) -> Any:
    tree = write(tmp_path / "tree", {"m.py": "sm120 = 1\n"})
    (tmp_path / "cleantree.toml").write_text(MANIFEST)
    host = f"{setup.alias}:{tree}"
    return cleantree("check", "--host", host, *options(setup), *extra, cwd=tmp_path)


def test_cert_authority_lines_are_skipped(
    tmp_path: Path, ssh_setup: Setup, client_key: Path
) -> None:
    """A host-certificate authority (paramiko checks no host certificates) is no crash."""
    authority = client_key.with_suffix(".pub").read_text().split()[:2]
    text = f"@cert-authority *.example.com {' '.join(authority)}\n"
    text += ssh_setup.server.known_hosts_line
    completed = run_on(tmp_path, known_hosts_setup(tmp_path, ssh_setup, text))
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "m.py:1:1  assignment  sm120 = 1" in completed.stdout


@pytest.mark.parametrize("listed", [True, False], ids=["also-listed", "only-revoked"])
@pytest.mark.parametrize("accept_new", [False, True], ids=["strict", "accept-new"])
def test_a_revoked_host_key_is_refused(
    tmp_path: Path, ssh_setup: Setup, listed: bool, accept_new: bool
) -> None:
    server = ssh_setup.server
    text = f"@revoked * {server.host_key}\n"
    if listed:
        text += server.known_hosts_line
    setup = known_hosts_setup(tmp_path, ssh_setup, text)
    extra = ["--accept-new-host-key"] if accept_new else []
    completed = run_on(tmp_path, setup, *extra)
    assert completed.returncode == 2, completed.stdout + completed.stderr
    assert "REVOKED" in completed.stdout
    assert "internal error" not in completed.stderr
    assert setup.known_hosts.read_text() == text  # nothing recorded


# ---------------------------------------------------------------- issue 45: one model, both sides


@pytest.mark.parametrize("encoding", ["utf-16-le", "utf-16-be"])
def test_a_file_the_analysis_cannot_read_is_an_error_over_ssh_as_locally(
    tmp_path: Path, ssh_setup: Setup, encoding: str
) -> None:
    """A YAML file in UTF-16 without a byte-order mark holds the word: locally exit 2 (it
    cannot be read as text); the agent, whose needle test saw no ``sm120`` bytes, spared it and
    the remote check said clean.  Both sides are now one answer."""
    root = tmp_path / "tree"
    root.mkdir()
    (root / "ci.yaml").write_bytes("steps:\n  - run: enable sm120\n".encode(encoding))
    (tmp_path / "cleantree.toml").write_text(
        'root = "tree"\n[[rule]]\nid = "r"\nfiles = ["*.yaml"]\nforbid = ["sm120"]\n'
    )
    local = cleantree("check", cwd=tmp_path)
    remote = cleantree(
        "check", "--host", f"{ssh_setup.alias}:{root}", *options(ssh_setup), cwd=tmp_path
    )
    assert local.returncode == 2, local.stdout + local.stderr
    assert remote.returncode == local.returncode, remote.stdout + remote.stderr
    assert "holds NUL bytes" in remote.stdout, remote.stdout


def test_a_json_escape_python_lacks_is_found_over_ssh_as_locally(
    tmp_path: Path, ssh_setup: Setup
) -> None:
    """``"http:\\/\\/internal-host\\/v1"`` in a JSON file: the JSON view reads ``\\/`` as
    ``/`` and finds the path locally (exit 1); the agent, modelling Python's escapes only,
    spared the file and the remote check said clean."""
    root = tmp_path / "tree"
    root.mkdir()
    (root / "conf.json").write_text('{"url": "http:\\/\\/internal-host\\/v1"}\n')
    (tmp_path / "cleantree.toml").write_text(
        'root = "tree"\n[[rule]]\nid = "r"\nfiles = ["*.json"]\nforbid = ["internal-host/v1"]\n'
    )
    local = cleantree("check", cwd=tmp_path)
    remote = cleantree(
        "check", "--host", f"{ssh_setup.alias}:{root}", *options(ssh_setup), cwd=tmp_path
    )
    assert local.returncode == 1, local.stdout + local.stderr
    assert remote.returncode == local.returncode, remote.stdout + remote.stderr
    assert "conf.json:1" in remote.stdout, remote.stdout
