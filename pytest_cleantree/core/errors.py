"""The project's exceptions: each says what went wrong, where, and what to do.

Two families are kept strictly apart, as import-linter does: a *broken
manifest* (the check cannot even be described) and a *source* that cannot be
read (the check cannot be carried out).  A violated rule is not an exception at
all: it is a result.
"""

from __future__ import annotations

from collections.abc import Sequence


class CleanTreeError(Exception):
    """Base class: anything that prevents a full check (CLI exit code 2)."""


class ManifestError(CleanTreeError):
    """The manifest is invalid; carries every problem found, not just the first."""

    def __init__(self, source: str, problems: Sequence[str]) -> None:
        self.source = source
        self.problems = tuple(problems)
        super().__init__(self.render())

    def render(self) -> str:
        if len(self.problems) == 1:
            return f"{self.source}: {self.problems[0]}"
        lines = [f"{self.source}: {len(self.problems)} problems"]
        lines += [f"  - {problem}" for problem in self.problems]
        return "\n".join(lines)


class SourceError(CleanTreeError):
    """A root, file or host could not be read; the message names which and why."""
