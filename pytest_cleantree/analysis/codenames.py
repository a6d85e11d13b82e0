"""A file's code names: every name an exact pattern, looked for in code, matches there.

The revert guard asks this, never a walk of its own: a name an experiment introduced is
one an exact pattern ``=name`` restricted to code kinds (:data:`CODE_KINDS`) matches after
the change and not before, so the names must be the scan's own (:mod:`.scan`, the walk every
check runs): the same nodes, the same kinds, each segment of a dotted module path a name of
its own (``from a.b.c import x``: ``a.b.c``, ``a``, ``b``, ``c`` and ``x``).  The scan is run
with a matcher that takes every name instead of a list of patterns; strings, docstrings and
comments are not code, and give none.  ``tests/revert`` holds this to the scan's matches,
``=name`` by ``=name``, on every file of the standard library.
"""

from __future__ import annotations

from dataclasses import dataclass

from pytest_cleantree.core.model import CODE_KINDS, Kind

from .bindings import Assignment, Definition, scope_bindings
from .deep import on_deep_stack
from .pieces import parse_python
from .scan import Scanner
from .text import PatternSet, split_lines, too_large_to_parse

__all__ = ["CodeNames", "code_names"]

#: how a module-level name gets its own value, for :attr:`CodeNames.defined`
_DEFINED_VIAS = frozenset({"assign", "annotated", "unpack"})
_DEFINED_KINDS = frozenset({"def", "class"})


@dataclass(frozen=True)
class CodeNames:
    """One Python file's code names."""

    #: every code name, with where it first stands (line, column), in source order
    names: dict[str, tuple[int, int]]
    #: the module's own definitions and assigned names (``def``, ``class``, ``x =``, ``a, b =``,
    #: ``x: T``), in source order: the binding model's answer
    defined: tuple[str, ...]


def code_names(text: str, path: str = "<unknown>") -> CodeNames:
    """The code names of one Python file's decoded ``text``.

    Raises what the parse raises (``SyntaxError``, ``ValueError``, ``RecursionError``,
    ``MemoryError``), and ``ValueError`` for a text over the parse limit, where the check
    matches lines as text and finds no code at all.
    """
    if too_large_to_parse(len(text.encode("utf-8", "surrogateescape"))):
        raise ValueError("over the parse limit: the check reads it as text, not code")
    try:
        return _code_names(text, path)
    except RecursionError:  # deeply nested: as the check does (see .deep)
        return on_deep_stack(lambda: _code_names(text, path))


def _code_names(text: str, path: str) -> CodeNames:
    tree = parse_python(text, path)
    collector = _AllNames(split_lines(text))
    collector.scan(tree)
    names = dict(sorted(collector.names.items(), key=lambda item: item[1]))
    module = scope_bindings(tree)
    defined = (
        binding.name
        for binding in module.bindings
        if (isinstance(binding, Definition) and binding.kind in _DEFINED_KINDS)
        or (isinstance(binding, Assignment) and binding.via in _DEFINED_VIAS)
    )
    return CodeNames(names, tuple(dict.fromkeys(defined)))


class _AllNames(Scanner):
    """The scan, taking every name it would hand a pattern instead of matching patterns."""

    def __init__(self, lines: tuple[str, ...]) -> None:
        super().__init__(lines, PatternSet.of(()), "", {}, None)
        self.names: dict[str, tuple[int, int]] = {}

    def _emit(
        self,
        name: str,
        line: int,
        col: int,
        kind: Kind,
        qualified: tuple[str, ...] = (),
        *,
        written: bool = True,
    ) -> None:
        if kind in CODE_KINDS and written:  # a name only a string spells is no code name
            self._take(name, line, col)

    def _take(self, name: str, line: int, col: int) -> None:
        first = self.names.get(name)
        if first is None or (line, col) < first:
            self.names[name] = (line, col)

    def _wanted(self, name: str, qualified: tuple[str, ...]) -> bool:
        return True  # every name is wanted

    def _locate(self, name: str, start: tuple[int, int]) -> tuple[int, int]:
        return start  # the statement's place is enough to order names: no token search

    def _segments(self, dotted: str, start: tuple[int, int]) -> None:
        """Each segment of a dotted module path is a name (as :meth:`Scanner._segments`
        reports one an exact pattern matches)."""
        if "." in dotted:
            for part in dotted.split("."):
                self._take(part, *start)
