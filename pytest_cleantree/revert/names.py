"""Which names an experiment introduced into a file, and which a restored file must have.

A Python file's names are its code names (the words of strings and comments never count);
a text file's are its words as exact patterns see them.  Pure.
"""

from __future__ import annotations

import ast
import builtins
import keyword
from collections.abc import Iterator
from dataclasses import dataclass

from pytest_cleantree.analysis import decode_python, is_python_path
from pytest_cleantree.core.model import Kind
from pytest_cleantree.core.patterns import WORD

from .text import decode_text, unrepresentable

__all__ = [
    "CODE_KINDS",
    "FINGERPRINT_SIZE",
    "MIN_TOKEN_LENGTH",
    "IntroducedNames",
    "fingerprint",
    "introduced_names",
    "introduced_tokens",
    "is_distinctive",
    "python_fingerprint",
]

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


def python_fingerprint(text: str) -> list[str]:
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


def fingerprint(path: str, data: bytes) -> list[str]:
    """Names a restored file must have (Python), else its first distinctive words."""
    if is_python_path(path):
        try:
            names = python_fingerprint(decode_python(data))
            names = [name for name in names if not unrepresentable(name)]
            if names:
                return names
        except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError):
            pass
    words = [
        word
        for word in WORD.findall(decode_text(data))
        if len(word) >= MIN_TOKEN_LENGTH and not unrepresentable(word)
    ]
    return list(dict.fromkeys(words))[:FINGERPRINT_SIZE]
