"""Only the files named: ``cleantree check FILE...`` (what pre-commit passes) and
``--changed-since REV``.

A rule applies to a named file when the whole-tree check would have looked at it: a
``files`` entry naming it (literally, or as a glob with the same glob rules as the
sources), an ``absent`` entry naming it or a folder holding it, an entry outside the root
(``allow_outside_root``) naming it.  Each rule is narrowed to what it covers and rules
covering none are left out; the named files no rule covers are returned too, so that the
report says so rather than "clean".  So a commit touching ``srt/server_args.py`` checks
that file against the rules naming it, and nothing else.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

from pytest_cleantree.core.errors import CleanTreeError
from pytest_cleantree.core.model import Rule
from pytest_cleantree.core.patterns import compile_path_glob, is_path_glob

__all__ = ["Selection", "changed_since", "paths_from_root", "select_rules"]


@dataclasses.dataclass(frozen=True)
class Selection:
    """The rules narrowed to the named files, and the named files none of them covers."""

    rules: tuple[Rule, ...]
    uncovered: tuple[str, ...]


def _matches(entry: str, path: str) -> bool:
    """Does a ``files`` entry name ``path``: the same path (``./a.py`` is ``a.py``), or a
    glob matching it?  A glob's wildcards never match ``..``: only an entry written
    outside the root reaches a file there, as in the whole-tree expansion."""
    if is_path_glob(entry):
        return compile_path_glob(entry).match(path) is not None
    return posixpath.normpath(entry) == path


def _absent_covers(entry: str, path: str) -> str | None:
    """What an ``absent`` entry finds present given that ``path`` exists: the path itself or
    the folder holding it that the entry names (literally or by a glob, which matches
    folders too), as the entry's expansion would name it; ``None`` when it covers nothing."""
    parts = path.split("/")
    for end in range(len(parts), 0, -1):
        here = "/".join(parts[:end])
        if here != ".." and not here.endswith("/..") and _matches(entry, here):
            return here if is_path_glob(entry) else entry
    return None


def _narrowed(rule: Rule, paths: Sequence[str]) -> tuple[Rule | None, set[str]]:
    """``rule`` with the ``files`` and ``absent`` it has among ``paths`` (``None``: none),
    and the paths it covers."""
    files: dict[str, None] = {}
    absent: dict[str, None] = {}
    covered: set[str] = set()
    for path in paths:
        for entry in rule.files:
            if _matches(entry, path):
                files[path if is_path_glob(entry) else entry] = None
                covered.add(path)
        for entry in rule.absent:
            if (present := _absent_covers(entry, path)) is not None:
                absent[present] = None
                covered.add(path)
    if not covered:
        return None, covered
    # the files exist (they were named): a missing one is an error, not "missing_ok"
    return dataclasses.replace(rule, files=tuple(files), absent=tuple(absent)), covered


def select_rules(rules: Iterable[Rule], paths: Sequence[str]) -> Selection:
    """The rules narrowed to ``paths`` (relative to the root, normalised; ``../`` for a path
    outside it): each keeps, as its ``files`` and ``absent``, the entries covering those
    paths (a glob's matches, a literal as written); a rule covering none is left out."""
    selected: list[Rule] = []
    covered: set[str] = set()
    for rule in rules:
        narrowed, paths_covered = _narrowed(rule, paths)
        if narrowed is not None:
            selected.append(narrowed)
            covered |= paths_covered
    return Selection(tuple(selected), tuple(p for p in paths if p not in covered))


def paths_from_root(files: Iterable[str], root: str, cwd: Path) -> dict[str, str]:
    """The named files (relative to ``cwd``, or absolute) as normalised paths relative to
    ``root`` (``../x.py`` outside it), in order, without duplicates, each mapped to the name
    as given; the root itself names no file."""
    real_root = os.path.realpath(root)
    found: dict[str, str] = {}
    for name in files:
        full = os.path.realpath(cwd / name)
        if full == real_root:
            continue
        found.setdefault(Path(os.path.relpath(full, real_root)).as_posix(), name)
    return found


def changed_since(revision: str, cwd: Path) -> list[str]:
    """Files changed since ``revision`` in the work tree (staged or not), and untracked
    files not ignored, as absolute paths; deleted files are left out (nothing to read)."""
    top = _git(["rev-parse", "--show-toplevel"], cwd).strip()
    changed = _git(
        ["diff", "--name-only", "-z", "--no-renames", "--diff-filter=d", revision, "--"], cwd
    )
    untracked = _git(["ls-files", "-z", "--others", "--exclude-standard", "--full-name"], cwd)
    names = [name for name in (changed + untracked).split("\0") if name]
    return [os.path.join(top, name) for name in dict.fromkeys(names)]


def _git(args: list[str], cwd: Path) -> str:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=120
        )
    except FileNotFoundError:
        raise CleanTreeError("--changed-since: git is not installed") from None
    if done.returncode != 0:
        reason = done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"
        raise CleanTreeError(f"--changed-since: git {args[0]}: {reason}")
    return done.stdout
