"""Partial parsing: cut a module into pieces and parse only those that can hold an occurrence.

A top-level piece runs from a ``def`` or ``class`` at column 0 (from its
first decorator) to the next one; a top-level class is cut further at its
members.  The cut is found by a regex lexer built from tokenize's own
expressions (:data:`.text.STRING_OR_COMMENT`); where the text holds what that
lexer does not model (:func:`.text.lex`), or where the kept pieces do
not parse as cut, the whole module is parsed instead.
"""

from __future__ import annotations

import ast
import bisect
import gc
import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from .text import lex, line_numbers, lines_at, word_offsets, word_positions

# --------------------------------------------------------------------------- partial parse

#: a line that starts a ``def`` or ``class``, or the decorators of one
_BLOCK = r"([ \t]*)(?:@|def\b|class\b|async[ \t]+def\b)"
_BLOCK_AT_START = re.compile(_BLOCK)
#: after a newline, not ``^`` with re.M: a literal first character is searched for in C
_BLOCK_AFTER_NEWLINE = re.compile("\n" + _BLOCK)
#: a line of code at column 0 (not blank, not a comment): the end of any block above it
_COLUMN_ZERO = re.compile(r"\n[^\s#]")


@dataclass(frozen=True)
class Layout:
    """A module cut into pieces that can each be parsed or left out.

    A top-level piece runs from a ``def`` or ``class`` at column 0 (from the
    first of its decorators) to the line before the next one: a run of whole
    top-level statements.  A top-level class is cut further at its members
    (``def``, ``class`` and decorators at its body's indentation), up to its
    last line.  A member left out becomes a ``pass`` at its indentation, so
    the class keeps a body and no later string becomes its docstring.
    """

    #: the first line of each piece, ascending, from line 1
    starts: list[int]
    #: the index of the top-level piece each piece belongs to (its own for a top-level one)
    top: list[int]
    #: for a class member, the indentation its ``pass`` takes; ``None`` for the others
    indent: list[str | None]
    #: the ``class`` line of each class cut into members
    classes: tuple[int, ...] = ()

    def pieces_of(self, lines: Iterable[int]) -> set[int]:
        """The indexes of the pieces that hold these lines."""
        return {bisect.bisect_right(self.starts, line) - 1 for line in lines}


def layout(text: str) -> Layout | None:
    """Where the pieces of a module start (see :class:`Layout`).

    ``None`` when the text holds what the lexer does not model: it must be parsed whole.
    """
    at_start = _BLOCK_AT_START.match(text)
    blocks = [(0, at_start.group(1))] if at_start else []
    blocks += [(m.start() + 1, m.group(1)) for m in _BLOCK_AFTER_NEWLINE.finditer(text)]
    if not blocks:
        return Layout([1], [0], [None])
    spans, unmodelled = lex(text)
    if unmodelled:
        return None
    span_starts = [start for start, _ in spans]

    def in_string(offset: int) -> bool:
        index = bisect.bisect_right(span_starts, offset) - 1
        return index >= 0 and spans[index][1] > offset

    offsets = [offset for offset, _ in blocks]
    tops = _block_runs(text, [(o, "") for o, indent in blocks if not indent and not in_string(o)])
    starts: list[int] = [0]  # offsets, then lines
    top: list[int] = [0]
    indent_of: list[str | None] = [None]
    classes: list[int] = []
    ends = [offset for offset, _ in tops[1:]] + [len(text)] if tops else []
    for (first, header), end in zip(tops, ends, strict=True):
        if first > 0:
            starts.append(first)
            top.append(len(starts) - 1)
            indent_of.append(None)
        if not text.startswith("class", header):
            continue
        cut = _class_members(text, (blocks, offsets), header, end, in_string)
        if cut is None:
            continue
        members, body_indent, body_end = cut
        classes.append(header)
        owner = top[-1]
        for member, _ in members:
            starts.append(member)
            top.append(owner)
            indent_of.append(body_indent)
        if body_end < end:
            starts.append(body_end)
            top.append(owner)
            indent_of.append(None)
    lines = [1, *line_numbers(text, starts[1:])]
    return Layout(lines, top, indent_of, tuple(line_numbers(text, classes)))


def _class_members(
    text: str,
    found: tuple[Sequence[tuple[int, str]], Sequence[int]],
    header: int,
    end: int,
    in_string: Callable[[int], bool],
) -> tuple[list[tuple[int, int]], str, int] | None:
    """The members of the top-level class whose ``class`` line starts at ``header``.

    (member runs, their indentation, where the class body ends); ``None`` when
    the body holds no ``def``/``class``/decorator that is code.
    """
    newline = text.find("\n", header)
    body = _COLUMN_ZERO.finditer(text, end if newline == -1 else newline, end)
    body_end = next((m.start() + 1 for m in body if not in_string(m.start() + 1)), end)
    blocks, offsets = found  # every block (offset, indentation), and their offsets
    inside = blocks[bisect.bisect_right(offsets, header) : bisect.bisect_left(offsets, body_end)]
    for body_indent in sorted({indent for _, indent in inside if indent}, key=len):
        level = [(o, i) for o, i in inside if i == body_indent and not in_string(o)]
        if level:  # the shallowest blocks that are code: the class's members
            return _block_runs(text, level), body_indent, body_end
    return None


def _block_runs(text: str, blocks: Sequence[tuple[int, str]]) -> list[tuple[int, int]]:
    """Merge decorator runs: ``(first offset, offset of the def or class line)`` per block."""
    runs: list[tuple[int, int]] = []
    decorators = False  # inside a decorator run: its def or class starts nothing new
    for offset, indent in blocks:
        decorator = text.startswith("@", offset + len(indent))
        if decorators:
            if not decorator:
                runs[-1] = (runs[-1][0], offset)
        else:
            runs.append((offset, offset))
        decorators = decorator
    return runs


def top_level_units(text: str) -> list[int]:
    """The first lines of the module's top-level pieces (see :class:`Layout`)."""
    cut = layout(text)
    if cut is None:
        return [1]
    return [start for index, start in enumerate(cut.starts) if cut.top[index] == index]


def parse_needed(
    text: str,
    lines: Sequence[str],
    path: str,
    spelling: set[int] | None,
    binders: Callable[[ast.Module], Followed] | None = None,
    norm: str | None = None,
    guesses: Iterable[str] = (),
) -> ast.Module:
    """Parse the pieces of the module that can hold an occurrence, the others left out.

    Kept: the first piece (docstring, ``__future__``), and every piece with a
    line of ``spelling`` (see :func:`.text.spelling_lines`; ``None``: parse it all);
    with the pieces of a class, the class's own first and last lines.  With
    ``binders``, the names that imports bind to a qualified pattern (or to
    something inside one), every piece that imports is kept, then every piece
    that spells a name they bind, until nothing changes: a use of an alias is
    never left out.

    Left-out lines stay as empty lines, so every kept line keeps its number
    and columns.  Syntax is thus checked in the kept pieces; when they do not
    parse, or a ``pass`` left for a member did not land in its class's body,
    the whole file is parsed, so the error reported is the file's first.
    ``norm`` is the text with identifiers normalised (see :class:`.text.TextViews`),
    where names are looked for; lines are the same in both.  ``guesses`` are
    names ``binders`` will likely find a module bound to (the parts of the
    patterns): where a value starts with one is kept from the first parse,
    which then need not be repeated to add it.
    """
    names_text = norm if norm is not None else text
    cut = layout(text) if spelling is not None and "\r" not in text else None
    if spelling is None or cut is None or len(cut.starts) == 1:
        return parse_python(text, path)
    keep = {0} | cut.pieces_of(spelling)
    seen = Followed(set(), set(guesses))
    if binders is not None:  # the imports that bind names: their names are then followed
        offsets = word_offsets(names_text, ["import"]) + assigned_from_offsets(
            names_text, seen.assigned_from
        )
        keep |= cut.pieces_of(lines_at(names_text, offsets))
    while True:
        keep |= {cut.top[piece] for piece in keep}
        if len(keep) == len(cut.starts):
            return parse_python(text, path)
        tree = _parse_pieces(text, lines, path, cut, keep)
        if tree is None:
            return parse_python(text, path)
        if binders is None:
            return tree
        followed = binders(tree)
        names = followed.everywhere - seen.everywhere
        sources = followed.assigned_from - seen.assigned_from
        seen.everywhere.update(names)
        seen.assigned_from.update(sources)
        offsets = loaded_name_offsets(names_text, names) + assigned_from_offsets(
            names_text, sources
        )
        more = cut.pieces_of(lines_at(names_text, offsets)) - keep
        if not more:
            return tree
        keep |= more


@dataclass(frozen=True)
class Followed:
    """The names the partial parse follows (see :class:`.aliases.AliasBinders`)."""

    #: kept wherever they are spelt
    everywhere: set[str]
    #: kept only where a value may start with them (``x = name.attr``)
    assigned_from: set[str]


#: an ``=`` then what may stand before an assigned value (space, continuations, parentheses,
#: comments, ``getattr(``: :func:`.reader.getattr_target`), then a name: where an
#: assignment's value may start with that name (over-approximated: ``==``, ``<=`` and
#: keyword arguments count too)
_AFTER_EQUALS = re.compile(r"=(?:[\s\\(]|#[^\r\n#]*|getattr\b)*([^\W\d]\w*)")


#: what after a name makes that spelling no load of it: an assignment to it or a keyword
#: (``name = v``, ``f(name=v)``), not ``==``, nor an f-string's ``{name=}`` (which loads it)
_NOT_LOADED_AFTER = re.compile(r"[ \t]*=(?!=)(?![ \t]*[}!:\\\r\n])")


def loaded_name_offsets(text: str, names: Iterable[str]) -> list[int]:
    """Where ``names`` are spelt, less the names no spelling of which can be a load.

    A name only ever assigned to (``handle = Popen``, and never used) leads to
    no occurrence, as an alias or otherwise, wherever it is assigned: its
    pieces need not be parsed for it.  Once one spelling may load it, every
    spelling counts, assignments included: a use needs the assignment that
    makes it an alias.
    """
    offsets: list[int] = []
    for name in names:
        found = list(word_positions(text, name))
        end = len(name)
        if any(_NOT_LOADED_AFTER.match(text, offset + end) is None for offset in found):
            offsets += found
    return offsets


def assigned_from_offsets(text: str, names: set[str]) -> list[int]:
    """Where one of ``names`` stands at the start of what an ``=`` assigns."""
    if not names:
        return []
    return [m.start(1) for m in _AFTER_EQUALS.finditer(text) if m.group(1) in names]


def _parse_pieces(
    text: str, lines: Sequence[str], path: str, cut: Layout, keep: set[int]
) -> ast.Module | None:
    """The module with only the ``keep`` pieces; ``None`` when that does not parse as cut."""
    kept: list[str] = []
    passes: set[tuple[int, int]] = set()
    bounds = [*cut.starts, len(lines) + 1]
    for index, (first, end) in enumerate(itertools.pairwise(bounds)):
        indent = cut.indent[index]
        if index in keep:
            kept += lines[first - 1 : end - 1]
        elif indent is not None and cut.top[index] in keep:
            kept += [indent + "pass"] + [""] * (end - first - 1)
            passes.add((first, len(indent)))
        else:
            kept += [""] * (end - first)
    try:
        tree = parse_python("\n".join(kept), path)
    except (SyntaxError, ValueError):
        return None
    landed = {
        (stmt.lineno, stmt.col_offset)
        for node in tree.body
        if isinstance(node, ast.ClassDef) and node.lineno in cut.classes
        for stmt in node.body
        if isinstance(stmt, ast.Pass)
    }
    return tree if passes <= landed else None


def parse_python(text: str, path: str) -> ast.Module:
    """``ast.parse``, with the cyclic garbage collector paused.

    A parse allocates one object per node, and each allocation burst would
    start a full collection over everything alive; the nodes form no cycles,
    so pausing it costs nothing and saves about a third of the parse time.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        return ast.parse(text, filename=path, type_comments=False)
    finally:
        if paused:
            gc.enable()
