"""Where a manifest's problem is written: the line of a key, of a table's header, of the
end of the document, as the manifest's text spells them.

TOML parsers give values, not positions; these read the text itself, so that every
problem :mod:`.manifest` reports starts with its line.  Pure: text in, line numbers out
(0 when not found: the message then names the rule or the key without a line).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: one key as TOML may write it: bare, or quoted either way, spaces around
_KEY = r"[ \t]*(?:{0}|\"{0}\"|'{0}')[ \t]*"
_DOT = r"\."
_RULE_HEADER = re.compile(rf"[ \t]*\[\[{_KEY.format('rule')}\]\][ \t]*(?:#.*)?\r?")
_PYPROJECT_RULE_HEADER = re.compile(
    rf"[ \t]*\[\[{_KEY.format('tool')}{_DOT}{_KEY.format('cleantree')}{_DOT}{_KEY.format('rule')}"
    rf"\]\][ \t]*(?:#.*)?\r?"
)
_END_OF_DOCUMENT = "(at end of document)"
#: a key's own line: ``forbid = [``, ``"forbid" =``
_KEY_LINE = r"[ \t]*(?:{0}|\"{0}\"|'{0}')[ \t]*="


def top_key_line(text: str, key: str, *, pyproject: bool) -> int:
    """The 1-based line where top-level ``key`` is written (``key =`` in the manifest's
    own table, or a ``[key]``/``[[key]]``/``[key.sub]`` header), 0 when not found; the
    manifest's own table is ``[tool.cleantree]`` when ``pyproject``."""
    table = [_KEY.format("tool"), _KEY.format("cleantree")] if pyproject else []
    own = re.compile(rf"[ \t]*\[{_DOT.join(table)}\][ \t]*(?:#.*)?\r?") if table else None
    named = _DOT.join([*table, _KEY.format(re.escape(key))])
    header = re.compile(rf"[ \t]*\[\[?{named}(?:\]|{_DOT})")
    assignment = re.compile(_KEY_LINE.format(re.escape(key)))
    inside = own is None  # the manifest's own table: the document, or [tool.cleantree]
    for number, line in enumerate(text.split("\n"), 1):
        if header.match(line):
            return number
        if line.lstrip().startswith("["):
            inside = own is not None and own.fullmatch(line) is not None
        elif inside and assignment.match(line):
            return number
    return 0


def rule_header_lines(text: str, count: int, *, pyproject: bool) -> list[int]:
    """1-based lines of the rule headers, when there is exactly one per rule (``count``)."""
    header = _PYPROJECT_RULE_HEADER if pyproject else _RULE_HEADER
    # TOML ends lines at "\n" only: str.splitlines() would also split at "\f" and others
    lines = text.split("\n")
    found = [number for number, line in enumerate(lines, 1) if header.fullmatch(line)]
    return found if len(found) == count else []


def rule_key_lines(text: str, keys: Iterable[str], start: int, end: int) -> dict[str, int]:
    """The 1-based line of each of ``keys`` of the rule whose header is at ``start`` (up to
    ``end``, 0: the end of the document), so that a problem points at its own key."""
    text_lines = text.split("\n")
    stop = end or len(text_lines)
    found: dict[str, int] = {}
    for key in keys:
        pattern = _KEY_LINE.format(re.escape(key))
        for number in range(start + 1, stop + 1):
            if re.match(pattern, text_lines[number - 1]):
                found[key] = number
                break
    return found


def deep_nesting(text: str, limit: int = 100) -> str:
    """Where brackets and braces first nest past ``limit`` deep: ``(at line L, column C)``."""
    depth, line, column = 0, 1, 0
    for char in text:
        column += 1
        if char == "\n":
            line, column = line + 1, 0
        elif char in "[{":
            depth += 1
            if depth > limit:
                break
        elif char in "]}":
            depth -= 1
    return f"(at line {line}, column {column})"


def locate_end(message: str, text: str) -> str:
    """tomllib's message, with "at end of document" turned into a line and column."""
    if not message.endswith(_END_OF_DOCUMENT):
        return message
    lines = text.split("\n")
    where = f"(at line {len(lines)}, column {len(lines[-1]) + 1})"
    return message[: -len(_END_OF_DOCUMENT)] + where
