"""Real OpenSSH servers for the SSH source, from a chain of small fixtures.

    ssh_folder -> host_key, client_key -> authorized_keys -> sshd (a running
    ``sshd -D``) -> known_hosts, ssh_config -> make_ssh_source

Everything lives in pytest's temporary folders: the machine's own ``~/.ssh``
and sshd configuration are never read nor written.  The server logs in as the
user running the tests (root in CI containers).

Without ``sshd`` the tests skip, except when ``CI=true``: then they fail, so
that CI cannot pass having run nothing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import getpass
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from needs import unavailable

from pytest_cleantree.config.hosts import parse_host_spec
from pytest_cleantree.sources import RemoteOptions
from pytest_cleantree.sources.ssh import SSHSource

#: the ssh config alias of the session's server
HOST_ALIAS = "cleantree-test"
#: the ssh config alias of the server that only speaks SFTP
SFTP_ALIAS = "cleantree-sftp-only"

_SSHD_PATH = "/usr/sbin:/usr/local/sbin:/sbin:" + os.environ.get("PATH", "")


@dataclasses.dataclass(frozen=True)
class SSHServer:
    """A running ``sshd`` on 127.0.0.1."""

    host: str
    port: int
    process: subprocess.Popen[bytes]
    config: Path
    log: Path
    #: ``ssh-ed25519 AAAA...``, the public half of its host key
    host_key: str

    @property
    def known_hosts_line(self) -> str:
        return f"[{self.host}]:{self.port} {self.host_key}\n"

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")


@dataclasses.dataclass(frozen=True)
class SSHClientSetup:
    """What a client needs to reach one server: the files the fixtures wrote."""

    server: SSHServer
    alias: str
    ssh_config: Path
    known_hosts: Path


def _need(program: str) -> str:
    found = shutil.which(program, path=_SSHD_PATH)
    if found is None:
        unavailable(f"{program} is not installed: the SSH source cannot be tested")
    return found


@pytest.fixture(scope="session")
def sshd_binary() -> str:
    return _need("sshd")


@pytest.fixture(scope="session")
def ssh_keygen() -> Callable[[Path], Path]:
    """Make an ed25519 key pair at a path (``path`` and ``path.pub``), without a passphrase."""
    program = _need("ssh-keygen")

    def make(path: Path) -> Path:
        subprocess.run(
            [program, "-q", "-t", "ed25519", "-N", "", "-C", path.name, "-f", str(path)],
            check=True,
            stdin=subprocess.DEVNULL,
        )
        return path

    return make


@pytest.fixture(scope="session")
def ssh_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("ssh")


@pytest.fixture(scope="session")
def host_key(ssh_folder: Path, ssh_keygen: Callable[[Path], Path]) -> Path:
    return ssh_keygen(ssh_folder / "host_ed25519")


@pytest.fixture(scope="session")
def client_key(ssh_folder: Path, ssh_keygen: Callable[[Path], Path]) -> Path:
    return ssh_keygen(ssh_folder / "client_ed25519")


@pytest.fixture(scope="session")
def authorized_keys(ssh_folder: Path, client_key: Path) -> Path:
    path = ssh_folder / "authorized_keys"
    path.write_text(client_key.with_suffix(".pub").read_text())
    return path


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def write_sshd_config(
    path: Path, port: int, host_key: Path, authorized_keys: Path, extra: Sequence[str] = ()
) -> Path:
    lines = [
        f"Port {port}",
        "ListenAddress 127.0.0.1",
        f"HostKey {host_key}",
        f"AuthorizedKeysFile {authorized_keys}",
        "StrictModes no",
        "PasswordAuthentication no",
        "KbdInteractiveAuthentication no",
        "UsePAM no",
        "PermitRootLogin prohibit-password",
        f"PidFile {path.with_suffix('.pid')}",
        "Subsystem sftp internal-sftp",
        "LogLevel VERBOSE",
        *extra,
    ]
    path.write_text("\n".join(lines) + "\n")
    return path


def _wait_for_banner(process: subprocess.Popen[bytes], port: int, deadline: float) -> bool:
    """True once the server greets with an SSH banner; False if it exited first."""
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        with (
            contextlib.suppress(OSError),
            socket.create_connection(("127.0.0.1", port), timeout=0.5) as probe,
        ):
            if probe.recv(4) == b"SSH-":
                return True
        time.sleep(0.05)
    return False


@contextlib.contextmanager
def running_sshd(
    sshd: str,
    folder: Path,
    host_key: Path,
    authorized_keys: Path,
    extra: Sequence[str] = (),
) -> Iterator[SSHServer]:
    """Start ``sshd -D -e`` on a free port of 127.0.0.1; stop it on exit."""
    # Debian's sshd refuses to start without its privilege separation folder.
    with contextlib.suppress(OSError):
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
    folder.mkdir(parents=True, exist_ok=True)
    for _attempt in range(3):  # another process may take the free port first
        port = free_port()
        config = write_sshd_config(folder / "sshd_config", port, host_key, authorized_keys, extra)
        log = folder / "sshd.log"
        with open(log, "wb") as log_handle:
            process = subprocess.Popen(
                [sshd, "-D", "-e", "-f", str(config)],
                stdin=subprocess.DEVNULL,
                stdout=log_handle,
                stderr=log_handle,
            )
        try:
            if not _wait_for_banner(process, port, time.monotonic() + 15):
                if process.poll() is not None and b"Address already in use" in log.read_bytes():
                    continue
                pytest.fail(f"sshd did not start on port {port}:\n{log.read_text()}")
            yield SSHServer(
                "127.0.0.1",
                port,
                process,
                config,
                log,
                " ".join(host_key.with_suffix(".pub").read_text().split()[:2]),
            )
            return
        finally:
            stop_process(process)
    pytest.fail("sshd found no free port in 3 attempts")


def stop_process(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def write_ssh_config(path: Path, alias: str, server: SSHServer, key: Path, extra: str = "") -> Path:
    path.write_text(
        f"Host {alias}\n"
        f"    HostName {server.host}\n"
        f"    Port {server.port}\n"
        f"    User {getpass.getuser()}\n"
        f"    IdentityFile {key}\n"
        f"    IdentitiesOnly yes\n"
        f"{extra}"
    )
    return path


@pytest.fixture(scope="session")
def sshd(
    sshd_binary: str, ssh_folder: Path, host_key: Path, authorized_keys: Path
) -> Iterator[SSHServer]:
    with running_sshd(sshd_binary, ssh_folder / "sshd", host_key, authorized_keys) as server:
        yield server


@pytest.fixture(scope="session")
def known_hosts(ssh_folder: Path, sshd: SSHServer) -> Path:
    path = ssh_folder / "known_hosts"
    path.write_text(sshd.known_hosts_line)
    return path


@pytest.fixture(scope="session")
def ssh_config(ssh_folder: Path, sshd: SSHServer, client_key: Path) -> Path:
    return write_ssh_config(ssh_folder / "ssh_config", HOST_ALIAS, sshd, client_key)


@pytest.fixture(scope="session")
def ssh_setup(sshd: SSHServer, ssh_config: Path, known_hosts: Path) -> SSHClientSetup:
    return SSHClientSetup(sshd, HOST_ALIAS, ssh_config, known_hosts)


@pytest.fixture(scope="session")
def sftp_only_setup(
    sshd_binary: str,
    ssh_folder: Path,
    host_key: Path,
    authorized_keys: Path,
    client_key: Path,
) -> Iterator[SSHClientSetup]:
    """A second server that runs nothing but SFTP (``ForceCommand internal-sftp``)."""
    folder = ssh_folder / "sftp-only"
    with running_sshd(
        sshd_binary, folder, host_key, authorized_keys, ["ForceCommand internal-sftp"]
    ) as server:
        known = folder / "known_hosts"
        known.write_text(server.known_hosts_line)
        config = write_ssh_config(folder / "ssh_config", SFTP_ALIAS, server, client_key)
        yield SSHClientSetup(server, SFTP_ALIAS, config, known)


@pytest.fixture
def disposable_setup(
    sshd_binary: str,
    tmp_path: Path,
    host_key: Path,
    authorized_keys: Path,
    client_key: Path,
) -> Iterator[SSHClientSetup]:
    """A server of the test's own, that the test may kill."""
    with running_sshd(sshd_binary, tmp_path / "sshd", host_key, authorized_keys) as server:
        known = tmp_path / "known_hosts"
        known.write_text(server.known_hosts_line)
        config = write_ssh_config(tmp_path / "ssh_config", HOST_ALIAS, server, client_key)
        yield SSHClientSetup(server, HOST_ALIAS, config, known)


SourceFactory = Callable[..., SSHSource]


@pytest.fixture
def make_ssh_source(ssh_setup: SSHClientSetup) -> Iterator[SourceFactory]:
    """``make_ssh_source(root, setup=None, **options)``: an SSHSource closed after the test.

    ``setup`` defaults to the session's server; ``python`` to this interpreter.
    """
    made: list[SSHSource] = []

    def make(root: Path | str, setup: SSHClientSetup | None = None, **options: Any) -> SSHSource:
        chosen = setup or ssh_setup
        options.setdefault("known_hosts", chosen.known_hosts)
        options.setdefault("ssh_config", chosen.ssh_config)
        options.setdefault("command_timeout", 30)
        # the test run's own interpreter: a pyenv shim would add 0.2 s to each command
        options.setdefault("python", sys.executable)
        outside = options.pop("allow_outside_root", False)
        source = SSHSource(
            parse_host_spec(chosen.alias),
            str(root),
            RemoteOptions(**options),
            allow_outside_root=outside,
        )
        made.append(source)
        return source

    yield make
    for source in made:
        source.close()


@pytest.fixture
def make_client_setup(
    tmp_path: Path, sshd: SSHServer, client_key: Path, known_hosts: Path
) -> Callable[..., SSHClientSetup]:
    """``make_client_setup(port=, key=, known_hosts_text=, extra=)``: a test's own client files.

    By default they reach the session's server as ``ssh_setup`` does; each
    keyword changes one thing (a port nobody listens on, a key the server does
    not know, other known hosts, more ssh config lines).
    """
    count = 0

    def make(
        *,
        port: int | None = None,
        key: Path | None = None,
        known_hosts_text: str | None = None,
        extra: str = "",
    ) -> SSHClientSetup:
        nonlocal count
        count += 1
        folder = tmp_path / f"client{count}"
        folder.mkdir()
        server = sshd if port is None else dataclasses.replace(sshd, port=port)
        config = write_ssh_config(
            folder / "ssh_config", HOST_ALIAS, server, key or client_key, extra
        )
        known = folder / "known_hosts"
        if known_hosts_text is None:
            shutil.copy(known_hosts, known)
        else:
            known.write_text(known_hosts_text)
        return SSHClientSetup(server, HOST_ALIAS, config, known)

    return make


class Fleet:
    """Two servers behind aliases gpu-a and gpu-b, one dead alias, one client config."""

    def __init__(self, folder: Path, a: SSHServer, b: SSHServer, key: Path) -> None:
        self.ssh_config = folder / "ssh_config"
        parts = [
            write_ssh_config(folder / "a", "gpu-a", a, key).read_text(),
            write_ssh_config(folder / "b", "gpu-b", b, key).read_text(),
            f"Host gpu-dead\n    HostName 127.0.0.1\n    Port {free_port()}\n",
        ]
        self.ssh_config.write_text("".join(parts))
        self.known_hosts = folder / "known_hosts"
        self.known_hosts.write_text(a.known_hosts_line + b.known_hosts_line)

    def cli_options(self) -> list[str]:
        return ["--ssh-config", str(self.ssh_config), "--known-hosts", str(self.known_hosts)]

    def pytest_options(self) -> list[str]:
        return [
            "--cleantree-ssh-config",
            str(self.ssh_config),
            "--cleantree-known-hosts",
            str(self.known_hosts),
        ]


@pytest.fixture
def fleet(
    tmp_path: Path,
    ssh_setup: SSHClientSetup,
    sshd_binary: str,
    host_key: Path,
    authorized_keys: Path,
    client_key: Path,
) -> Iterator[Fleet]:
    with running_sshd(sshd_binary, tmp_path / "sshd-b", host_key, authorized_keys) as second:
        yield Fleet(tmp_path, ssh_setup.server, second, client_key)
