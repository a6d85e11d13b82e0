"""Names reported: which patterns a name matches, and where it stands (in characters).

The scan (:mod:`.scan`) walks the tree and hands each name here with its kind
and the position the tree gives (or the place of its statement, from which its
token is found: :mod:`.positions`).  What a name matches is the pattern index's
answer, asked once per name (and per qualified target) and kept for the file.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_cleantree.core.findings import Finding
from pytest_cleantree.core.model import Kind, Occurrence, Pattern
from pytest_cleantree.core.patterns import match_name, prefilter_needles

from .positions import char_col, locate
from .text import PatternSet

__all__ = ["NameReporter"]


class NameReporter:
    """The findings of one file's names, as the walk meets them (:meth:`_emit`)."""

    def __init__(self, lines: Sequence[str], patterns: PatternSet) -> None:
        self.lines = lines
        self.patterns = patterns.patterns
        self.findings: list[Finding] = []
        self._name_cache: dict[str, tuple[Pattern, ...]] = {}
        self._qualified_cache: dict[tuple[str, tuple[str, ...], bool], tuple[Pattern, ...]] = {}
        self._index = patterns.index
        self._text_index = patterns.index.text
        self._plain = patterns.plain

    def _emit(
        self,
        name: str,
        line: int,
        col: int,
        kind: Kind,
        qualified: tuple[str, ...] = (),
        *,
        written: bool = True,
    ) -> None:
        """Report the name where it stands, for each pattern it matches: by the name itself
        (unless not ``written`` as one: a name only a string literal spells, found only by
        what it resolves to) and by what it resolves to (``qualified``)."""
        matched = self._name_cache.get(name) if written else ()
        if matched is None:
            matched = self._index.match(name)
            self._name_cache[name] = matched
        if qualified:
            inside = kind is not Kind.DEFINITION
            key = (name, qualified, inside)
            through = self._qualified_cache.get(key)
            if through is None:
                through = self._index.match_qualified(qualified, inside=inside)
                self._qualified_cache[key] = through
            matched += through
        if matched:
            col = self._char_col(line, col)
        for pattern in matched:
            self.findings.append(
                Finding(pattern.text, Occurrence(line, col, kind, name, qualified))
            )

    def _char_col(self, line: int, byte_col: int) -> int:
        return char_col(self.lines, line, byte_col)

    def _emit_located(
        self, name: str, kind: Kind, start: tuple[int, int], qualified: tuple[str, ...] = ()
    ) -> None:
        """Emit a name the AST gives no position for, found among the statement's tokens."""
        if not self._wanted(name, qualified):
            return
        line, col = self._locate(name, start)
        self._emit(name, line, col, kind, qualified)

    def _dotted_at(self, dotted: str, start: tuple[int, int]) -> tuple[int, int]:
        """Where a dotted name that may be split over lines (``os.\\`` newline ``sm120``) stands.

        The line of the first part that spells a needle of a pattern it
        matches; else the first part's.  A continued name is thus reported on
        the line where the matching part itself stands.
        """
        parts = dotted.split(".")
        matched = self._index.match(dotted, (dotted,))
        needles = [needle for p in matched for needle in prefilter_needles(p)]
        first = self._locate(parts[0], start)
        for part in parts:
            if any(needle and needle in part for needle in needles):
                return self._locate(part, first)
        return first

    def _wanted(self, name: str, qualified: tuple[str, ...]) -> bool:
        return bool(self._index.match(name, qualified))

    def _locate(self, name: str, start: tuple[int, int]) -> tuple[int, int]:
        """Where the first NAME token ``name`` stands at or after ``start``."""
        return locate(self.lines, name, start)

    def _segments(self, dotted: str, start: tuple[int, int]) -> None:
        """Each segment of a dotted module path is a name (issue 23, class 4), at its own place.

        A plain pattern that the whole path matches is reported once, on the
        path (see :meth:`visit_Import`); one that only a segment matches
        (``=sm120_kernels``, ``sm120*``, ``re:^sm120`` against
        ``pkg.sm120_kernels``) is reported on that segment, once per import.
        """
        if "." not in dotted:
            return
        whole = {p for p in self._plain if match_name(p, dotted)}
        rest = [p for p in self._plain if p not in whole]
        if not rest:
            return
        parts = dotted.split(".")
        reported: set[Pattern] = set()
        position = start
        for part in parts:
            line, col = self._locate(part, position)
            position = (line, col + len(part.encode("utf-8")))
            for pattern in rest:
                if pattern not in reported and match_name(pattern, part):
                    reported.add(pattern)
                    occurrence = Occurrence(line, self._char_col(line, col), Kind.IMPORT, part)
                    self.findings.append(Finding(pattern.text, occurrence))
