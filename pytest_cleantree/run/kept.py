"""A remote tree's Python files, kept by content digest in the analyses' store between runs.

A check over SSH is sent, with its first listing, the files that may hold a needle (and for
a qualified check the tree's Python files whole, the symbol graph's input).  What was sent
is kept here, by the digest the graph's parts and the
analyses are keyed by (one model: :mod:`.graphstore`): the next run offers each file's digest
to the agent, which sends a file only when its content has another digest now, and
:class:`~pytest_cleantree.agent.wire.Kept` otherwise.  Nothing here is trusted without its
digest: content read back is checked against it (an entry that is not that content is not
used, and the file is asked for).  Standard library only: a plan imports it.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import zlib
from collections.abc import Mapping
from typing import Any, Protocol

#: the shape of an entry (the graph store's version: the two share the store's graph pack)
_VERSION = "5"


def digest(data: bytes) -> str:
    """A content's digest (the agent's :func:`~pytest_cleantree.agent.serve.digest`)."""
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class GraphEntries(Protocol):
    """What :class:`KeptContent` asks of the store (a :class:`.analyses.FindingStore`)."""

    def get_graph(self, key: str) -> Any: ...

    def put_graph(self, key: str, entry: Any) -> None: ...


class KeptContent:
    """A remote tree's Python files as last sent whole, kept by content digest in the store.

    Per tree (its host and root, ``where``), the digest of each file last sent; per digest,
    the content (compressed).  The SSH source offers the digests to its agent, which answers
    :class:`~pytest_cleantree.agent.wire.Kept` for a file whose content has that digest now:
    the content is then taken from here, checked against the digest again (a store entry
    that is not that content is never used: the file is asked for).
    """

    def __init__(self, store: GraphEntries) -> None:
        self._store = store

    def offered(self, where: str) -> dict[str, str]:
        """Each file's digest, as the tree ``where`` last sent it."""
        entry = self._store.get_graph(f"{_VERSION}:r:{where}")
        if not isinstance(entry, dict):
            return {}
        return {str(path): str(known) for path, known in entry.items()}

    def content(self, wanted: str) -> bytes | None:
        """The content with the digest ``wanted``, or None (not kept, or not that content)."""
        entry = self._store.get_graph(f"{_VERSION}:c:{wanted}")
        if not isinstance(entry, str):
            return None
        try:
            data = zlib.decompress(base64.b64decode(entry, validate=True))
        except (binascii.Error, zlib.error, ValueError):
            return None
        return data if digest(data) == wanted else None

    def keep(
        self, where: str, files: Mapping[str, bytes], others: Mapping[str, str] | None = None
    ) -> None:
        """What the tree ``where`` holds now (each file's content; ``others``: the digests of
        files kept before, not sent this time): the next run offers it."""
        index: dict[str, str] = dict(others or {})
        for path, data in files.items():
            index[path] = known = digest(data)
            key = f"{_VERSION}:c:{known}"
            if self._store.get_graph(key) is None:
                packed = base64.b64encode(zlib.compress(data, 6)).decode("ascii")
                self._store.put_graph(key, packed)
        before = self.offered(where)
        if index != before:  # unchanged: the store's pack is not rewritten
            self._store.put_graph(f"{_VERSION}:r:{where}", index)
            # what this tree no longer holds is let go (another tree holding the same content
            # is then sent it again: never a wrong content, the digest decides)
            for gone in set(before.values()) - set(index.values()):
                self._store.put_graph(f"{_VERSION}:c:{gone}", None)
