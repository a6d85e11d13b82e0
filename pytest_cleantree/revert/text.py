"""The text of changed files: bytes kept byte for byte, and what a manifest cannot write.

Contents are decoded as UTF-8 with ``surrogateescape``, so an undecodable byte survives a
round trip (a hunk applied to such a file gives back the same bytes); the lone surrogates
that stand for those bytes cannot be written in TOML, so a name or line holding one is
never planned.
"""

from __future__ import annotations

__all__ = ["decode_text", "encode_text", "unrepresentable"]


def decode_text(data: bytes) -> str:
    """The file's text, every undecodable byte kept as a lone surrogate."""
    return data.decode("utf-8", errors="surrogateescape")


def encode_text(text: str) -> bytes:
    """The bytes of :func:`decode_text`'s text, the undecodable ones given back."""
    return text.encode("utf-8", errors="surrogateescape")


def unrepresentable(text: str) -> bool:
    """Lone surrogates (undecodable bytes) cannot be written in TOML."""
    return any("\ud800" <= char <= "\udfff" for char in text)
