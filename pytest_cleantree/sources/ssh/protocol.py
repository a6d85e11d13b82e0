"""What travels over the SSH channel: the agent's modules, the request, the records back.

A run starts **one** remote command per host, the agent (:mod:`pytest_cleantree.agent`, its
modules' source sent once on the command's stdin, never on its command line), and each
request, whatever the number of paths, is one message to it (``session.py``): it resolves
the root, then either lists the folders the globs start in or
streams the requested files, as the records of :mod:`pytest_cleantree.agent.wire` (the one
codec, and its version, checked at the handshake).  Paths travel as JSON on stdin, so no
name (spaces, quotes, ``$(...)``, newlines) ever reaches a shell; the one word that does,
the interpreter, is quoted.  Globs are matched here, with :mod:`pytest_cleantree.core.patterns`,
on the listing.  Nothing is written on the server (``python -B``; the module finder never
imports the package).

When the server refuses to run commands (``ForceCommand internal-sftp``) or has no Python,
the source falls back to SFTP: same records, more round trips.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import shlex
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_cleantree.agent import MODULE_PREFIX, wire
from pytest_cleantree.agent.serve import MODULES
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.patterns import compile_path_glob, glob_base, is_path_glob
from pytest_cleantree.sources.base import Listing, Needles, add_walked

#: the agent's package as the server names it (it is loaded from stdin, never installed)
_PACKAGE = "cleantree_agent"

#: Bootstraps the agent: reads its modules from stdin (a count, then per module its name,
#: length and source), each as a module of one package, then runs the last one's ``main``.
_BOOT = (
    "import sys,types\n"
    "b=sys.stdin.buffer\n"
    "for i in range(int(b.readline())):\n"
    " n,z=b.readline().decode().split()\n"
    f" m=sys.modules[n]=types.ModuleType(n);m.__package__='{_PACKAGE}';m.__path__=[]\n"
    " exec(b.read(int(z)),m.__dict__)\n"
    "m.main()"
)


@functools.cache
def agent_modules() -> bytes:
    """The agent's modules as the bootstrap reads them (read once)."""
    files = importlib.resources.files("pytest_cleantree.agent")
    parts = [b"%d\n" % len(MODULES)]
    for file, name in MODULES:
        source = files.joinpath(file).read_bytes()
        full = f"{_PACKAGE}.{name}" if name else _PACKAGE
        parts.append(b"%s %d\n" % (full.encode("ascii"), len(source)) + source)
    return b"".join(parts)


def agent_request(request: Mapping[str, object]) -> bytes:
    """One request as the running agent reads it: JSON, framed."""
    return wire.frame(json.dumps(request).encode("ascii"))


def agent_stdin(request: Mapping[str, object]) -> bytes:
    """What the bootstrap reads for one request alone: the agent's modules, then the request."""
    return agent_modules() + agent_request(request)


def agent_command(python_word: str, root: str) -> str:
    """The one command line: the quoted interpreter, its flags and the bootstrap."""
    # -S: without the site module the interpreter starts in half the time (a server's
    # site-packages may hold dozens of .pth files); only module: roots need sys.path
    flags = "-B" if root.startswith(MODULE_PREFIX) else "-B -S"
    return f"exec {python_word} {flags} -c {shlex.quote(_BOOT)}"


class _StreamError(Exception):
    """The helper's output stopped before its end record, or is garbled."""


@dataclass(frozen=True)
class Completed:
    stdout: bytes
    stderr: bytes
    status: int
    #: the server answered to the end (EOF, or a refusal): False when the channel was torn
    #: down under the command, as when the connection dies
    ended: bool

    def why(self, python: str) -> str:
        lines = self.stderr.decode("utf-8", "replace").strip().splitlines()
        last = lines[-1].strip() if lines else "no message"
        if self.status == 127:
            return f"{python} not found (exit status 127: {last})"
        return f"exit status {self.status}: {last}"


def _parse_records(stream: bytes, nonce: str) -> list[wire.Record] | None:
    """The helper's records, ``None`` if its handshake is absent (it never ran).

    Raises :class:`_StreamError` when the stream stops before the end record or is garbled,
    and :class:`~pytest_cleantree.agent.wire.VersionError` when the helper speaks another
    protocol version.
    """
    try:
        return wire.decode(stream, nonce)
    except wire.VersionError:
        raise
    except wire.WireError as exc:
        raise _StreamError(str(exc)) from None


def _needle_fields(paths: Sequence[str], needles: Needles) -> dict[str, object]:
    """The read request's needles: each distinct list once, and per path its index (the
    agent's :func:`~pytest_cleantree.agent.could_spell` tests them)."""
    if isinstance(needles, str):
        raise TypeError("needles: a list of strings, or a mapping of path to one, not a str")
    sets: dict[tuple[str, ...], int] = {}
    which: list[int | None] = []
    for path in paths:
        chosen = needles.get(path) if isinstance(needles, Mapping) else needles
        if chosen is None:
            which.append(None)
            continue
        key = tuple(sorted(set(chosen)))
        which.append(sets.setdefault(key, len(sets)))
    if not sets:
        return {}
    return {
        "needles": [list(key) for key in sets],
        "needle_of": which,
    }


#: what one listing may send of the files it reads ahead; the rest are read when asked for
READ_AHEAD_BYTES = 32 * 2**20


def _ahead_fields(read_ahead: Mapping[str, Sequence[str]]) -> dict[str, object]:
    """The expand request's read-ahead: per entry (a literal, or a glob as its regex, and the
    folder its listing starts in) the index of its needle list."""
    sets: dict[tuple[str, ...], int] = {}
    entries: list[tuple[str, str, str, int]] = []
    for entry, needles in read_ahead.items():
        index = sets.setdefault(tuple(sorted(set(needles))), len(sets))
        if is_path_glob(entry):
            entries.append(("glob", compile_path_glob(entry).pattern, glob_base(entry), index))
        else:
            entries.append(("literal", entry, "", index))
    return {
        "ahead": {"entries": entries, "budget": READ_AHEAD_BYTES, "pack": True},
        "needles": [list(key) for key in sets],
    }


def parse_listing(
    records: list[wire.Record], literals: int, bases: list[str], host: str
) -> tuple[list[wire.Record], dict[str, Listing]]:
    """The agent's expand records: a literal record per literal, then what is under each
    base (each base's walk records after its :class:`~pytest_cleantree.agent.wire.Base`)."""
    states = records[:literals]
    garbled = len(states) < literals or not all(isinstance(r, wire.LITERALS) for r in states)
    listings: dict[str, Listing] = {}
    current: Listing | None = None
    for record in records[literals:]:
        if isinstance(record, wire.Base) and len(listings) < len(bases):
            current = listings[bases[len(listings)]] = Listing([], [], [])
        elif current is None or not add_walked(current, record):
            garbled = True
    if garbled or len(listings) != len(bases):
        raise SourceError(f"{host}: the remote helper's listing is garbled")
    return states, listings


@dataclass(frozen=True)
class ReadAhead:
    """A file read ahead with a listing: its read record (content, why none, spared, or
    kept by digest), and the needles it was read with (a spared file holds none of them)."""

    record: wire.Record
    needles: frozenset[str]


def parse_ahead(
    records: list[wire.Record], ahead: Mapping[str, object] | None, host: str
) -> dict[str, ReadAhead]:
    """The files read ahead with a listing: each :class:`~pytest_cleantree.agent.wire.Ahead`
    (the path, and the needle lists it was read with), then the file's read record (its
    content :class:`~pytest_cleantree.agent.wire.Packed`: unpacked here; or
    :class:`~pytest_cleantree.agent.wire.Kept`, for the source to take from what it keeps)."""
    needles = ahead.get("needles") if ahead is not None else None
    if not isinstance(needles, list):
        raise SourceError(f"{host}: the remote helper read ahead unasked")
    found: dict[str, ReadAhead] = {}
    stream = iter(records)
    for named in stream:
        result = next(stream, None)
        if isinstance(result, wire.Packed):
            try:
                result = wire.Content(zlib.decompress(result.data))
            except zlib.error as exc:
                raise SourceError(
                    f"{host}: the remote helper's {named!r} is garbled: {exc}"
                ) from None
        if not isinstance(named, wire.Ahead) or not isinstance(result, (*wire.READS, wire.Kept)):
            raise SourceError(f"{host}: the remote helper's listing is garbled")
        try:
            used = frozenset(n for i in named.needle_lists for n in needles[i])
        except IndexError:  # not that many needle lists were sent
            raise SourceError(f"{host}: the remote helper's listing is garbled") from None
        found[named.path] = ReadAhead(result, used)
    return found
