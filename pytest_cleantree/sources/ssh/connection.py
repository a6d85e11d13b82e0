"""The SSH connection: ``~/.ssh/config``, jump hosts, the handshake and its errors.

paramiko comes from :mod:`.loading` (imported only when a host is named: ``sources``
imports this package lazily), the known hosts and their policy from :mod:`.hostkeys`.
"""

from __future__ import annotations

import contextlib
import getpass
import logging
import os
import socket
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pytest_cleantree.config.hosts import HostSpec, parse_host_spec
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.sources.base import RemoteOptions
from pytest_cleantree.sources.ssh.hostkeys import (
    HostKeyPolicy,
    RevokedHostKeyError,
    UnknownHostKeyError,
    file_holding,
    fingerprint,
    forget_host_key_command,
    load_known_hosts,
)
from pytest_cleantree.sources.ssh.loading import MATCH_EXEC, match_exec_enabled, paramiko

_log = logging.getLogger(__name__)

_MAX_JUMPS = 8


class ConnectionLost(Exception):
    """The transport died under a request: reconnect and retry once."""


@dataclass(frozen=True)
class _Target:
    """One host to connect to, after ``~/.ssh/config`` had its say."""

    alias: str
    hostname: str
    port: int
    user: str
    key_files: tuple[str, ...]
    identities_only: bool
    proxy_jump: str | None
    proxy_command: str | None

    @property
    def address(self) -> str:
        host = f"[{self.hostname}]" if ":" in self.hostname else self.hostname
        return f"{host}:{self.port}"


class Connection:
    """One host's SSH client (through its jump hosts), opened on first use, reopened when its
    transport died (the agent's session, ``session.py``, runs over it)."""

    def __init__(self, spec: HostSpec, options: RemoteOptions) -> None:
        self.host = spec.label
        self._spec = spec
        self._known_hosts = options.known_hosts
        self._accept_new = options.accept_new_host_key
        self._accept_new_flag = options.accept_new_flag
        self._config_path = options.ssh_config
        self.connect_timeout = options.connect_timeout
        self.command_timeout = options.command_timeout
        self._config: paramiko.SSHConfig | None = None
        self._client: paramiko.SSHClient | None = None
        self._hops: list[paramiko.SSHClient] = []
        self._sftp: paramiko.SFTPClient | None = None
        #: the remote interpreter that runs the agent
        self.python = options.python

    def open_sftp(self, client: paramiko.SSHClient) -> paramiko.SFTPClient:
        """The connection's SFTP session, opened once (paramiko's errors are the caller's)."""
        if self._sftp is None:
            self._sftp = client.open_sftp()
            channel = self._sftp.get_channel()
            if channel is not None:
                channel.settimeout(self.command_timeout)
        return self._sftp

    def timeout_error(self) -> SourceError:
        return SourceError(
            f"{self.host}: a remote command did not finish within {self.command_timeout:g} s"
        )

    @property
    def idle(self) -> bool:
        """No client opened yet (or since the last disconnect)."""
        return self._client is None

    def connect(self) -> paramiko.SSHClient:
        if self._client is not None:
            if alive(self._client):
                return self._client
            self.disconnect()
        try:
            self._client = self._open(self._spec.hostname, self._spec.user, self._spec.port, 0)
        except BaseException:
            self.disconnect()
            raise
        return self._client

    def disconnect(self) -> None:
        if self._sftp is not None:
            with contextlib.suppress(Exception):
                self._sftp.close()
            self._sftp = None
        if self._client is not None:
            with contextlib.suppress(Exception):
                self._client.close()
            self._client = None
        for hop in reversed(self._hops):
            with contextlib.suppress(Exception):
                hop.close()
        self._hops.clear()

    def _open(
        self, alias: str, user: str | None, port: int | None, depth: int
    ) -> paramiko.SSHClient:
        """Connect and authenticate to ``alias``, through its ProxyJump/ProxyCommand if any."""
        if depth > _MAX_JUMPS:
            raise SourceError(f"{self.host}: more than {_MAX_JUMPS} ProxyJump hops (a loop?)")
        target = self._target(alias, user, port, self._spec.identity_file if depth == 0 else None)
        sock: paramiko.Channel | paramiko.ProxyCommand | None = None
        if target.proxy_jump:
            hops = [self._jump_spec(text) for text in target.proxy_jump.split(",")]
            via = self._open(hops[0].hostname, hops[0].user, hops[0].port, depth + 1)
            self._hops.append(via)
            for hop in hops[1:]:
                hop_target = self._target(hop.hostname, hop.user, hop.port)
                via = self._handshake(hop_target, self._tunnel(via, hop_target))
                self._hops.append(via)
            sock = self._tunnel(via, target)
        elif target.proxy_command:
            try:
                sock = paramiko.ProxyCommand(target.proxy_command)
            except (paramiko.SSHException, OSError) as exc:
                raise SourceError(
                    f"{self.host}: ProxyCommand {target.proxy_command!r} failed: {exc}"
                ) from None
        return self._handshake(target, sock)

    def _jump_spec(self, text: str) -> HostSpec:
        text = text.strip()
        try:
            spec = parse_host_spec(text if text.startswith("ssh://") else "ssh://" + text)
        except ValueError as exc:
            raise SourceError(f"{self.host}: bad ProxyJump {text!r}: {exc}") from None
        if spec.root is not None:
            raise SourceError(f"{self.host}: bad ProxyJump {text!r}: a jump host has no path")
        return spec

    def _tunnel(self, via: paramiko.SSHClient, target: _Target) -> paramiko.Channel:
        try:
            return _transport(via).open_channel(
                "direct-tcpip",
                (target.hostname, target.port),
                ("127.0.0.1", 0),
                timeout=self.connect_timeout,
            )
        except (paramiko.SSHException, EOFError, OSError) as exc:
            raise SourceError(
                f"{self.host}: the jump host could not reach {target.address}: {exc}"
            ) from None

    def _load_config(self) -> paramiko.SSHConfig:
        if self._config is None:
            path = self._config_path or Path("~/.ssh/config").expanduser()
            if self._config_path is None and not path.exists():
                self._config = paramiko.SSHConfig()
            else:
                try:
                    text = path.read_text(encoding="utf-8", errors="surrogateescape")
                    if MATCH_EXEC.search(text):
                        match_exec_enabled()
                    self._config = paramiko.SSHConfig.from_text(text)
                except OSError as exc:
                    raise SourceError(
                        f"{self.host}: cannot read the ssh config {str(path)!r}: "
                        f"{exc.strerror or exc}"
                    ) from None
                except Exception as exc:
                    raise SourceError(f"{self.host}: bad ssh config {str(path)!r}: {exc}") from None
        return self._config

    def _lookup(self, alias: str) -> Mapping[str, object]:
        """``~/.ssh/config``'s options for a host (``Match exec`` may run a command)."""
        config = self._load_config()
        try:
            return config.lookup(alias)
        except Exception as exc:
            raise SourceError(
                f"{self.host}: ssh config lookup of {alias!r} failed: {exc}"
            ) from None

    def _target(
        self, alias: str, user: str | None, port: int | None, key_file: str | None = None
    ) -> _Target:
        """``alias`` as ``~/.ssh/config`` has it; ``key_file`` (the host's own key, as
        ``ssh -i``) is tried before the config's keys, and must exist."""
        options = self._lookup(alias)
        if key_file is not None and not os.path.isfile(key_file):
            raise SourceError(f"{self.host}: private key file {key_file!r} does not exist")

        def option(key: str) -> str | None:
            value = options.get(key)
            if not isinstance(value, str) or value.lower() == "none":
                return None
            return value

        identity = options.get("identityfile")
        key_files = (
            [os.path.expanduser(str(name)) for name in identity or ()]
            if isinstance(identity, list)
            else []
        )
        try:
            config_port = int(option("port") or 22)
        except ValueError:
            raise SourceError(f"{self.host}: bad Port for {alias!r} in the ssh config") from None
        return _Target(
            alias=alias,
            hostname=option("hostname") or alias,
            port=port or config_port,
            user=user or option("user") or getpass.getuser(),
            key_files=(
                *([key_file] if key_file else []),
                *(name for name in key_files if os.path.exists(name) and name != key_file),
            ),
            identities_only=(option("identitiesonly") or "no").lower() == "yes",
            proxy_jump=option("proxyjump"),
            proxy_command=option("proxycommand"),
        )

    def _known_hosts_files(self, alias: str) -> tuple[list[Path], Path]:
        """The files to trust host keys from, and the one new keys go into."""
        if self._known_hosts is not None:
            return [self._known_hosts], self._known_hosts
        options = self._lookup(alias)
        user_files = [
            Path(name).expanduser()
            for name in str(options.get("userknownhostsfile") or "~/.ssh/known_hosts").split()
        ]
        global_files = [
            Path(name).expanduser()
            for name in str(
                options.get("globalknownhostsfile")
                or "/etc/ssh/ssh_known_hosts /etc/ssh/ssh_known_hosts2"
            ).split()
        ]
        return user_files + global_files, user_files[0]

    def _handshake(
        self,
        target: _Target,
        sock: paramiko.Channel | paramiko.ProxyCommand | None,
    ) -> paramiko.SSHClient:
        trusted, accept_into = self._known_hosts_files(target.alias)
        client = paramiko.SSHClient()
        revoked: set[bytes] = set()
        try:
            for path in trusted:
                if path.exists():
                    load_known_hosts(client, path, revoked)
        except OSError as exc:
            raise SourceError(
                f"{self.host}: cannot read known hosts {str(path)!r}: {exc.strerror or exc}"
            ) from None
        client.set_missing_host_key_policy(
            HostKeyPolicy(accept_into if self._accept_new else None, revoked)
        )
        timeout = self.connect_timeout
        where = f"{self.host} ({target.user}@{target.address})"
        started = time.monotonic()
        try:
            client.connect(
                target.hostname,
                port=target.port,
                username=target.user,
                key_filename=list(target.key_files) or None,  # type: ignore[arg-type]  # a list works
                timeout=timeout,
                banner_timeout=timeout,
                auth_timeout=timeout,
                channel_timeout=timeout,
                allow_agent=not target.identities_only,
                look_for_keys=not target.identities_only,
                sock=sock,
            )
        except BaseException as exc:
            client.close()
            if isinstance(exc, SourceError):
                raise SourceError(f"{self.host}: {exc}") from None
            if isinstance(exc, Exception):
                slow = time.monotonic() - started >= timeout * 0.95
                if isinstance(exc, paramiko.BadHostKeyException):
                    accept_into = file_holding(trusted, exc.hostname, target.port) or accept_into
                raise self._connect_error(exc, target, where, accept_into, slow, revoked) from None
            raise
        return client

    def _connect_error(
        self,
        exc: Exception,
        target: _Target,
        where: str,
        known_hosts: Path,
        slow: bool,
        revoked: set[bytes],
    ) -> SourceError:
        """One line for what went wrong; ``slow`` when the connect timeout ran out."""
        if isinstance(exc, paramiko.BadHostKeyException) and exc.key.asbytes() in revoked:
            exc = RevokedHostKeyError(exc.hostname, exc.key)
        if isinstance(exc, RevokedHostKeyError):
            return SourceError(
                f"{where}: HOST KEY REVOKED: the host sent {exc.key.get_name()} "
                f"{fingerprint(exc.key)}, which a @revoked line of the known hosts refuses; "
                f"refusing to connect"
            )
        if isinstance(exc, UnknownHostKeyError):
            return SourceError(
                f"{where}: unknown host key {exc.key.get_name()} {fingerprint(exc.key)} for "
                f"{exc.name}, not in {str(known_hosts)!r}: check the fingerprint with the "
                f"host's admin, then add it (ssh-keyscan -p {target.port} {target.hostname} "
                f">> {known_hosts}) or allow new host keys ({self._accept_new_flag})"
            )
        if isinstance(exc, paramiko.BadHostKeyException):
            return SourceError(
                f"{where}: HOST KEY CHANGED: the host sent {exc.key.get_name()} "
                f"{fingerprint(exc.key)} but known hosts expect {exc.expected_key.get_name()} "
                f"{fingerprint(exc.expected_key)}; refusing to connect (someone may be "
                f"intercepting); if the host was reinstalled, remove its old key "
                f"({forget_host_key_command(exc.hostname, target.port, known_hosts)}) and add "
                "the new one"
            )
        if isinstance(exc, paramiko.AuthenticationException):
            tried = ", ".join(target.key_files) or "the agent and default keys"
            return SourceError(
                f"{where}: authentication refused ({exc}; tried {tried}): check User and "
                "IdentityFile in the ssh config, or add the key to the agent"
            )
        if isinstance(exc, paramiko.ssh_exception.NoValidConnectionsError):
            return SourceError(f"{where}: cannot reach the host: connection refused")
        if isinstance(exc, TimeoutError):
            return SourceError(
                f"{where}: cannot reach the host: no answer within {self.connect_timeout:g} s"
            )
        if isinstance(exc, socket.gaierror):
            return SourceError(
                f"{where}: cannot resolve host name {target.hostname!r}: {exc.strerror}"
            )
        if isinstance(exc, paramiko.SSHException) and slow:
            return SourceError(
                f"{where}: no SSH handshake within {self.connect_timeout:g} s ({exc}): "
                "is an SSH server listening on that port?"
            )
        if isinstance(exc, paramiko.SSHException) and "banner" in str(exc):
            # in time, but what answered is not an SSH server (or closed before its banner)
            return SourceError(
                f"{where}: no SSH handshake: what answers on port {target.port} did not send an "
                f"SSH banner ({exc}): is an SSH server listening on that port?"
            )
        if isinstance(exc, paramiko.SSHException):
            return SourceError(f"{where}: SSH handshake failed: {exc}")
        if isinstance(exc, OSError):
            return SourceError(f"{where}: cannot reach the host: {exc.strerror or exc}")
        if isinstance(exc, EOFError):
            return SourceError(f"{where}: the host closed the connection during the handshake")
        return SourceError(f"{where}: cannot connect: {type(exc).__name__}: {exc}")


def _transport(client: paramiko.SSHClient) -> paramiko.Transport:
    transport = client.get_transport()
    if transport is None:
        raise ConnectionLost("no transport")
    return transport


def alive(client: paramiko.SSHClient) -> bool:
    transport = client.get_transport()
    return transport is not None and transport.is_active()
