"""What travels over the SSH channel: the request, and the agent's records back.

Each request is **one** remote command, whatever the number of paths: the agent
(:mod:`pytest_cleantree.agent`, its source sent on the command's stdin, never on its
command line) resolves the root, then either lists the folders the globs start in or streams the
requested files, as length-prefixed records::

    \\0CLEANTREE1 <nonce>\\n          the start (anything before it, such as a
                                     noisy ``.bashrc``'s output, is skipped)
    R <n>\\n<root>                   the resolved root            (or E: why not)
    Y 0\\n | Z 0\\n | Q <n>\\n<why>    a literal path exists / does not / cannot tell (expand)
    B 0\\n, then per path under it:  per glob base (expand): L <n>\\n<path> a regular file,
                                     N another thing (a folder...), U <n>\\n<path>\\0<why>
                                     a folder not listed, X <n>\\n<path>\\0<real> a link
                                     to a folder out of the root, not followed
    F <n>\\n<bytes>                  a file's content                      (read)
    H 0\\n                          read with needles, holds none: not sent (read)
    M | D | S | P 0\\n               missing, folder, FIFO/socket/device, denied (read)
    O <n>\\n<why> | X <n>\\n<real>  another error | a link out of the root   (read)
    END 0\\n                         the end: without it the stream was cut short

Paths travel as JSON on stdin, so no name (spaces, quotes, ``$(...)``,
newlines) ever reaches a shell; the one word that does, the interpreter, is
quoted.  Globs are matched here, with :mod:`pytest_cleantree.core.patterns`, on the
listing.  Nothing is written on the server (``python -B``; the module finder
never imports the package).

When the server refuses to run commands (``ForceCommand internal-sftp``) or has
no Python, the source falls back to SFTP: same answers, more round trips.
"""

from __future__ import annotations

import functools
import importlib.resources
import json
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from pytest_cleantree.agent import MODULE_PREFIX
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.patterns import compile_path_glob, glob_base, is_path_glob
from pytest_cleantree.sources.base import (
    NO_NEEDLE,
    READ_ERRORS,
    Listing,
    Needles,
    NoNeedle,
    read_error,
    walk_problem,
)

_MARK = b"\0CLEANTREE1 "

#: Bootstraps the agent: reads its length-prefixed source from stdin, then runs it.
_BOOT = "import sys;b=sys.stdin.buffer;exec(b.read(int(b.readline())))"


@functools.cache
def agent_source() -> bytes:
    """The agent's own file, as the server runs it (read once)."""
    return importlib.resources.files("pytest_cleantree").joinpath("agent.py").read_bytes()


def agent_stdin(request: Mapping[str, object]) -> bytes:
    """What the bootstrap reads: the agent's length and source, then the request as JSON."""
    script = agent_source()
    return b"%d\n" % len(script) + script + json.dumps(request).encode("ascii")


def agent_command(python_word: str, root: str) -> str:
    """The one command line: the quoted interpreter, its flags and the bootstrap."""
    # -S: without the site module the interpreter starts in half the time (a server's
    # site-packages may hold dozens of .pth files); only module: roots need sys.path
    flags = "-B" if root.startswith(MODULE_PREFIX) else "-B -S"
    return f"exec {python_word} {flags} -c {shlex.quote(_BOOT)}"


class _StreamError(Exception):
    """The helper's output stopped before its end record, or is garbled."""


@dataclass(frozen=True)
class _Completed:
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


def _parse_records(stream: bytes, nonce: str) -> list[tuple[str, bytes]] | None:
    """The helper's records, ``None`` if its start marker is absent.

    Raises :class:`_StreamError` when the stream stops before the end record.
    """
    mark = _MARK + nonce.encode("ascii") + b"\n"
    start = stream.find(mark)
    if start < 0:
        return None
    pos = start + len(mark)
    records: list[tuple[str, bytes]] = []
    while True:
        eol = stream.find(b"\n", pos, pos + 32)
        if eol < 0:
            raise _StreamError(f"{len(records)} records, then {len(stream) - pos} stray bytes")
        tag, _, size_text = stream[pos:eol].partition(b" ")
        if not tag.isalpha() or not size_text.isdigit():
            raise _StreamError(f"garbled header after {len(records)} records")
        end = eol + 1 + int(size_text)
        if end > len(stream):
            raise _StreamError(
                f"record {len(records) + 1} announced {int(size_text)} bytes, "
                f"{len(stream) - eol - 1} arrived"
            )
        if tag == b"END":
            return records
        records.append((tag.decode("ascii"), stream[eol + 1 : end]))
        pos = end


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
        "ahead": {"entries": entries, "budget": READ_AHEAD_BYTES},
        "needles": [list(key) for key in sets],
    }


def _read_result(path: str, tag: str, payload: bytes) -> bytes | SourceError | NoNeedle:
    """One read record's answer: the content, no needle, or why neither."""
    if tag == "F":
        return payload
    if tag == "H":
        return NO_NEEDLE
    return read_error(path, tag, payload)


def parse_listing(
    records: list[tuple[str, bytes]], literals: int, bases: list[str], host: str
) -> tuple[list[bool | str], dict[str, Listing]]:
    """The agent's expand records: a state per literal, then what is under each base."""
    exists: list[bool | str] = []
    garbled = len(records) < literals
    for tag, payload in records[:literals]:
        if tag == "Q":
            exists.append(_decode(payload) or "unknown error")
        else:
            exists.append(tag == "Y")
            garbled = garbled or tag not in ("Y", "Z")
    listings: dict[str, Listing] = {}
    current: Listing | None = None
    for tag, payload in records[literals:]:
        if tag == "B" and len(listings) < len(bases):
            current = Listing([], [], [])
            listings[bases[len(listings)]] = current
        elif current is None:
            garbled = True
        elif tag == "L":
            current.files.append(_decode(payload))
        elif tag == "N":
            current.others.append(_decode(payload))
        elif tag in ("U", "X") and b"\0" in payload:
            path, _, why = _decode(payload).partition("\0")
            current.blocked.append(walk_problem(tag, path, why))
        else:
            garbled = True
    if garbled or len(listings) != len(bases):
        raise SourceError(f"{host}: the remote helper's listing is garbled")
    return exists, listings


def parse_ahead(
    records: list[tuple[str, bytes]], ahead: Mapping[str, object] | None, host: str
) -> dict[str, tuple[str, bytes, frozenset[str]]]:
    """The files read ahead with a listing: each ``A`` record (the path, and the needle lists
    it was read with), then the file's read record; per path (tag, payload, needles used)."""
    needles = ahead.get("needles") if ahead is not None else None
    if not isinstance(needles, list) or len(records) % 2:
        raise SourceError(f"{host}: the remote helper's listing is garbled")
    found: dict[str, tuple[str, bytes, frozenset[str]]] = {}
    for (tag, named), (result, payload) in zip(records[::2], records[1::2], strict=True):
        path, _, indices = named.partition(b"\0")
        try:
            used = frozenset(n for i in indices.split(b",") for n in needles[int(i)])
        except (ValueError, IndexError):
            used = None
        if tag != "A" or used is None or result not in ("F", "H", "O", "X", *READ_ERRORS):
            raise SourceError(f"{host}: the remote helper's listing is garbled")
        found[_decode(path)] = (result, payload, used)
    return found


def _decode(payload: bytes) -> str:
    return payload.decode("utf-8", "surrogateescape")
