"""Why a file could not be analysed, as Python would say.

The records an analysis answers with are in :mod:`pytest_cleantree.core.findings`.
"""

from __future__ import annotations

import sys


def byte_place(data: bytes, offset: int) -> str:
    """Where a byte stands, as a user finds it: its line (an editor's) and its offset (``cmp``,
    ``xxd``), and the byte itself."""
    line = data.count(b"\n", 0, offset) + 1
    byte = f"0x{data[offset]:02x} " if offset < len(data) else ""
    return f"at line {line} (byte {byte}at offset {offset} of the file)"


def decode_problem(exc: BaseException) -> str:
    """Why a file's bytes are not Python source text (PEP 263), as Python would say."""
    if isinstance(exc, UnicodeDecodeError):
        reason = f"{exc.reason} {byte_place(bytes(exc.object), exc.start)} ({exc.encoding})"
    elif isinstance(exc, (LookupError, TypeError)):  # a coding cookie naming a non-text codec
        reason = f"encoding problem: {exc}"
    else:
        reason = str(exc)
    return f"cannot decode as Python source: {reason}"


def parse_problem(exc: SyntaxError | ValueError | RecursionError | MemoryError) -> str:
    """Why a decoded file does not parse, and what to do about it."""
    version = ".".join(map(str, sys.version_info[:2]))
    if isinstance(exc, SyntaxError):
        where = f"line {exc.lineno}" if exc.lineno else "unknown line"
        what = f"{exc.msg} at {where}"
    elif isinstance(exc, (RecursionError, MemoryError)):
        what = "too deeply nested for this Python"
    else:
        what = str(exc)
    if isinstance(exc, SyntaxError) and str(exc.msg).startswith(_PYTHON_2):
        return (
            f"not valid Python {version} syntax: {what}: it looks like Python 2 code, which "
            "no Python 3 parses; lines whose text matches are listed"
        )
    return (
        f"not valid Python {version} syntax: {what}. If the code targets another Python, run "
        "the check under that Python (for example `python3.12 -m pytest --cleantree`); "
        "lines whose text matches are listed"
    )


#: how Python 3 words its errors on Python 2 code
_PYTHON_2 = (
    "Missing parentheses in call to 'print'",
    "Missing parentheses in call to 'exec'",
    "multiple exception types must be parenthesized",
    "leading zeros in decimal integer literals",
)
