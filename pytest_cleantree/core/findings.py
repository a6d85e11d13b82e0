"""What an analysis answers: findings per file, and why a file could not be analysed.

In core, not in the analysis: the persistent cache rebuilds these records on a warm run,
which must not load the analysis to read its answers.
"""

from __future__ import annotations

import functools
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
    #: a Python file's comments that may be inline allows, as (line, comment text): an allow
    #: must be a comment token, which its line alone cannot tell; ``None`` (a file that is
    #: not Python): allows are read from the lines
    allows: tuple[tuple[int, str], ...] | None = None

    def allow_text(self, line: int) -> str:
        """What an inline allow on ``line`` is read from: its comment, or the line itself."""
        if self.allows is None:
            return self.source_line(line)
        return next((text for number, text in self.allows if number == line), "")

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
