"""The experiment's diff: a unified diff (``git diff``, ``format-patch``, ``diff -u``) read
into file changes and their hunks.  Pure: text in, data out."""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pytest_cleantree.core.errors import CleanTreeError

__all__ = [
    "FileChange",
    "FromDiffError",
    "Hunk",
    "Status",
    "parse_unified_diff",
    "patch_subjects",
    "special_file",
]

_HUNK_HEADER = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)")
_OCTAL = re.compile(r"\\([0-7]{3})")
_C_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}
_SPECIAL_MODES = {"120000": "a symbolic link", "160000": "a submodule"}
_DEV_NULL = "/dev/null"
_EPOCH = re.compile(
    r"\t(?:(?:1970-01-01|1969-12-31)[ T]|\w{3} (?:Jan  1|Dec 31) [\d:]+ 19(?:70|69))"
)


class FromDiffError(CleanTreeError):
    """The diff, the range or the tree cannot give a manifest; says where and why."""


class Status(str, enum.Enum):
    ADDED = "added"
    DELETED = "deleted"
    MODIFIED = "modified"
    RENAMED = "renamed"
    COPIED = "copied"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Hunk:
    """One ``@@`` block.  ``lines`` are ``(op, text)`` with ``op`` one of ``" -+"``."""

    old_start: int
    old_count: int
    new_start: int
    new_count: int
    lines: tuple[tuple[str, str], ...]
    #: 1-based line of the ``@@`` header in the diff text
    line: int = 0
    #: "\\ No newline at end of file" followed the last line of that side
    old_no_newline: bool = False
    new_no_newline: bool = False

    @property
    def header(self) -> str:
        return f"@@ -{self.old_start},{self.old_count} +{self.new_start},{self.new_count} @@"

    def side(self, *, new: bool) -> list[str]:
        keep = " +" if new else " -"
        return [text for op, text in self.lines if op in keep]


@dataclass(frozen=True)
class FileChange:
    """What a diff says about one file.  Paths are ``/``-separated, prefixes stripped."""

    old_path: str | None
    new_path: str | None
    status: Status
    hunks: tuple[Hunk, ...] = ()
    binary: bool = False
    old_mode: str | None = None
    new_mode: str | None = None
    #: 1-based line in the diff text where this file's section starts
    line: int = 0

    @property
    def path(self) -> str:
        path = self.new_path or self.old_path
        assert path is not None  # a change always names at least one side
        return path


@dataclass
class _Section:
    """A file section being parsed."""

    line: int
    git: bool
    old: str | None = None
    new: str | None = None
    #: paths from ``rename``/``copy`` lines: never prefixed (``git apply`` strips one less)
    moved_old: str | None = None
    moved_new: str | None = None
    headers_seen: bool = False
    #: ``diff -N`` marks a missing side with the epoch as its time stamp
    old_epoch: bool = False
    new_epoch: bool = False
    status: Status | None = None
    binary: bool = False
    old_mode: str | None = None
    new_mode: str | None = None
    hunks: list[Hunk] = field(default_factory=list)


#: Builds the error for a line of the diff: ``fail(line, problem)``.
Fail = Callable[[int, str], FromDiffError]


def parse_unified_diff(
    text: str, *, source: str = "<diff>", strip: int | None = None
) -> list[FileChange]:
    """Parse a unified diff (``git diff``, ``git format-patch``, ``diff -u``) into file changes.

    Handles git's extended headers (new/deleted files, renames, copies, mode changes,
    binary files), ``/dev/null``, C-quoted paths and "no newline" markers.  ``strip`` removes
    that many leading path components (as ``patch -p``); by default git's ``a/`` and ``b/``
    prefixes are removed when both sides have them.  Lines outside file sections (mail
    headers, commit messages, signatures) are ignored.  Raises :class:`FromDiffError`
    naming ``source`` and the line for a malformed diff.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()

    def fail(number: int, problem: str) -> FromDiffError:
        return FromDiffError(f"{source}:{number}: {problem}")

    changes: list[FileChange] = []
    _DiffReader(lines, fail, lambda section: changes.append(_finish(section, strip, fail))).read()
    if not changes:
        raise FromDiffError(f"{source}: no file changes found: is it a unified diff?")
    _check_each_file_once(changes, fail)
    return changes


class _DiffReader:
    """Reads a diff's lines into file sections, handing each to ``emit`` once it is finished
    (before the next is read, so problems are reported in the diff's order)."""

    def __init__(
        self, lines: Sequence[str], fail: Fail, emit: Callable[[_Section], object]
    ) -> None:
        self.lines = lines
        self.fail = fail
        self.emit = emit
        self.section: _Section | None = None

    def read(self) -> None:
        index = 0
        while index < len(self.lines):
            index = self._step(index)
        self._close()

    def _close(self) -> None:
        """Finish the current section, if any: its problems come before the next one's."""
        if self.section is not None:
            self.emit(self.section)
        self.section = None

    def _step(self, index: int) -> int:
        """Read the line at ``index`` (and what belongs to it); return the next line's index."""
        line = self.lines[index]
        number = index + 1
        if line.startswith(("diff --cc ", "diff --combined ")):
            raise self.fail(
                number, "a combined (merge) diff cannot be read: diff against one parent"
            )
        if line.startswith("diff --git "):
            self._close()
            self.section = _git_section(line, number, self.fail)
        elif self._file_headers_at(index):
            self._file_headers(index)
            return index + 2
        elif line.startswith("@@ "):
            return self._hunk(index)
        elif self.section is not None and self.section.git and not self.section.hunks:
            _git_extended_header(self.section, line, self.fail, number)
        elif line.startswith("Binary files ") and line.endswith(" differ"):
            # GNU diff's binary notice, outside a git section
            self._close()
            self.section = _plain_binary(line, number, self.fail)
        return index + 1

    def _file_headers_at(self, index: int) -> bool:
        """A ``---`` line followed by a ``+++`` line (outside a hunk: hunks read their own)."""
        return (
            index + 1 < len(self.lines)
            and self.lines[index].startswith("--- ")
            and self.lines[index + 1].startswith("+++ ")
        )

    def _file_headers(self, index: int) -> None:
        """The ``---``/``+++`` pair at ``index``: a git section's, or a plain diff's own."""
        section = self.section
        if section is None or not section.git or section.headers_seen or section.hunks:
            self._close()
            section = self.section = _Section(index + 1, git=False)
        old, new = self.lines[index], self.lines[index + 1]
        section.old = _header_path(old[4:], self.fail, index + 1)
        section.new = _header_path(new[4:], self.fail, index + 2)
        section.headers_seen = True
        section.old_epoch = _EPOCH.search(old) is not None
        section.new_epoch = _EPOCH.search(new) is not None

    def _hunk(self, index: int) -> int:
        if self.section is None:
            raise self.fail(index + 1, "a hunk (@@) before any file header")
        hunk, index = _parse_hunk(self.lines, index, self.fail)
        self.section.hunks.append(hunk)
        return index


def _git_section(line: str, number: int, fail: Fail) -> _Section:
    """The section a ``diff --git`` line starts, with the paths it names."""
    section = _Section(number, git=True)
    try:
        section.old, section.new = _git_header_paths(line[len("diff --git ") :])
    except ValueError as exc:
        raise fail(number, str(exc)) from None
    return section


def _check_each_file_once(changes: Sequence[FileChange], fail: Fail) -> None:
    """A patch series changes a file more than once: it cannot be derived file by file."""
    seen: dict[str, int] = {}
    for change in changes:
        for path in {change.old_path, change.new_path} - {None}:
            assert path is not None
            if path in seen and seen[path] != change.line:
                raise fail(
                    change.line,
                    f"{path!r} is changed again (first at line {seen[path]}): a patch series "
                    "cannot be derived file by file; use --rev on the commits, or one squashed "
                    "diff",
                )
            seen[path] = change.line


def _finish(section: _Section, strip: int | None, fail: Fail) -> FileChange:
    if section.old is None and section.new is None:
        raise fail(section.line, "a file section names no file")
    if strip is None:
        prefixed = (section.old is None or section.old.startswith("a/")) and (
            section.new is None or section.new.startswith("b/")
        )
        strip = 1 if prefixed else 0
    old = _strip_path(section.old, strip, section.line, fail)
    new = _strip_path(section.new, strip, section.line, fail)
    if section.moved_old is not None:
        old = _strip_path(section.moved_old, max(strip - 1, 0), section.line, fail)
    if section.moved_new is not None:
        new = _strip_path(section.moved_new, max(strip - 1, 0), section.line, fail)
    status = section.status
    if status is None:
        if old is None or section.old_epoch:
            status = Status.ADDED
        elif new is None or section.new_epoch:
            status = Status.DELETED
        else:
            status = Status.MODIFIED
    if status is Status.ADDED:
        old = None
    elif status is Status.DELETED:
        new = None
    elif not section.git and old != new:
        old = new  # ``diff -u x.orig x``: the file is the new name
    return FileChange(
        old_path=old,
        new_path=new,
        status=status,
        hunks=tuple(section.hunks),
        binary=section.binary,
        old_mode=section.old_mode,
        new_mode=section.new_mode,
        line=section.line,
    )


def _strip_path(path: str | None, strip: int, line: int, fail: Fail) -> str | None:
    if path is None or strip == 0:
        return path
    parts = path.split("/")
    if len(parts) <= strip:
        raise fail(line, f"cannot strip {strip} leading folder(s) from {path!r}")
    return "/".join(parts[strip:])


def _git_extended_header(section: _Section, line: str, fail: Fail, number: int) -> None:
    """One line between ``diff --git`` and the first hunk."""
    if line.startswith("new file mode "):
        section.status, section.new_mode = Status.ADDED, line.split()[-1]
    elif line.startswith("deleted file mode "):
        section.status, section.old_mode = Status.DELETED, line.split()[-1]
    elif line.startswith("old mode "):
        section.old_mode = line.split()[-1]
    elif line.startswith("new mode "):
        section.new_mode = line.split()[-1]
    elif line.startswith(("rename from ", "rename old ")):
        # "rename old"/"rename new" (older git) are one letter shorter than "rename from"
        moved = line.split(" ", 2)[2]
        section.status, section.moved_old = Status.RENAMED, _unquote(moved, fail, number)
    elif line.startswith(("rename to ", "rename new ")):
        moved = line.split(" ", 2)[2]
        section.status, section.moved_new = Status.RENAMED, _unquote(moved, fail, number)
    elif line.startswith("copy from "):
        section.status, section.moved_old = Status.COPIED, _unquote(line[10:], fail, number)
    elif line.startswith("copy to "):
        section.status, section.moved_new = Status.COPIED, _unquote(line[8:], fail, number)
    elif line.startswith("index ") and section.old_mode is None and len(line.split()) == 3:
        section.old_mode = section.new_mode = line.split()[2]
    elif line.startswith(("Binary files ", "GIT binary patch")):
        section.binary = True


def _plain_binary(line: str, number: int, fail: Fail) -> _Section:
    body = line[len("Binary files ") : -len(" differ")]
    parts = body.split(" and ")
    if len(parts) != 2:
        raise fail(number, f"cannot tell the two file names apart in {line!r}")
    section = _Section(number, git=False, binary=True)
    section.old = None if parts[0] == _DEV_NULL else parts[0]
    section.new = None if parts[1] == _DEV_NULL else parts[1]
    return section


def _git_header_paths(rest: str) -> tuple[str, str]:
    """The two paths of ``diff --git a/X b/Y`` (used when no ``---``/``+++`` lines follow)."""
    if rest.startswith('"'):
        old, tail = _split_quoted(rest)
        tail = tail.lstrip(" ")
        new = _split_quoted(tail)[0] if tail.startswith('"') else tail
        return old, new
    if rest.endswith('"'):
        start = rest.rfind(' "')
        return rest[:start], _split_quoted(rest[start + 1 :])[0]
    # unquoted: "a/P b/P" with the same P on both sides (renames carry their own headers)
    half = (len(rest) - 1) // 2
    if len(rest) % 2 == 1 and rest[half] == " " and rest[:half][2:] == rest[half + 1 :][2:]:
        return rest[:half], rest[half + 1 :]
    old, _, new = rest.partition(" b/")
    return old, "b/" + new


def _header_path(text: str, fail: Fail, number: int) -> str | None:
    """The path of a ``---``/``+++`` line: unquoted, without a trailing tab and timestamp."""
    path = _unquote(text, fail, number)
    return None if path == _DEV_NULL else path


def _unquote(text: str, fail: Fail, number: int) -> str:
    if not text.startswith('"'):
        return text.split("\t", 1)[0]
    try:
        return _split_quoted(text)[0]
    except ValueError as exc:
        raise fail(number, str(exc)) from None


def _split_quoted(text: str) -> tuple[str, str]:
    """Decode git's C-quoted path at the start of ``text``; return it and the rest."""
    out = bytearray()
    index = 1
    while index < len(text):
        char = text[index]
        if char == '"':
            return out.decode("utf-8", errors="surrogateescape"), text[index + 1 :]
        if char == "\\":
            octal = _OCTAL.match(text, index)
            if octal:
                out.append(int(octal.group(1), 8))
                index += 4
                continue
            escaped = text[index + 1 : index + 2]
            if escaped not in _C_ESCAPES:
                raise ValueError(f"unknown escape '\\{escaped}' in quoted path {text!r}")
            out.append(_C_ESCAPES[escaped])
            index += 2
            continue
        out += char.encode("utf-8", errors="surrogateescape")
        index += 1
    raise ValueError(f"unterminated quoted path {text!r}")


def _parse_hunk(lines: Sequence[str], index: int, fail: Fail) -> tuple[Hunk, int]:
    """Parse the hunk whose header is ``lines[index]``; return it and the index after it.

    The header's counts decide where the hunk ends, so a removed line that reads
    ``-- x`` is never taken for a file header.
    """
    header_line = index + 1
    match = _HUNK_HEADER.match(lines[index])
    if match is None:
        raise fail(header_line, f"malformed hunk header {lines[index]!r}")
    old_start, new_start = int(match.group(1)), int(match.group(3))
    old_count = int(match.group(2)) if match.group(2) is not None else 1
    new_count = int(match.group(4)) if match.group(4) is not None else 1
    body: list[tuple[str, str]] = []
    old_left, new_left = old_count, new_count
    flags = {"-": False, "+": False}
    index += 1
    while old_left > 0 or new_left > 0 or (index < len(lines) and lines[index].startswith("\\")):
        if index >= len(lines):
            raise fail(
                header_line,
                f"hunk {lines[header_line - 1]!r} ends early: {old_left} old and {new_left} "
                "new line(s) missing at the end of the diff",
            )
        line = lines[index]
        op = line[:1] or " "  # an empty context line, as some tools write it
        if op == "\\":
            last = body[-1][0] if body else " "
            for side in ("-", "+"):
                if last in (side, " "):
                    flags[side] = True
            index += 1
            continue
        if op not in " -+" or (op in " -" and old_left == 0) or (op in " +" and new_left == 0):
            raise fail(
                index + 1,
                f"unexpected line {line!r} in hunk {lines[header_line - 1]!r} (line "
                f"{header_line}): {old_left} old and {new_left} new line(s) were still due",
            )
        body.append((op, line[1:]))
        old_left -= op in " -"
        new_left -= op in " +"
        index += 1
    hunk = Hunk(
        old_start,
        old_count,
        new_start,
        new_count,
        tuple(body),
        header_line,
        old_no_newline=flags["-"],
        new_no_newline=flags["+"],
    )
    return hunk, index


def patch_subjects(text: str) -> list[str]:
    """The ``Subject:`` lines of a ``git format-patch`` mail, without ``[PATCH ...]``.

    A hunk line always starts with ``" "``, ``"-"``, ``"+"`` or ``"\\"``, so a line that
    starts with ``Subject:`` is always a mail header.  Folded headers are unfolded.
    """
    subjects: list[str] = []
    lines = text.split("\n")
    for index, line in enumerate(lines):
        if not line.startswith("Subject: "):
            continue
        subject = line[len("Subject: ") :]
        for follow in lines[index + 1 :]:
            if not follow.startswith((" ", "\t")) or not follow.strip():
                break
            subject += " " + follow.strip()
        subjects.append(re.sub(r"^(\[[^\]]*\]\s*)+", "", subject.strip()))
    return subjects


def special_file(change: FileChange) -> str | None:
    """What a file whose contents cannot be checked is (a symbolic link, a submodule), or
    ``None``."""
    for mode in (change.new_mode, change.old_mode):
        if mode in _SPECIAL_MODES:
            return _SPECIAL_MODES[mode]
    return None
