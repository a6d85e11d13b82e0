"""Host keys: known_hosts as OpenSSH reads it (``@revoked`` lines too), the policy for a
key it does not hold (refuse, or record when asked), and the names and fingerprints the
connection's errors give."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import logging
import shlex
from collections.abc import Sequence
from pathlib import Path

from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.sources.ssh.loading import paramiko

_log = logging.getLogger(__name__)


class UnknownHostKeyError(Exception):
    def __init__(self, name: str, key: paramiko.PKey) -> None:
        super().__init__(name)
        self.name = name
        self.key = key


class RevokedHostKeyError(Exception):
    def __init__(self, name: str, key: paramiko.PKey) -> None:
        super().__init__(name)
        self.name = name
        self.key = key


def load_known_hosts(client: paramiko.SSHClient, path: Path, revoked: set[bytes]) -> None:
    """Trust the keys of a known_hosts file, as OpenSSH reads it; add its revoked keys.

    paramiko's own loader raises on OpenSSH's ``@revoked`` and ``@cert-authority``
    lines.  A ``@revoked`` key is refused for every host (OpenSSH refuses it for
    the hosts its line names: refusing more is the safe side).  ``@cert-authority``
    lines are skipped: paramiko checks no host certificates, so a host trusted only
    through one is an unknown host.  A line that does not parse is skipped, as
    OpenSSH skips it.
    """
    trusted = client.get_host_keys()
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    entries: list[paramiko.hostkeys.HostKeyEntry] = []
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@"):
            marker, *fields = line.split()
            if marker == "@revoked" and len(fields) >= 3:
                with contextlib.suppress(ValueError):
                    revoked.add(base64.b64decode(fields[2], validate=True))
            continue
        try:
            entry = paramiko.hostkeys.HostKeyEntry.from_line(line, number)
        except (paramiko.SSHException, paramiko.hostkeys.InvalidHostKey, ValueError):
            continue
        if entry is not None and entry.key is not None:
            entries.append(entry)
    for entry in entries:
        if entry.key.asbytes() not in revoked:
            for name in entry.hostnames:
                trusted.add(name, entry.key.get_name(), entry.key)


class HostKeyPolicy(paramiko.MissingHostKeyPolicy):
    """Refuse unknown and revoked keys, or (when asked) record unknown ones in ``accept_into``.

    A *changed* key never reaches a policy: paramiko raises BadHostKeyException.
    A revoked key is never trusted (see :func:`load_known_hosts`): it reaches a
    policy, or changes the key a host is known by.
    """

    def __init__(self, accept_into: Path | None, revoked: set[bytes]) -> None:
        self._accept_into = accept_into
        self._revoked = revoked

    def missing_host_key(
        self, client: paramiko.SSHClient, hostname: str, key: paramiko.PKey
    ) -> None:
        if key.asbytes() in self._revoked:
            raise RevokedHostKeyError(hostname, key)
        if self._accept_into is None:
            raise UnknownHostKeyError(hostname, key)
        line = f"{hostname} {key.get_name()} {key.get_base64()}\n"
        try:
            self._accept_into.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with open(self._accept_into, "a", encoding="ascii") as handle:
                handle.write(line)
        except OSError as exc:
            raise SourceError(
                f"cannot record the new host key of {hostname} in {self._accept_into}: "
                f"{exc.strerror or exc}"
            ) from None
        client.get_host_keys().add(hostname, key.get_name(), key)
        _log.warning(
            "accepted the new host key of %s (%s %s) into %s",
            hostname,
            key.get_name(),
            fingerprint(key),
            self._accept_into,
        )


def known_hosts_name(hostname: str, port: int) -> str:
    """The name a known-hosts line gives a host: ``[host]:port`` off port 22, as ssh writes it."""
    return hostname if port == 22 or hostname.startswith("[") else f"[{hostname}]:{port}"


def forget_host_key_command(hostname: str, port: int, known_hosts: Path) -> str:
    """The ``ssh-keygen -R`` that removes this host's key from ``known_hosts``: the bare host
    name answers "not found" for a host on another port, and ssh-keygen edits
    ``~/.ssh/known_hosts`` unless ``-f`` names the file that holds the key."""
    name = shlex.quote(known_hosts_name(hostname, port))
    return f"ssh-keygen -R {name} -f {shlex.quote(str(known_hosts))}"


def file_holding(files: Sequence[Path], hostname: str, port: int) -> Path | None:
    """The first known-hosts file with a key for the host, where its old key is to be removed."""
    name = known_hosts_name(hostname, port)
    for path in files:
        with contextlib.suppress(OSError, paramiko.SSHException):
            if path.exists() and paramiko.HostKeys(str(path)).lookup(name):
                return path
    return None


def fingerprint(key: paramiko.PKey) -> str:
    digest = hashlib.sha256(key.asbytes()).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")
