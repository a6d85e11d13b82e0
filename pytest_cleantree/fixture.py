"""The ``cleantree`` fixture's object: the manifest's checks, written as code in a test."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from pytest_cleantree.engine import AnalysisCache, Check, check_all, iter_checks
from pytest_cleantree.errors import SourceError
from pytest_cleantree.model import DEFAULT_KINDS, Kind, Rule
from pytest_cleantree.patterns import parse_pattern
from pytest_cleantree.report import render_result
from pytest_cleantree.sources.local import LocalSource, resolve_local_root


class CleanTree:
    """Checks a local tree; each method fails the test with the report when the check fails."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._cache = AnalysisCache()

    def at(self, root: str | Path) -> CleanTree:
        """The same checks on another folder (relative to this one's root)."""
        return CleanTree(self.root / root)

    def forbid(
        self,
        files: str | Sequence[str],
        *patterns: str,
        kinds: Iterable[str] | None = None,
        why: str = "",
        missing_ok: bool = False,
    ) -> None:
        """Fail unless no pattern occurs in any of ``files`` (paths or globs)."""
        rule = _rule("forbid", files, forbid=patterns, kinds=kinds, why=why, missing_ok=missing_ok)
        self._run(rule)

    def expect(
        self,
        files: str | Sequence[str],
        *patterns: str,
        kinds: Iterable[str] | None = None,
        why: str = "",
    ) -> None:
        """Fail unless every pattern occurs in each of ``files``."""
        self._run(_rule("expect", files, expect=patterns, kinds=kinds, why=why))

    def absent(self, *files: str, why: str = "") -> None:
        """Fail if any of ``files`` exists."""
        self._run(_rule("absent", (), absent=files, why=why))

    def _run(self, rule: Rule) -> None:
        try:
            source = LocalSource(resolve_local_root("", self.root))
        except SourceError as exc:  # the root itself is missing
            pytest.fail(str(exc), pytrace=False)
        checks: list[Check] = list(iter_checks([rule]))
        results = check_all(checks, source, self._cache)
        failed = [render_result(result) for result in results.values() if not result.ok]
        if failed:
            pytest.fail("\n".join(failed), pytrace=False)


def _rule(
    verb: str,
    files: str | Sequence[str],
    *,
    forbid: Sequence[str] = (),
    expect: Sequence[str] = (),
    absent: Sequence[str] = (),
    kinds: Iterable[str] | None = None,
    why: str = "",
    missing_ok: bool = False,
) -> Rule:
    entries = (files,) if isinstance(files, str) else tuple(files)
    if not (entries or absent) or not (forbid or expect or absent):
        raise ValueError(f"cleantree.{verb}: give at least one file and one pattern")
    try:
        chosen = DEFAULT_KINDS if kinds is None else frozenset(Kind(k) for k in kinds)
    except ValueError as exc:
        raise ValueError(f"cleantree.{verb}: {exc}") from None
    return Rule(
        id=verb,
        files=entries,
        forbid=tuple(parse_pattern(p) for p in forbid),
        expect=tuple(parse_pattern(p) for p in expect),
        absent=tuple(absent),
        kinds=chosen,
        why=why,
        missing_ok=missing_ok,
    )
