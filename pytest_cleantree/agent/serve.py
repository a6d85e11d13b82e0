"""The agent's server side: answer one request read from stdin with the protocol's records.

The SSH source ships the modules :data:`MODULES` names (this one last) and calls
:func:`main`; each record is produced here and encoded by :mod:`.wire`, the one codec.
"""

import os
import re
import sys

from .read import enc, lexists, needle_pairs, read_one
from .walk import resolve, walk
from .wire import (
    PROTOCOL,
    Ahead,
    Base,
    Content,
    End,
    Exists,
    Kept,
    Listed,
    NoRoot,
    Packed,
    Record,
    Root,
    encode,
    hello,
    text,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Dict, List, Optional, Set, Tuple

    Send = Callable[[Record], None]

#: the agent's modules as the server loads them, each after those it imports: (file in this
#: package, its name); every module of the package is here (a test holds it)
MODULES = (
    ("wire.py", "wire"),
    ("needle.py", "needle"),
    ("read.py", "read"),
    ("walk.py", "walk"),
    ("__init__.py", ""),
    ("serve.py", "serve"),
)


def serve_expand(request: "Dict[str, Any]", root: str, send: "Send") -> None:
    """A literal record per literal, then per glob base :class:`~.wire.Base` and its walk's
    records, then what is read ahead."""
    real_root = None if request.get("outside") else os.path.realpath(enc(root))
    existing = []
    for entry in request["literals"]:
        state = lexists(root, entry)
        if isinstance(state, Exists):
            existing.append(entry)
        send(state)
    listed: Dict[str, List[str]] = {}
    for start in request["bases"]:
        send(Base())
        met = walk(enc(root), enc(start), real_root)
        listed[start] = [record.path for record in met if isinstance(record, Listed)]
        for record in met:
            send(record)
    if request.get("ahead"):
        read_ahead(request, listed, existing, root, real_root, send)


def read_ahead(
    request: "Dict[str, Any]",
    listed: "Dict[str, List[str]]",
    existing: "List[str]",
    root: str,
    real_root: "Optional[bytes]",
    send: "Send",
) -> None:
    """The files the entries name, read with their needles right after the listing (one
    request, not two): :class:`~.wire.Ahead` then its read record (content :class:`~.wire.Packed`
    when asked and zlib is there), up to a budget of bytes read; :class:`~.wire.Kept` for a
    file whose content has the digest the request names for it (``known``)."""
    ahead = request["ahead"]
    try:
        import zlib
    except ImportError:  # a Python built without it: the content travels as it is
        zlib = None  # type: ignore[assignment]
    pack = zlib is not None and ahead.get("pack")
    sets = needle_sets(request)
    chosen: Dict[str, Set[int]] = {}
    for kind, entry, base, index in ahead["entries"]:
        if kind == "literal":
            paths = [entry] if entry in existing else []
        else:
            regex = re.compile(entry)
            paths = [path for path in listed.get(base, []) if regex.match(path)]
        for path in paths:
            chosen.setdefault(path, set()).add(index)
    budget: int = ahead["budget"]
    known: Dict[str, str] = ahead.get("known") or {}
    folders: Dict[bytes, bytes] = {}
    for path in sorted(chosen, key=enc):
        if budget <= 0:
            break
        indices = tuple(sorted(chosen[path]))
        needles = [pair for index in indices for pair in sets[index]]
        send(Ahead(path, indices))
        result = read_one(os.path.join(enc(root), enc(path)), real_root, folders, needles)
        if isinstance(result, Content) and path in known and digest(result.data) == known[path]:
            send(Kept())  # the client holds this very content: no budget spent on it
            continue
        budget -= sum(map(len, result.values()))
        send(
            Packed(zlib.compress(result.data, 1))
            if pack and isinstance(result, Content)
            else result
        )


def digest(data: bytes) -> str:
    """A content's digest, as the client's stores key content (BLAKE2b, 16 bytes, hex)."""
    import hashlib

    return hashlib.blake2b(data, digest_size=16).hexdigest()


def needle_sets(request: "Dict[str, Any]") -> "List[List[Tuple[bytes, str]]]":
    """The request's needle lists, each needle as its bytes and its text."""
    lists: List[List[str]] = request.get("needles") or []
    return [needle_pairs(needles) for needles in lists]


def serve_read(request: "Dict[str, Any]", root: str, send: "Send") -> None:
    """Per path, its read record (with its needles, if any)."""
    real_root = None if request.get("outside") else os.path.realpath(enc(root))
    sets = needle_sets(request)
    paths: List[str] = request["paths"]
    which: List[Optional[int]] = request.get("needle_of") or [None] * len(paths)
    folders: Dict[bytes, bytes] = {}
    for path, index in zip(paths, which):
        needles = None if index is None else sets[index]
        send(read_one(os.path.join(enc(root), enc(path)), real_root, folders, needles))


def answer(request: "Dict[str, Any]", send: "Send") -> None:
    """One request's answer: the handshake (this protocol's version), the root
    (:class:`~.wire.Root`, or :class:`~.wire.NoRoot` why not), the operation's records,
    :class:`~.wire.End`."""
    theirs = request.get("protocol", 1)
    root, problem = (None, None) if theirs != PROTOCOL else resolve(request["root"])
    if theirs != PROTOCOL:
        send(NoRoot(f"the client speaks protocol version {theirs}, this helper {PROTOCOL}"))
    elif root is None:
        send(NoRoot(problem or "no root"))
    else:
        send(Root(text(root)))
        if request["op"] == "expand":
            serve_expand(request, root, send)
        elif request["op"] == "read":
            serve_read(request, root, send)
    send(End())


def main() -> None:
    """Answer requests until stdin ends: each one is its length in bytes on a line, then
    that many bytes of JSON (:func:`~.wire.frame`); each answer starts with its request's
    handshake and ends with :class:`~.wire.End`, flushed, so one agent serves a whole run."""
    import json

    stdin, out = sys.stdin.buffer, sys.stdout.buffer

    def send(record: Record) -> None:
        out.write(encode(record))

    while True:
        size = stdin.readline().strip()
        if not size:
            return
        request = json.loads(stdin.read(int(size)).decode("utf-8"))
        out.write(hello(request["nonce"]))
        answer(request, send)
        out.flush()
