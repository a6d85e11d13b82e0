"""The agent reader: the tree walked and read on the host by the agent, one session a run."""

from __future__ import annotations

import secrets
import shlex
from collections.abc import Mapping

from pytest_cleantree.agent import wire
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.sources.base import Listing, Needles
from pytest_cleantree.sources.ssh.connection import (
    Connection,
    ConnectionLost,
    _log,
    alive,
)
from pytest_cleantree.sources.ssh.loading import paramiko
from pytest_cleantree.sources.ssh.protocol import (
    ReadAhead,
    _needle_fields,
    _parse_records,
    _StreamError,
    agent_command,
    agent_request,
    parse_ahead,
    parse_listing,
)
from pytest_cleantree.sources.ssh.session import AgentSession
from pytest_cleantree.sources.ssh.sftp import Where


class AgentReader:
    """Asks the host's agent (started once, :class:`AgentSession`) and decodes its records.

    Each method answers None when the host cannot run the agent (no Python, commands
    refused): :attr:`failure` then says why, and the source reads through SFTP instead.
    """

    def __init__(self, connection: Connection, where: Where, *, allow_outside_root: bool) -> None:
        self._connection = connection
        self._where = where
        self._allow_outside_root = allow_outside_root
        self.host = connection.host
        self.session = AgentSession(connection)
        #: why commands cannot run on this host ("" while they can, or before trying)
        self.failure = ""

    def close(self, *, quietly: bool = False) -> None:
        """End the agent's session (the source closes; ``quietly``: its connection next)."""
        self.session.close(quietly=quietly)

    def start(self, client: paramiko.SSHClient) -> None:
        """Start the agent ahead of the first request (see :meth:`AgentSession.start`)."""
        self.session.start(client, self._command())

    def resolve(self, client: paramiko.SSHClient) -> bool:
        """Resolve the root (one command); False when the agent cannot run."""
        return self._records(client, "resolve", {}) is not None

    def expand(
        self,
        client: paramiko.SSHClient,
        literals: list[str],
        bases: list[str],
        ahead: dict[str, object] | None,
    ) -> tuple[list[wire.Record], dict[str, Listing], dict[str, ReadAhead]] | None:
        """A literal record per literal, each base's listing, and the files read ahead."""
        fields = {"literals": literals, "bases": bases, "outside": self._allow_outside_root}
        fields.update(ahead or {})
        records = self._records(client, "expand", fields)
        if records is None:
            return None
        first = next((i for i, r in enumerate(records) if isinstance(r, wire.Ahead)), None)
        read = parse_ahead(records[first:], ahead, self.host) if first is not None else {}
        states, listings = parse_listing(records[:first], len(literals), bases, self.host)
        return states, listings, read

    def read(
        self, client: paramiko.SSHClient, paths: list[str], needles: Needles | None
    ) -> dict[str, wire.Record] | None:
        """Each path's read record (files that can spell none of their needles: spared)."""
        fields: dict[str, object] = {"paths": paths, "outside": self._allow_outside_root}
        if needles is not None:
            fields.update(_needle_fields(paths, needles))
        records = self._records(client, "read", fields)
        if records is None:
            return None
        if len(records) != len(paths) or not all(isinstance(r, wire.READS) for r in records):
            raise SourceError(
                f"{self.host}: the remote helper answered {len(records)} records for "
                f"{len(paths)} files"
            )
        return dict(zip(paths, records, strict=True))

    def _records(
        self, client: paramiko.SSHClient, op: str, fields: Mapping[str, object]
    ) -> list[wire.Record] | None:
        """Ask the agent; its records after the root, or None if it could not run."""
        nonce = secrets.token_hex(8)
        root = self._where.current
        request = {"op": op, "nonce": nonce, "root": root, "protocol": wire.PROTOCOL, **fields}
        python = self._connection.python
        try:
            completed = self.session.ask(client, self._command(), agent_request(request), nonce)
        except wire.VersionError as exc:
            raise SourceError(f"{self.host}: {exc}") from None
        # paramiko closes a dying transport's channels a moment before it marks the transport
        # inactive: an output without EOF is a lost connection even while is_active() holds
        lost = not completed.ended or not alive(client)
        try:
            records = _parse_records(completed.stdout, nonce)
        except wire.VersionError as exc:
            raise SourceError(f"{self.host}: {exc}") from None
        except _StreamError as exc:
            if lost:
                raise ConnectionLost(f"dropped mid-transfer: {exc}") from None
            raise SourceError(
                f"{self.host}: the remote helper's output was cut short ({exc}; "
                f"{completed.why(python)})"
            ) from None
        if records is None:
            if lost:
                raise ConnectionLost("dropped before the remote helper answered")
            self.failure = completed.why(python)
            _log.info("%s: cannot run the helper (%s), using SFTP", self.host, self.failure)
            return None
        first = records[0] if records else None
        if isinstance(first, wire.NoRoot):
            raise SourceError(f"{self.host}: {first.why}")
        if not isinstance(first, wire.Root):
            raise SourceError(f"{self.host}: the remote helper's answer is garbled")
        self._where.resolved = first.path
        return records[1:]

    def _command(self) -> str:
        """The command line that starts the agent on this host."""
        return agent_command(_python_word(self._connection.python), self._where.written)


def _python_word(python: str) -> str:
    """The interpreter as the shell reads it (``~/`` left for the shell to expand)."""
    if python.startswith("~/"):
        return "~/" + shlex.quote(python[2:])
    return shlex.quote(python)
