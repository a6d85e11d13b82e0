"""What is built once per object many files share, kept by the object's identity.

A run hands every file the same pattern list (and the tables built from it), which can run to
thousands of a qualified pattern's spellings: what is worked out of it is worked out once per
run, not once per file. The one cache of that kind: the object is held, so that its ``id`` is
not reused while the entry stands, and at most 64 are kept.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

__all__ = ["ByIdentity"]

K = TypeVar("K")
V = TypeVar("V")


class ByIdentity(Generic[K, V]):
    """``build(key)``, built once per key object: keyed by its identity, and holding it, so
    that its id is not reused; at most 64 kept."""

    def __init__(self, build: Callable[[K], V]) -> None:
        self._build = build
        self._kept: dict[int, tuple[K, V]] = {}

    def __call__(self, key: K) -> V:
        known = self._kept.get(id(key))
        if known is not None and known[0] is key:
            return known[1]
        value = self._build(key)
        if len(self._kept) > 64:
            self._kept.clear()
        self._kept[id(key)] = (key, value)
        return value
