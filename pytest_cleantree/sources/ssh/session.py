"""The agent's session: one remote command per host and run, every request a message to it.

The agent's modules cross the link once, when the first request starts the command; each
request is then one framed message on its stdin (:func:`~pytest_cleantree.agent.wire.frame`)
and its answer is read up to its :class:`~pytest_cleantree.agent.wire.End` record, the
channel left open for the next.  What a host that cannot run the agent answers (no Python,
commands refused) is returned as it is, for the reader to fall back to SFTP; an agent that
answered before and then ends without a word is a lost session (:class:`ConnectionLost`:
the source reconnects and retries once, then fails loudly), never an empty answer.
"""

from __future__ import annotations

import contextlib
import select
import threading
import time

from pytest_cleantree.agent import wire
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.sources.ssh.connection import (
    Connection,
    ConnectionLost,
    _transport,
)
from pytest_cleantree.sources.ssh.loading import paramiko
from pytest_cleantree.sources.ssh.protocol import Completed, agent_modules

#: how much of the agent's stderr is kept (its last words, if it dies)
_STDERR_KEEP = 16 * 1024
#: the session's receive window: the agent may send this much before the client says it read
#: it.  paramiko's 2 MB window is topped up after each tenth read, each top-up a message up
#: the link in the middle of the answer (a tree's Python files, packed, are megabytes): with
#: 64 MB, an answer of up to 6 MB flows without one
_WINDOW = 64 * 2**20


class AgentSession:
    """The agent running on one host: started on the first request, closed with the source."""

    def __init__(self, connection: Connection) -> None:
        self._connection = connection
        self._channel: paramiko.Channel | None = None
        #: the client the channel runs on (a reconnected client starts a new agent)
        self._client: paramiko.SSHClient | None = None
        #: bytes received after the last answer's end (none from a sound agent)
        self._rest = b""
        self._err = bytearray()
        self._lock = threading.Lock()
        #: remote commands started (each one sends the agent's modules), requests asked
        self.started = 0
        self.requests = 0
        #: the running agent answered a request (its end without a word is then a lost session)
        self._heard = False
        #: a refusal met starting the agent ahead of its first request (:meth:`start`), kept
        #: for that request: on the client it was met on
        self._refused: tuple[paramiko.SSHClient, Completed] | None = None

    def ask(
        self, client: paramiko.SSHClient, command: str, request: bytes, nonce: str
    ) -> Completed:
        """Send one framed request; its answer, up to its end record (or what came before
        the agent ended: the reader tells a host that cannot run it from a cut answer)."""
        with self._lock:
            refused, self._refused = self._refused, None
            if refused is not None and refused[0] is client and self._channel is None:
                return refused[1]
            if self._channel is None or self._client is not client:
                refused_now = self._begin(client, command)
                if refused_now is not None:
                    return refused_now
            answered_before = self._heard
            self.requests += 1
            try:
                completed, heard = self._exchange(request, nonce)
            except BaseException:
                self._close()
                raise
            self._heard = self._heard or heard
            # an agent that answered before and now ended without a word: the session is lost
            # (any agent that ended is forgotten: the next request starts another)
            if self._channel is None and answered_before and not heard:
                raise ConnectionLost(
                    f"the remote helper's session ended ({completed.why('the helper')})"
                )
            return completed

    def start(self, client: paramiko.SSHClient, command: str) -> None:
        """Start the agent ahead of its first request (its modules on their way while the
        client still plans); a refusal is kept for that request, which answers it."""
        with self._lock:
            if self._channel is None or self._client is not client:
                refused = self._begin(client, command)
                if refused is not None:
                    self._refused = (client, refused)

    def _begin(self, client: paramiko.SSHClient, command: str) -> Completed | None:
        self._close()
        return self._start(client, command)

    def close(self, *, quietly: bool = False) -> None:
        """End the agent (its stdin closes: it returns) and forget the channel; ``quietly``
        when the connection closes next: the channel ends with it, without a message the
        server would answer (a trip nobody waits for)."""
        with self._lock:
            self._close(quietly=quietly)

    def _close(self, *, quietly: bool = False) -> None:
        channel, self._channel, self._client = self._channel, None, None
        self._rest, self._err, self._heard = b"", bytearray(), False
        if channel is not None and not quietly:
            # closing sends a message: on a connection dying under it, paramiko raises
            with contextlib.suppress(paramiko.SSHException, EOFError, OSError):
                channel.close()

    def _start(self, client: paramiko.SSHClient, command: str) -> Completed | None:
        """Start the agent and send its modules; a refusal as the reader reads one."""
        transport = _transport(client)
        try:
            channel = transport.open_session(
                window_size=_WINDOW, timeout=self._connection.connect_timeout
            )
        except (paramiko.SSHException, EOFError, OSError) as exc:
            if not transport.is_active():
                raise ConnectionLost(f"cannot open a channel: {exc}") from None
            raise SourceError(
                f"{self._connection.host}: the server refused a session channel: {exc}"
            ) from None
        try:
            channel.exec_command(command)
        except (EOFError, OSError) as exc:  # the transport's own end, re-raised by paramiko
            raise ConnectionLost(f"dropped at exec: {exc!r}") from None
        except paramiko.SSHException as exc:
            if not transport.is_active():
                raise ConnectionLost(f"dropped at exec: {exc}") from None
            return Completed(b"", f"exec refused: {exc}".encode(), -1, ended=True)
        self._channel, self._client = channel, client
        self.started += 1
        channel.settimeout(self._connection.command_timeout)
        self._send(agent_modules())
        return None

    def _send(self, data: bytes) -> None:
        assert self._channel is not None
        try:
            self._channel.sendall(data)
        except TimeoutError:
            raise self._connection.timeout_error() from None
        except (OSError, EOFError):
            pass  # the command exited without reading, or the connection died: see the answer

    def _exchange(self, request: bytes, nonce: str) -> tuple[Completed, bool]:
        """Send the request; read until its answer's end, the channel's end (then the channel
        is closed), or the timeout.  The answer, and whether its handshake came."""
        channel = self._channel
        assert channel is not None
        self._send(request)
        deadline = time.monotonic() + self._connection.command_timeout
        out, self._rest = bytearray(self._rest), b""
        start: int | None = None
        pos = 0
        while True:
            try:
                while channel.recv_ready():
                    out += channel.recv(1 << 16)
                while channel.recv_stderr_ready():
                    chunk = channel.recv_stderr(1 << 16)
                    self._err = (self._err + chunk)[-_STDERR_KEEP:]
            except (EOFError, OSError):
                # reading sends window adjustments: on a dead connection paramiko raises
                completed = Completed(bytes(out), bytes(self._err), -1, ended=False)
                self._close()
                return completed, start is not None
            if start is None:
                start = wire._handshake(bytes(out), nonce)  # raises on another version
                pos = start or 0
            if start is not None:
                pos, state = wire.scan(out, pos)
                if state == "end":
                    self._rest = bytes(out[pos:])
                    return Completed(bytes(out[:pos]), b"", 0, ended=True), True
                if state == "garbled":  # the reader says what is wrong; this agent is done
                    completed = Completed(bytes(out), bytes(self._err), -1, ended=True)
                    self._close()
                    return completed, True
            done = channel.eof_received or channel.closed
            if done and not channel.recv_ready() and not channel.recv_stderr_ready():
                completed = self._ended(channel, out)
                self._close()
                return completed, start is not None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise self._connection.timeout_error()
            select.select([channel], [], [], min(remaining, 0.5))

    def _ended(self, channel: paramiko.Channel, out: bytearray) -> Completed:
        """What the agent said before its channel ended, and its exit status."""
        status = -1
        if channel.status_event.wait(5.0):
            status = channel.exit_status
        return Completed(bytes(out), bytes(self._err), status, ended=bool(channel.eof_received))
