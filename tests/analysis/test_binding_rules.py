"""The binding model's rules, each on a source string: Python's ``symtable`` says which names a
scope binds, and the model must bind those; each record's fields and the ``lines``
filter are the module's contract.

These are the direct tests of ``analysis/bindings.py`` (its mutation run uses them, issue 37);
``test_bindings.py`` holds the model to ``symtable`` on the standard library, and its consumers.
"""

from __future__ import annotations

import ast
import symtable
import sys
import textwrap

import pytest

from pytest_cleantree.analysis.bindings import (
    Argument,
    Assignment,
    Binding,
    Definition,
    Deletion,
    Global,
    Importation,
    ImportationFrom,
    Nonlocal,
    StarImportation,
    scope_bindings,
    spans,
)


def _label(binding: Binding) -> str:
    if isinstance(binding, Assignment):
        return f"Assignment:{binding.via}"
    if isinstance(binding, Definition):
        return f"Definition:{binding.kind}"
    return type(binding).__name__


def _scope(tree: ast.Module, which: str) -> ast.AST:
    """``module``, or the first node of that type (``FunctionDef``, ``ListComp``, ...)."""
    if which == "module":
        return tree
    return next(node for node in ast.walk(tree) if type(node).__name__ == which)


def _found(source: str, which: str = "module") -> set[tuple[str, str]]:
    tree = ast.parse(textwrap.dedent(source))
    return {(b.name, _label(b)) for b in scope_bindings(_scope(tree, which)).bindings}


ROWS = [
    # imports
    ("import", "import os", "module", {("os", "Importation")}),
    ("import-dotted", "import os.path", "module", {("os", "Importation")}),
    ("import-as", "import os.path as p", "module", {("p", "Importation")}),
    (
        "from",
        "from a import b, c as d",
        "module",
        {("b", "ImportationFrom"), ("d", "ImportationFrom")},
    ),
    ("from-relative", "from . import x", "module", {("x", "ImportationFrom")}),
    ("star", "from a import *", "module", {("*", "StarImportation")}),
    # assignments
    ("assign", "x = y = 1", "module", {("x", "Assignment:assign"), ("y", "Assignment:assign")}),
    ("augmented", "x += 1", "module", {("x", "Assignment:augmented")}),
    (
        "annotated",
        "x: int = 1\ny: int",
        "module",
        {("x", "Assignment:annotated"), ("y", "Assignment:annotated")},
    ),
    ("annotated-parenthesised", "(x): int", "module", set()),
    (
        "unpack",
        "a, [b, *c] = v",
        "module",
        {("a", "Assignment:unpack"), ("b", "Assignment:unpack"), ("c", "Assignment:unpack")},
    ),
    ("attribute-and-subscript", "a.b = 1\nc[d] = 2", "module", set()),
    (
        "for",
        "for a, b in c:\n    pass\nelse:\n    e = 1",
        "module",
        {("a", "Assignment:for"), ("b", "Assignment:for"), ("e", "Assignment:assign")},
    ),
    (
        "async-for",
        "async def f():\n    async for a in b:\n        pass",
        "AsyncFunctionDef",
        {("a", "Assignment:for")},
    ),
    (
        "with",
        "with a as b, c as (d, e):\n    pass",
        "module",
        {("b", "Assignment:with"), ("d", "Assignment:with"), ("e", "Assignment:with")},
    ),
    (
        "async-with",
        "async def f():\n    async with a as b:\n        pass",
        "AsyncFunctionDef",
        {("b", "Assignment:with")},
    ),
    (
        "except",
        "try:\n    pass\nexcept E as e:\n    f = 1\nfinally:\n    g = 2",
        "module",
        {("e", "Assignment:except"), ("f", "Assignment:assign"), ("g", "Assignment:assign")},
    ),
    (
        "except-star",
        "try:\n    pass\nexcept* E as e:\n    pass",
        "module",
        {("e", "Assignment:except")},
    ),
    ("walrus", "if (n := 10) > 5:\n    pass", "module", {("n", "Assignment:walrus")}),
    ("walrus-in-comprehension", "[(y := x) for x in z]", "module", {("y", "Assignment:walrus")}),
    (
        "walrus-in-comprehension-in-def",
        "def f():\n    return [(y := x) for x in z]",
        "FunctionDef",
        {("y", "Assignment:walrus")},
    ),
    (
        "walrus-in-default",
        "def f(a=(b := 1)):\n    pass",
        "module",
        {("f", "Definition:def"), ("b", "Assignment:walrus")},
    ),
    (
        "walrus-in-lambda-is-the-lambda's",
        "f = lambda: (y := 1)",
        "module",
        {("f", "Assignment:assign")},
    ),
    (
        "comprehension-targets",
        "[a for a, b in c for d in a if (e := d)]",
        "ListComp",
        {
            ("a", "Assignment:comprehension"),
            ("b", "Assignment:comprehension"),
            ("d", "Assignment:comprehension"),
        },
    ),
    ("comprehension-targets-are-not-the-module's", "{k: v for k, v in x}", "module", set()),
    # match
    (
        "match-as",
        "match x:\n    case [a, (1 | 2) as c]:\n        pass",
        "module",
        {("a", "Assignment:match"), ("c", "Assignment:match")},
    ),
    (
        "match-star",
        "match x:\n    case [1, *rest]:\n        pass",
        "module",
        {("rest", "Assignment:match")},
    ),
    (
        "match-mapping-rest",
        "match x:\n    case {'k': v, **rest}:\n        pass",
        "module",
        {("v", "Assignment:match"), ("rest", "Assignment:match")},
    ),
    (
        "match-class-and-guard",
        "match x:\n    case P(a=b) if (g := b):\n        c = 1",
        "module",
        {("b", "Assignment:match"), ("g", "Assignment:walrus"), ("c", "Assignment:assign")},
    ),
    # declarations, deletion
    (
        "global",
        "def f():\n    global a\n    a = 1",
        "FunctionDef",
        {("a", "Global"), ("a", "Assignment:assign")},
    ),
    ("nonlocal", "def f():\n    nonlocal a", "FunctionDef", {("a", "Nonlocal")}),
    (
        "del",
        "del a, (b, c), d.e",
        "module",
        {("a", "Deletion"), ("b", "Deletion"), ("c", "Deletion")},
    ),
    # functions and classes
    (
        "parameters",
        "def f(a, /, b=1, *c, d, e=2, **g):\n    h = 1",
        "FunctionDef",
        {
            ("a", "Argument"),
            ("b", "Argument"),
            ("c", "Argument"),
            ("d", "Argument"),
            ("e", "Argument"),
            ("g", "Argument"),
            ("h", "Assignment:assign"),
        },
    ),
    ("lambda-parameters", "f = lambda a, *b: a", "Lambda", {("a", "Argument"), ("b", "Argument")}),
    (
        "def-and-class",
        "@d\ndef f():\n    x = 1\nasync def g():\n    pass\nclass C:\n    y = 2",
        "module",
        {("f", "Definition:def"), ("g", "Definition:def"), ("C", "Definition:class")},
    ),
    (
        "class-body",
        "class C(B):\n    x = 1\n    def m(self):\n        z = 3",
        "ClassDef",
        {("x", "Assignment:assign"), ("m", "Definition:def")},
    ),
    (
        "nested-def-is-its-own",
        "def f():\n    def g():\n        x = 1",
        "FunctionDef",
        {("g", "Definition:def")},
    ),
    (
        "blocks",
        "if a:\n    b = 1\nelif c:\n    d = 2\nwhile e:\n    f = 3\nelse:\n    g = 4",
        "module",
        {(n, "Assignment:assign") for n in "bdfg"},
    ),
]
if sys.version_info >= (3, 12):  # PEP 695
    ROWS += [
        ("type-alias", "type X = int", "module", {("X", "Definition:type")}),
        ("type-params", "def f[T, *Ts, **P]():\n    pass", "FunctionDef",
         {("T", "Definition:typeparam"), ("Ts", "Definition:typeparam"),
          ("P", "Definition:typeparam")}),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("source", "which", "expected"), [r[1:] for r in ROWS], ids=[r[0] for r in ROWS]
)
def test_each_construct_binds_exactly_these(
    source: str, which: str, expected: set[tuple[str, str]]
) -> None:
    assert _found(source, which) == expected


def test_names_are_the_local_ones_and_defined_those_given_a_value() -> None:
    source = "def f(a):\n    global g\n    nonlocal n\n    g = n = b = 1\n    del c\n"
    scope = scope_bindings(_scope(ast.parse(source), "FunctionDef"))
    assert scope.names == {"a", "b", "c"}
    assert scope.declared == {"g", "n"}
    assert scope.defined == {"b"}
    module = scope_bindings(ast.parse("from m import *\nimport os\nx = 1\n"))
    assert module.names == {"os", "x"}
    assert module.defined == {"x"}
    assert [(s.module, s.level) for s in module.stars] == [("m", 0)]


def test_an_assignment_holds_its_value_only_when_the_name_takes_it_whole() -> None:
    tree = ast.parse("a = b = v\nc, d = v\ne: T = w\nf += 1\nif (g := h):\n    pass\n")
    values = {
        b.name: ast.unparse(b.value) if b.value is not None else None
        for b in scope_bindings(tree).bindings
        if isinstance(b, Assignment)
    }
    assert values == {"a": "v", "b": "v", "c": None, "d": None, "e": "w", "f": None, "g": "h"}


def test_lines_skip_the_statements_that_span_none_of_them() -> None:
    tree = ast.parse("a = 1\nif x:\n    b = 2\n    c = 3\nd = 4\n")
    assert scope_bindings(tree, [3]).names == {"b"}
    assert scope_bindings(tree, []).names == frozenset()


def test_bound_gives_a_name_s_bindings_in_source_order() -> None:
    scope = scope_bindings(ast.parse("x = 1\ny = 2\nfor x in z:\n    pass\ndel x\n"))
    assert scope.bound("x") == (
        Assignment("x", None, 1, 0),
        Assignment("x", None, 3, 4, via="for"),
        Deletion("x", 5, 4),
    )
    assert scope.bound("absent") == ()


def test_a_node_that_is_no_scope_is_refused() -> None:
    statement = ast.parse("x = 1").body[0]
    with pytest.raises(TypeError, match=r"^not a scope: Assign$"):
        scope_bindings(statement)


# --------------------------------------------------------------------------- symtable as oracle

#: sources whose every ``def``, ``lambda`` and ``class`` scope, and the module, Python's own
#: ``symtable`` reads; no comprehension target in them (3.12 inlines list comprehensions and
#: reports their targets in the scope around them, which binds nothing: see test_bindings.py)
ORACLE = {
    "imports": "import a.b.c\nimport d.e as f\nfrom .g import h, i as j\nfrom k import *\n",
    "assignments": (
        "x = y = 1\na, [b, *c] = v\nd += 1\ne: int = 1\nf: int\n(g): int\n(h): int = 1\n"
        "i.j = 1\nk[(l := 0)] = 2\nm[(n := 0)]: int\no.p += (q := 1)\n(r, s), t = u\n"
    ),
    "blocks": (
        "for a, *b in (c := d):\n    e = 1\nelse:\n    f = 1\n"
        "while (g := h):\n    i = 1\nelse:\n    j = 1\n"
        "if (k := 1):\n    l = 1\nelif (m := 2):\n    n = 1\nelse:\n    o = 1\n"
    ),
    "with": "with a as b, (c := d) as [e, f.g]:\n    h = 1\nwith i:\n    j = 1\n",
    "try": (
        "try:\n    a = 1\nexcept (b := E) as c:\n    d = 1\nexcept F:\n    e = 1\n"
        "else:\n    f = 1\nfinally:\n    g = 1\n"
    ),
    "match": (
        "match (s := v):\n    case [1, a, *b]:\n        c = 1\n"
        "    case {'k': d, **e} if (g := d):\n        h = 1\n"
        "    case P(i, j=k) | Q(i, j=k):\n        pass\n"
        "    case (1 | 2) as m:\n        pass\n    case [*_]:\n        pass\n"
        "    case _:\n        n = 1\n"
    ),
    "definitions": (
        "@(a := d)\n"
        "def f(p: (b := T) = (c := 1), /, q=(cc := 1), *r: (qq := 1), t: (tt := 1) = (e := 2),"
        " **s: (ss := 1)) -> (g := R):\n"
        "    h = 1\n    return (i := 2)\n"
        "@(dc := d)\nclass C((j := B), metaclass=(k := M)):\n    l = 1\n"
        "    def m(self, *, z=(zz := 1)):\n        return (w := z)\n"
        "async def n():\n    async for o in p:\n        pass\n"
        "    async with q as r:\n        pass\n"
        "lam = lambda x, /, y=(yy := 1), *a, k=(kk := 1), **kw: (o := x)\n"
    ),
    "deletions": "del a, (b, [c]), d.e, f[(g := 1)]\n",
    "declarations": (
        "global x\nx = 1\n"
        "def f(a):\n    global b\n    b = 1\n    def g():\n        nonlocal a\n        a = 2\n"
        "        c = 3\n    del d\n"
        "class C:\n    global e\n    e = 1\n    h = 2\n"
    ),
    "statements": (
        "(a := 1)\nprint((b := 1))\nassert (c := 1), (d := 2)\n"
        "def f():\n    return (e := 1)\n    raise (g := E) from (h := F)\n"
        "    yield (i := 1)\n"
    ),
}


def _tables(table: symtable.SymbolTable) -> dict[tuple[str, int], symtable.SymbolTable]:
    found = {}
    for child in table.get_children():
        found[(child.get_name(), child.get_lineno())] = child
        found.update(_tables(child))
    return found


def _python_says(table: symtable.SymbolTable) -> set[str]:
    """The names Python makes local to a scope: assigned, imported, a ``def``/``class``, a
    parameter; in a function or class, less those declared ``global`` or ``nonlocal``."""
    symbols = table.get_symbols()
    names = {
        s.get_name()
        for s in symbols
        if s.is_assigned() or s.is_imported() or s.is_namespace() or s.is_parameter()
    }
    if table.get_type() != "module":
        names -= {s.get_name() for s in symbols if s.is_declared_global() or s.is_nonlocal()}
    return names


@pytest.mark.parametrize("source", ORACLE.values(), ids=ORACLE.keys())
def test_every_scope_binds_what_python_s_symtable_says(source: str) -> None:
    tree = ast.parse(source)
    table = symtable.symtable(source, "<rules>", "exec")
    tables = _tables(table)
    scopes: list[tuple[ast.AST, symtable.SymbolTable]] = [(tree, table)]
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            found = tables.get((node.name, node.lineno)) or tables[(node.name, first)]
            scopes.append((node, found))
        elif isinstance(node, ast.Lambda):
            scopes.append((node, tables[("lambda", node.lineno)]))
    for node, scope_table in scopes:
        where = getattr(node, "name", type(node).__name__)
        assert (where, set(scope_bindings(node).names)) == (where, _python_says(scope_table))


# --------------------------------------------------------------------------- each record in full


def _bindings(source: str, which: str = "module") -> tuple[Binding, ...]:
    return scope_bindings(_scope(ast.parse(textwrap.dedent(source)), which)).bindings


def test_imports_record_the_module_the_name_and_where() -> None:
    source = "import a.b.c, d\nimport e.f as g\nfrom ..h.i import j as k, l\nfrom . import *\n"
    assert _bindings(source) == (
        Importation("a", "a", 1, 7),
        Importation("d", "d", 1, 14),
        Importation("g", "e.f", 2, 7),
        ImportationFrom("k", "h.i", "j", 2, 3, 18),
        ImportationFrom("l", "h.i", "l", 2, 3, 26),
        StarImportation("", 1, 4, 14),
    )


def test_assignments_record_how_they_bind_and_where() -> None:
    source = (
        "a = b = v\n"
        "c, [d, *e] = v\n"
        "f += 1\n"
        "g: int = 1\n"
        "(h): int = 2\n"
        "i: int\n"
        "for j, *k in v:\n    pass\n"
        "with v as l, w as (m, n):\n    pass\n"
        "try:\n    pass\nexcept E as o:\n    pass\n"
        "if (p := (q := 1)):\n    pass\n"
    )
    assert _bindings(source) == (
        Assignment("a", None, 1, 0),
        Assignment("b", None, 1, 4),
        Assignment("c", None, 2, 0, "unpack"),
        Assignment("d", None, 2, 4, "unpack"),
        Assignment("e", None, 2, 8, "unpack"),
        Assignment("f", None, 3, 0, "augmented"),
        Assignment("g", None, 4, 0, "annotated"),
        Assignment("h", None, 5, 1, "annotated"),
        Assignment("i", None, 6, 0, "annotated"),
        Assignment("j", None, 7, 4, "for"),
        Assignment("k", None, 7, 8, "for"),
        Assignment("l", None, 9, 10, "with"),
        Assignment("m", None, 9, 19, "with"),
        Assignment("n", None, 9, 22, "with"),
        Assignment("o", None, 13, 0, "except"),
        Assignment("p", None, 15, 4, "walrus"),
        Assignment("q", None, 15, 10, "walrus"),
    )


def test_a_starred_target_alone_binds_as_its_statement_unpacks() -> None:
    # ``*a = v`` parses (the compiler, not the parser, refuses it), and the tool reads what
    # parses: a starred target unpacks, for an assignment as inside a tuple
    source = "*a = v\nfor *b in v:\n    pass\nwith v as *c:\n    pass\n"
    assert _bindings(source) == (
        Assignment("a", None, 1, 1, "unpack"),
        Assignment("b", None, 2, 5, "for"),
        Assignment("c", None, 4, 11, "with"),
    )


def test_the_value_is_the_node_a_name_takes_whole() -> None:
    tree = ast.parse("a = v\nb: T = w\nif (c := x):\n    pass\n(d): T = y\n")
    first, second, third, fourth = tree.body
    values = {b.name: b.value for b in scope_bindings(tree).bindings if isinstance(b, Assignment)}
    assert values["a"] is first.value  # type: ignore[attr-defined]
    assert values["b"] is second.value  # type: ignore[attr-defined]
    assert values["c"] is third.test.value  # type: ignore[attr-defined]
    assert values["d"] is fourth.value  # type: ignore[attr-defined]


def test_a_walrus_binds_before_the_names_its_statement_assigns() -> None:
    names = [b.name for b in _bindings("x = (y := 1)\nfor a in (b := c):\n    pass\n")]
    assert names == ["y", "x", "b", "a"]


def test_definitions_parameters_and_declarations_record_where() -> None:
    source = (
        "@deco\n"
        "def f(a, /, b, *c, d, **e):\n"
        "    global g\n"
        "    nonlocal h, i\n"
        "    del j, (k, [l])\n"
        "class C:\n"
        "    pass\n"
    )
    tree = ast.parse(source)
    assert scope_bindings(tree).bindings == (
        Definition("f", "def", 2, 0),
        Definition("C", "class", 6, 0),
    )
    assert scope_bindings(tree.body[0]).bindings == (
        Argument("a", 2, 6),
        Argument("b", 2, 12),
        Argument("c", 2, 16),
        Argument("d", 2, 19),
        Argument("e", 2, 24),
        Global("g", 3, 4),
        Nonlocal("h", 4, 4),
        Nonlocal("i", 4, 4),
        Deletion("j", 5, 8),
        Deletion("k", 5, 12),
        Deletion("l", 5, 16),
    )


def test_match_captures_record_where_and_a_wildcard_binds_nothing() -> None:
    source = (
        "match v:\n    case [a, *b, _] | {'k': a, **b}:\n        pass\n    case _:\n        pass\n"
    )
    # the captures of one pattern come in the order of a walk over it, not by position
    assert sorted(_bindings(source), key=lambda b: (b.line, b.col)) == [
        Assignment("a", None, 2, 10, "match"),
        Assignment("b", None, 2, 13, "match"),
        Assignment("b", None, 2, 22, "match"),
        Assignment("a", None, 2, 28, "match"),
    ]


def test_a_comprehension_binds_its_targets_and_not_its_walrus() -> None:
    tree = ast.parse("[(w := a) for a, *b in c if (y := a) for d in a]\n")
    comprehension = tree.body[0].value  # type: ignore[attr-defined]
    assert scope_bindings(comprehension).bindings == (
        Assignment("a", None, 1, 14, "comprehension"),
        Assignment("b", None, 1, 18, "comprehension"),
        Assignment("d", None, 1, 41, "comprehension"),
    )
    assert {b.name for b in scope_bindings(tree).bindings} == {"w", "y"}


def test_a_lambda_binds_its_parameters_and_the_walrus_in_its_body() -> None:
    tree = ast.parse("f = lambda a, b=(c := 1): (d := a)\n")
    lam = tree.body[0].value  # type: ignore[attr-defined]
    assert scope_bindings(lam).bindings == (
        Argument("a", 1, 11),
        Argument("b", 1, 14),
        Assignment("d", None, 1, 27, "walrus"),
    )
    assert scope_bindings(tree).names == {"f", "c"}


# --------------------------------------------------------------------------- global at module level


def test_a_module_s_global_declaration_leaves_its_names_its_own() -> None:
    scope = scope_bindings(ast.parse("global x, y\nx = 1\n"))
    assert scope.names == {"x"}
    assert scope.defined == {"x"}
    assert scope.declared == frozenset()
    assert scope.globals == {"x", "y"}
    function = scope_bindings(ast.parse("def f():\n    global x\n    x = 1\n").body[0])
    assert function.names == frozenset()
    assert function.globals == {"x"}


# --------------------------------------------------------------------------- the lines filter


def test_spans_counts_the_decorators_and_every_line_to_the_end() -> None:
    tree = ast.parse("x = 0\n@a\n@b\ndef f(\n    p,\n):\n    pass\ny = 1\n")
    definition = tree.body[1]
    assert [line for line in range(1, 10) if spans(definition, [line])] == [2, 3, 4, 5, 6, 7]
    assert not spans(definition, [1, 8])
    assert spans(definition, [1, 5, 9])
    assert not spans(definition, [])
    assert not spans(definition, [0, 1, 8, 9])
    assert [line for line in range(1, 10) if spans(tree.body[0], [line])] == [1]


def test_lines_keep_the_statements_that_span_one_of_them() -> None:
    source = (
        "a = 1\n"
        "@(b := d)\n"
        "def f():\n"
        "    c = 1\n"
        "try:\n"
        "    e = 1\n"
        "except E as g:\n"
        "    h = 1\n"
        "except F as i:\n"
        "    j = 1\n"
        "    k = 1\n"
        "else:\n"
        "    l = 1\n"
        "finally:\n"
        "    m = 1\n"
    )
    tree = ast.parse(source)
    names = {}
    for line in range(1, 16):
        names[line] = {b.name for b in scope_bindings(tree, [line]).bindings}
    assert names == {
        1: {"a"},
        2: {"b", "f"},
        3: {"b", "f"},
        4: {"b", "f"},
        5: set(),
        6: {"e"},
        7: {"g"},
        8: {"g", "h"},
        9: {"i"},
        10: {"i", "j"},
        11: {"i", "k"},
        12: set(),
        13: {"l"},
        14: set(),
        15: {"m"},
    }
    assert {b.name for b in scope_bindings(tree, [7, 11]).bindings} == {"g", "i", "k"}
    assert {b.name for b in scope_bindings(tree, None).bindings} == set("abfegihijklm")


# --------------------------------------------------------------------------- PEP 695

#: a def's and a class's type parameters, and a type alias
PEP695 = "def f[T: int, *Ts, **P](a):\n    pass\nclass C[K]:\n    x = 1\ntype A[V] = list[V]\n"
#: each statement's type parameters as 3.12's parser places them: (node, name, line, col)
PEP695_PARAMS = [
    [("TypeVar", "T", 1, 6), ("TypeVarTuple", "Ts", 1, 14), ("ParamSpec", "P", 1, 19)],
    [("TypeVar", "K", 3, 8)],
    [("TypeVar", "V", 5, 7)],
]


def _pep695_node(kind: str, base: type[ast.AST], **fields: object) -> ast.AST:
    """3.12's node class of that name; before 3.12, a class of that name and those fields."""
    made = getattr(ast, kind, None) or type(kind, (base,), {"_fields": tuple(fields)})
    return made(**fields)  # type: ignore[no-any-return]


def _pep695_tree() -> ast.Module:
    """``PEP695``'s tree as 3.12 parses it, built by hand on the tree of the same code without
    PEP 695 (only the nodes the model reads): older parsers know no PEP 695."""
    tree = ast.parse("def f(a):\n    pass\nclass C:\n    x = 1\nA = list[V]\n")
    for node, params in zip(tree.body, PEP695_PARAMS, strict=True):
        node.type_params = [  # type: ignore[attr-defined]
            _pep695_node(kind, ast.AST, name=name, lineno=line, col_offset=col)
            for kind, name, line, col in params
        ]
    assignment = tree.body[2]
    assert isinstance(assignment, ast.Assign)
    name = ast.Name("A", ast.Store(), lineno=5, col_offset=5)
    tree.body[2] = _pep695_node(  # type: ignore[assignment]
        "TypeAlias",
        ast.stmt,
        name=name,
        type_params=assignment.type_params,  # type: ignore[attr-defined]
        value=assignment.value,
        lineno=5,
        col_offset=0,
    )
    return tree


def _placed(tree: ast.Module) -> list[object]:
    params = [
        [(type(p).__name__, p.name, p.lineno, p.col_offset) for p in node.type_params]  # type: ignore[attr-defined]
        for node in tree.body
    ]
    alias = tree.body[2]
    return [params, type(alias).__name__, (alias.name.lineno, alias.name.col_offset)]  # type: ignore[attr-defined]


def test_type_parameters_are_their_def_s_or_class_s_and_a_type_alias_its_scope_s() -> None:
    trees = [_pep695_tree()]
    if sys.version_info >= (3, 12):  # the hand-built tree is the parser's, where there is one
        parsed = ast.parse(PEP695)
        assert _placed(parsed) == _placed(trees[0]) == [PEP695_PARAMS, "TypeAlias", (5, 5)]
        trees.append(parsed)
    for tree in trees:
        function, klass, _ = tree.body
        assert [b for b in scope_bindings(function).bindings if isinstance(b, Definition)] == [
            Definition("T", "typeparam", 1, 6),
            Definition("Ts", "typeparam", 1, 14),
            Definition("P", "typeparam", 1, 19),
        ]
        assert scope_bindings(function).names == {"a", "T", "Ts", "P"}
        assert scope_bindings(klass).bindings == (
            Definition("K", "typeparam", 3, 8),
            Assignment("x", None, 4, 4),
        )
        assert scope_bindings(tree).bindings == (
            Definition("f", "def", 1, 0),
            Definition("C", "class", 3, 0),
            Definition("A", "type", 5, 5),
        )
