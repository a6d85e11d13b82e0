"""Where a name or a piece of a literal stands in a module's lines, as the tokenizer reads them.

``ast`` gives lines (1-based) and UTF-8 byte columns; reports count characters.
A name the tree gives no position for (``import a as b``'s ``b``, ``global x``)
is found among the tokens of its statement, from a place the tree does give.
Pure functions over the module's lines; the scan asks them.
"""

from __future__ import annotations

import ast
import re
import tokenize
import unicodedata
from collections.abc import Sequence

__all__ = ["after_as", "char_col", "identifier", "locate", "segment_line", "slice_utf8"]


def char_col(lines: Sequence[str], line: int, byte_col: int) -> int:
    """``ast`` columns count UTF-8 bytes; reports count characters."""
    text = lines[line - 1] if 0 < line <= len(lines) else ""
    if text.isascii():
        return byte_col
    return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))


def locate(lines: Sequence[str], name: str, start: tuple[int, int]) -> tuple[int, int]:
    """Where the first NAME token ``name`` (its first dotted part) stands at or after ``start``.

    Positions in and out are ``ast``'s (1-based line, UTF-8 byte column).
    """
    first = name.split(".", 1)[0]
    line_no, byte_col = start
    head = slice_utf8(lines[line_no - 1], byte_col, None)
    readline = iter([head + "\n"] + [line + "\n" for line in lines[line_no:]]).__next__
    try:
        for token in tokenize.generate_tokens(readline):
            if token.type == tokenize.NAME and identifier(token.string) == first:
                row, col = token.start
                if row == 1:
                    return line_no, byte_col + len(head[:col].encode("utf-8"))
                text = lines[line_no + row - 2]
                return line_no + row - 1, len(text[:col].encode("utf-8"))
    except (tokenize.TokenError, SyntaxError, StopIteration):
        pass
    return start


def after_as(lines: Sequence[str], start: tuple[int, int], end: tuple[int, int]) -> tuple[int, int]:
    """Where to look for an alias's ``asname``: after the ``as`` keyword."""
    line_no, col = start
    while line_no <= end[0]:
        text = lines[line_no - 1]
        match = re.search(r"\bas\b", text[col:])
        if match:
            return line_no, col + match.end()
        line_no, col = line_no + 1, 0
    return start


def segment_line(lines: Sequence[str], node: ast.expr, line_no: int) -> str:
    """The part of one line of the source that a (maybe multi-line) expression covers."""
    text = lines[line_no - 1] if line_no <= len(lines) else ""
    if line_no == (node.end_lineno or node.lineno) and node.end_col_offset is not None:
        text = slice_utf8(text, None, node.end_col_offset)
    if line_no == node.lineno:
        text = slice_utf8(text, node.col_offset, None)
    return text


def identifier(token: str) -> str:
    """A NAME token as the parser holds it (NFKC-normalised)."""
    return token if token.isascii() else unicodedata.normalize("NFKC", token)


def slice_utf8(text: str, start: int | None, end: int | None) -> str:
    """Slice by the UTF-8 byte offsets that ``ast`` uses for columns."""
    if text.isascii():
        return text[start:end]
    return text.encode("utf-8")[start:end].decode("utf-8", errors="replace")
