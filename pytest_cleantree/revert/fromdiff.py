"""Derive a manifest from the experiment itself: what a complete revert of a change means.

The change is a unified diff, from git (``--rev A..B``) or from a patch.  For each file it
modified, the file's contents before and after the change are compared, and two rules are
written, labelled apart by their ids:

* ``experiment-lines-FILE``: the experiment's own lines, the ground truth.  In a manifest
  they are the lines the change added (``forbid_lines``: each non-blank line the file did
  not hold before, compared stripped, wherever it stands); for ``check --reverted`` in a git
  work tree they are the lines ``git blame`` of the work tree still gives to the change,
  each pinned to its line (``line@N:``), whatever they hold;
* ``introduced-names-FILE``: in a Python file, every code name the change introduced (a
  code name after, not one before: the words of strings never count), as an exact
  ``=name`` pattern looked for in code; builtins, keywords, builtin methods and one- or
  two-letter names are never introduced.  In any other text file, the new words of four
  characters or more (``text_rules=False`` turns those files off);
* a file the change added: an ``absent`` entry;
* a file the change deleted (or renamed away): a ``must_exist`` rule that expects names
  the file had (its top-level definitions): still missing, that is a violation.

Things a manifest cannot check (binary contents, file modes, symlink targets, files
outside the root) become comments at the top of the manifest, never silent omissions.

The core is pure: :func:`parse_unified_diff`, :func:`apply_hunks`,
:func:`introduced_names`, :func:`introduced_tokens`, :func:`resolve_images` (with the
tree's reader passed in) and :func:`derive_manifest`.  The git I/O at the end of the
module is thin and read-only: ``git diff``, ``git log -1 --format=%s``, ``git cat-file``,
``git rev-list`` and ``git blame``.
"""

from __future__ import annotations

import ast
import builtins
import enum
import keyword
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pytest_cleantree.analysis import decode_python, is_python_path, split_lines
from pytest_cleantree.config.manifest import id_slug
from pytest_cleantree.core.errors import CleanTreeError
from pytest_cleantree.core.model import DEFAULT_KINDS, Kind, Manifest, Rule
from pytest_cleantree.core.patterns import WORD, line_pattern, parse_pattern

__all__ = [
    "CODE_KINDS",
    "ChangedFile",
    "FileChange",
    "FromDiffError",
    "Hunk",
    "IntroducedNames",
    "Status",
    "apply_hunks",
    "derive_manifest",
    "derive_manifest_for_revert",
    "experiment_lines_now",
    "images_from_patch",
    "images_from_rev",
    "introduced_names",
    "introduced_tokens",
    "is_distinctive",
    "parse_unified_diff",
    "patch_subjects",
    "repository_top",
    "resolve_images",
]

#: Words of text files (and of long strings) shorter than this are not distinctive enough.
MIN_TOKEN_LENGTH = 4
#: How many names a deleted file without top-level definitions is expected to have again.
FINGERPRINT_SIZE = 10

#: Names too common to mark a leftover on a line no experiment commit wrote: builtins,
#: keywords and the methods of builtin types (``join``, ``items``, ``append`` ...).
_COMMON_NAMES = frozenset(
    [*builtins.__dict__, *keyword.kwlist, *keyword.softkwlist]
    + [name for kind in (str, bytes, int, float, list, dict, set, tuple) for name in dir(kind)]
)
#: The kinds an introduced name is looked for in: code, not strings or comments.
CODE_KINDS = frozenset(
    {Kind.IMPORT, Kind.DEFINITION, Kind.ASSIGNMENT, Kind.CONDITION, Kind.CALL, Kind.REFERENCE}
)
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


# --------------------------------------------------------------------------- the diff


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
    changes: list[FileChange] = []
    section: _Section | None = None
    index = 0

    def fail(number: int, problem: str) -> FromDiffError:
        return FromDiffError(f"{source}:{number}: {problem}")

    def finish() -> None:
        if section is not None:
            changes.append(_finish(section, strip, fail))

    while index < len(lines):
        line = lines[index]
        number = index + 1
        if line.startswith(("diff --cc ", "diff --combined ")):
            raise fail(number, "a combined (merge) diff cannot be read: diff against one parent")
        if line.startswith("diff --git "):
            finish()
            section = _Section(number, git=True)
            try:
                section.old, section.new = _git_header_paths(line[len("diff --git ") :])
            except ValueError as exc:
                raise fail(number, str(exc)) from None
        elif line.startswith("--- ") and index + 1 < len(lines) and lines[index + 1][:4] == "+++ ":
            if section is None or not section.git or section.headers_seen or section.hunks:
                finish()
                section = _Section(number, git=False)
            section.old = _header_path(line[4:], fail, number)
            section.new = _header_path(lines[index + 1][4:], fail, number + 1)
            section.headers_seen = True
            section.old_epoch = _EPOCH.search(line) is not None
            section.new_epoch = _EPOCH.search(lines[index + 1]) is not None
            index += 1
        elif line.startswith("@@ "):
            if section is None:
                raise fail(number, "a hunk (@@) before any file header")
            hunk, index = _parse_hunk(lines, index, fail)
            section.hunks.append(hunk)
            continue
        elif section is not None and section.git and not section.hunks:
            _git_extended_header(section, line, fail, number)
        elif line.startswith("Binary files ") and line.endswith(" differ"):
            # GNU diff's binary notice, outside a git section
            finish()
            section = _plain_binary(line, number, fail)
        index += 1
    finish()
    if not changes:
        raise FromDiffError(f"{source}: no file changes found: is it a unified diff?")
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
    return changes


def _finish(
    section: _Section, strip: int | None, fail: Callable[[int, str], FromDiffError]
) -> FileChange:
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


def _strip_path(
    path: str | None, strip: int, line: int, fail: Callable[[int, str], FromDiffError]
) -> str | None:
    if path is None or strip == 0:
        return path
    parts = path.split("/")
    if len(parts) <= strip:
        raise fail(line, f"cannot strip {strip} leading folder(s) from {path!r}")
    return "/".join(parts[strip:])


def _git_extended_header(
    section: _Section, line: str, fail: Callable[[int, str], FromDiffError], number: int
) -> None:
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
        section.status, section.moved_old = Status.RENAMED, _unquote(line[12:], fail, number)
    elif line.startswith(("rename to ", "rename new ")):
        section.status, section.moved_new = Status.RENAMED, _unquote(line[10:], fail, number)
    elif line.startswith("copy from "):
        section.status, section.moved_old = Status.COPIED, _unquote(line[10:], fail, number)
    elif line.startswith("copy to "):
        section.status, section.moved_new = Status.COPIED, _unquote(line[8:], fail, number)
    elif line.startswith("index ") and section.old_mode is None and len(line.split()) == 3:
        section.old_mode = section.new_mode = line.split()[2]
    elif line.startswith(("Binary files ", "GIT binary patch")):
        section.binary = True


def _plain_binary(line: str, number: int, fail: Callable[[int, str], FromDiffError]) -> _Section:
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


def _header_path(text: str, fail: Callable[[int, str], FromDiffError], number: int) -> str | None:
    """The path of a ``---``/``+++`` line: unquoted, without a trailing tab and timestamp."""
    path = _unquote(text, fail, number)
    return None if path == _DEV_NULL else path


def _unquote(text: str, fail: Callable[[int, str], FromDiffError], number: int) -> str:
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


def _parse_hunk(
    lines: Sequence[str], index: int, fail: Callable[[int, str], FromDiffError]
) -> tuple[Hunk, int]:
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


# --------------------------------------------------------------------------- applying


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


# --------------------------------------------------------------------------- names


@dataclass(frozen=True)
class IntroducedNames:
    """What a change did to one file's names: sorted, each an exact-pattern body."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


@dataclass(frozen=True)
class _Names:
    """One version of a file: the names a pattern can be *derived* from (``candidates``), and
    everything an exact pattern would match in it (``present``, a superset)."""

    candidates: frozenset[str]
    present: frozenset[str]


def introduced_names(before: str | None, after: str | None) -> IntroducedNames:
    """The code names a change introduced into (and removed from) one Python file.

    ``None`` stands for a file that does not exist.  A name is introduced when the
    ``after`` version has it as a code name (identifier, attribute, imported name or
    module path, def/class/argument/keyword name) and the ``before`` version does not:
    the words of strings, docstrings and comments never count, on either side.  Builtins,
    keywords, the methods of builtin types and one- or two-letter names are too common to
    tell a leftover apart: they are never introduced.  Raises ``SyntaxError`` (or
    ``ValueError``) for a version that does not parse.
    """
    return _difference(_python_names(before), _python_names(after))


def introduced_tokens(
    before: str | None, after: str | None, *, min_length: int = MIN_TOKEN_LENGTH
) -> IntroducedNames:
    """The distinctive words a change added to (and removed from) a text file.

    A word (as exact patterns see words: a letter, then letters, digits, ``_`` and ``.``)
    of ``min_length`` characters or more is introduced when the ``after`` text has it and
    no line of the ``before`` text matches it: not a removed line, not a context line, not
    any other line, since after a revert all of them are there again.
    """
    return _difference(_text_names(before, min_length), _text_names(after, min_length))


def is_distinctive(name: str) -> bool:
    """Can this name, found on a line no experiment commit wrote, mark a leftover?"""
    return len(name) > 2 and name not in _COMMON_NAMES


def _difference(old: _Names, new: _Names) -> IntroducedNames:
    return IntroducedNames(
        added=tuple(sorted(n for n in new.candidates - old.present if is_distinctive(n))),
        removed=tuple(sorted(n for n in old.candidates - new.present if is_distinctive(n))),
    )


def _words(text: str) -> set[str]:
    """Every body an exact pattern matches in free text (see ``patterns.match_text``)."""
    return set(WORD.findall(text)) | set(text.split())


def _text_names(text: str | None, min_length: int) -> _Names:
    if text is None:
        return _Names(frozenset(), frozenset())
    candidates: set[str] = set()
    present: set[str] = set()
    for line in text.split("\n"):
        candidates.update(word for word in WORD.findall(line) if len(word) >= min_length)
        present |= _words(line)
    return _Names(frozenset(candidates), frozenset(present))


def _python_names(text: str | None) -> _Names:
    """The code names of one version: what an exact pattern restricted to code kinds
    matches there (strings, docstrings and comments are not looked at)."""
    if text is None:
        return _Names(frozenset(), frozenset())
    names = frozenset(name for node in ast.walk(ast.parse(text)) for name in _node_names(node))
    return _Names(names, names)


def _node_names(node: ast.AST) -> Iterator[str]:
    """The names the engine matches at this node (strings excepted)."""
    if isinstance(node, ast.Name):
        yield node.id
    elif isinstance(node, ast.Attribute):
        yield node.attr
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        if isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
        for alias in node.names:
            if alias.name != "*":
                yield alias.name
            if alias.asname:
                yield alias.asname
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name
    elif isinstance(node, ast.arg):
        yield node.arg
    elif isinstance(node, ast.keyword):
        if node.arg is not None:
            yield node.arg
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        yield from node.names
    elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)):
        if node.name:
            yield node.name
    elif isinstance(node, ast.MatchMapping):
        if node.rest:
            yield node.rest
    elif isinstance(node, ast.MatchClass):
        yield from node.kwd_attrs
    elif type(node).__name__ in ("TypeVar", "ParamSpec", "TypeVarTuple"):  # Python 3.12+
        yield getattr(node, "name", "")


def _python_fingerprint(text: str) -> list[str]:
    """Names a restored module must have: its top-level definitions and assigned names; for
    a module without any, its first names in source order."""
    tree = ast.parse(text)
    names: list[str] = []
    for stmt in tree.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(stmt.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            names.extend(
                node.id
                for target in targets
                for node in ast.walk(target)
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
            )
    if names:
        return list(dict.fromkeys(names))
    placed = sorted(
        (getattr(node, "lineno", 0), getattr(node, "col_offset", 0), name)
        for node in ast.walk(tree)
        for name in _node_names(node)
    )
    return list(dict.fromkeys(name for _, _, name in placed))[:FINGERPRINT_SIZE]


# --------------------------------------------------------------------------- contents


@dataclass(frozen=True)
class ChangedFile:
    """A file change with its contents before and after (``None``: absent, or not needed)."""

    change: FileChange
    before: bytes | None = None
    after: bytes | None = None


Reader = Callable[[str], "bytes | None"]


def resolve_images(changes: Sequence[FileChange], read: Reader) -> list[ChangedFile]:
    """Work out each changed file's contents before and after, from the diff and the tree.

    ``read(path)`` returns a file of the tree, or ``None`` when it does not exist.  Added
    and deleted files carry their whole contents in the diff.  A modified file is read
    from the tree, which may hold it with the change applied (the hunks are reversed) or
    not yet applied (they are applied), so either version of the tree works, and a tree
    where some files are reverted and others not.  Raises :class:`FromDiffError` when a
    file is in neither state.
    """
    return [_images(change, read) for change in changes]


def _images(change: FileChange, read: Reader) -> ChangedFile:
    if change.binary or _special(change):
        return ChangedFile(change)
    if change.status is Status.ADDED:
        return ChangedFile(change, after=_encode(apply_hunks("", change.hunks, path=change.path)))
    if change.status is Status.COPIED or (change.status is Status.MODIFIED and not change.hunks):
        return ChangedFile(change)  # a copy must be absent; a mode change has no contents
    if change.status is Status.DELETED:
        text = apply_hunks("", change.hunks, reverse=True, path=change.path)
        return ChangedFile(change, before=_encode(text))
    new_path, old_path = change.new_path, change.old_path
    assert new_path is not None
    assert old_path is not None
    problems: list[str] = []
    current = read(new_path)
    if current is not None:
        try:
            before = apply_hunks(_decode(current), change.hunks, reverse=True)
            return ChangedFile(change, before=_encode(before), after=current)
        except FromDiffError as exc:
            problems.append(f"as already applied, {exc}")
    original = read(old_path) if old_path != new_path else current
    if original is not None:
        try:
            after = apply_hunks(_decode(original), change.hunks)
            return ChangedFile(change, before=original, after=_encode(after))
        except FromDiffError as exc:
            problems.append(f"as not yet applied, {exc}")
    if not problems:
        raise FromDiffError(f"{change.path}: changed by the diff, but not in the tree")
    raise FromDiffError(
        f"{change.path}: the diff does not apply to the tree (a partly reverted file?): "
        + "; ".join(problems)
        + ". Derive it from git instead: --rev BASE..EXPERIMENT"
    )


def _special(change: FileChange) -> str | None:
    for mode in (change.new_mode, change.old_mode):
        if mode in _SPECIAL_MODES:
            return _SPECIAL_MODES[mode]
    return None


def _decode(data: bytes) -> str:
    return data.decode("utf-8", errors="surrogateescape")


def _encode(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


# --------------------------------------------------------------------------- the manifest


@dataclass(frozen=True)
class _PlannedRule:
    path: str
    action: str  # "lines", "names", "absent" or "restore"
    #: pattern texts: ``=name``, or ``line@N:...`` for an experiment line pinned by git blame
    forbid: tuple[str, ...] = ()
    expect: tuple[str, ...] = ()
    #: whole lines (``forbid_lines``)
    lines: tuple[str, ...] = ()
    why: str = ""
    #: the names of a Python file: looked for in code, not in strings or comments
    code: bool = False


#: Each rule's id starts with what it checks: an "experiment line" and an "introduced
#: name" are different findings, and every output format shows the id.
_ID_PREFIX = {
    "lines": "experiment-lines",
    "names": "introduced-names",
    "absent": "absent",
    "restore": "restore",
}
_ORDER = {action: index for index, action in enumerate(_ID_PREFIX)}
_LINES_WHY = "an experiment line: the change added it"
_BLAMED_WHY = "an experiment line: git blame gives it to the change"
_NAMES_WHY = "an introduced name: new in this file's code"

#: What one file's experiment lines are now, as ``(line, text)``: from git blame.
Blame = Callable[[str], "list[tuple[int, str]]"]


@dataclass
class _Plan:
    rules: list[_PlannedRule] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)


def derive_manifest(
    changes: Sequence[ChangedFile],
    *,
    expect_removed: bool,
    text_rules: bool,
    why: str,
    root: str = "",
    under: str = "",
) -> str:
    """Render the manifest that says what a complete revert of ``changes`` means.

    Per changed file, its experiment lines (``forbid_lines``) and its introduced names,
    sorted by path, patterns sorted.  ``under`` (a folder relative to the diff's paths)
    keeps only the files inside it, with paths made relative to it; ``root`` is written
    as the manifest's ``root``.  ``why`` names the change (its commit or range and
    subject).  Raises :class:`FromDiffError` when nothing can be checked (every change
    binary, outside ``under``, ...).
    """
    plan = _plan(
        changes, expect_removed=expect_removed, text_rules=text_rules, under=under, blame=None
    )
    return _render(plan, why=why, root=root)


def _plan(
    changes: Sequence[ChangedFile],
    *,
    expect_removed: bool,
    text_rules: bool,
    under: str,
    blame: Blame | None,
    hint: str = " (see --expect-removed)",
) -> _Plan:
    plan = _Plan()
    prefix = _folder(under)
    for changed in changes:
        _plan_file(
            plan,
            changed,
            prefix,
            expect_removed=expect_removed,
            text_rules=text_rules,
            blame=blame,
            hint=hint,
        )
    if not plan.rules:
        details = "; ".join(f"{path}: {note}" for path, note in sorted(set(plan.notes)))
        raise FromDiffError(
            "the change leaves nothing a manifest can check" + (f" ({details})" if details else "")
        )
    plan.rules.sort(key=lambda rule: (rule.path, _ORDER[rule.action]))
    return plan


def _folder(under: str) -> str:
    folder = under.replace("\\", "/").strip("/")
    while folder.startswith("./"):
        folder = folder[2:]
    return "" if folder in ("", ".") else folder + "/"


def _plan_file(
    plan: _Plan,
    changed: ChangedFile,
    prefix: str,
    *,
    expect_removed: bool,
    text_rules: bool,
    blame: Blame | None,
    hint: str,
) -> None:
    change = changed.change
    old = _relative(plan, change.old_path, prefix)
    new = _relative(plan, change.new_path, prefix)
    special = _special(change)
    if change.status in (Status.ADDED, Status.COPIED):
        if new is not None:
            plan.rules.append(_PlannedRule(new, "absent", why="the change added this file"))
        return
    if change.status is Status.DELETED:
        if old is not None:
            _plan_restore(plan, old, changed, special, "the change deleted this file")
        return
    if change.status is Status.RENAMED:
        if old is not None:
            renamed_to = new or change.new_path
            _plan_restore(plan, old, changed, special, f"the change renamed it to {renamed_to}")
        if new is not None:
            renamed_from = old or change.old_path
            why = f"the change renamed {renamed_from} to it"
            plan.rules.append(_PlannedRule(new, "absent", why=why))
        return
    if new is None:
        return
    if change.old_mode and change.new_mode and change.old_mode != change.new_mode:
        modes = f"{change.old_mode} -> {change.new_mode}"
        plan.notes.append((new, f"mode {modes} not checked (a manifest cannot check modes)"))
    if special:
        plan.notes.append((new, f"{special} changed: its target cannot be checked"))
        return
    if change.binary:
        plan.notes.append((new, "a binary file changed: its contents cannot be checked"))
        return
    if not change.hunks:
        return
    python = is_python_path(new)
    if not python and not text_rules:
        plan.notes.append((new, "not Python: not checked (--no-text)"))
        return
    names, kind_note = _introduced(new, changed.before, changed.after, python=python)
    if kind_note:
        plan.notes.append((new, kind_note))
    planned = len(plan.rules)
    added = [text for hunk in change.hunks for op, text in hunk.lines if op == "+"]
    if blame is not None:
        if any(text.strip() for text in added):  # checked even when none is left: clean
            pinned = [f"line@{number}:{text}" for number, text in blame(change.path)]
            plan.rules.append(_PlannedRule(new, "lines", tuple(pinned), why=_BLAMED_WHY))
    else:
        lines = _experiment_lines(added, changed.before)
        if lines:
            plan.rules.append(_PlannedRule(new, "lines", lines=lines, why=_LINES_WHY))
    expect = names.removed if names and expect_removed else ()
    if names and (names.added or expect):
        why = _NAMES_WHY + ("; removed names expected back" if expect else "")
        code = python and not kind_note
        plan.rules.append(_PlannedRule(new, "names", names.added, expect, why=why, code=code))
    if len(plan.rules) == planned:
        removed = names is not None and names.removed and not expect_removed
        plan.notes.append(
            (new, "changed, but added no line or name to forbid" + (hint if removed else ""))
        )


def _experiment_lines(added: Sequence[str], before: bytes | None) -> tuple[str, ...]:
    """The change's added lines, stripped, that a complete revert removes: each non-blank
    line whose text the file did not hold before (else the file's former contents fail)."""
    known = {line.strip() for line in _decode(before).splitlines()} if before else set()
    lines = (text.strip() for text in added)
    kept = (
        line
        for line in lines
        if line and line not in known and not _unrepresentable(line) and "\r" not in line
    )
    return tuple(dict.fromkeys(kept))


def _relative(plan: _Plan, path: str | None, prefix: str) -> str | None:
    """``path`` relative to the root, or ``None`` (with a note) when it cannot be checked."""
    if path is None:
        return None
    if prefix and not path.startswith(prefix):
        plan.notes.append((path, f"outside the root {prefix.rstrip('/')!r}: not checked"))
        return None
    relative = path[len(prefix) :]
    if "\\" in relative or _unrepresentable(relative):
        plan.notes.append((relative, "a path a manifest cannot name: not checked"))
        return None
    return relative


def _introduced(
    path: str, before: bytes | None, after: bytes | None, *, python: bool
) -> tuple[IntroducedNames | None, str]:
    """The file's introduced names, and a note on why they could not be found."""
    if python:
        try:
            return _clean(introduced_names(_python_text(before), _python_text(after))), ""
        except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError) as exc:
            if isinstance(exc, SyntaxError):
                reason = exc.msg + (f" at line {exc.lineno}" if exc.lineno else "")
            else:
                reason = str(exc)
            version = f"{sys.version_info.major}.{sys.version_info.minor}"
            checked = "its lines are checked, not its names"
            return None, f"not valid Python {version} syntax ({reason}): {checked}"
    return _clean(introduced_tokens(_text(before), _text(after))), ""


def _python_text(data: bytes | None) -> str | None:
    return decode_python(data) if data is not None else None


def _text(data: bytes | None) -> str | None:
    return _decode(data) if data is not None else None


def _clean(names: IntroducedNames) -> IntroducedNames:
    return IntroducedNames(
        tuple(n for n in names.added if not _unrepresentable(n)),
        tuple(n for n in names.removed if not _unrepresentable(n)),
    )


def _plan_restore(
    plan: _Plan, path: str, changed: ChangedFile, special: str | None, why: str
) -> None:
    if special or changed.change.binary or changed.before is None:
        what = special or "a binary file"
        plan.notes.append((path, f"{why}; {what} cannot be expected by its contents"))
        return
    names = _fingerprint(path, changed.before)
    if not names:
        plan.notes.append((path, f"{why}; it has no name to expect"))
        return
    plan.rules.append(_PlannedRule(path, "restore", expect=tuple(sorted(names)), why=why))


def _fingerprint(path: str, data: bytes) -> list[str]:
    """Names a restored file must have (Python), else its first distinctive words."""
    if is_python_path(path):
        try:
            names = _python_fingerprint(decode_python(data))
            names = [name for name in names if not _unrepresentable(name)]
            if names:
                return names
        except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError):
            pass
    words = [
        word
        for word in WORD.findall(_decode(data))
        if len(word) >= MIN_TOKEN_LENGTH and not _unrepresentable(word)
    ]
    return list(dict.fromkeys(words))[:FINGERPRINT_SIZE]


def _unrepresentable(text: str) -> bool:
    """Lone surrogates (undecodable bytes) cannot be written in TOML."""
    return any("\ud800" <= char <= "\udfff" for char in text)


# -- rendering

_FILES_KEY = {"lines": "files", "names": "files", "restore": "files", "absent": "absent"}
_CODE_KINDS_TOML = sorted(kind.value for kind in CODE_KINDS)


def _render(plan: _Plan, *, why: str, root: str) -> str:
    out = [
        "# What a complete revert of this change means, derived by `cleantree from-diff`:",
        f"#   {_comment(why)}",
        "# experiment-lines: the lines it added (whole lines, compared stripped); none was in",
        "# its file before.  introduced-names: the names it introduced into a file's code",
        "# (`=name` is that whole name); none was a name there before.  Review, then commit.",
    ]
    if plan.notes:
        out += ["#", "# Not checked:"]
        notes = sorted(set(plan.notes))
        out += [f"#   {_comment(path)}: {_comment(note)}" for path, note in notes]
    out.append("")
    if root:
        out += [f"root = {_toml_string(root)}", ""]
    used: set[str] = set()
    for rule in plan.rules:
        out.append("[[rule]]")
        out.append(f"id = {_toml_string(_unique_id(rule, used))}")
        out.append(f"{_FILES_KEY[rule.action]} = [{_toml_string(_literal_path(rule.path))}]")
        if rule.lines:
            out.append(_toml_array("forbid_lines", rule.lines))
        if rule.forbid:
            out.append(_toml_array("forbid", [f"={name}" for name in rule.forbid]))
        if rule.expect:
            out.append(_toml_array("expect", [f"={name}" for name in rule.expect]))
        if rule.code:
            out.append(f"kinds = [{', '.join(_toml_string(k) for k in _CODE_KINDS_TOML)}]")
        if rule.action == "restore":
            out.append("must_exist = true")
        out.append(f"why = {_toml_string(f'{why}: {rule.why}')}")
        out.append("")
    return "\n".join(out)


def _rules(plan: _Plan, *, why: str) -> tuple[Rule, ...]:
    """The plan as rules, without a manifest's text: pinned lines are not written down."""
    used: set[str] = set()
    rules = []
    experiment = {rule.path: rule.forbid for rule in plan.rules if rule.action == "lines"}
    for rule in plan.rules:
        path = _literal_path(rule.path)
        pinned = rule.action == "lines"
        forbid = [parse_pattern(text if pinned else f"={text}") for text in rule.forbid]
        # an experiment line is reported once, as such, even when it holds introduced names
        unless = experiment.get(rule.path, ()) if rule.action == "names" else ()
        rules.append(
            Rule(
                id=_unique_id(rule, used),
                files=(path,) if rule.action != "absent" else (),
                absent=(path,) if rule.action == "absent" else (),
                forbid=tuple(forbid) + tuple(line_pattern(line) for line in rule.lines),
                expect=tuple(parse_pattern(f"={name}") for name in rule.expect),
                kinds=CODE_KINDS if rule.code else DEFAULT_KINDS,
                why=f"{why}: {rule.why}",
                must_exist=rule.action == "restore",
                unless=tuple(parse_pattern(text) for text in unless),
            )
        )
    return tuple(rules)


def _unique_id(rule: _PlannedRule, used: set[str]) -> str:
    base = f"{_ID_PREFIX[rule.action]}-{id_slug(rule.path, None) or 'file'}"
    rule_id, counter = base, 1
    while rule_id in used:
        counter += 1
        rule_id = f"{base}-{counter}"
    used.add(rule_id)
    return rule_id


def _literal_path(path: str) -> str:
    """A path as a manifest entry: glob characters bracketed, so it matches only itself."""
    return re.sub(r"([*?\[])", r"[\1]", path)


def _toml_array(key: str, items: Iterable[str]) -> str:
    body = "".join(f"    {_toml_string(item)},\n" for item in items)
    return f"{key} = [\n{body}]"


def _toml_string(text: str) -> str:
    """A TOML basic string."""
    out = ['"']
    for char in text:
        if char in ('"', "\\"):
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char < " " or char == "\x7f":
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _comment(text: str) -> str:
    """Text safe inside a TOML comment: no line breaks, control characters or surrogates."""
    out = []
    for char in text:
        if "\udc80" <= char <= "\udcff":  # an undecodable byte, kept by surrogateescape
            out.append(f"\\x{ord(char) - 0xDC00:02x}")
        elif char < " " or char == "\x7f" or "\ud800" <= char <= "\udfff":
            out.append(f"\\x{ord(char):02x}" if ord(char) < 256 else f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return "".join(out)


# --------------------------------------------------------------------------- git (read-only I/O)


def _git(repo: Path, *args: str, stdin: bytes | None = None) -> bytes:
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


def _rev_parse(repo: Path, rev: str) -> str:
    if not rev or rev.startswith("-"):
        raise FromDiffError(f"{rev!r} is not a revision")
    try:
        return _git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").decode().strip()
    except FromDiffError:
        raise FromDiffError(f"{rev!r}: no such commit in {repo}") from None


@dataclass(frozen=True)
class _Range:
    old: str  # a commit, or the empty tree for a root commit
    new: str
    short: str  # the abbreviated ``new``
    why: str
    root: bool = False  # ``old`` is the empty tree

    @property
    def bounds(self) -> tuple[str, ...]:
        """What limits a history walk to the range: ``^old``, nothing for a root commit."""
        return () if self.root else (f"^{self.old}",)


def _resolve_range(repo: Path, spec: str) -> _Range:
    """``A..B``, ``A...B`` (from their merge base) or one commit ``C`` (``C^..C``; a merge
    against its first parent)."""
    root = False
    if "..." in spec:
        left, right = spec.split("...", 1)
        new = _rev_parse(repo, right or "HEAD")
        old = _git(repo, "merge-base", _rev_parse(repo, left or "HEAD"), new).decode().strip()
    elif ".." in spec:
        left, right = spec.split("..", 1)
        old, new = _rev_parse(repo, left or "HEAD"), _rev_parse(repo, right or "HEAD")
    else:
        new = _rev_parse(repo, spec)
        try:
            old = _git(repo, "rev-parse", "--verify", "--quiet", f"{new}^").decode().strip()
        except FromDiffError:  # a root commit: compare with the empty tree
            old = _git(repo, "hash-object", "-t", "tree", "--stdin", stdin=b"").decode().strip()
            root = True
    subject = _git(repo, "log", "-1", "--format=%s", new).decode("utf-8", "replace").strip()
    short = _git(repo, "rev-parse", "--short", new).decode().strip()
    if ".." in spec:
        short_old = _git(repo, "rev-parse", "--short", old).decode().strip()
        count = int(_git(repo, "rev-list", "--count", f"{old}..{new}").decode())
        commits = f", {count} commits up to" if count > 1 else ""
        why = f'{spec} ({short_old}..{short}{commits}) "{subject}"'
    else:
        label = short if spec == short else f"{spec} ({short})"
        why = f'{label} "{subject}"'
    return _Range(old, new, short, why, root)


def images_from_rev(spec: str, repo: Path | str = ".") -> tuple[list[ChangedFile], str]:
    """The files a git range (or commit) changed, with their contents; and a ``why`` for it."""
    revs = _resolve_range(Path(repo), spec)
    return _images_from_range(Path(repo), spec, revs), revs.why


def _images_from_range(repo: Path, spec: str, revs: _Range) -> list[ChangedFile]:
    diff = _git(
        repo,
        "diff",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--no-relative",
        "-M",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        revs.old,
        revs.new,
        "--",
    )
    if not diff.strip():
        raise FromDiffError(f"{spec}: changes nothing (git diff is empty)")
    changes = parse_unified_diff(_decode(diff), source=f"git diff {spec}")
    files = []
    for change in changes:
        before = after = None
        if not change.binary and not _special(change):
            if change.old_path is not None and change.status is not Status.COPIED:
                before = _git(repo, "cat-file", "blob", f"{revs.old}:{change.old_path}")
            if change.new_path is not None and change.status is Status.MODIFIED:
                after = _git(repo, "cat-file", "blob", f"{revs.new}:{change.new_path}")
        files.append(ChangedFile(change, before, after))
    return files


def images_from_patch(
    text: str, tree: Path | str = ".", *, source: str = "<diff>", strip: int | None = None
) -> list[ChangedFile]:
    """The files a patch changes, with contents worked out against the tree at ``tree``."""
    base = Path(tree)

    def read(path: str) -> bytes | None:
        try:
            return (base / path).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise FromDiffError(f"{path}: cannot read from {base}: {exc.strerror}") from None

    return resolve_images(parse_unified_diff(text, source=source, strip=strip), read)


def repository_top(repo: Path | str = ".") -> Path:
    """The top folder of the git work tree containing ``repo``."""
    return Path(_git(Path(repo), "rev-parse", "--show-toplevel").decode().strip())


def derive_manifest_for_revert(
    commit: str,
    repo: Path | str = ".",
    *,
    expect_removed: bool = False,
    text_rules: bool = True,
    under: str = "",
) -> Manifest:
    """The manifest saying that ``commit`` (or a range ``A..B``) is fully reverted.

    The experiment's own lines are the ground truth: each file it changed gets an
    ``experiment-lines-...`` rule forbidding the lines that ``git blame`` of the work
    tree (uncommitted edits included) still gives to one of its commits, each pinned to
    its line; and an ``introduced-names-...`` rule forbidding, on any line, the code
    names it introduced there.  A merge commit is taken against its first parent: the
    experiment is everything the merge brought in.  Files it added must be absent; files
    it deleted must exist again (a missing one is a violation).

    Its root is the repository's top folder (or ``under``, relative to it), so it checks
    the work tree as it is now; its path is a name under that folder, for messages.
    Raises :class:`FromDiffError` (a ``CleanTreeError``).
    """
    top = repository_top(repo)
    revs = _resolve_range(top, commit)
    commits = set(_git(top, "rev-list", *revs.bounds, revs.new, "--").decode().split())

    def blame(path: str) -> list[tuple[int, str]]:
        return experiment_lines_now(top, path, commits, revs.bounds)

    plan = _plan(
        _images_from_range(top, commit, revs),
        expect_removed=expect_removed,
        text_rules=text_rules,
        under=under,
        blame=blame,
        hint=(
            f" (it removed names: `cleantree from-diff --rev {commit} --expect-removed` "
            "writes a manifest that expects them back)"
        ),
    )
    root = _folder(under).rstrip("/")
    return Manifest(str(top / f"<reverted {revs.short}>"), root, _rules(plan, why=revs.why))


_BLAME_HEADER = re.compile(rb"([0-9a-f]{40,64}) [0-9]+ ([0-9]+)(?: [0-9]+)?")


def experiment_lines_now(
    top: Path, path: str, commits: set[str], bounds: Sequence[str] = ()
) -> list[tuple[int, str]]:
    """The lines of the work tree's ``path`` that git blame gives to one of ``commits``:
    ``(line, text stripped)``, blank lines left out; none for a missing file.

    Uncommitted edits are blamed on no commit.  ``bounds`` (``^BASE``) stops the walk
    where the experiment starts: lines older than it cannot be the experiment's.  The
    text is the file decoded as the check decodes it, so a pinned line matches itself.
    """
    file = top / path
    if not file.is_file():
        return []
    out = _git(top, "blame", "--porcelain", *bounds, "--", path)
    blamed: dict[int, bytes] = {}
    count = 0
    sha = b""
    for raw in out.split(b"\n"):
        header = _BLAME_HEADER.fullmatch(raw)
        if header is not None:
            sha, final = header.group(1), int(header.group(2))
        elif raw.startswith(b"\t") and sha:
            count += 1
            if sha.decode() in commits:
                blamed[final] = raw[1:]
            sha = b""
    data = file.read_bytes()
    try:
        text = decode_python(data) if is_python_path(path) else _decode(data)
    except (SyntaxError, UnicodeDecodeError):
        text = _decode(data)
    lines = split_lines(text)
    same = len(lines) - (lines[-1] == "") == count  # else: line breaks git does not count
    found = []
    for number, raw_line in sorted(blamed.items()):
        line = (lines[number - 1] if same else _decode(raw_line)).strip()
        if line:
            found.append((number, line))
    return found
