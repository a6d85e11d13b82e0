"""The protocol between the agent and the client: every record, named and versioned, once.

Both ends import this module: the server runs it (shipped with the agent, so Python 3.6
syntax and the standard library only) and the client decodes with it.  A record is a
small class: its wire tag, and its fields with how each travels (``t`` text: UTF-8, bytes
that are not kept by ``surrogateescape``; ``b`` bytes as they are; ``n`` numbers).  On the
wire a record is one header line, ``TAG len1 len2 ...``, then its fields' bytes back to
back; an answer starts with the handshake line ``\\0CLEANTREE<version> <nonce>`` (anything
before it, such as a noisy ``.bashrc``'s output, is skipped) and ends with :class:`End`:
without it the stream was cut short.  One agent answers a run's requests in turn (version 3):
each request is :func:`frame`'d JSON, each answer a stream as above, with the request's nonce.

To add a field: add it here (to ``FIELDS`` and ``__init__``), where the server produces
the record (and the SFTP reader, ``sources/ssh/sftp.py``, if it produces it too: mypy names
it), and where the client consumes it (``sources/base.py`` or ``sources/ssh/helper.py``);
raise :data:`PROTOCOL` when old peers would misread it.
"""

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Type, Union

    Value = Union[str, bytes, Tuple[int, ...]]

#: the protocol's version: a peer that speaks another is refused, naming both
PROTOCOL = 3
#: what starts a stream, before the version and the nonce
MARK = b"\0CLEANTREE"


class WireError(Exception):
    """The stream is cut short or garbled."""


class VersionError(WireError):
    """The peer speaks another version of the protocol."""

    def __init__(self, theirs: str) -> None:
        super().__init__(
            f"the remote helper speaks protocol version {theirs}, this client speaks "
            f"version {PROTOCOL}: the helper and the client come from different releases"
        )
        self.theirs = theirs


def text(value: "Union[str, bytes]") -> str:
    """A path or message as text: undecodable bytes kept (surrogateescape)."""
    return value if isinstance(value, str) else value.decode("utf-8", "surrogateescape")


def names(fields: "Tuple[Tuple[str, str], ...]") -> "Tuple[str, ...]":
    """The fields' names, for ``__slots__`` (the order that counts is ``FIELDS``')."""
    return tuple(name for name, _ in fields)


class Record:
    """One record: a tag, and its fields (``FIELDS``: each one's name and how it travels)."""

    __slots__: "Tuple[str, ...]" = ()
    TAG = b""
    #: each field's name and how it travels, in wire order
    FIELDS: "Tuple[Tuple[str, str], ...]" = ()

    def values(self) -> "Tuple[Value, ...]":
        return tuple(getattr(self, name) for name, _ in self.FIELDS)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Record)
            and type(other) is type(self)
            and self.values() == other.values()
        )

    def __hash__(self) -> int:
        return hash((type(self), self.values()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(map(repr, self.values()))})"


# --------------------------------------------------------------------------- the frame


class Root(Record):
    """The root the request named, resolved on the server (first, before any other)."""

    TAG, FIELDS = b"R", (("path", "t"),)
    __slots__ = names(FIELDS)

    def __init__(self, path: str) -> None:
        self.path = path


class NoRoot(Record):
    """Why the root names no folder (first; then only :class:`End`)."""

    TAG, FIELDS = b"E", (("why", "t"),)
    __slots__ = names(FIELDS)

    def __init__(self, why: str) -> None:
        self.why = why


class End(Record):
    """The end of the stream: without it the stream was cut short."""

    TAG = b"END"


# --------------------------------------------------------------------------- expand


class Exists(Record):
    """Something is at a literal path (a file, a folder, a dangling link...)."""

    TAG = b"Y"


class Absent(Record):
    """Nothing is at a literal path."""

    TAG = b"Z"


class Unknown(Record):
    """Whether anything is at a literal path cannot be told, and why."""

    TAG, FIELDS = b"Q", (("why", "t"),)
    __slots__ = names(FIELDS)

    def __init__(self, why: str) -> None:
        self.why = why


class Base(Record):
    """The walk of the next glob base starts: the walk records up to the next belong to it."""

    TAG = b"B"


class Listed(Record):
    """A regular file (or a link to one) the walk met."""

    TAG, FIELDS = b"L", (("path", "t"),)
    __slots__ = names(FIELDS)

    def __init__(self, path: str) -> None:
        self.path = path


class Other(Record):
    """Anything else the walk met: a folder, a link to one, a dangling link, a FIFO."""

    TAG, FIELDS = b"N", (("path", "t"),)
    __slots__ = names(FIELDS)

    def __init__(self, path: str) -> None:
        self.path = path


class Unlisted(Record):
    """A folder (or a link the walk cannot see through) that could not be listed, and why."""

    TAG, FIELDS = (
        b"U",
        (
            ("path", "t"),
            ("why", "t"),
        ),
    )
    __slots__ = names(FIELDS)

    def __init__(self, path: str, why: str) -> None:
        self.path, self.why = path, why


class LinkOut(Record):
    """A link to a folder out of the root, not followed, and the real path it leads to."""

    TAG, FIELDS = (
        b"K",
        (
            ("path", "t"),
            ("real", "t"),
        ),
    )
    __slots__ = names(FIELDS)

    def __init__(self, path: str, real: str) -> None:
        self.path, self.real = path, real


class Ahead(Record):
    """A file read ahead with the listing, and the needle lists it was read with; its read
    record comes next."""

    TAG, FIELDS = (
        b"A",
        (
            ("path", "t"),
            ("needle_lists", "n"),
        ),
    )
    __slots__ = names(FIELDS)

    def __init__(self, path: str, needle_lists: "Tuple[int, ...]") -> None:
        self.path, self.needle_lists = path, needle_lists


# --------------------------------------------------------------------------- read


class Content(Record):
    """A file's bytes."""

    TAG, FIELDS = b"F", (("data", "b"),)
    __slots__ = names(FIELDS)

    def __init__(self, data: bytes) -> None:
        self.data = data


class Packed(Record):
    """A file read ahead, its bytes compressed (zlib): the client unpacks it into
    :class:`Content` (a whole tree's Python files cross the link in the first trip)."""

    TAG, FIELDS = b"C", (("data", "b"),)
    __slots__ = names(FIELDS)

    def __init__(self, data: bytes) -> None:
        self.data = data


class Kept(Record):
    """A file read ahead whose content has the digest the client named for it (it holds that
    content already): not sent.  Only ever an answer to a request that named digests."""

    TAG = b"G"


class Spared(Record):
    """Read with needles, the file can spell none: its content was not sent."""

    TAG = b"H"


class Missing(Record):
    """No such file (or a dangling link)."""

    TAG = b"M"


class Folder(Record):
    """A folder, not a file."""

    TAG = b"D"


class Special(Record):
    """A FIFO, socket or device, not a file."""

    TAG = b"S"


class Denied(Record):
    """Permission denied."""

    TAG = b"P"


class Failed(Record):
    """Another error, and its text."""

    TAG, FIELDS = b"O", (("why", "t"),)
    __slots__ = names(FIELDS)

    def __init__(self, why: str) -> None:
        self.why = why


class Outside(Record):
    """The file is reached through a link out of the root, and the real path it leads to."""

    TAG, FIELDS = b"X", (("real", "t"),)
    __slots__ = names(FIELDS)

    def __init__(self, real: str) -> None:
        self.real = real


#: what a read answers for one file
READS = (Content, Spared, Missing, Folder, Special, Denied, Failed, Outside)
#: what a walk answers for one thing it met
WALKS = (Listed, Other, Unlisted, LinkOut)
#: what a literal path's check answers
LITERALS = (Exists, Absent, Unknown)
#: every record type, by its tag
RECORDS: "Dict[bytes, Type[Record]]" = {
    kind.TAG: kind
    for kind in (Root, NoRoot, End, Base, Ahead, Packed, Kept, *LITERALS, *WALKS, *READS)
}


# --------------------------------------------------------------------------- the codec


def hello(nonce: str) -> bytes:
    """The handshake line: the mark, this protocol's version, the request's nonce."""
    return MARK + b"%d " % PROTOCOL + nonce.encode("ascii") + b"\n"


def _field(value: "Value") -> bytes:
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    if isinstance(value, tuple):
        return ",".join(map(str, value)).encode("ascii")
    return value


def encode(record: Record) -> bytes:
    """A record as it travels."""
    fields = [_field(value) for value in record.values()]
    header = b" ".join([record.TAG] + [b"%d" % len(field) for field in fields])
    return header + b"\n" + b"".join(fields)


def _value(kind: str, data: bytes) -> "Value":
    if kind == "t":
        return data.decode("utf-8", "surrogateescape")
    if kind == "n":
        if data and not all(part.isdigit() for part in data.split(b",")):
            raise WireError(f"garbled numbers {data[:40]!r}")
        return tuple(int(part) for part in data.split(b",")) if data else ()
    return data


def decode(stream: bytes, nonce: str) -> "Optional[List[Record]]":
    """The records after the handshake up to :class:`End` (excluded), or None when the
    handshake is absent (the agent never ran).

    Raises :class:`VersionError` when the agent speaks another version, and
    :class:`WireError` when the stream is garbled or stops before its end.
    """
    start = _handshake(stream, nonce)
    if start is None:
        return None
    return list(_records(stream, start))


def _handshake(stream: bytes, nonce: str) -> "Optional[int]":
    """Where the records start, after the handshake line carrying ``nonce``."""
    tail = b" " + nonce.encode("ascii") + b"\n"
    at = stream.find(MARK)
    while at >= 0:
        eol = stream.find(b"\n", at, at + len(MARK) + 64)
        line = stream[at + len(MARK) : eol + 1] if eol >= 0 else b""
        version = line[: -len(tail)]
        if line.endswith(tail) and version.isdigit():
            if int(version) != PROTOCOL:
                raise VersionError(version.decode("ascii"))
            return eol + 1
        at = stream.find(MARK, at + 1)
    return None


def _records(stream: bytes, pos: int) -> "Iterator[Record]":
    count = 0
    while True:
        eol = stream.find(b"\n", pos, pos + 64)
        if eol < 0:
            raise WireError(f"{count} records, then {len(stream) - pos} stray bytes")
        tag, *sizes = stream[pos:eol].split(b" ")
        kind = RECORDS.get(tag)
        if kind is None or len(sizes) != len(kind.FIELDS) or not all(s.isdigit() for s in sizes):
            raise WireError(f"garbled header after {count} records")
        pos = eol + 1
        values = []
        for (_, letter), size in zip(kind.FIELDS, sizes):
            end = pos + int(size)
            if end > len(stream):
                raise WireError(
                    f"record {count + 1} announced {int(size)} bytes, {len(stream) - pos} arrived"
                )
            values.append(_value(letter, stream[pos:end]))
            pos = end
        if kind is End:
            return
        make: Callable[..., Record] = kind
        yield make(*values)
        count += 1


def frame(request: bytes) -> bytes:
    """A request as the agent reads it: its length on a line, then its bytes (a newline last,
    so that a line-buffered relay passes it on whole)."""
    return b"%d\n" % (len(request) + 1) + request + b"\n"


def scan(stream: "Union[bytes, bytearray]", pos: int) -> "Tuple[int, str]":
    """Past the whole records from ``pos``: where the next one starts, and what follows:
    ``"more"`` bytes to come, ``"end"`` (:class:`End` was passed: the answer ends there),
    or ``"garbled"`` (a header no record has: :func:`decode` says what is wrong)."""
    while True:
        eol = stream.find(b"\n", pos, pos + 64)
        if eol < 0:
            return pos, "garbled" if len(stream) - pos >= 64 else "more"
        tag, *sizes = bytes(stream[pos:eol]).split(b" ")
        kind = RECORDS.get(tag)
        if kind is None or len(sizes) != len(kind.FIELDS) or not all(s.isdigit() for s in sizes):
            return pos, "garbled"
        end = eol + 1 + sum(int(size) for size in sizes)
        if end > len(stream):
            return pos, "more"
        pos = end
        if tag == End.TAG:
            return pos, "end"


def encode_all(records: "Iterable[Record]") -> bytes:
    """Records back to back (the end record not included)."""
    return b"".join(map(encode, records))
