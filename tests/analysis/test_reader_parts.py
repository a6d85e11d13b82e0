"""The one reader's parts on source strings: chains, imports, star imports and alias values.

:mod:`.test_reader` holds the list of constructs to the engines; here each function of
:mod:`pytest_cleantree.analysis.reader` is stated on its own.
"""

from __future__ import annotations

import ast

import pytest

from pytest_cleantree.analysis.bindings import scope_bindings
from pytest_cleantree.analysis.reader import (
    STATEMENT_FIELDS,
    Key,
    absolute_module,
    assignment_values,
    attribute_chain,
    binding_target,
    from_target,
    import_source,
    import_targets,
    iter_imports,
    module_bindings,
    own_name,
    refers_to,
    resolve_relative,
    star_bindings,
    value_chain,
)


def _expr(source: str) -> ast.expr:
    stmt = ast.parse(source).body[0]
    assert isinstance(stmt, ast.Expr)
    return stmt.value


def test_attribute_chain_and_value_chain() -> None:
    chain = _expr("a.b.c")
    assert isinstance(chain, ast.Attribute)
    base, suffix = attribute_chain(chain)
    assert (ast.unparse(base), suffix) == ("a", ".b.c")
    assert attribute_chain(_expr("a.b"))[1] == ".b"  # type: ignore[arg-type]
    on_call = _expr("f().b.c")
    assert isinstance(on_call, ast.Attribute)
    assert (ast.unparse(attribute_chain(on_call)[0]), attribute_chain(on_call)[1]) == (
        "f()",
        ".b.c",
    )
    found = value_chain(chain)
    assert found is not None
    assert (found[0].id, found[1]) == ("a", ".b.c")
    name = value_chain(_expr("x"))
    assert name is not None
    assert (name[0].id, name[1]) == ("x", "")
    assert value_chain(on_call) is None
    assert value_chain(_expr("1")) is None


def test_refers_to_is_what_resolution_answered_for_a_name_or_a_chain() -> None:
    resolved: dict[Key, tuple[str, ...]] = {
        ("Attribute", 1, 0, 1, 7): ("os.path",),
        ("Name", 1, 0, 1, 2): ("os",),
        ("Attribute", 1, 0, 1, 5): ("x",),
    }
    assert refers_to(_expr("os.path"), resolved) == ("os.path",)
    assert refers_to(_expr("os"), resolved) == ("os",)
    assert refers_to(_expr("f().b"), resolved) == ()  # a chain on no name: no alias
    assert refers_to(_expr("os.pat"), {}) == ()
    assert refers_to(_expr("1 + 2"), resolved) == ()


@pytest.mark.parametrize(
    ("module", "level", "target", "is_package", "expected"),
    [
        ("a.b.c", 0, "x.y", False, "x.y"),
        ("m", 0, None, False, ""),
        ("a.b.c", 1, "x", False, ".a.b.x"),
        ("a.b.c", 2, "x", False, ".a.x"),
        ("a.b.c.d.e", 2, "x", False, ".a.b.c.x"),
        ("a.b.c.d", 3, "x", True, ".a.b.x"),
        ("a.b.c", 3, None, False, "."),
        ("a.b.c", 5, "x", False, ".x"),
        ("a.b", 1, None, True, ".a.b"),
        ("a.b", 2, "x", True, ".a.x"),
        ("", 1, "x", False, ".x"),
        ("", 1, "x", True, ".x"),
    ],
)
def test_absolute_module(
    module: str, level: int, target: str | None, is_package: bool, expected: str
) -> None:
    assert absolute_module(module, level, target, is_package=is_package) == expected


def test_from_target_and_own_name() -> None:
    assert from_target("a.b", "c") == "a.b.c"
    assert from_target("", "c") == "c"
    assert own_name("pkg.mod", "f") == ".pkg.mod.f"


def test_import_targets_of_each_import_form() -> None:
    tree = ast.parse(
        "import a.b\nimport a.b as c, d\nfrom .m import x as y, z\nfrom .. import *\n"
        "from k import w\nimport e.f.g\n"
    )
    got = [list(import_targets(stmt, "p.q", is_package=False)) for stmt in tree.body]  # type: ignore[arg-type]
    assert got == [
        [("a", "a")],
        [("c", "a.b"), ("d", "d")],
        [("y", ".p.m.x"), ("z", ".p.m.z")],
        [],
        [("w", "k.w")],
        [("e", "e")],
    ]
    relative = ast.parse("from . import s\n").body[0]
    assert list(import_targets(relative, "p.q", is_package=True)) == [("s", ".p.q.s")]  # type: ignore[arg-type]


def test_binding_target_of_the_binding_model_s_imports() -> None:
    source = "import a.b as c\nfrom .m import x as y\nfrom . import z\n"
    bindings = {b.name: b for b in scope_bindings(ast.parse(source)).bindings}
    targets = {
        name: binding_target(binding, "p.q", is_package=False)  # type: ignore[arg-type]
        for name, binding in bindings.items()
    }
    assert targets == {"c": "a.b", "y": ".p.m.x", "z": ".p.z"}
    z = bindings["z"]
    assert binding_target(z, "p.q", is_package=True) == ".p.q.z"  # type: ignore[arg-type]


NESTED = """\
import a
def f():
    import b
    class C:
        from c import d
if x:
    import e
else:
    import f2
try:
    import g
except E:
    import h
else:
    import i
finally:
    import j
for _ in x:
    import k
else:
    import l
while x:
    import m
with x:
    import n
match v:
    case 1:
        import o
async def af():
    async for _ in x:
        import p
    async with x:
        import q
x = [__import__('zz') for _ in ()]
"""


def test_iter_imports_finds_every_import_statement_at_any_depth() -> None:
    found = sorted(stmt.names[0].name for stmt in iter_imports(ast.parse(NESTED).body))
    assert found == [
        "a",
        "b",
        "d",
        "e",
        "f2",
        "g",
        "h",
        "i",
        "j",
        "k",
        "l",
        "m",
        "n",
        "o",
        "p",
        "q",
    ]


def test_statement_fields_are_the_fields_that_hold_statements() -> None:
    assert STATEMENT_FIELDS[ast.Module] == ("body",)
    assert STATEMENT_FIELDS[ast.If] == ("body", "orelse")
    assert STATEMENT_FIELDS[ast.Try] == ("body", "orelse", "finalbody", "handlers")
    assert STATEMENT_FIELDS[ast.Match] == ("cases",)
    assert STATEMENT_FIELDS[getattr(ast, "TryStar")]  # noqa: B009 - 3.11+ == ("body", "orelse", "finalbody", "handlers")
    assert ast.Assign not in STATEMENT_FIELDS


def test_module_bindings_are_the_defined_names_a_pattern_ends_with() -> None:
    scope = scope_bindings(ast.parse("import os\nA = 1\ndef f(): pass\nclass C: pass\n"))
    assert module_bindings(scope, {"A", "f", "os", "g"}) == frozenset({"A", "f"})


def test_star_bindings_name_the_star_module_s_names() -> None:
    scope = scope_bindings(
        ast.parse("from x import *\nfrom .y import *\nfrom . import *\nfrom z import *\n")
    )
    stars = {
        "x": frozenset({"a"}),
        "pkg.y": frozenset({"c"}),
        "other.pkg.y": frozenset({"c", "d"}),
        "pkg": frozenset({"e"}),
        "y": frozenset({"f"}),
    }
    assert star_bindings(scope, "pkg.mod", stars, False) == {
        "a": ("x.a",),
        "c": ("pkg.y.c", "other.pkg.y.c"),
        "d": ("other.pkg.y.d",),
        "e": ("pkg.e",),
    }
    # a package's relative star import is from the package itself
    assert star_bindings(scope, "pkg", stars, True) == {
        "a": ("x.a",),
        "c": ("pkg.y.c", "other.pkg.y.c"),
        "d": ("other.pkg.y.d",),
        "e": ("pkg.e",),
    }
    twice = scope_bindings(ast.parse("from x import *\nfrom x import *\n"))
    assert star_bindings(twice, "m", {"x": frozenset({"a"})}, False) == {"a": ("x.a",)}


def test_assignment_values_are_the_statements_that_can_make_an_alias() -> None:
    tree = ast.parse(
        "def f(a, b=os.sep, /, c=1, *, d, e=g.h, **k): pass\n"
        "async def h(x=y): pass\n"
        "lambda q=1: q\n"
        "A = B = os.path\nA.b = c\nA, B = t\nC: int = d\nD: int\nE += 1\n"
        "class K:\n    F = g\n"
    )
    got = sorted(
        ([(n.id, n.lineno, n.col_offset, type(n.ctx).__name__) for n in names], ast.unparse(v))
        for names, v in assignment_values(tree)
    )
    assert got == [
        ([], "c"),
        ([], "t"),
        ([("A", 4, 0, "Store"), ("B", 4, 4, "Store")], "os.path"),
        ([("C", 7, 0, "Store")], "d"),
        ([("F", 11, 4, "Store")], "g"),
        ([("b", 1, 9, "Store")], "os.sep"),
        ([("c", 1, 22, "Store")], "1"),
        ([("e", 1, 33, "Store")], "g.h"),
        ([("x", 2, 12, "Store")], "y"),
    ]


@pytest.mark.parametrize(
    ("module", "is_package", "level", "target", "expected"),
    [
        ("a.b.c", False, 1, None, "a.b"),
        ("a.b.c", False, 1, "d", "a.b.d"),
        ("a.b", True, 1, "d", "a.b.d"),
        ("a.b", True, 2, None, "a"),
        ("a.b.c", False, 3, "x", "x"),
        ("a.b.c", False, 3, None, None),
        ("a.b.c", False, 4, "x", None),
        ("a", False, 0, "os.path", "os.path"),
    ],
)
def test_resolve_relative(
    module: str, is_package: bool, level: int, target: str | None, expected: str | None
) -> None:
    assert resolve_relative(module, is_package, level, target) == expected


def test_a_relative_import_in_a_module_at_the_root() -> None:
    assert resolve_relative("", True, 1, "x") == "x"
    assert resolve_relative("", True, 1, None) is None


def test_import_source_names_the_absolute_module_of_a_from_import_or_none() -> None:
    scope = scope_bindings(ast.parse("from ..a import b\nfrom . import *\nfrom ... import c"))
    sources = [import_source(b, "p.q.m", is_package=False) for b in scope.bindings]  # type: ignore[arg-type]
    assert sources == ["p.a", "p.q", None]
