"""The ``cleantree`` fixture's object: the manifest's checks, written as code in a test."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

import pytest

from pytest_cleantree.core.checks import Check, iter_checks
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.model import DEFAULT_KINDS, SELECTABLE_KINDS, Kind, Pattern, Rule
from pytest_cleantree.core.patterns import parse_pattern
from pytest_cleantree.report.context import PathFrame
from pytest_cleantree.report.text import render_result
from pytest_cleantree.run.analyses import AnalysisCache
from pytest_cleantree.run.check import check_all
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
        __tracebackhide__ = True  # a wrong call shows the caller's line, not ours
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
        __tracebackhide__ = True  # a wrong call shows the caller's line, not ours
        self._run(_rule("expect", files, expect=patterns, kinds=kinds, why=why))

    def absent(self, *files: str, why: str = "") -> None:
        """Fail if any of ``files`` exists."""
        __tracebackhide__ = True  # a wrong call shows the caller's line, not ours
        self._run(_rule("absent", (), absent=files, why=why))

    def _run(self, rule: Rule) -> None:
        try:
            source = LocalSource(resolve_local_root("", self.root))
        except SourceError as exc:  # the root itself is missing
            # ``from None``: the SourceError is the message, not a second traceback section
            raise pytest.fail.Exception(str(exc), pytrace=False) from None
        checks: list[Check] = list(iter_checks([rule]))
        results = check_all(checks, source, self._cache)
        frame = PathFrame(source.root, os.getcwd())
        failed = [render_result(result, frame) for result in results.values() if not result.ok]
        if failed:
            pytest.fail("\n".join(failed), pytrace=False)


def _rule(
    verb: str,
    files: str | Sequence[str],
    *,
    forbid: Sequence[str] = (),
    expect: Sequence[str] = (),
    absent: Sequence[str] = (),
    kinds: str | Iterable[str] | None = None,
    why: str = "",
    missing_ok: bool = False,
) -> Rule:
    __tracebackhide__ = True
    entries = (files,) if isinstance(files, str) else tuple(files)
    if not (entries or absent) or not (forbid or expect or absent):
        raise ValueError(f"cleantree.{verb}: give at least one file and one pattern")
    chosen = DEFAULT_KINDS if kinds is None else _kinds(verb, kinds)
    return Rule(
        id=verb,
        files=entries,
        forbid=_patterns(verb, forbid),
        expect=_patterns(verb, expect),
        absent=tuple(absent),
        kinds=chosen,
        why=why,
        missing_ok=missing_ok,
    )


def _kinds(verb: str, kinds: str | Iterable[str]) -> frozenset[Kind]:
    """The kinds named, checked as the manifest checks its ``kinds`` key."""
    __tracebackhide__ = True  # a wrong call shows the caller's line, not ours
    valid = {kind.value: kind for kind in SELECTABLE_KINDS}
    names = (kinds,) if isinstance(kinds, str) else tuple(kinds)
    if not names:  # no kind at all would match nothing: a check that always passes
        raise ValueError(f"cleantree.{verb}: kinds must not be empty")
    for name in names:
        if name not in valid:
            raise ValueError(
                f"cleantree.{verb}: unknown kind {name!r} (valid kinds: {', '.join(sorted(valid))})"
            )
    return frozenset(valid[name] for name in names)


def _patterns(verb: str, texts: Sequence[str]) -> tuple[Pattern, ...]:
    __tracebackhide__ = True
    try:
        return tuple(parse_pattern(text) for text in texts)
    except ValueError as exc:
        raise ValueError(f"cleantree.{verb}: {exc}") from None
