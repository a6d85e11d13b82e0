"""What ``from m import *`` takes from ``m``: its ``__all__`` as Python computes it (issue 48).

Read from the module's statements, never run.  The answer is an upper bound of
every list the module can end with, never a smaller one: a star import that
binds a name this reading leaves out would hide a use of that name (a false
clean).  So:

- a statement on ``__all__`` at module level (``=``, ``x: T =``, ``+=``,
  ``[:] =``, ``[i] =``, ``.extend``, ``.append``, ``.insert``, ``del``) is
  read in flow order; both branches of an ``if`` are joined (their union);
  inside a loop, ``try``, ``with`` or ``match`` every statement may run or not
  (a replacement there adds, ``del`` may leave the module without one);
- ``del __all__`` on some path (or no ``__all__`` at all): every public name;
- what cannot be read (a comprehension, a call, ``__all__`` filled by a
  decorator or a function, ``globals()["__all__"]``, any reference the reader
  does not know to leave the list alone) makes the list unknown: every name the
  module binds, private ones included, besides what was read;
- removals (``.remove``, ``.pop``, ``del __all__[i]``) are ignored: the bound
  stays an upper bound.

``other.__all__`` spliced in is named (``spliced``), for the symbol graph to
follow.  Built on the stdlib ``ast`` only; a test holds it to what Python's own
``from m import *`` binds on generated modules.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

__all__ = ["AllNames", "read_all"]

_NAME = "__all__"
#: methods of ``__all__`` that add nothing to it (removals keep an upper bound one)
_KEEPS = frozenset({"sort", "reverse", "index", "count", "copy", "remove", "pop", "clear"})
#: methods that may be looked up without changing the list (a bound method kept is not one)
_READ_METHODS = frozenset({"index", "count", "copy"})
#: builtins that read a list passed to them and keep no reference to it
_READERS = frozenset(
    {"len", "sorted", "list", "tuple", "set", "frozenset", "print", "repr", "str", "enumerate"}
)
#: values that copy a list (``list(other.__all__)``): read as their argument
_COPIES = frozenset({"list", "tuple", "sorted"})


@dataclass(frozen=True)
class AllNames:
    """An upper bound of the names ``from m import *`` takes, beyond the module's bindings.

    ``names``: the string constants ``__all__`` may hold; ``spliced``: the names
    ``X`` whose ``X.__all__`` it may hold; ``public``: on some path the module has
    no ``__all__`` (every public name it binds is taken too); ``every``: a value
    the reader cannot evaluate (every name the module binds, private ones
    included).  The default is a module without ``__all__``.
    """

    names: tuple[str, ...] = ()
    spliced: tuple[str, ...] = ()
    public: bool = True
    every: bool = False

    @property
    def exact(self) -> bool:
        """Is the list all there is (neither every public name nor every name)?"""
        return not (self.public or self.every)


@dataclass(frozen=True)
class _State:
    names: frozenset[str] = frozenset()
    spliced: frozenset[str] = frozenset()
    absent: bool = True  # may the module have no ``__all__`` here
    every: bool = False

    def join(self, other: _State) -> _State:
        return _State(
            self.names | other.names,
            self.spliced | other.spliced,
            self.absent or other.absent,
            self.every or other.every,
        )

    def add(self, value: _Value) -> _State:
        return _State(
            self.names | value.names,
            self.spliced | value.spliced,
            self.absent,
            self.every or value.every,
        )

    def replace(self, value: _Value) -> _State:
        if value.keeps:  # ``__all__ = __all__ + [...]``: what it held, and more
            return self.add(value)
        return _State(value.names, value.spliced, False, value.every)


@dataclass(frozen=True)
class _Value:
    names: frozenset[str] = frozenset()
    spliced: frozenset[str] = frozenset()
    every: bool = False
    keeps: bool = False  # holds the list ``__all__`` itself (``[*__all__, "x"]``)


_UNKNOWN = _Value(every=True)


def read_all(tree: ast.Module, text: str | None = None) -> AllNames:
    """The upper bound of the module's ``__all__`` (see the module's docstring).

    ``text``, the module's source: when it is ASCII and never spells ``__all__``,
    nothing in it touches the list (names made from escapes in strings,
    ``globals()["\\x5f_all__"]``, are out of reach, as every name made at run time).
    """
    if text is not None and text.isascii() and _NAME not in text:
        return AllNames()
    reader = _Reader()
    state = reader.run(tree.body, _State())
    spelt = len(reader.read) + reader.splices  # each spells ``__all__`` once in the text
    if text is not None and text.isascii() and text.count(_NAME) == spelt:
        pass  # every place that spells it was read: nothing else touches it
    elif not state.every and reader.stray(tree):
        state = _State(state.names, state.spliced, state.absent, every=True)
    return AllNames(
        tuple(sorted(state.names)), tuple(sorted(state.spliced)), state.absent, state.every
    )


class _Reader:
    """Module-level statements on ``__all__``, in flow order; notes the ``__all__`` it read."""

    def __init__(self) -> None:
        self.read: set[int] = set()  # ids of the ``__all__`` names a statement accounted for
        self.splices = 0  # the ``X.__all__`` read

    def run(self, body: Sequence[ast.stmt], state: _State) -> _State:
        for stmt in body:
            state = self.step(stmt, state)
        return state

    def maybe(self, body: Iterable[ast.stmt], state: _State) -> _State:
        """Statements each of which may run or not, any number of times (one pass is a fixpoint)."""
        for stmt in body:
            state = state.join(self.step(stmt, state))
        return state

    def step(self, stmt: ast.stmt, state: _State) -> _State:
        if isinstance(stmt, ast.If):
            return self.run(stmt.body, state).join(self.run(stmt.orelse, state))
        nested = _nested(stmt)
        if nested is not None:
            return self.maybe(nested, state)
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                state = self.assign(target, stmt.value, state)
            return state
        if isinstance(stmt, ast.AnnAssign):
            if stmt.value is not None:
                return self.assign(stmt.target, stmt.value, state)
            if _is_all(stmt.target):  # ``__all__: list[str]`` binds nothing
                self.read.add(id(stmt.target))
            return state
        if isinstance(stmt, ast.AugAssign) and _is_all(stmt.target):
            self.read.add(id(stmt.target))
            value = self.value(stmt.value) if isinstance(stmt.op, ast.Add) else _UNKNOWN
            return state.add(value)
        if isinstance(stmt, ast.Expr):
            return self.call(stmt.value, state)
        if isinstance(stmt, ast.Delete):
            return self.delete(stmt.targets, state)
        return state

    def assign(self, target: ast.expr, value: ast.expr, state: _State) -> _State:
        if _is_all(target):
            self.read.add(id(target))
            return state.replace(self.value(value))
        if isinstance(target, ast.Subscript) and _is_all(target.value):
            self.read.add(id(target.value))
            read = self.value(value)
            if _whole(target.slice):  # ``__all__[:] = v``: the list's content is v
                return state.add(read) if read.keeps else state.replace(read)
            if isinstance(target.slice, ast.Slice):
                return state.add(read)
            return state.add(self.value(ast.List(elts=[value], ctx=ast.Load())))
        return state

    def call(self, node: ast.expr, state: _State) -> _State:
        """``__all__.extend(v)``, ``.append(x)``, ``.insert(i, x)``; a removal leaves a bound."""
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and _is_all(node.func.value)
        ):
            return state
        self.read.add(id(node.func.value))
        method, args = node.func.attr, node.args
        if node.keywords:
            return state.add(_UNKNOWN)
        if method == "extend" and len(args) == 1:
            return state.add(self.value(args[0]))
        if method == "append" and len(args) == 1:
            return state.add(self.value(ast.List(elts=[args[0]], ctx=ast.Load())))
        if method == "insert" and len(args) == 2:
            return state.add(self.value(ast.List(elts=[args[1]], ctx=ast.Load())))
        if method in _KEEPS:
            return state
        return state.add(_UNKNOWN)

    def delete(self, targets: Sequence[ast.expr], state: _State) -> _State:
        for target in targets:
            if _is_all(target):
                self.read.add(id(target))
                state = _State()
            elif isinstance(target, ast.Subscript) and _is_all(target.value):
                self.read.add(id(target.value))  # fewer names: the bound holds
            elif isinstance(target, ast.Tuple | ast.List):
                state = self.delete(target.elts, state)
        return state

    def value(self, node: ast.expr) -> _Value:
        """The names a value may hold: string constants and ``X.__all__`` splices."""
        if isinstance(node, ast.List | ast.Tuple):
            parts = [self.element(element) for element in node.elts]
            return _union(parts)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return _union([self.value(node.left), self.value(node.right)])
        if _is_all(node):
            self.read.add(id(node))
            return _Value(keeps=True)
        if _is_splice(node):
            self.splices += 1
            return _Value(spliced=frozenset({node.value.id}))  # type: ignore[attr-defined]
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in _COPIES
            and len(node.args) == 1
            and not node.keywords
        ):
            return self.value(node.args[0])
        return _UNKNOWN

    def element(self, node: ast.expr) -> _Value:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return _Value(names=frozenset({node.value}))
        if isinstance(node, ast.Starred):
            return self.value(node.value)
        return _UNKNOWN

    def stray(self, tree: ast.Module) -> bool:
        """Does anything else touch ``__all__`` (then it is not read here)?

        A name ``__all__`` no statement read and not a plain read of the list,
        the string ``"__all__"`` (``globals()["__all__"]``), an import, ``def``
        or ``class`` that binds it.
        """
        stack: list[tuple[ast.AST, ast.AST | None, ast.AST | None]] = [(tree, None, None)]
        while stack:
            node, parent, above = stack.pop()
            if type(node) is ast.Name:
                read = node.id != _NAME or id(node) in self.read
                if not read and not _plain_read(node, parent, above):
                    return True
                continue
            if _binds_all(node):
                return True
            stack.extend((child, node, parent) for child in ast.iter_child_nodes(node))
        return False


def _nested(stmt: ast.stmt) -> list[ast.stmt] | None:
    """The statements of a loop, ``try``, ``with`` or ``match``; ``None`` for any other."""
    if isinstance(stmt, ast.For | ast.AsyncFor | ast.While):
        return [*stmt.body, *stmt.orelse]
    if isinstance(stmt, ast.With | ast.AsyncWith):
        return list(stmt.body)
    if isinstance(stmt, ast.Match):
        return [s for case in stmt.cases for s in case.body]
    if isinstance(stmt, ast.Try) or type(stmt).__name__ == "TryStar":
        handlers = [s for handler in stmt.handlers for s in handler.body]  # type: ignore[attr-defined]
        return [*stmt.body, *handlers, *stmt.orelse, *stmt.finalbody]  # type: ignore[attr-defined]
    return None


def _binds_all(node: ast.AST) -> bool:
    """``"__all__"`` as a string, or an import, ``def`` or ``class`` that binds it."""
    if isinstance(node, ast.Constant):
        return node.value == _NAME
    if isinstance(node, ast.alias):
        return (node.asname or node.name) == _NAME
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name == _NAME
    return False


def _union(values: Iterable[_Value]) -> _Value:
    names: set[str] = set()
    spliced: set[str] = set()
    every = keeps = False
    for value in values:
        names |= value.names
        spliced |= value.spliced
        every = every or value.every
        keeps = keeps or value.keeps
    return _Value(frozenset(names), frozenset(spliced), every, keeps)


def _is_all(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == _NAME


def _is_splice(node: ast.expr) -> bool:
    """``X.__all__`` with ``X`` a plain name."""
    return (
        isinstance(node, ast.Attribute) and node.attr == _NAME and isinstance(node.value, ast.Name)
    )


def _whole(index: ast.expr) -> bool:
    """``[:]``: the slice that is the whole list."""
    return (
        isinstance(index, ast.Slice)
        and index.lower is None
        and index.upper is None
        and index.step is None
    )


def _plain_read(node: ast.Name, parent: ast.AST | None, above: ast.AST | None) -> bool:
    """A load of ``__all__`` that cannot change it: a test, a loop over it, a copy, a reader.

    ``parent`` holds the name, ``above`` holds ``parent``.
    """
    if not isinstance(node.ctx, ast.Load):
        return False
    if isinstance(parent, ast.Compare | ast.BinOp | ast.comprehension | ast.For | ast.AsyncFor):
        return not (isinstance(parent, ast.For | ast.AsyncFor) and parent.target is node)
    if isinstance(parent, ast.Subscript):
        return isinstance(parent.ctx, ast.Load)
    if isinstance(parent, ast.Starred):
        return isinstance(above, ast.List | ast.Tuple | ast.Set)
    if isinstance(parent, ast.Attribute):
        return parent.attr in _READ_METHODS
    if isinstance(parent, ast.Call):
        func = parent.func
        return isinstance(func, ast.Name) and func.id in _READERS and node in parent.args
    if isinstance(parent, ast.Return):  # ``def __dir__(): return __all__``
        return isinstance(above, ast.FunctionDef) and above.name == "__dir__"
    return False
