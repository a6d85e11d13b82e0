"""Applying a diff's hunks to a file's text, either way, and so each changed file's contents
before and after the change.  Pure: the tree is read through the function passed in."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .diff import FileChange, FromDiffError, Hunk, Status, special_file
from .text import decode_text, encode_text

__all__ = ["ChangedFile", "Reader", "apply_hunks", "resolve_images"]


def apply_hunks(text: str, hunks: Sequence[Hunk], *, reverse: bool = False, path: str = "") -> str:
    """Apply ``hunks`` to ``text`` (or un-apply them with ``reverse``) and return the result.

    As ``patch`` does, a hunk found a few lines away from where its header says is
    applied there (later hunks then expect the same offset); no fuzz is allowed: every
    context and removed line must match exactly.  Raises :class:`FromDiffError` naming
    the hunk, its line in the diff and the first line that differs.
    """
    lines = text.split("\n")
    eof_newline = lines[-1] == ""
    if eof_newline:
        lines.pop()
    out: list[str] = []
    cursor = 0
    offset = 0
    for number, hunk in enumerate(hunks, 1):
        old, new = hunk.side(new=reverse), hunk.side(new=not reverse)
        start = hunk.new_start if reverse else hunk.old_start
        stated = start - 1 if old else start
        at = _find_block(lines, old, stated + offset, cursor)
        if at is None:
            raise FromDiffError(_mismatch(path, number, hunk, lines, old, stated + offset))
        offset = at - stated
        out.extend(lines[cursor:at])
        out.extend(new)
        cursor = at + len(old)
        if cursor == len(lines):
            eof_newline = not (hunk.old_no_newline if reverse else hunk.new_no_newline)
    out.extend(lines[cursor:])
    return "\n".join(out) + ("\n" if out and eof_newline else "")


def _find_block(lines: Sequence[str], block: Sequence[str], stated: int, low: int) -> int | None:
    """Where ``block`` stands in ``lines`` at or after ``low``, nearest to ``stated``."""
    high = len(lines) - len(block)
    if not block:
        return stated if low <= stated <= len(lines) else None
    for distance in range(max(abs(stated - low), abs(high - stated)) + 1):
        for at in (stated - distance, stated + distance) if distance else (stated,):
            if low <= at <= high and lines[at : at + len(block)] == list(block):
                return at
    return None


def _mismatch(
    path: str, number: int, hunk: Hunk, lines: Sequence[str], block: Sequence[str], at: int
) -> str:
    where = f"{path + ': ' if path else ''}hunk {number} ({hunk.header} at diff line {hunk.line})"
    if not block:
        return f"{where} inserts at line {at + 1}, but the file has {len(lines)} lines"
    for offset, wanted in enumerate(block):
        line = at + offset
        if line < 0 or line >= len(lines):
            return (
                f"{where} expects {wanted!r} at line {line + 1}, but the file has "
                f"{len(lines)} lines"
            )
        if lines[line] != wanted:
            return f"{where} expects {wanted!r} at line {line + 1}, found {lines[line]!r}"
    return f"{where} overlaps the previous hunk at line {at + 1}"


@dataclass(frozen=True)
class ChangedFile:
    """A file change with its contents before and after (``None``: absent, or not needed)."""

    change: FileChange
    before: bytes | None = None
    after: bytes | None = None
    #: why the diff applies to the tree neither way (a partly reverted file): then only
    #: what the diff itself says is known, ``before`` and ``after`` are ``None``
    unverified: str = ""


Reader = Callable[[str], "bytes | None"]


def resolve_images(changes: Sequence[FileChange], read: Reader) -> list[ChangedFile]:
    """Work out each changed file's contents before and after, from the diff and the tree.

    ``read(path)`` returns a file of the tree, or ``None`` when it does not exist.  Added
    and deleted files carry their whole contents in the diff.  A modified file is read
    from the tree, which may hold it with the change applied (the hunks are reversed) or
    not yet applied (they are applied), so either version of the tree works, and a tree
    where some files are reverted and others not.  A file in neither state (partly
    reverted) is not verified: it is known from the diff alone.  Raises
    :class:`FromDiffError` for a modified file the tree does not hold.
    """
    return [_images(change, read) for change in changes]


def _images(change: FileChange, read: Reader) -> ChangedFile:
    if change.binary or special_file(change):
        return ChangedFile(change)
    if change.status is Status.ADDED:
        return ChangedFile(
            change, after=encode_text(apply_hunks("", change.hunks, path=change.path))
        )
    if change.status is Status.COPIED or (change.status is Status.MODIFIED and not change.hunks):
        return ChangedFile(change)  # a copy must be absent; a mode change has no contents
    if change.status is Status.DELETED:
        text = apply_hunks("", change.hunks, reverse=True, path=change.path)
        return ChangedFile(change, before=encode_text(text))
    new_path, old_path = change.new_path, change.old_path
    assert new_path is not None
    assert old_path is not None
    problems: list[str] = []
    current = read(new_path)
    if current is not None:
        try:
            before = apply_hunks(decode_text(current), change.hunks, reverse=True)
            return ChangedFile(change, before=encode_text(before), after=current)
        except FromDiffError as exc:
            problems.append(f"as already applied, {exc}")
    original = read(old_path) if old_path != new_path else current
    if original is not None:
        try:
            after = apply_hunks(decode_text(original), change.hunks)
            return ChangedFile(change, before=original, after=encode_text(after))
        except FromDiffError as exc:
            problems.append(f"as not yet applied, {exc}")
    if not problems:
        raise FromDiffError(f"{change.path}: changed by the diff, but not in the tree")
    reason = "the diff does not apply to the tree (a partly reverted file?): " + "; ".join(problems)
    return ChangedFile(change, unverified=reason)
