"""The SSH source: a tree on another machine, one agent session per run."""

from __future__ import annotations

import contextlib
import importlib
import threading
from collections.abc import Callable, Mapping, Sequence
from types import TracebackType
from typing import TypeVar

from pytest_cleantree.agent import needle_pairs, wire, with_needles
from pytest_cleantree.config.hosts import HostSpec, parse_host_spec
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.patterns import glob_base, is_path_glob
from pytest_cleantree.sources.base import (
    NO_NEEDLE,
    Expansion,
    Listing,
    Needles,
    ReadAnswer,
    RemoteOptions,
    content_digest,
    listing_of,
    literal_answer,
    match_listing,
    read_answer,
)
from pytest_cleantree.sources.ssh.connection import Connection, ConnectionLost
from pytest_cleantree.sources.ssh.helper import AgentReader
from pytest_cleantree.sources.ssh.protocol import ReadAhead, _ahead_fields
from pytest_cleantree.sources.ssh.sftp import SFTPReader, Where
from pytest_cleantree.sources.ssh.snapshot import KeptStore, WalkSnapshot

_T = TypeVar("_T")


_DEFAULT_OPTIONS = RemoteOptions()


class SSHSource:
    """Files under a root folder on an SSH host, read-only.

    ``root`` is an absolute path, a ``~``-relative one, a path relative to the
    login folder, or ``module:NAME`` (found by the host's ``python`` without
    importing it).  Until the first request resolves it, :attr:`root` holds it
    as written.  The connection opens on first use and is reused; a transport
    that died is reopened and the request retried once.  It holds a connection and
    two readers over it: the agent, and SFTP for a host that cannot run the agent.
    """

    def __init__(
        self,
        spec: HostSpec,
        root: str,
        options: RemoteOptions = _DEFAULT_OPTIONS,
        *,
        allow_outside_root: bool = False,
    ) -> None:
        self.host = spec.label
        self.root = root
        self._where = Where(root)
        self._connection = Connection(spec, options)
        self._agent = AgentReader(
            self._connection, self._where, allow_outside_root=allow_outside_root
        )
        self._sftp = SFTPReader(
            self._connection, self._where, allow_outside_root=allow_outside_root
        )
        #: files read ahead with a listing: path -> (read record, needles used), kept until the
        #: next listing that reads ahead (a qualified check's graph and its analysis read the
        #: same files: the second read is not a second request)
        self._ahead: dict[str, ReadAhead] = {}
        #: of those, the ones not sent (:class:`~pytest_cleantree.agent.wire.Kept`): their digest
        self._kept_digests: dict[str, str] = {}
        #: the globs that listing expanded, kept as long (the graph lists the tree's Python
        #: files again: one snapshot of the tree per run, one request)
        self._listed: dict[str, Expansion] = {}
        #: what the planned listing met and scanned, kept as long: the graph's lookups of
        #: files (``__init__.py``, a module's candidates) answered without a request
        self._snapshot = WalkSnapshot()
        #: where the Python files sent whole are kept by digest (a warm run is sent only what
        #: changed); the paths whose content crossed the link in the last listing
        self._kept: KeptStore | None = None
        self._kept_where = f"{spec.label}\0{root}"
        self.transferred: list[str] = []
        #: the connection and the agent started ahead of the first request (:meth:`start`),
        #: and what went wrong there (raised by that request)
        self._starting: threading.Thread | None = None
        self._ready = threading.Event()
        self._start_error: BaseException | None = None

    # -- the Source protocol -------------------------------------------------------

    def expand(
        self,
        entries: Sequence[str],
        *,
        any_kind: bool = False,
        read_ahead: Mapping[str, Sequence[str]] | None = None,
    ) -> Mapping[str, Expansion]:
        planned = read_ahead is not None  # a run's plan: a new snapshot of the tree starts
        found: dict[str, Expansion] = {}
        if planned:  # even with nothing to read ahead: what an earlier run kept is stale
            self._ahead.clear()
            self._kept_digests.clear()
            self._listed.clear()
            self._snapshot.clear()
        else:
            found = self._known(entries, any_kind=any_kind)
            if len(found) == len(set(entries)):
                return {entry: found[entry] for entry in entries}
        literals = [entry for entry in entries if not is_path_glob(entry) and entry not in found]
        globs = [entry for entry in entries if is_path_glob(entry) and entry not in found]
        bases = sorted({glob_base(entry) for entry in globs})
        ahead = _ahead_fields(read_ahead) if read_ahead else None
        if ahead is not None and self._kept is not None:  # what this tree sent before
            ahead["ahead"]["known"] = self._kept.offered(self._kept_where)  # type: ignore[index]
        states, listings = self._run(lambda: self._expand_once(literals, bases, ahead, planned))
        if planned:
            self._keep_whole(ahead)
        for entry, state in zip(literals, states, strict=True):
            found[entry] = literal_answer(entry, state)
        for entry in globs:
            found[entry] = match_listing(entry, listings[glob_base(entry)], any_kind=any_kind)
            if planned and not any_kind:
                self._listed[entry] = found[entry]
        return {entry: found[entry] for entry in entries}

    def digests(self, paths: Sequence[str]) -> dict[str, str]:
        """The content digest of each path this run read ahead (the others left out): the
        graph's parts kept by digest are found without parsing the files again."""
        found: dict[str, str] = {}
        for path in paths:
            ahead = self._ahead.get(path)
            if ahead is not None and isinstance(ahead.record, wire.Content):
                found[path] = content_digest(ahead.record.data)
        return found

    def keep_content(self, kept: KeptStore) -> None:
        """Keep the Python files read whole in ``kept``, by digest, and offer them to the agent
        from now on: it sends a file whose content has another digest, and
        :class:`~pytest_cleantree.agent.wire.Kept` for the others."""
        self._kept = kept

    def _known(self, entries: Sequence[str], *, any_kind: bool) -> dict[str, Expansion]:
        """The entries this run's planned listing answers: its globs, and the literals in a
        folder it scanned (:class:`WalkSnapshot`)."""
        found: dict[str, Expansion] = {}
        for entry in entries:
            if is_path_glob(entry):
                if not any_kind and entry in self._listed:
                    found[entry] = self._listed[entry]
            else:
                known = self._snapshot.lookup(entry)
                if known is not None:
                    found[entry] = known
        return found

    #: the helper tests needles on the server: files that cannot matter never cross the link
    filters_needles = True

    def read(
        self, paths: Sequence[str], needles: Needles | None = None
    ) -> Mapping[str, ReadAnswer]:
        if isinstance(needles, str):
            raise TypeError("needles: a list of strings, or a mapping of path to one, not a str")
        found: dict[str, ReadAnswer] = {}
        rest: list[str] = []
        for path in paths:
            ahead = self._ahead.get(path)
            chosen = needles.get(path) if isinstance(needles, Mapping) else needles
            if ahead is None:
                rest.append(path)
            elif isinstance(ahead.record, wire.Content):  # as the agent would answer a read
                digest = self._kept_digests.get(path)
                answer = _with_needles(ahead.record.data, chosen)
                found[path] = read_answer(path, answer, digest=digest, ahead=True)
            elif not isinstance(ahead.record, wire.Spared):  # why no content: any needles
                found[path] = read_answer(path, ahead.record, ahead=True)
            elif chosen is not None and set(chosen) <= ahead.needles:  # none of more needles
                found[path] = NO_NEEDLE
            else:
                rest.append(path)
        if rest:
            found.update(self._run(lambda: self._read_once(rest, needles)))
        return {path: found[path] for path in paths}

    def close(self) -> None:
        thread, self._starting = self._starting, None
        if thread is not None:  # said by the request that waited for it, if any
            thread.join()
            self._start_error = None
        self._ahead.clear()
        self._kept_digests.clear()
        self._listed.clear()
        self._snapshot.clear()
        self._agent.close(quietly=True)  # the connection's end ends the agent's channel
        self._connection.disconnect()

    # -- extras --------------------------------------------------------------------

    def start(self, then_import: Sequence[str] = ()) -> None:
        """Connect and start the agent now, in the background, while the caller still plans
        (the handshake and the agent's start are round trips the client would otherwise
        wait for with nothing to do); the first request waits for them, and raises what
        went wrong there as it would have raised it connecting itself.  Then the modules
        ``then_import`` are imported in that thread, while the client waits for the first
        answer (what it runs next, loaded for nothing in its wait: imports are safe across
        threads, the package having no import cycle); :meth:`close` waits for them."""
        if self._starting is None and self._connection.idle:
            self._ready.clear()
            self._starting = threading.Thread(
                target=self._start_now, args=(tuple(then_import),), daemon=True
            )
            self._starting.start()

    def _start_now(self, then_import: tuple[str, ...]) -> None:
        try:
            client = self._connection.connect()
            if not self._agent.failure:
                self._agent.start(client)
        except BaseException as exc:  # the first request raises it
            self._start_error = exc
        finally:
            self._ready.set()
        for module in then_import:
            with contextlib.suppress(Exception):  # the run that imports it again says why
                importlib.import_module(module)

    def _started(self) -> None:
        """Wait for :meth:`start`'s connection and agent; raise what went wrong there (once)."""
        if self._starting is not None:
            self._ready.wait()
            error, self._start_error = self._start_error, None
            if error is not None:
                raise error

    def resolve_root(self) -> str:
        """Connect, resolve the root (one command) and return it; raise SourceError if absent."""
        if self._where.resolved is None:
            self._run(self._resolve_once)
        if self._where.resolved is None:
            raise SourceError(f"{self.host}: the root {self._where.written!r} was not resolved")
        return self._where.resolved

    @property
    def commands(self) -> tuple[int, int]:
        """The remote commands this source started (one per agent session) and the requests
        it asked of them: what it cost the host."""
        return self._agent.session.started, self._agent.session.requests

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
            self._started()
            return self._answered(request)
        except ConnectionLost as first:
            self._agent.close()
            self._connection.disconnect()
            try:
                return self._answered(request)
            except ConnectionLost as second:
                self._connection.disconnect()
                raise SourceError(
                    f"{self.host}: connection lost twice in a row ({first}; then {second})"
                ) from None
            except SourceError as exc:
                raise SourceError(f"{exc} (after the connection was lost: {first})") from None

    def _answered(self, request: Callable[[], _T]) -> _T:
        """Run a request; :attr:`root` then shows the root as resolved (even if it failed)."""
        try:
            return request()
        finally:
            self.root = self._where.current

    def _sftp_reader(self) -> SFTPReader:
        """The SFTP reader, told why the agent cannot run (for its own messages)."""
        self._sftp.why_no_commands = self._agent.failure
        return self._sftp

    def _resolve_once(self) -> None:
        client = self._connection.connect()
        if self._agent.failure or not self._agent.resolve(client):
            self._sftp_reader().resolve(client)

    def _expand_once(
        self,
        literals: list[str],
        bases: list[str],
        ahead: dict[str, object] | None = None,
        planned: bool = False,
    ) -> tuple[list[wire.Record], dict[str, Listing]]:
        client = self._connection.connect()
        answer = None if self._agent.failure else self._agent.expand(client, literals, bases, ahead)
        if answer is not None:
            states, listings, read = answer
            self.transferred = [p for p, r in read.items() if isinstance(r.record, wire.Content)]
            self._ahead.update(self._unkept(read, ahead))
            if planned:  # the agent's walk (the SFTP reader's is not the snapshot's model)
                for listing in listings.values():
                    self._snapshot.add(listing)
            return states, listings
        states, walks = self._sftp_reader().expand(client, literals, bases)
        return states, {base: listing_of(walk) for base, walk in walks.items()}

    def _keep_whole(self, ahead: dict[str, object] | None) -> None:
        """Keep what this listing sent (whole files, whatever their needles), and the digests
        offered for files still listed but not sent this time, for the next run."""
        if self._kept is None:
            return
        fields = ahead.get("ahead") if ahead is not None else None
        offered = fields.get("known") if isinstance(fields, dict) else None
        files = {
            path: read.record.data
            for path, read in self._ahead.items()
            if isinstance(read.record, wire.Content)
        }
        others = {
            path: digest
            for path, digest in (offered if isinstance(offered, dict) else {}).items()
            if path not in files and self._snapshot.lists(path)
        }
        self._kept.keep(self._kept_where, files, others)

    def _unkept(
        self, read: dict[str, ReadAhead], ahead: dict[str, object] | None
    ) -> dict[str, ReadAhead]:
        """The files read ahead, each :class:`~pytest_cleantree.agent.wire.Kept` one with the
        content kept for the digest offered (one not found is left out: read when asked)."""
        fields = ahead.get("ahead") if ahead is not None else None
        offered = fields.get("known") if isinstance(fields, dict) else None
        found: dict[str, ReadAhead] = {}
        for path, one in read.items():
            self._kept_digests.pop(path, None)  # (what this listing says of it counts)
            if isinstance(one.record, wire.Kept):
                digest = offered.get(path) if isinstance(offered, dict) else None
                data = self._kept.content(digest) if self._kept and digest else None
                if data is None:
                    continue
                one = ReadAhead(wire.Content(data), one.needles)
                self._kept_digests[path] = str(digest)  # (checked: the content has it)
            found[path] = one
        return found

    def _read_once(
        self, paths: list[str], needles: Needles | None = None
    ) -> Mapping[str, ReadAnswer]:
        client = self._connection.connect()
        records = None if self._agent.failure else self._agent.read(client, paths, needles)
        if records is None:
            records = self._sftp_reader().read(client, paths)
        return {path: read_answer(path, record) for path, record in records.items()}


#: up to this many needles, content held is tested as the agent tests a read; a longer list
#: (the symbol graph's words: hundreds on a real package) costs the test more than the
#: analysis it spares (each needle's break search is compiled, then run over every file)
_TEST_MAX_NEEDLES = 8


def _with_needles(data: bytes, needles: Sequence[str] | None) -> wire.Record:
    """Content read ahead (whole, or with other needles) as the agent answers a read with
    ``needles`` (the same test, :func:`~pytest_cleantree.agent.with_needles`), when they are
    few; else the content as held (always a sound answer: sparing a file is a shortcut)."""
    if needles is None or len(needles) > _TEST_MAX_NEEDLES:
        return wire.Content(data)
    return with_needles(data, needle_pairs(needles))


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
