"""The check list: the unit of work, derived from the manifest alone, without I/O.

A :class:`Check` is one rule on one manifest entry (a path or glob from ``files``, or a
path from ``absent``).  Checks are what pytest collects, so their ids depend on the
manifest only, never on the tree's state (``--lf`` and xdist rely on that).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pytest_cleantree.core.model import Rule


@dataclass(frozen=True)
class Check:
    """One rule on one manifest entry; ``absent`` checks that the entry does *not* exist."""

    rule: Rule
    entry: str
    absent: bool = False

    @property
    def label(self) -> str:
        """The entry as shown in test ids: ``srt/x.py``, or ``absent:srt/x.py``."""
        return f"absent:{self.entry}" if self.absent else self.entry


def iter_checks(rules: Iterable[Rule]) -> Iterator[Check]:
    """Every check a manifest asks for, in manifest order."""
    for rule in rules:
        for entry in rule.files:
            yield Check(rule, entry)
        for entry in rule.absent:
            yield Check(rule, entry, absent=True)
