"""Why a file could not be analysed, as Python would say.

The records an analysis answers with are in :mod:`pytest_cleantree.core.findings`.
"""

from __future__ import annotations

import sys


def decode_problem(exc: BaseException) -> str:
    """Why a file's bytes are not Python source text (PEP 263), as Python would say."""
    if isinstance(exc, UnicodeDecodeError):
        reason = f"{exc.reason} at byte {exc.start} ({exc.encoding})"
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
