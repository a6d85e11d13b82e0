"""What an analysis answers: findings per file, and why a file could not be analysed."""

from __future__ import annotations

import functools
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from pytest_cleantree.core.model import Occurrence


@dataclass(frozen=True)
class Finding:
    """A pattern found at an occurrence."""

    pattern: str
    occurrence: Occurrence


@dataclass(frozen=True)
class FileAnalysis:
    """What one file holds for a set of patterns.

    ``problem`` is set when the file could not be analysed as Python; the
    findings are then the lines whose *text* matches, so nothing is hidden.
    """

    path: str
    lines: tuple[str, ...]
    findings: tuple[Finding, ...]
    problem: str | None = None
    #: the 1-based line the problem is at, when known (a syntax error's line); 0 otherwise
    problem_line: int = 0
    #: after :meth:`compact`: only the lines that hold findings
    kept: Mapping[int, str] = field(default_factory=dict)

    def source_line(self, line: int) -> str:
        if line in self.kept:
            return self.kept[line]
        return self.lines[line - 1] if 0 < line <= len(self.lines) else ""

    @functools.cached_property
    def patterns_found(self) -> frozenset[str]:
        """The patterns with at least one finding here (most files have none)."""
        return frozenset(finding.pattern for finding in self.findings)

    def compact(self) -> FileAnalysis:
        """The same answers, keeping only the source lines that findings point at.

        A run over tens of thousands of files then holds their findings, not
        their text: memory stays bounded by what is found.
        """
        if not self.lines:
            return self
        kept = {f.occurrence.line: self.source_line(f.occurrence.line) for f in self.findings}
        return replace(self, lines=(), kept=kept)


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
