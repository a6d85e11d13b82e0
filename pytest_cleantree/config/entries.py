"""The values of a manifest's keys, checked one entry at a time.

Each reader takes a parsed TOML table and a ``report`` callback: it returns what is valid
(or a default) and reports every problem, prefixed with its key path (``files[2]: ...``),
so that the parser collects all of them before failing.  Pure.
"""

from __future__ import annotations

import datetime
import difflib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TypeVar

from pytest_cleantree.core.model import DEFAULT_KINDS, SELECTABLE_KINDS, Kind, Pattern
from pytest_cleantree.core.patterns import line_pattern, parse_pattern

__all__ = [
    "Report",
    "escape_line",
    "iter_strings",
    "read_excludes",
    "read_forbid_lines",
    "read_kinds",
    "read_optional",
    "read_paths",
    "read_patterns",
    "suggest",
    "toml_type",
    "unescape_line",
]

#: The kinds a rule may select (``text`` is implied, never selected).
_KIND_NAMES = tuple(sorted(kind.value for kind in SELECTABLE_KINDS))
_DRIVE = re.compile(r"[A-Za-z]:/")

#: Where a reader sends each problem it finds.
Report = Callable[[str], None]
_T = TypeVar("_T")


def read_paths(
    table: Mapping[str, object], key: str, report: Report, *, allow_outside_root: bool
) -> tuple[str, ...]:
    """A list of file entries (``files``, ``absent``), each normalised, none twice."""
    paths: list[str] = []
    where_seen: dict[str, int] = {}
    for index, entry in iter_strings(table, key, report):
        where = f"{key}[{index}]"
        path = _path(entry, where, report, allow_outside_root)
        if path is None:
            continue
        if path in where_seen:
            report(f"{where}: '{path}' is already {key}[{where_seen[path]}]")
            continue
        where_seen[path] = index
        paths.append(path)
    return tuple(paths)


def _path(entry: str, where: str, report: Report, outside: bool) -> str | None:
    """The entry, normalised, or ``None`` after reporting what is wrong with it (``outside``:
    absolute and ``..`` entries are allowed)."""
    if "\\" in entry:
        report(f"{where}: '{entry}' uses '\\': write '{entry.replace(chr(92), '/')}'")
        return None
    path = entry
    while path.startswith("./"):
        path = path[2:]
    if not path or path == ".":
        report(f"{where}: empty path")
        return None
    if path.endswith("/"):
        report(f"{where}: '{entry}' ends with '/': name files or globs ('{path}**')")
        return None
    if not outside and (path.startswith("/") or _DRIVE.match(path)):
        report(
            f"{where}: '{entry}' is absolute: paths are relative to the root "
            "(set allow_outside_root = true to allow it)"
        )
        return None
    if "//" in path.lstrip("/"):
        report(f"{where}: '{entry}' has an empty segment ('//')")
        return None
    if not outside and ".." in path.split("/"):
        report(
            f"{where}: '{entry}' goes outside the root with '..' "
            "(set allow_outside_root = true to allow it)"
        )
        return None
    return path


def iter_strings(
    table: Mapping[str, object], key: str, report: Report
) -> Iterator[tuple[int, str]]:
    """The (index, string) items of a list-of-strings key, reporting wrong items as it goes
    (so that the caller's own problems come in index order)."""
    if key not in table:
        return
    value = table[key]
    if not isinstance(value, list):
        report(f"{key}: must be a list of strings, not {toml_type(value)}")
        return
    if not value:
        report(f"{key}: must not be empty")
        return
    for index, item in enumerate(value):
        if isinstance(item, str):
            yield index, item
        else:
            report(f"{key}[{index}]: must be a string, not {toml_type(item)}")


def read_patterns(table: Mapping[str, object], key: str, report: Report) -> tuple[Pattern, ...]:
    """A list of patterns (``forbid``, ``expect``), each parsed, none twice."""
    patterns: list[Pattern] = []
    where_seen: dict[str, int] = {}
    for index, text in iter_strings(table, key, report):
        where = f"{key}[{index}]"
        try:
            pattern = parse_pattern(text)
        except ValueError as exc:
            report(f"{where}: {exc}")
            continue
        if text in where_seen:
            report(f"{where}: '{text}' is already {key}[{where_seen[text]}]")
            continue
        where_seen[text] = index
        patterns.append(pattern)
    return tuple(patterns)


def read_forbid_lines(
    table: Mapping[str, object], report: Report, key: str = "forbid_lines"
) -> tuple[Pattern, ...]:
    """Whole lines (compared stripped), as line patterns: ``forbid_lines`` (of ``forbid``)
    or ``unless_lines``; and the same key ``_escaped``, whose lines may hold bytes that are
    not UTF-8, written ``\\xNN`` (see :func:`escape_line`)."""
    patterns: list[Pattern] = []
    where_seen: dict[str, str] = {}
    for name in (key, f"{key}_escaped"):
        for index, text in iter_strings(table, name, report):
            where = f"{name}[{index}]"
            if name != key:
                try:
                    text = unescape_line(text)
                except ValueError as exc:
                    report(f"{where}: {exc}")
                    continue
            if "\n" in text or "\r" in text:
                report(f"{where}: one line only (it holds a line break)")
                continue
            if not text.strip():
                report(f"{where}: a blank line cannot be told apart from any other")
                continue
            pattern = line_pattern(text)
            if pattern.text in where_seen:
                report(f"{where}: the same line as {where_seen[pattern.text]}")
                continue
            where_seen[pattern.text] = where
            patterns.append(pattern)
    return tuple(patterns)


_LINE_ESCAPE = re.compile(r"\\(?:x([89a-fA-F][0-9a-fA-F])|(\\)|(.?))")


def escape_line(line: str) -> str:
    """A line read with ``surrogateescape`` as an ``_escaped`` entry: each byte that is not
    UTF-8 as ``\\xNN``, each backslash doubled.  TOML cannot hold such a byte itself."""
    out = []
    for char in line:
        if "\udc80" <= char <= "\udcff":
            out.append(f"\\x{ord(char) - 0xDC00:02x}")
        else:
            out.append("\\\\" if char == "\\" else char)
    return "".join(out)


def unescape_line(text: str) -> str:
    """The line an ``_escaped`` entry stands for (:func:`escape_line`'s inverse), read as a
    file's bytes are read: escaped bytes that together are UTF-8 (``caf\\xc3\\xa9``) are
    its characters (``café``), as a UTF-8 file's line holding them decodes; the others stay
    kept bytes (``\\udce9``)."""

    def one(match: re.Match[str]) -> str:
        if match.group(1):
            return chr(0xDC00 + int(match.group(1), 16))
        if match.group(2):
            return "\\"
        raise ValueError(
            f"unknown escape {match.group(0)!r}: write \\xNN (80 to ff) for a byte that is "
            "not UTF-8, \\\\ for a backslash"
        )

    return _KEPT_BYTES.sub(_as_read, _LINE_ESCAPE.sub(one, text))


#: a run of bytes kept as surrogates (``surrogateescape``)
_KEPT_BYTES = re.compile("[\udc80-\udcff]+")


def _as_read(match: re.Match[str]) -> str:
    """A run of kept bytes as decoding a file reads them: UTF-8 where they are (a run
    decodes alone as it does in its line: no UTF-8 sequence joins a character outside it)."""
    return match.group(0).encode("utf-8", "surrogateescape").decode("utf-8", "surrogateescape")


def read_excludes(table: Mapping[str, object], prefix: str, report: Report) -> tuple[str, ...]:
    """An ``exclude`` key: gitignore-style patterns (see :mod:`.exclusions`)."""
    from pytest_cleantree.config.exclusions import exclude_problem

    patterns: list[str] = []
    for index, pattern in iter_strings(table, "exclude", report):
        problem = exclude_problem(pattern)
        if problem:
            report(f"{prefix}exclude[{index}]: {problem}")
        else:
            patterns.append(pattern)
    return tuple(patterns)


def read_kinds(table: Mapping[str, object], report: Report) -> frozenset[Kind]:
    """The node kinds a rule looks in (``DEFAULT_KINDS`` without a ``kinds`` key)."""
    if "kinds" not in table:
        return DEFAULT_KINDS
    kinds: set[Kind] = set()
    for index, name in iter_strings(table, "kinds", report):
        where = f"kinds[{index}]"
        if name == Kind.TEXT.value:
            report(
                f"{where}: 'text' cannot be selected: it is implied for files that are not Python"
            )
        elif name not in _KIND_NAMES:
            report(f"{where}: unknown kind '{name}' ({suggest(name, _KIND_NAMES, 'kinds')})")
        elif Kind(name) in kinds:
            report(f"{where}: '{name}' is already listed")
        else:
            kinds.add(Kind(name))
    return frozenset(kinds)


def read_optional(
    table: Mapping[str, object],
    key: str,
    kind: type[_T],
    default: _T,
    prefix: str,
    report: Report,
) -> _T:
    """A scalar key's value, or ``default`` when it is absent or (reported) of the wrong type."""
    if key not in table:
        return default
    value = table[key]
    if isinstance(value, kind):
        return value
    expected = "true or false" if kind is bool else "a string"
    report(f"{prefix}{key}: must be {expected}, not {toml_type(value)}")
    return default


def nearest(word: str, valid: Sequence[str]) -> str | None:
    """The valid word ``word`` most likely misspells (difflib), if one is near."""
    close = difflib.get_close_matches(word, valid, n=1)
    return close[0] if close else None


def suggest(word: str, valid: Sequence[str], what: str, prefix: str = "") -> str:
    """The nearest valid word (difflib), or the list of valid ones when none is near."""
    close = nearest(word, valid)
    if close:
        return f"did you mean '{prefix}{close}'?"
    return f"valid {what}: " + ", ".join(f"{prefix}{name}" for name in sorted(valid))


def toml_type(value: object) -> str:
    """The TOML type of a value, with its article, for messages."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, datetime.datetime):
        return "a date-time"
    if isinstance(value, datetime.date):
        return "a date"
    if isinstance(value, datetime.time):
        return "a time"
    return type(value).__name__  # pragma: no cover - TOML has no other types
