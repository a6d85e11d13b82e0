"""Only the files named: ``cleantree check FILE...`` (what pre-commit passes) and
``--changed-since REV``.

The manifest's rules are narrowed to the named files their entries cover (a literal
entry naming the file, or a glob matching it, with the same glob rules as the sources);
rules that cover none of them are left out.  So a commit touching ``srt/server_args.py``
checks that file against the rules naming it, and nothing else.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
from collections.abc import Iterable, Sequence
from pathlib import Path

from pytest_cleantree.core.errors import CleanTreeError
from pytest_cleantree.core.model import Rule
from pytest_cleantree.core.patterns import compile_path_glob, is_path_glob

__all__ = ["changed_since", "paths_under_root", "select_rules"]


def _covers(entry: str, path: str) -> bool:
    return entry == path or (
        is_path_glob(entry) and compile_path_glob(entry).match(path) is not None
    )


def select_rules(rules: Iterable[Rule], paths: Sequence[str]) -> tuple[Rule, ...]:
    """The rules narrowed to ``paths`` (relative to the root): each keeps, as its ``files``
    and ``absent``, the paths its entries cover; a rule covering none is left out."""
    selected: list[Rule] = []
    for rule in rules:
        files = tuple(p for p in paths if any(_covers(entry, p) for entry in rule.files))
        absent = tuple(p for p in paths if any(_covers(entry, p) for entry in rule.absent))
        if files or absent:
            # the files exist (they were named): a missing one is an error, not "missing_ok"
            selected.append(dataclasses.replace(rule, files=files, absent=absent))
    return tuple(selected)


def paths_under_root(files: Iterable[str], root: str, cwd: Path) -> list[str]:
    """The named files (relative to ``cwd``, or absolute) as paths under ``root``, in order,
    without duplicates; files outside the root are not the manifest's business."""
    real_root = os.path.realpath(root)
    found: dict[str, None] = {}
    for name in files:
        full = os.path.realpath(cwd / name)
        if os.path.commonpath([full, real_root]) != real_root or full == real_root:
            continue
        found[Path(os.path.relpath(full, real_root)).as_posix()] = None
    return list(found)


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
