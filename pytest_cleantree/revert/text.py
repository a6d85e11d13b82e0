"""The text of changed files: bytes kept byte for byte, and what a manifest cannot write.

Contents are decoded as UTF-8 with ``surrogateescape``, so an undecodable byte survives a
round trip (a hunk applied to such a file gives back the same bytes); the lone surrogates
that stand for those bytes cannot be written in TOML as they are, so a name holding one is
never planned, and a line holding one is written escaped.  What a line is, compared with
the tree, is the file decoded as the check decodes it (:func:`checked_text`).
"""

from __future__ import annotations

from pytest_cleantree.analysis.decoding import DECODE_ERRORS, decode_python
from pytest_cleantree.analysis.text import is_python_path

__all__ = ["checked_text", "decode_text", "encode_text", "unrepresentable"]


def decode_text(data: bytes) -> str:
    """The file's text, every undecodable byte kept as a lone surrogate."""
    return data.decode("utf-8", errors="surrogateescape")


def encode_text(text: str) -> bytes:
    """The bytes of :func:`decode_text`'s text, the undecodable ones given back."""
    return text.encode("utf-8", errors="surrogateescape")


def unrepresentable(text: str) -> bool:
    """Lone surrogates (undecodable bytes) cannot be written in TOML."""
    return any("\ud800" <= char <= "\udfff" for char in text)


def checked_text(path: str, data: bytes) -> str:
    """The file's text as the check decodes it: a Python file by PEP 263 (the analysis
    layer's decoding), else, or when that fails, :func:`decode_text`."""
    if is_python_path(path):
        try:
            return decode_python(data)
        except DECODE_ERRORS:
            pass
    return decode_text(data)
