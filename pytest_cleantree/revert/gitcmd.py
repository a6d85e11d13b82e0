"""Read-only git commands for the revert guard: one runner (its failure a
:class:`~pytest_cleantree.revert.diff.FromDiffError` with git's words), revisions and ranges
resolved, a shallow clone's cut named."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .diff import FromDiffError

__all__ = ["Range", "resolve_range", "rev_parse", "run_git"]


def run_git(repo: Path, *args: str, stdin: bytes | None = None) -> bytes:
    """Run a read-only git command; its failure is a :class:`FromDiffError` with git's words."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_PAGER": "cat", "LC_ALL": "C"}
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *args],
            input=stdin,
            capture_output=True,
            check=False,
            env=env,
        )
    except FileNotFoundError:
        raise FromDiffError("git is not installed (or not on PATH)") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip() or f"exit code {done.returncode}"
        command = " ".join(args if len(args) <= 4 else args[:2])  # not a whole diff command line
        raise FromDiffError(f"git {command}: {message}")
    return done.stdout


def rev_parse(repo: Path, rev: str) -> str:
    if not rev or rev.startswith("-"):
        raise FromDiffError(f"{rev!r} is not a revision")
    try:
        return (
            run_git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").decode().strip()
        )
    except FromDiffError:
        raise FromDiffError(f"{rev!r}: no such commit in {repo}{_shallow(repo)}") from None


def _cut_at(repo: Path, commit: str) -> bool:
    """Is ``commit`` where a shallow clone's history is cut (it has parents, not here)?"""
    try:
        shallow = Path(run_git(repo, "rev-parse", "--git-path", "shallow").decode().strip())
    except FromDiffError:
        return False
    shallow = shallow if shallow.is_absolute() else repo / shallow
    try:
        return commit in shallow.read_text().split()
    except OSError:
        return False


def _shallow(repo: Path) -> str:
    """What to say of a missing commit when the clone is shallow: its history is cut."""
    try:
        shallow = run_git(repo, "rev-parse", "--is-shallow-repository").strip() == b"true"
    except FromDiffError:
        return ""
    if not shallow:
        return ""
    return (
        ": the repository is a shallow clone, its history is cut; fetch all of it "
        "(`git fetch --unshallow`, or `fetch-depth: 0` for actions/checkout)"
    )


@dataclass(frozen=True)
class Range:
    old: str  # a commit, or the empty tree for a root commit
    new: str
    short: str  # the abbreviated ``new``
    why: str
    root: bool = False  # ``old`` is the empty tree

    @property
    def bounds(self) -> tuple[str, ...]:
        """What limits a history walk to the range: ``^old``, nothing for a root commit."""
        return () if self.root else (f"^{self.old}",)


def resolve_range(repo: Path, spec: str) -> Range:
    """``A..B``, ``A...B`` (from their merge base) or one commit ``C`` (``C^..C``; a merge
    against its first parent)."""
    root = False
    if "..." in spec:
        left, right = spec.split("...", 1)
        new = rev_parse(repo, right or "HEAD")
        old = run_git(repo, "merge-base", rev_parse(repo, left or "HEAD"), new).decode().strip()
    elif ".." in spec:
        left, right = spec.split("..", 1)
        old, new = rev_parse(repo, left or "HEAD"), rev_parse(repo, right or "HEAD")
    else:
        new = rev_parse(repo, spec)
        try:
            old = run_git(repo, "rev-parse", "--verify", "--quiet", f"{new}^").decode().strip()
        except FromDiffError:  # a root commit: compare with the empty tree
            if _cut_at(repo, new):
                raise FromDiffError(
                    f"{spec!r}: its parent is not in {repo}{_shallow(repo)}"
                ) from None
            old = run_git(repo, "hash-object", "-t", "tree", "--stdin", stdin=b"").decode().strip()
            root = True
    subject = run_git(repo, "log", "-1", "--format=%s", new).decode("utf-8", "replace").strip()
    short = run_git(repo, "rev-parse", "--short", new).decode().strip()
    if ".." in spec:
        short_old = run_git(repo, "rev-parse", "--short", old).decode().strip()
        count = int(run_git(repo, "rev-list", "--count", f"{old}..{new}").decode())
        commits = f", {count} commits up to" if count > 1 else ""
        why = f'{spec} ({short_old}..{short}{commits}) "{subject}"'
    else:
        label = short if spec == short else f"{spec} ({short})"
        why = f'{label} "{subject}"'
    return Range(old, new, short, why, root)
