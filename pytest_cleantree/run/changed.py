"""``--changed-since REV``: the files changed in the whole repository, from git's plumbing.

Whatever folder the run starts in and however the repository is configured: paths come from
``git diff --raw -z --no-relative`` (``diff.relative`` would make them relative to the
current folder) and ``git ls-files --others --exclude-standard -z --full-name`` run at the
top level (run in a subfolder, it lists only that subfolder), both relative to the top.
Renames are a deletion and an addition (``--no-renames``: the new path is read); deleted
files are left out (nothing to read).  A submodule is listed from the submodule itself,
against the commit ``REV`` records for it (all of its files when ``REV`` has none); one
that cannot be (not checked out, or that commit is not in it) is named in
:attr:`Changed.unchecked`, and the run must not pass.
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass, field

from pytest_cleantree.core.errors import CleanTreeError

__all__ = ["Changed", "changed_since", "parse_raw_diff"]

#: the mode git gives a submodule (a "gitlink") in a tree
GITLINK = "160000"
_NO_COMMIT = "0" * 40


@dataclass
class Changed:
    """The files to check (absolute paths) and the submodules that could not be listed."""

    paths: list[str] = field(default_factory=list)
    #: (submodule path from the top, why it was not checked)
    unchecked: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class RawChange:
    """One line of ``git diff --raw -z --no-renames``."""

    old_mode: str
    new_mode: str
    old_id: str
    status: str
    path: str


def parse_raw_diff(out: bytes) -> list[RawChange]:
    """The records of ``git diff --raw -z --no-renames --no-abbrev`` output (paths decoded
    as the file system does: a name that is not UTF-8 keeps its bytes)."""
    fields = out.split(b"\0")
    found: list[RawChange] = []
    for header, path in zip(fields[::2], fields[1::2], strict=False):
        if not header.startswith(b":"):
            raise CleanTreeError(f"--changed-since: git diff: unexpected output {header[:80]!r}")
        old_mode, new_mode, old_id, _new_id, status = header[1:].decode("ascii").split(" ")
        found.append(RawChange(old_mode, new_mode, old_id, status[:1], os.fsdecode(path)))
    return found


def changed_since(revision: str, cwd: str) -> Changed:
    """Files changed since ``revision`` in the repository holding ``cwd`` (staged or not,
    untracked and not ignored, inside submodules too), as absolute paths."""
    top = _git(["rev-parse", "--show-toplevel"], cwd).decode().strip()
    changed = Changed()
    _collect(top, revision, "", changed)
    changed.paths = list(dict.fromkeys(changed.paths))
    return changed


def _collect(top: str, revision: str | None, prefix: str, changed: Changed) -> None:
    """Add the changes of the repository at ``top`` (``prefix`` its path from the first
    top) since ``revision`` (``None``: every file it tracks is new)."""
    if revision is None:
        tracked = _git(["ls-files", "-z", "--full-name"], top).split(b"\0")
        changed.paths += [os.path.join(top, os.fsdecode(name)) for name in tracked if name]
    else:
        out = _git([*_DIFF, revision, "--"], top)
        for change in parse_raw_diff(out):
            if GITLINK in (change.old_mode, change.new_mode):
                _submodule(top, change, prefix, changed)
            elif change.status != "D":
                changed.paths.append(os.path.join(top, change.path))
    untracked = _git(["ls-files", "-z", "--others", "--exclude-standard", "--full-name"], top)
    changed.paths += [
        os.path.join(top, os.fsdecode(name)) for name in untracked.split(b"\0") if name
    ]


#: the raw diff against a revision: every path from the top, whatever the configuration
_DIFF = [
    "diff",
    "--raw",
    "-z",
    "--no-abbrev",
    "--no-relative",
    "--no-renames",
    "--no-ext-diff",
    "--no-color",
    "--ignore-submodules=none",
]


def _submodule(top: str, change: RawChange, prefix: str, changed: Changed) -> None:
    """A submodule moved, added or dirty: its own changes since the commit recorded."""
    if change.new_mode != GITLINK or change.status == "D":
        return  # removed (or now a file, listed by its own record): nothing of it to read
    folder = os.path.join(top, change.path)
    shown = prefix + change.path
    if not os.path.exists(os.path.join(folder, ".git")):
        changed.unchecked.append((shown, "the submodule is not checked out"))
        return
    old = change.old_id if change.old_mode == GITLINK and change.old_id != _NO_COMMIT else None
    if old is not None and not _has_commit(folder, old):
        changed.unchecked.append((shown, f"its recorded commit {old[:12]} is not in it (fetch it)"))
        return
    _collect(folder, old, shown + "/", changed)


def _has_commit(repo: str, commit: str) -> bool:
    done = subprocess.run(
        ["git", "cat-file", "-e", f"{commit}^{{commit}}"],
        cwd=repo,
        capture_output=True,
        check=False,
        timeout=120,
    )
    return done.returncode == 0


def _git(args: list[str], cwd: str) -> bytes:
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, check=False, timeout=120
        )
    except FileNotFoundError:
        raise CleanTreeError("--changed-since: git is not installed") from None
    if done.returncode != 0:
        stderr = done.stderr.decode(errors="replace").strip()
        reason = stderr.splitlines()[-1] if stderr else "failed"
        raise CleanTreeError(f"--changed-since: git {args[0]}: {reason}")
    return done.stdout
