"""Exclusions: gitignore-style patterns (pathspec) that take files out of a rule's reach.

A manifest's top-level ``exclude`` and a rule's own ``exclude`` (and ``--exclude`` /
``--cleantree-exclude``) are folded into each :class:`~pytest_cleantree.core.model.Rule`'s
``exclude``; the engine filters a rule's expanded files through them in one place
(:func:`scope_paths`), so the CLI and pytest exclude the same files.  Patterns are matched
against paths relative to the root, as a ``.gitignore`` at the root would be.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pytest_cleantree.core.checks import Check
    from pytest_cleantree.core.model import Manifest

__all__ = ["exclude_problem", "scope_of", "scope_paths", "with_exclusions"]

Scope = tuple[str, tuple[str, ...]]


def exclude_problem(pattern: str) -> str | None:
    """What is wrong with an exclude pattern, or ``None`` when it is valid."""
    if not pattern.strip():
        return "empty pattern"
    if pattern.startswith("#"):
        return f"'{pattern}' is a comment in gitignore syntax: write '\\{pattern}' to match '#'"
    try:
        _matcher((pattern,))
    except ValueError as exc:  # pathspec's GitIgnorePatternError is a ValueError
        return f"'{pattern}' is not a valid gitignore pattern ({exc})"
    return None


@functools.lru_cache(maxsize=256)
def _matcher(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    import pathspec  # only when something is excluded

    return pathspec.GitIgnoreSpec.from_lines(patterns).match_file


def scope_of(check: Check) -> Scope:
    """What a check's files depend on: its entry, and its rule's exclusions."""
    return (check.entry, check.rule.exclude)


def scope_paths(
    checks: Sequence[Check], expanded: Mapping[str, tuple[str, ...]]
) -> dict[Scope, tuple[str, ...]]:
    """Each scope's files: its entry's expansion less what its exclusions match.

    Without exclusions the expansion's own tuple is kept (the engine shares work between
    checks by the identity of these tuples).
    """
    scoped: dict[Scope, tuple[str, ...]] = {}
    for check in checks:
        scope = scope_of(check)
        if scope in scoped:
            continue
        paths = expanded.get(check.entry, ())
        if check.rule.exclude and paths:
            matches = _matcher(check.rule.exclude)
            paths = tuple(path for path in paths if not matches(path))
        scoped[scope] = paths
    return scoped


def with_exclusions(manifest: Manifest, patterns: Sequence[str]) -> Manifest:
    """The manifest with ``patterns`` (``--exclude``) added to every rule's exclusions.

    Raises ``ValueError`` naming the first bad pattern.
    """
    if not patterns:
        return manifest
    for pattern in patterns:
        problem = exclude_problem(pattern)
        if problem:
            raise ValueError(problem)
    extra = tuple(patterns)
    rules = tuple(
        dataclasses.replace(rule, exclude=rule.exclude + extra) for rule in manifest.rules
    )
    return dataclasses.replace(manifest, rules=rules, exclude=manifest.exclude + extra)
