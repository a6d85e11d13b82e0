"""The SSH source: a tree on another machine, one agent command per request."""

from __future__ import annotations

import secrets
import shlex
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import TypeVar

from pytest_cleantree.config.hosts import HostSpec, parse_host_spec
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.patterns import glob_base, is_path_glob
from pytest_cleantree.sources.base import (
    NO_NEEDLE,
    Expansion,
    Listing,
    Needles,
    NoNeedle,
    RemoteOptions,
    match_listing,
)
from pytest_cleantree.sources.ssh.connection import _alive, _ConnectionLost, _log, paramiko
from pytest_cleantree.sources.ssh.protocol import (
    _ahead_fields,
    _decode,
    _needle_fields,
    _parse_records,
    _read_result,
    _StreamError,
    agent_command,
    agent_stdin,
    parse_ahead,
    parse_listing,
)
from pytest_cleantree.sources.ssh.sftp import _SFTPFallback

_T = TypeVar("_T")
_DEFAULT_OPTIONS = RemoteOptions()


class SSHSource(_SFTPFallback):
    """Files under a root folder on an SSH host, read-only.

    ``root`` is an absolute path, a ``~``-relative one, a path relative to the
    login folder, or ``module:NAME`` (found by the host's ``python`` without
    importing it).  Until the first request resolves it, :attr:`root` holds it
    as written.  The connection opens on first use and is reused; a transport
    that died is reopened and the request retried once.
    """

    def __init__(
        self,
        spec: HostSpec,
        root: str,
        options: RemoteOptions = _DEFAULT_OPTIONS,
        *,
        allow_outside_root: bool = False,
    ) -> None:
        super().__init__(spec, root, options, allow_outside_root=allow_outside_root)
        #: files read ahead with a listing: path -> (read record tag, payload, needles used)
        self._ahead: dict[str, tuple[str, bytes, frozenset[str]]] = {}

    # -- the Source protocol -------------------------------------------------------

    def expand(
        self,
        entries: Sequence[str],
        *,
        any_kind: bool = False,
        read_ahead: Mapping[str, Sequence[str]] | None = None,
    ) -> Mapping[str, Expansion]:
        literals = [entry for entry in entries if not is_path_glob(entry)]
        globs = [entry for entry in entries if is_path_glob(entry)]
        bases = sorted({glob_base(entry) for entry in globs})
        ahead = _ahead_fields(read_ahead) if read_ahead else None
        if ahead is not None:
            self._ahead.clear()
        exists, listings = self._run(lambda: self._expand_once(literals, bases, ahead))
        found: dict[str, Expansion] = {}
        for entry, there in zip(literals, exists, strict=True):
            if isinstance(there, str):
                found[entry] = SourceError(f"{entry}: cannot tell whether it exists: {there}")
            else:
                found[entry] = (entry,) if there else ()
        for entry in globs:
            found[entry] = match_listing(entry, listings[glob_base(entry)], any_kind=any_kind)
        return {entry: found[entry] for entry in entries}

    #: the helper tests needles on the server: files that cannot matter never cross the link
    filters_needles = True

    def read(
        self, paths: Sequence[str], needles: Needles | None = None
    ) -> Mapping[str, bytes | SourceError | NoNeedle]:
        if isinstance(needles, str):
            raise TypeError("needles: a list of strings, or a mapping of path to one, not a str")
        found: dict[str, bytes | SourceError | NoNeedle] = {}
        rest: list[str] = []
        for path in paths:
            ahead = self._ahead.pop(path, None)
            chosen = needles.get(path) if isinstance(needles, Mapping) else needles
            if ahead is None:
                rest.append(path)
            elif ahead[0] != "H":  # content, or why there is none: whatever the needles
                found[path] = _read_result(path, ahead[0], ahead[1])
            elif chosen is not None and set(chosen) <= ahead[2]:  # none of more needles
                found[path] = NO_NEEDLE
            else:
                rest.append(path)
        if rest:
            found.update(self._run(lambda: self._read_once(rest, needles)))
        return {path: found[path] for path in paths}

    def close(self) -> None:
        self._disconnect()

    # -- extras --------------------------------------------------------------------

    def resolve_root(self) -> str:
        """Connect, resolve the root (one command) and return it; raise SourceError if absent."""
        if self._resolved is None:
            self._run(self._resolve_once)
        assert self._resolved is not None
        return self._resolved

    def __enter__(self) -> SSHSource:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SSHSource({self.host!r}, {self.root!r})"

    # -- requests ------------------------------------------------------------------

    def _run(self, request: Callable[[], _T]) -> _T:
        """Run a request; if the connection was lost under it, reconnect and retry once."""
        try:
            return request()
        except _ConnectionLost as first:
            self._disconnect()
            try:
                return request()
            except _ConnectionLost as second:
                self._disconnect()
                raise SourceError(
                    f"{self.host}: connection lost twice in a row ({first}; then {second})"
                ) from None
            except SourceError as exc:
                raise SourceError(f"{exc} (after the connection was lost: {first})") from None

    def _resolve_once(self) -> None:
        client = self._connect()
        if not self._exec_failure:
            records = self._helper(client, "resolve", {})
            if records is not None:
                return
        self._sftp_root(client)

    def _expand_once(
        self, literals: list[str], bases: list[str], ahead: dict[str, object] | None = None
    ) -> tuple[list[bool | str], dict[str, Listing]]:
        client = self._connect()
        if not self._exec_failure:
            fields = {"literals": literals, "bases": bases, "outside": self._allow_outside_root}
            if ahead is not None:
                fields.update(ahead)
            records = self._helper(client, "expand", fields)
            if records is not None:
                first = next((i for i, (tag, _) in enumerate(records) if tag == "A"), None)
                if first is not None:
                    self._ahead.update(parse_ahead(records[first:], ahead, self.host))
                    records = records[:first]
                return parse_listing(records, len(literals), bases, self.host)
        return self._sftp_expand(client, literals, bases)

    def _read_once(
        self, paths: list[str], needles: Needles | None = None
    ) -> Mapping[str, bytes | SourceError | NoNeedle]:
        client = self._connect()
        if not self._exec_failure:
            fields = {"paths": paths, "outside": self._allow_outside_root}
            if needles is not None:
                fields.update(_needle_fields(paths, needles))
            records = self._helper(client, "read", fields)
            if records is not None:
                if len(records) != len(paths):
                    raise SourceError(
                        f"{self.host}: the remote helper answered {len(records)} of "
                        f"{len(paths)} files"
                    )
                return {
                    path: _read_result(path, tag, payload)
                    for path, (tag, payload) in zip(paths, records, strict=True)
                }
        return self._sftp_read(client, paths)

    def _helper(
        self, client: paramiko.SSHClient, op: str, fields: Mapping[str, object]
    ) -> list[tuple[str, bytes]] | None:
        """Run the helper once; its records after the root, or None if it could not run."""
        nonce = secrets.token_hex(8)
        root = self._resolved or self._root_text
        request = {"op": op, "nonce": nonce, "root": root, **fields}
        completed = self._exec(
            client, agent_command(self._python_word(), root), agent_stdin(request)
        )
        # paramiko closes a dying transport's channels a moment before it marks the transport
        # inactive: an output without EOF is a lost connection even while is_active() holds
        lost = not completed.ended or not _alive(client)
        try:
            records = _parse_records(completed.stdout, nonce)
        except _StreamError as exc:
            if lost:
                raise _ConnectionLost(f"dropped mid-transfer: {exc}") from None
            raise SourceError(
                f"{self.host}: the remote helper's output was cut short ({exc}; "
                f"{completed.why(self._python)})"
            ) from None
        if records is None:
            if lost:
                raise _ConnectionLost("dropped before the remote helper answered")
            self._exec_failure = completed.why(self._python)
            _log.info("%s: cannot run the helper (%s), using SFTP", self.host, self._exec_failure)
            return None
        tag, payload = records[0] if records else ("", b"")
        if tag == "E":
            raise SourceError(f"{self.host}: {_decode(payload)}")
        if tag != "R":
            raise SourceError(f"{self.host}: the remote helper's answer is garbled")
        self._set_root(_decode(payload))
        return records[1:]

    def _python_word(self) -> str:
        if self._python.startswith("~/"):
            return "~/" + shlex.quote(self._python[2:])
        return shlex.quote(self._python)


def open_ssh_source(
    host: str | HostSpec,
    root: str | None = None,
    options: RemoteOptions = _DEFAULT_OPTIONS,
    *,
    label: str | None = None,
    allow_outside_root: bool = False,
) -> SSHSource:
    """An :class:`SSHSource` for a host spec (``root@gpu-a:/srv/x``); connects on first use.

    ``root`` overrides the spec's; one of them must be given.
    """
    try:
        spec = parse_host_spec(host, label) if isinstance(host, str) else host
    except ValueError as exc:
        raise SourceError(str(exc)) from None
    chosen = root if root is not None else spec.root
    if chosen is None:
        raise SourceError(f"{spec.label}: no root: write host:/path or give a root")
    return SSHSource(spec, chosen, options, allow_outside_root=allow_outside_root)
