"""What a file's import statements take, read from its text alone: the graph's prefilter.

:func:`import_summary` reads a file's text as Python's tokenizer would (lines end at
LF, CRLF or a lone CR; spaces and backslash-newlines around every dot; names NFKC) and
never parses it: tens of times faster than :mod:`ast`, so every file of a tree can be
summarised.  It may take more than Python binds (text in a string or comment that reads
like an import), never less: :func:`parsed_summary` reads the same from the parser, and
the property tests (``tests/names/test_import_spellings.py``) hold the one over the other
on import statements generated in every spelling the grammar allows.
"""

from __future__ import annotations

import ast
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["UNKNOWN_STAR", "ImportSummary", "import_summary", "parsed_summary"]

#: an import statement longer than this is not read: the file is admitted whatever it holds
_MAX_STATEMENT = 20_000
#: the star marker: a star import whose module could not be read from the text
UNKNOWN_STAR = "*"

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class ImportSummary:
    """What one file's import statements can re-export, read from its text alone.

    ``names``: (the last part of the module, the name) for each ``from M import NAME``
    and each ``import M.NAME as X`` (the module it makes ``X``); the module part is
    ``""`` when the statement names none (``from . import x``) or the text is not
    plainly an import statement (then each of its words is a name).  ``stars``: the
    last part of each module a ``from M import *`` takes (:data:`UNKNOWN_STAR` when
    the text does not say).  An over-approximation: a string or comment that reads
    like an import adds names; on import statements alone it equals
    :func:`parsed_summary`.
    """

    names: frozenset[tuple[str, str]]
    stars: frozenset[str]
    #: every part of every module a plain ``import a.b.c`` names (``a``, ``b``, ``c``)
    modules: frozenset[str] = frozenset()

    def may_spell(self, words: frozenset[str]) -> bool:
        """Can this module bind a name that reaches a target (whose last part is in ``words``)?

        Only through an import of such a name from a module whose last part is in
        ``words`` too (a module on the way reaches the target), or from one the text
        does not name; or through a star import of such a module.
        """
        for module, name in self.names:
            if name in words and (not module or module in words):
                return True
        return UNKNOWN_STAR in self.stars or not self.stars.isdisjoint(words)


def import_summary(text: str) -> ImportSummary:
    """The names the file's import statements take (see :class:`ImportSummary`).

    Read as Python's tokenizer reads them, on the text alone: a line ends at CRLF or a
    lone CR too, spaces and backslash-newlines may stand around every dot, names are
    NFKC.  Each ``import`` keyword is read back to its ``from`` (:func:`_from_module`)
    and forward to its statement's end; where that is not plainly an import statement,
    every word of it is taken from any module (never fewer names than Python binds).
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    names: set[tuple[str, str]] = set()
    stars: set[str] = set()
    modules: set[str] = set()
    for keyword in _keywords(text):
        end = _statement_end(text, keyword + len("import"))
        if end is None:
            stars.add(UNKNOWN_STAR)
            continue
        clause = _nfkc(_COMMENT.sub("", text[keyword + len("import") : end]))
        tokens = _TOKEN.findall(clause)
        module = _from_module(text, keyword)
        if tokens[:1] == ["*"]:  # ``from m import *`` (and ``\``-continued before the star)
            stars.add(module if isinstance(module, str) and module else UNKNOWN_STAR)
        elif module is _PLAIN:
            _plain_import(tokens, names, modules)
        elif isinstance(module, str):
            names.update((module, name) for name in _from_names(tokens))
        else:
            _unknown(tokens, names, modules)
    return ImportSummary(frozenset(names), frozenset(stars), frozenset(modules))


def parsed_summary(tree: ast.AST) -> ImportSummary:
    """What :func:`import_summary` reads, from the parser: every import statement of the tree.

    The reference the text's reading is held to (it may take more, never less), and
    what the graph reads when it parses every file (``CLEANTREE_ENGINE=reference``).
    """
    names: set[tuple[str, str]] = set()
    stars: set[str] = set()
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            last = (node.module or "").rsplit(".", 1)[-1]
            for alias in node.names:
                if alias.name == "*":
                    stars.add(last or UNKNOWN_STAR)
                else:
                    names.add((last, alias.name))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                modules.update(parts)
                if alias.asname is not None:
                    names.add((parts[-2] if len(parts) > 1 else "", parts[-1]))
    return ImportSummary(frozenset(names), frozenset(stars), frozenset(modules))


class _Plain:
    """The mark of a plain ``import a.b`` statement (no ``from`` before the keyword)."""


_PLAIN = _Plain()
#: a name, or one character of punctuation (continuations and comments are gone first)
_TOKEN = re.compile(r"\w+|[^\w\s\\]")
_COMMENT = re.compile(r"#[^\n]*")
#: the spaces Python's tokenizer skips between tokens
_SPACES = " \t\f"


def _nfkc(text: str) -> str:
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def _from_module(text: str, keyword: int) -> str | _Plain | None:
    """What stands before an ``import`` keyword on its logical line.

    The last part of the module after ``from`` (``""`` for ``from . import``), or
    :data:`_PLAIN` when nothing stands there, or ``None`` when it is not plainly
    either (text or a comment that reads like an import, or a backslash that may end
    a comment).  Read backwards over what a ``from`` clause holds: names, dots,
    spaces and backslash-newlines.
    """
    index = keyword
    while index > 0:
        char = text[index - 1]
        if char == "\n" and index > 1 and text[index - 2] == "\\":
            line = text.rfind("\n", 0, index - 2) + 1
            if "#" in text[line : index - 2]:  # the backslash may end a comment
                return None
            index -= 2
        elif char in _SPACES or char == "." or _is_word(char) or not char.isascii():
            index -= 1
        else:
            break
    if index > 0 and text[index - 1] not in "\n;:":
        return None  # not where a statement starts
    tokens = _TOKEN.findall(_nfkc(text[index:keyword].replace("\\\n", " ")))
    if not tokens:
        return _PLAIN
    if tokens[0] != "from" or "from" in tokens[1:]:
        return None
    return "".join(tokens[1:]).rsplit(".", 1)[-1]


def _items(tokens: Sequence[str]) -> list[list[str]]:
    """The comma-separated items of an import clause, its brackets set aside."""
    items: list[list[str]] = [[]]
    for token in tokens:
        if token == ",":
            items.append([])
        elif token not in "()":
            items[-1].append(token)
    return [item for item in items if item]


def _from_names(tokens: Sequence[str]) -> Iterable[str]:
    """The names ``from m import a as b, c`` takes (``a``, ``c``); every word if not plain."""
    for item in _items(tokens):
        if len(item) in (1, 3) and item[0].isidentifier() and item[1:2] in ([], ["as"]):
            yield item[0]
        else:
            yield from (word for word in item if word != "as" and _WORD.fullmatch(word))


def _plain_import(tokens: Sequence[str], names: set[tuple[str, str]], modules: set[str]) -> None:
    """``import a.b as x, c``: every part of every module, and each module renamed.

    ``import c`` binds ``c`` itself: no new spelling of anything.  A top-level
    module renamed (``import posixpath as path``) has no module part (``""``).
    """
    for item in _items(tokens):
        dotted, renamed = (item[:-2], True) if item[-2:-1] == ["as"] else (item, False)
        parts = dotted[::2]
        if not parts or dotted[1::2] != ["."] * (len(parts) - 1):
            _unknown(item, names, modules)  # not plainly ``a.b``
            continue
        modules.update(parts)
        if renamed:
            names.add((parts[-2] if len(parts) > 1 else "", parts[-1]))


def _unknown(tokens: Sequence[str], names: set[tuple[str, str]], modules: set[str]) -> None:
    """Text that is not plainly an import: every word, from any module and as a module."""
    words = [token for token in tokens if token != "as" and _WORD.fullmatch(token)]
    names.update(("", word) for word in words)
    modules.update(words)


def _keywords(text: str) -> Iterable[int]:
    """Where the word ``import`` stands (``str.find``: far faster than a ``\\b`` regex)."""
    index = text.find("import")
    while index >= 0:
        end = index + len("import")
        if (index == 0 or not _is_word(text[index - 1])) and (
            end == len(text) or not _is_word(text[end])
        ):
            yield index
        index = text.find("import", end)


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _statement_end(text: str, start: int) -> int | None:
    """Where the logical line from ``start`` ends (brackets, backslashes, comments skipped)."""
    depth = 0
    index = start
    limit = min(len(text), start + _MAX_STATEMENT)
    while index < limit:
        char = text[index]
        if char == "#":
            newline = text.find("\n", index)
            index = limit if newline < 0 else newline
            continue
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth = max(depth - 1, 0)
        elif char == "\\" and text.startswith("\n", index + 1):
            index += 2
            continue
        elif char in "\n;" and depth == 0:
            return index
        index += 1
    return index if limit == len(text) else None
