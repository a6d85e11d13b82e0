"""jedi as an independent oracle for name resolution across a tree.

jedi's ``goto(follow_imports=True)`` follows a name through every import and
re-export to the statement that defines it; it shares no code with
:mod:`pytest_cleantree.names.exports`.  The project is the tree itself
(the tree's folder, then the running Python's paths; no guessing),
and goto prefers the source to typeshed stubs (``prefer_stubs=False``), so a
standard-library name lands in the ``.py`` file Python would import.
"""

from __future__ import annotations

import ast
import contextlib
import io
import tempfile
import tokenize
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import jedi


@dataclass(frozen=True, order=True)
class Place:
    """Where jedi says a name is defined: a file and a line (1 for a module)."""

    path: str
    line: int
    is_module: bool


#: one parso/jedi cache per process: workers writing one cache folder at once corrupt it
jedi.settings.cache_directory = tempfile.mkdtemp(prefix="jedi-cache-")


def open_project(tree: Path) -> jedi.Project:
    """The tree as a jedi project: its folder first on the path, then the running Python's."""
    return jedi.Project(
        tree, added_sys_path=[str(tree)], smart_sys_path=False, load_unsafe_extensions=False
    )


#: a folder whose files jedi finds under another (a copy of the standard library: jedi
#: resolves its modules in the running Python's own), as (jedi's folder, the copy)
REBASE: list[tuple[str, str]] = []
#: places jedi lands on that stand for others: ``os.path`` is ``ntpath`` to jedi (it
#: reads both branches of ``os``), ``posixpath`` on every POSIX machine
MOVE: dict[Place, Place] = {}


@contextlib.contextmanager
def rebased(folder: str, copy: str, moves: dict[Place, Place] | None = None) -> Iterator[None]:
    """While inside: jedi's places under ``folder`` stand for ``copy`` (and ``moves``); after,
    as before, so that a test's copy never rebases another test's places."""
    REBASE.append((folder, copy))
    MOVE.update(moves or {})
    try:
        yield
    finally:
        REBASE.remove((folder, copy))
        for place in moves or {}:
            MOVE.pop(place, None)


def goto(project: jedi.Project, path: Path, text: str, line: int, column: int) -> set[Place]:
    """Every definition jedi follows the name at (line, column) to (column 0-based)."""
    script = jedi.Script(text, path=path, project=project)
    found: set[Place] = set()
    for name in script.goto(line, column, follow_imports=True, prefer_stubs=False):
        if name.module_path is None or name.line is None:
            continue
        is_module = name.type == "module"
        where = str(name.module_path)
        for folder, copy in sorted(REBASE, key=lambda pair: -len(pair[0])):
            if where.startswith(folder + "/"):  # the most specific folder: site-packages
                where = copy + where[len(folder) :]  # lies inside the standard library's
                break
        place = Place(where, 1 if is_module else name.line, is_module)
        found.add(MOVE.get(place, place))
    return found


def definition_of(project: jedi.Project, tree: Path, qualified: str) -> set[Place]:
    """Where jedi says ``qualified`` (``module.name``) is defined, asked as an import would."""
    module, _, name = qualified.rpartition(".")
    snippet = f"from {module} import {name}\n"
    return goto(project, tree / "__oracle__.py", snippet, 1, len(snippet) - 1 - len(name))


def name_tokens(text: str, names: Iterable[str]) -> Iterator[tuple[int, int]]:
    """(line, column) of each NAME token spelling one of ``names``."""
    wanted = set(names)
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.NAME and token.string in wanted:
            yield token.start


def jedi_uses(
    tree: Path,
    qualified: str,
    *,
    names: Iterable[str] = (),
    files: Iterable[Path] | None = None,
    defined: Iterable[Place] = (),
) -> set[tuple[str, int]]:
    """(path relative to ``tree``, line) of every use jedi resolves to ``qualified``'s definition.

    A use is a NAME token; only tokens spelling the last part of ``qualified``,
    or one of ``names`` (the local names of renamed re-exports), are asked
    about: jedi is asked per token, and asking every token of a tree is slow.
    The definition itself is among the uses.  ``defined``: more places that are
    the definition (jedi's typeshed may put it elsewhere than the source does).
    """
    project = open_project(tree)
    target = definition_of(project, tree, qualified) | set(defined)
    if not target:
        raise LookupError(f"jedi finds no definition of {qualified!r} in {tree}")
    spelled = {qualified.rpartition(".")[2], *names}
    found: set[tuple[str, int]] = set()
    for path in sorted(files if files is not None else tree.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        for line, column in name_tokens(text, spelled):
            if goto(project, path, text, line, column) & target:
                found.add((path.relative_to(tree).as_posix(), line))
    return found


@dataclass(frozen=True)
class ImportedName:
    """One ``from X import Y`` of a file: X made absolute, Y's own position."""

    path: Path
    module: str
    name: str
    line: int
    column: int


def imported_names(path: Path, module: str, is_package: bool, text: str) -> Iterator[ImportedName]:
    """Each name a ``from ... import`` statement of the file takes (stars left out)."""
    from pytest_cleantree.analysis.reader import resolve_relative

    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.ImportFrom):
            continue
        source = resolve_relative(module, is_package, node.level, node.module)
        if source is None:
            continue
        for alias in node.names:
            if alias.name != "*":
                yield ImportedName(path, source, alias.name, alias.lineno, alias.col_offset)
