"""A Python file's bytes to its text, by Python's own rules (PEP 263, and its verdict).

Pure, from bytes: the coding is the BOM's, the cookie's, else UTF-8
(``tokenize.detect_encoding``).  A coding other than UTF-8 is rare, and the
codec alone does not say what Python reads (``cp037`` or ``utf_16_be`` on
ASCII text decode, and Python refuses them): there Python's own ``compile``
is asked.
"""

from __future__ import annotations

import ast
import io
import tokenize

from . import text


def decode_python(data: bytes) -> str:
    """Decode a Python file by PEP 263 (BOM, coding line, else UTF-8), as Python would.

    Raises ``SyntaxError`` for an unknown coding, ``UnicodeDecodeError`` for
    bytes that do not decode, ``LookupError`` for a coding that names a codec
    that is not a text encoding (``rot13``, ``base64``: Python itself refuses
    such a file with "encoding problem"), and :class:`RefusedSource` for a file
    whose coding is not UTF-8 and that Python's own ``compile`` refuses.
    """
    encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    try:
        decoded = data.decode(encoding)
    except TypeError as exc:  # a bytes-to-bytes codec
        raise LookupError(f"{encoding!r} is not a text encoding") from exc
    if encoding not in ("utf-8", "utf-8-sig"):
        _python_accepts(data, decoded, encoding)
    return decoded


class RefusedSource(SyntaxError):
    """Python refuses a file whose coding is not UTF-8 (``cp037``, ``utf_16_be`` on ASCII
    text): ``reason`` is its own verdict, ``decoded`` the text the cookie gives."""

    def __init__(self, reason: SyntaxError | ValueError, decoded: str) -> None:
        super().__init__(str(reason))
        self.reason = reason
        self.decoded = decoded


def _python_accepts(data: bytes, decoded: str, encoding: str) -> None:
    """Raise :class:`RefusedSource` unless Python compiles the bytes (the rare files whose
    coding is not UTF-8: Python's tokenizer, not the codec alone, decides what they say).

    Over the parse limit the question cannot be asked in bounded memory: refused too.
    """
    if text.too_large_to_parse(len(data)):
        over = SyntaxError(
            f"its coding is {encoding}, which only Python's own parse can vouch for, and it "
            f"is over the {text.MAX_PARSE_BYTES // 2**20} MiB parse limit"
        )
        raise RefusedSource(over, decoded)
    try:
        compile(data, "<source>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise RefusedSource(exc, decoded) from exc


#: Exceptions :func:`decode_python` raises for bytes that are not Python source text.
DECODE_ERRORS = (SyntaxError, UnicodeDecodeError, LookupError)
