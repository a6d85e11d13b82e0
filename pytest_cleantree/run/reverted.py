"""``--reverted REV``: the changes of ``REV`` that no derived check can see.

The derived manifest checks text: the lines and names a change brought, the files it added
or removed, and a regular file's mode (``Rule.mode``).  A submodule moved to another commit, a
symbolic link pointed elsewhere and a binary file's new bytes are none of these: a work tree
still holding them would pass.  Each is named here (as ``cleantree from-diff`` notes them),
so that a run says so and does not pass unless the user allows it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from pytest_cleantree.revert.diff import FileChange, Status, special_file

__all__ = ["unchecked_changes", "why_unchecked"]


def why_unchecked(change: FileChange) -> str | None:
    """Why a reverted change's file is not (wholly) checked, or ``None``: it is."""
    if change.status is Status.ADDED:
        return None  # the file must be absent: that is checked whatever it is
    special = special_file(change)
    if special:
        return f"{special} changed: its target is not checked"
    if change.binary:
        return "a binary file changed: its contents are not checked"
    return None


def unchecked_changes(spec: str, repo: Path) -> Iterator[tuple[str, str]]:
    """Each file of the change ``spec`` (a commit or a range) that is not checked, and why."""
    from pytest_cleantree.revert.git import images_from_rev, repository_top

    images, _ = images_from_rev(spec, repository_top(repo), empty_ok=True)
    for image in images:
        why = why_unchecked(image.change)
        if why is not None:
            yield image.change.path, why
