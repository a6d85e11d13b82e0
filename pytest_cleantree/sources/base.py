"""The one narrow interface between the checker and the files it checks.

A source is a tree (a root folder) on some machine.  The engine asks it two
things, each for many paths at once so that a remote source can answer in a
constant number of round trips: which files the manifest's entries name, and
what those files hold.  Sources only ever read.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

from pytest_cleantree.agent import wire
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.patterns import compile_path_glob

#: what a local file is now, as far as a warm run trusts it unchanged: device, inode, size,
#: mtime_ns and ctime_ns (see :meth:`pytest_cleantree.sources.local.LocalSource.stat_many`)
FileStat = tuple[int, int, int, int, int]

#: what :meth:`Source.expand` gives for one entry: its paths, or why they cannot be known
Expansion = tuple[str, ...] | SourceError


class NoNeedle:
    """A file read with needles that holds none of them: its content stayed where it is.

    Not an error: the file exists and was read (on the server), and the
    analysis of such a file has no findings, exactly as the local prefilter
    would say.  There is one instance, :data:`NO_NEEDLE`.
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_NEEDLE"


NO_NEEDLE = NoNeedle()


@dataclass(frozen=True)
class FileRead:
    """One file as a source read it: its bytes, and what the source knows of it.

    What :meth:`Source.read` answers for a file it read.  The analysis is given the record
    whole (:class:`pytest_cleantree.run.parallel.FileWork` holds it), so a new per-file
    fact is one field here, the sources that fill it (:func:`read_answer`, and the SSH
    source for what it read ahead) and the code that uses it: ``run.check``, ``FileWork``
    and the cache pass it on unchanged.
    """

    data: bytes
    #: :func:`content_digest` of ``data`` when the source holds it without hashing (the SSH
    #: source's kept content, offered by digest and confirmed by the server); else ``None``
    digest: str | None = None
    #: read ahead with a listing, in the same request (the SSH source), not on its own
    ahead: bool = False

    def content_digest(self) -> str:
        """The digest the stores key this content by: the source's, else computed."""
        return self.digest if self.digest is not None else content_digest(self.data)


def content_digest(data: bytes) -> str:
    """A content's digest, as the stores key content (the agent's ``serve.digest``)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


#: what :meth:`Source.read` answers for one path: the file read, no needle, or why neither
ReadAnswer = FileRead | SourceError | NoNeedle

#: for :meth:`Source.read`: per path, the strings one of which its text must be able to spell
#: for it to matter (a path absent or mapped to ``None``: it matters whatever it holds), or
#: one list shared by every path
Needles = Mapping[str, Sequence[str] | None] | Sequence[str]
#: the needle every file spells: read with it, a file is sent whole (what a qualified check's
#: graph asks of the tree's Python files read ahead with the listing)
WHOLE = ""


class Source(Protocol):
    """A readable tree.  Paths are relative to the root, with ``/`` separators."""

    #: "" for the local machine; the host's label (as the user named it) otherwise
    host: str
    #: the resolved root, as shown to the user
    root: str

    def expand(
        self,
        entries: Sequence[str],
        *,
        any_kind: bool = False,
        read_ahead: Mapping[str, Sequence[str]] | None = None,
    ) -> Mapping[str, Expansion]:
        """Map each manifest entry (a path or a glob) to the paths it names, sorted.

        A literal path maps to itself when *anything* exists there (a folder,
        a dangling link: reading it then reports the problem), to ``()`` when
        nothing does (``ENOENT``, ``ENOTDIR``).  A glob maps to the regular
        files it matches (with ``any_kind``, as ``absent`` needs: to anything
        it matches, folders included).  Globs follow links to folders inside
        the root (Python imports through them), each folder once per path
        from the root.

        An entry maps to a :class:`SourceError` when its answer cannot be
        known: a literal whose existence cannot be checked (permission
        denied), a glob under a folder that could hold matches but cannot be
        listed, or that is a link leading out of the root (unless
        ``allow_outside_root``).  Raises :class:`SourceError` when the tree
        itself cannot be reached.

        ``read_ahead`` (entry -> its needles, see :meth:`read`): a remote source
        may read those entries' files in the same request, so that the
        :meth:`read` that follows needs no other; a source may ignore it.
        """
        ...

    def read(
        self, paths: Sequence[str], needles: Needles | None = None
    ) -> Mapping[str, ReadAnswer]:
        """Each path's :class:`FileRead` (its bytes and what the source knows of it), or the
        error that prevented reading that one path.

        With ``needles``, a source may answer :data:`NO_NEEDLE` for a file
        whose text cannot spell any of its needles, however Python's
        tokenizer reads it (escapes, joined strings, NFKC names): the remote
        source decides that on the server, so such files never cross the
        link.  It must be an over-approximation of the analysis' own
        prefilter; a source may ignore ``needles`` and send everything.
        """
        ...

    def close(self) -> None:
        """Release connections; a closed source may be reopened by using it again."""
        ...


# -- optional abilities: a run asks ``isinstance(source, Ability)``; a source declares one by
# -- having its members (the protocols are structural), never by inheriting


@runtime_checkable
class StatsMany(Protocol):
    """A source whose files' stats tell an unchanged file without reading it.

    Only this machine's files have a stat to trust (the local source); a
    remote stat is never trusted, so a remote source has no ``stat_many``.
    """

    def stat_many(self, paths: Sequence[str]) -> Mapping[str, FileStat]:
        """What each regular file inside the root is now (a path left out: read it)."""
        ...


@runtime_checkable
class ReadsModes(Protocol):
    """A source that tells each file's mode, as git writes it (``100644``, ``100755``,
    ``120000`` a link): the local source.  A run that checks a mode on a source without
    this ability reports it cannot (never a pass)."""

    def modes(self, paths: Sequence[str]) -> Mapping[str, str | SourceError]:
        """Each path's mode, or why it cannot be told."""
        ...


@runtime_checkable
class FiltersNeedles(Protocol):
    """A source that tests :meth:`Source.read`'s needles where the files are (the SSH source).

    The run then works out each file's needles, and asks :meth:`Source.expand`
    to read ahead; for a source that would ignore them (the local one) that
    is only work.  Declared by the class attribute ``filters_needles = True``.
    """

    filters_needles: Literal[True]


@dataclass(frozen=True)
class RemoteOptions:
    """How to reach remote hosts, declared once: the CLI and the plugin fill it in, the
    SSH source reads it.  The defaults verify host keys against ``~/.ssh/known_hosts``."""

    #: the one known_hosts file to trust and record into (default: as ``~/.ssh/config`` says)
    known_hosts: Path | None = None
    #: accept (and record) the key of a host never seen before; a changed key is refused
    accept_new_host_key: bool = False
    ssh_config: Path | None = None
    #: seconds to connect, handshake and log in (each hop)
    connect_timeout: float = 10
    #: seconds one remote command may take
    command_timeout: float = 60
    #: the remote interpreter that runs the helper and finds ``module:`` roots
    python: str = "python3"
    #: how the front end spells ``accept_new_host_key``, for the message that suggests it
    accept_new_flag: str = "--accept-new-host-key"


@dataclass
class Listing:
    """What a walk from one glob base saw, with paths relative to the root.

    ``files`` are regular files (or links to one); ``others`` everything else
    met (folders, links to folders, dangling links, FIFOs); ``blocked`` the
    folders the walk could not enter, with why.
    """

    files: list[str]
    others: list[str]
    blocked: list[tuple[str, str]]


def could_hold(entry: str, folder: str) -> bool:
    """Could a path under ``folder`` match the glob ``entry``?  (``True`` when unsure.)

    A folder the walk cannot enter matters only if this holds: ``kernels/*.py``
    cannot match anything under ``kernels/a/b``, ``**/*.py`` anything anywhere.
    """
    if not folder:
        return True
    segments = entry.split("/")
    for index, name in enumerate(folder.split("/")):
        if index >= len(segments) - 1:
            return segments[-1] == "**"
        if segments[index] == "**":
            return True
        if not compile_path_glob(segments[index]).match(name):
            return False
    return True


def match_listing(entry: str, listing: Listing, *, any_kind: bool) -> Expansion:
    """A glob's answer from the listing of its base: its matches, or why they are unknown."""
    problems = [f"{folder}: {why}" for folder, why in listing.blocked if could_hold(entry, folder)]
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        return SourceError(
            f"{entry}: cannot list every folder it covers: {'; '.join(problems[:3])}{more}"
        )
    regex = compile_path_glob(entry)
    found = [path for path in listing.files if regex.match(path)]
    if any_kind:
        found += [path for path in listing.others if regex.match(path)]
    return tuple(sorted(set(found)))


def outside_link(real: str) -> str:
    """Why a link to a folder outside the root is not followed."""
    return (
        f"a link to a folder outside the root (to {real}); "
        "set allow_outside_root = true to follow it"
    )


# -- the client's consumers of the agent's records (pytest_cleantree.agent.wire): every source
# -- produces the same records (the agent on a server, the agent's functions here, the SFTP
# -- fallback), and these turn them into answers, the same words for every source


def add_walked(listing: Listing, record: wire.Record) -> bool:
    """Put one walk record into a listing; False for a record that is no walk record."""
    if isinstance(record, wire.Listed):
        listing.files.append(record.path)
    elif isinstance(record, wire.Other):
        listing.others.append(record.path)
    elif isinstance(record, wire.Unlisted):
        listing.blocked.append((record.path, record.why))
    elif isinstance(record, wire.LinkOut):
        listing.blocked.append((record.path, outside_link(record.real)))
    else:
        return False
    return True


def listing_of(records: Iterable[wire.Record]) -> Listing:
    """A walk's records as one listing."""
    listing = Listing([], [], [])
    for record in records:
        if not add_walked(listing, record):
            raise SourceError(f"a walk answered {record!r}, which is no walk record")
    return listing


def literal_answer(entry: str, record: wire.Record) -> Expansion:
    """What a literal path's record (:func:`pytest_cleantree.agent.lexists`) means."""
    if isinstance(record, wire.Exists):
        return (entry,)
    if isinstance(record, wire.Absent):
        return ()
    if isinstance(record, wire.Unknown):
        return SourceError(f"{entry}: cannot tell whether it exists: {record.why}")
    return SourceError(f"{entry}: the remote helper's answer is garbled ({record!r})")


#: why a file has no content, per read record without fields
READ_ERRORS: dict[type[wire.Record], str] = {
    wire.Missing: "no such file (or a dangling link)",
    wire.Folder: "is a folder, not a file",
    wire.Special: "is a FIFO, socket or device, not a file",
    wire.Denied: "permission denied",
}


def read_answer(
    path: str, record: wire.Record, *, digest: str | None = None, ahead: bool = False
) -> ReadAnswer:
    """What one read record (:func:`pytest_cleantree.agent.read_one`) means: the file read
    (with what else the source knows of it: ``digest``, ``ahead``, see :class:`FileRead`),
    no needle, or why neither."""
    if isinstance(record, wire.Content):
        return FileRead(record.data, digest, ahead)
    if isinstance(record, wire.Spared):
        return NO_NEEDLE
    if isinstance(record, wire.Failed):
        return SourceError(f"{path}: cannot read: {record.why}")
    if isinstance(record, wire.Outside):
        return outside_error(path, record.real)
    if type(record) in READ_ERRORS:
        return SourceError(f"{path}: {READ_ERRORS[type(record)]}")
    return SourceError(f"{path}: the remote helper's answer is garbled ({record!r})")


def outside_error(path: str, real: str) -> SourceError:
    """Why a file reached through a link out of the root is not read."""
    return SourceError(
        f"{path}: leads outside the root (to {real}); set allow_outside_root = true to allow it"
    )
