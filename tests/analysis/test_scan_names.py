"""The occurrence scan's qualified names: resolved names, the module's own, star imports,
the scopes that hide them, and where a dotted import's names stand (:mod:`.emit`)."""

from __future__ import annotations

import ast

import pytest
from scanning import scanned, where

from pytest_cleantree.analysis.reader import Key
from pytest_cleantree.analysis.scan import Scanner
from pytest_cleantree.analysis.text import compile_patterns
from pytest_cleantree.core.patterns import parse_pattern


def test_resolved_names_and_attributes_carry_their_qualified_names() -> None:
    source = "u.is_sm120()\nfast_ok()\n"
    resolved: dict[Key, tuple[str, ...]] = {
        ("Attribute", 1, 0, 1, 10): ("sglang.utils.is_sm120",),
        ("Name", 2, 0, 2, 7): ("sglang.utils.is_sm120",),
    }
    assert scanned(source, "sglang.utils.is_sm120", resolved=resolved) == [
        ("sglang.utils.is_sm120", 1, 2, "call", "is_sm120", ("sglang.utils.is_sm120",)),
        ("sglang.utils.is_sm120", 2, 0, "call", "fast_ok", ("sglang.utils.is_sm120",)),
    ]


MODULE_NAMES = """\
LIMIT = 3
OTHER = 1
def f():
    return LIMIT + OTHER
def g(LIMIT):
    return LIMIT
class C:
    LIMIT = 2
    x = LIMIT
    def m(self):
        return LIMIT
    def n(self):
    \tLIMIT = 0
    \treturn [LIMIT for _ in ()]
y = lambda LIMIT: LIMIT
z = lambda: LIMIT
"""


def test_a_module_name_used_where_no_scope_rebinds_it() -> None:
    assert where(scanned(MODULE_NAMES, "pkg.mod.LIMIT")) == [
        (1, 0, "assignment", "LIMIT"),
        (4, 11, "reference", "LIMIT"),
        (11, 15, "reference", "LIMIT"),
        (16, 12, "reference", "LIMIT"),
    ]
    assert scanned(MODULE_NAMES, "pkg.mod.LIMIT")[1][5] == (".pkg.mod.LIMIT",)
    # another module's name, or a module of another name, is not this one
    assert scanned(MODULE_NAMES, "pkg.other.LIMIT") == []
    assert scanned(MODULE_NAMES, "pkg.mod.LIMIT", module="pkg.other") == []


def test_a_resolved_name_keeps_its_qualified_names_once() -> None:
    source = "X = 1\nX\n"
    resolved: dict[Key, tuple[str, ...]] = {("Name", 2, 0, 2, 1): (".pkg.mod.X",)}
    assert scanned(source, "pkg.mod.X", resolved=resolved)[1] == (
        "pkg.mod.X",
        2,
        0,
        "reference",
        "X",
        (".pkg.mod.X",),
    )
    other: dict[Key, tuple[str, ...]] = {("Name", 2, 0, 2, 1): ("lib.X",)}
    assert scanned(source, "pkg.mod.X", resolved=other)[1][5] == ("lib.X", ".pkg.mod.X")


STARRED = """\
from lib import *
sm120_f()
sm120_f.sub.g
def h(sm120_f):
    return sm120_f, sm120_f.sub
class K:
    sm120_f = 2
    def m(self):
        return sm120_f
sm120_f = 1
"""


def test_names_a_star_import_binds_stand_for_the_star_module_s() -> None:
    stars = {"lib": frozenset({"sm120_f"})}
    assert scanned(STARRED, "lib.sm120_f", stars=stars) == [
        ("lib.sm120_f", 2, 0, "call", "sm120_f", (".pkg.mod.sm120_f", "lib.sm120_f")),
        ("lib.sm120_f", 3, 12, "reference", "g", ("lib.sm120_f.sub.g",)),
        ("lib.sm120_f", 3, 8, "reference", "sub", ("lib.sm120_f.sub",)),
        ("lib.sm120_f", 3, 0, "reference", "sm120_f", (".pkg.mod.sm120_f", "lib.sm120_f")),
        ("lib.sm120_f", 9, 15, "reference", "sm120_f", (".pkg.mod.sm120_f", "lib.sm120_f")),
    ]
    # without the module's name, the star's names are still read
    assert where(scanned(STARRED, "lib.sm120_f", stars=stars, module="")) == [
        (2, 0, "call", "sm120_f"),
        (3, 12, "reference", "g"),
        (3, 8, "reference", "sub"),
        (3, 0, "reference", "sm120_f"),
        (9, 15, "reference", "sm120_f"),
    ]
    assert scanned(STARRED, "lib.sm120_f", stars={"other": frozenset({"sm120_f"})}) == []
    assert scanned(STARRED, "lib.sm120_f") == []


def test_a_star_name_resolved_already_is_not_repeated() -> None:
    resolved: dict[Key, tuple[str, ...]] = {
        ("Name", 2, 0, 2, 7): ("lib.sm120_f",),
        ("Attribute", 3, 0, 3, 11): ("lib.sm120_f.sub",),
    }
    hits = scanned(STARRED, "lib.sm120_f", resolved=resolved, stars={"lib": frozenset({"sm120_f"})})
    assert hits[0][5] == ("lib.sm120_f", ".pkg.mod.sm120_f")
    assert hits[2][5] == ("lib.sm120_f.sub",)


@pytest.mark.parametrize("module", ["pkg.mod", ""])
def test_plain_patterns_report_every_use_whatever_the_scope(module: str) -> None:
    assert where(scanned(MODULE_NAMES, "=LIMIT", module=module)) == [
        (1, 0, "assignment", "LIMIT"),
        (4, 11, "reference", "LIMIT"),
        (5, 6, "definition", "LIMIT"),
        (6, 11, "reference", "LIMIT"),
        (8, 4, "assignment", "LIMIT"),
        (9, 8, "reference", "LIMIT"),
        (11, 15, "reference", "LIMIT"),
        (13, 5, "assignment", "LIMIT"),
        (14, 13, "reference", "LIMIT"),
        (15, 11, "definition", "LIMIT"),
        (15, 18, "reference", "LIMIT"),
        (16, 12, "reference", "LIMIT"),
    ]


def test_a_definition_is_not_inside_the_module_a_pattern_names() -> None:
    source = "def f(): pass\nf()\nf\n"
    resolved: dict[Key, tuple[str, ...]] = {
        ("Name", 2, 0, 2, 1): (".pkg.mod.f",),
        ("Name", 3, 0, 3, 1): (".pkg.mod.f",),
    }
    # a use of the module's f is inside the module: a definition of it is not
    assert scanned(source, "pkg.mod", resolved=resolved) == [
        ("pkg.mod", 2, 0, "call", "f", (".pkg.mod.f",)),
        ("pkg.mod", 3, 0, "reference", "f", (".pkg.mod.f",)),
    ]
    assert where(scanned(source, "pkg.mod.f")) == [
        (1, 4, "definition", "f"),
        (2, 0, "call", "f"),
        (3, 0, "reference", "f"),
    ]


def test_a_use_after_a_definition_of_its_name_is_still_matched() -> None:
    source = "def f(): pass\nf()\n"
    resolved: dict[Key, tuple[str, ...]] = {("Name", 2, 0, 2, 1): (".pkg.mod.f",)}
    hits = scanned(source, "pkg.mod", "pkg.mod.f", resolved=resolved)
    assert [(pattern, line, kind) for pattern, line, _, kind, _, _ in hits] == [
        ("pkg.mod.f", 1, "definition"),
        ("pkg.mod", 2, "call"),
        ("pkg.mod.f", 2, "call"),
    ]


def test_a_dotted_import_over_lines_stands_on_the_line_of_its_matching_part() -> None:
    source = "import aa.\\\n  bb.\\\n  sm120\nfrom aa.\\\n  sm120 import c\nimport aa.\\\n  bb\n"
    assert scanned(source, "sm120") == [
        ("sm120", 3, 2, "import", "aa.bb.sm120", ("aa.bb.sm120",)),
        ("sm120", 5, 2, "import", "aa.sm120", ("aa.sm120",)),
    ]
    # a qualified pattern's needle is its last part
    assert where(scanned(source, "aa.bb")) == [
        (2, 2, "import", "aa.bb.sm120"),
        (7, 2, "import", "aa.bb"),
    ]
    # a pattern without a needle: the first part's line
    assert where(scanned(source, "re:sm120$")) == [
        (1, 7, "import", "aa.bb.sm120"),
        (4, 5, "import", "aa.sm120"),
    ]


def test_segments_of_a_module_path_are_names_each_reported_once() -> None:
    source = "import sm120a.b.sm120c\nimport x.sm120d as y\nfrom p.sm120e import q\nimport b\n"
    assert scanned(source, "sm120*", "=b") == [
        ("sm120*", 1, 7, "import", "sm120a.b.sm120c", ("sm120a.b.sm120c",)),
        ("=b", 1, 14, "import", "b", ()),
        ("sm120*", 2, 9, "import", "sm120d", ()),
        ("sm120*", 3, 7, "import", "sm120e", ()),
        ("=b", 4, 7, "import", "b", ("b",)),
    ]
    # a segment is found after the one before it, on the path's own line
    assert scanned("import b.c.b\n", "=b") == [("=b", 1, 7, "import", "b", ())]
    assert scanned("import a.b.c.b\n", "=c") == [("=c", 1, 11, "import", "c", ())]
    assert scanned("import é.b\n", "=b") == [("=b", 1, 9, "import", "b", ())]


def test_a_lambda_s_parameter_hides_the_module_name_from_a_lambda_inside() -> None:
    source = "LIMIT = 1\nz = lambda LIMIT: lambda: LIMIT\n"
    assert where(scanned(source, "pkg.mod.LIMIT")) == [(1, 0, "assignment", "LIMIT")]


def test_a_function_s_binding_hides_the_module_name_through_a_class_and_a_function() -> None:
    source = """\
        LIMIT = 1
        def f(LIMIT):
            class C:
                def m(self):
                    return LIMIT
            def g():
                return LIMIT
        """
    assert where(scanned(source, "pkg.mod.LIMIT")) == [(1, 0, "assignment", "LIMIT")]


def test_a_star_import_names_no_name_of_its_own() -> None:
    assert scanned("from sm120 import *\n", "re:.") == [
        ("re:.", 1, 5, "import", "sm120", ("sm120",))
    ]


def test_a_relative_star_import_is_completed_from_the_module_or_the_package() -> None:
    stars = {
        "pkg.lib": frozenset({"f"}),
        "other.lib": frozenset({"f"}),
        "pkg.mod.lib": frozenset({"f"}),
    }
    patterns = ("pkg.lib.f", "other.lib.f", "pkg.mod.lib.f")
    source = "from .lib import *\nf()\n"
    assert scanned(source, *patterns, stars=stars) == [
        ("pkg.lib.f", 2, 0, "call", "f", ("pkg.lib.f",))
    ]
    assert scanned(source, *patterns, stars=stars, is_package=True) == [
        ("pkg.mod.lib.f", 2, 0, "call", "f", ("pkg.mod.lib.f",))
    ]


def test_a_scanner_is_of_a_module_unless_told_it_is_a_package() -> None:
    patterns = compile_patterns([parse_pattern("pkg.sm120")])
    scanner = Scanner(["from . import sm120"], patterns, "pkg.mod", {}, None)
    scanner.scan(ast.parse("from . import sm120\n"))
    assert [f.occurrence.qualified for f in scanner.findings] == [(".pkg.sm120",)]


def test_each_segment_is_searched_after_the_one_before_it() -> None:
    # from before ``abc``, the tail ``sm`` of ``zzsm`` would be read as the name ``sm``
    assert scanned("import zzsm.abc.sm\n", "=sm") == [("=sm", 1, 16, "import", "sm", ())]
