"""A server that refuses the agent's command is told apart at once, not at a timeout.

A refused exec request is the refusal the reader falls back to SFTP on, never a lost session
nor an answer waited for.  A paramiko server in-process refuses every command (no sshd allows
that refusal to be configured alone).
"""

from __future__ import annotations

import socket
import threading
from types import SimpleNamespace
from typing import Any

import paramiko

from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.sources.ssh.session import AgentSession


class _Refusing(paramiko.ServerInterface):
    def get_allowed_auths(self, username: str) -> str:
        return "none"

    def check_auth_none(self, username: str) -> int:
        return paramiko.AUTH_SUCCESSFUL

    def check_channel_request(self, kind: str, chanid: int) -> int:
        return paramiko.OPEN_SUCCEEDED

    def check_channel_exec_request(self, channel: Any, command: bytes) -> bool:
        return False


def test_a_refused_command_is_a_refusal_not_a_timeout() -> None:
    mine, theirs = socket.socketpair()
    server = paramiko.Transport(theirs)
    server.add_server_key(paramiko.RSAKey.generate(1024))
    threading.Thread(
        target=server.start_server, kwargs={"server": _Refusing()}, daemon=True
    ).start()
    transport = paramiko.Transport(mine)
    try:
        transport.start_client(timeout=30)
        transport.auth_none("someone")
        client = SimpleNamespace(get_transport=lambda: transport)
        connection = SimpleNamespace(
            host="refusing",
            connect_timeout=30,
            command_timeout=30,
            timeout_error=lambda: SourceError("timed out"),
        )
        session = AgentSession(connection)  # type: ignore[arg-type]
        completed = session.ask(client, "python3 -c pass", b"0\n", "00")  # type: ignore[arg-type]
        assert completed.ended
        assert completed.stdout == b""
        assert b"exec refused" in completed.stderr
        assert session.started == 0  # no agent runs there
    finally:
        transport.close()
        server.close()
