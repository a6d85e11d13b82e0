"""The occurrence scan on source strings: every finding's kind and exact place.

The scanner is driven directly (its own patterns, module, resolved names and candidate
lines), so that each visitor is held to what it reports, where; the qualified names it
gives are :mod:`.test_scan_names`'s.
"""

from __future__ import annotations

import ast

import pytest
from scanning import scanned, type_var, where

from pytest_cleantree.analysis.reader import Key
from pytest_cleantree.analysis.scan import Scanner, candidate_lines
from pytest_cleantree.analysis.text import compile_patterns
from pytest_cleantree.core.patterns import parse_pattern


def test_candidate_lines_are_the_spelling_lines_and_the_spans_of_resolved_names() -> None:
    resolved: dict[Key, tuple[str, ...]] = {
        ("Attribute", 5, 0, 7, 3): ("m.f",),
        ("Name", 9, 2, None, None): ("m.g",),
        ("Name", 2, 0, 2, 4): ("m.h",),
    }
    assert candidate_lines({3, 2}, resolved) == [2, 3, 5, 6, 7, 9]
    assert candidate_lines(set(), {}) == []
    assert candidate_lines(None, resolved) is None


def test_candidate_lines_do_not_change_the_spelling_set() -> None:
    spelling = {4}
    assert candidate_lines(spelling, {("Name", 1, 0, 1, 1): ("m.x",)}) == [1, 4]
    assert spelling == {4}


def test_statements_on_no_candidate_line_are_not_walked() -> None:
    source = "sm120_a()\nif x:\n    sm120_b()\nsm120_c = 1\n"
    assert where(scanned(source, "sm120", candidates=[3])) == [(3, 4, "call", "sm120_b")]
    assert where(scanned(source, "sm120", candidates=[1, 4])) == [
        (1, 0, "call", "sm120_a"),
        (4, 0, "assignment", "sm120_c"),
    ]
    # a decorated definition spans its decorators
    decorated = "@sm120_d\ndef f():\n    pass\n"
    assert where(scanned(decorated, "sm120", candidates=[1])) == [(1, 1, "reference", "sm120_d")]


def test_comments_are_read_only_when_a_candidate_line_holds_a_hash() -> None:
    source = "x = 1  # sm120 here\ny = 2\n"
    assert scanned(source, "sm120", comments=True) == [
        ("sm120", 1, 7, "comment", "# sm120 here", ())
    ]
    assert scanned(source, "sm120", candidates=[1], comments=True) == [
        ("sm120", 1, 7, "comment", "# sm120 here", ())
    ]
    assert scanned(source, "sm120", candidates=[2], comments=True) == []


def test_definitions_decorators_annotations_docstrings_and_lambdas() -> None:
    source = '''\
        """doc sm120"""
        "sm120 second"
        @sm120_deco(sm120_darg)
        def sm120_f(a: sm120_T, *sm120_va, k=sm120_d, **sm120_kw) -> sm120_R:
            """sm120 doc"""
            if x:
                "sm120 not doc"
            global sm120_g
            nonlocal sm120_n
            return lambda sm120_l: sm120_l
        class sm120_C(sm120_B, metaclass=sm120_M):
            "sm120 cdoc"
        '''
    assert scanned(source, "sm120") == [
        ("sm120", 1, 7, "docstring", "doc sm120", ()),
        ("sm120", 2, 1, "string", "sm120 second", ()),
        ("sm120", 3, 1, "call", "sm120_deco", ()),
        ("sm120", 3, 12, "reference", "sm120_darg", ()),
        ("sm120", 4, 4, "definition", "sm120_f", (".pkg.mod.sm120_f",)),
        ("sm120", 4, 15, "reference", "sm120_T", ()),
        ("sm120", 4, 25, "definition", "sm120_va", ()),
        ("sm120", 4, 37, "reference", "sm120_d", ()),
        ("sm120", 4, 48, "definition", "sm120_kw", ()),
        ("sm120", 4, 61, "reference", "sm120_R", ()),
        ("sm120", 5, 7, "docstring", "sm120 doc", ()),
        ("sm120", 7, 9, "string", "sm120 not doc", ()),
        ("sm120", 8, 11, "reference", "sm120_g", ()),
        ("sm120", 9, 13, "reference", "sm120_n", ()),
        ("sm120", 10, 18, "definition", "sm120_l", ()),
        ("sm120", 10, 27, "reference", "sm120_l", ()),
        ("sm120", 11, 6, "definition", "sm120_C", (".pkg.mod.sm120_C",)),
        ("sm120", 11, 14, "reference", "sm120_B", ()),
        ("sm120", 11, 33, "reference", "sm120_M", ()),
        ("sm120", 12, 5, "docstring", "sm120 cdoc", ()),
    ]


def test_a_nested_definition_is_no_qualified_name_and_async_is_walked_alike() -> None:
    source = """\
        async def outer():
            def sm120_inner(): pass
            class sm120_K: pass
        def after(): sm120_x
        """
    assert scanned(source, "sm120", "outer", "after") == [
        ("outer", 1, 10, "definition", "outer", (".pkg.mod.outer",)),
        ("sm120", 2, 8, "definition", "sm120_inner", ()),
        ("sm120", 3, 10, "definition", "sm120_K", ()),
        ("after", 4, 4, "definition", "after", (".pkg.mod.after",)),
        ("sm120", 4, 13, "reference", "sm120_x", ()),
    ]
    # a module without a name (a file outside any package) gives no qualified name
    assert scanned("def sm120(): pass\n", "sm120", module="") == [
        ("sm120", 1, 4, "definition", "sm120", ())
    ]


def test_conditions_loops_asserts_ternaries_and_comprehensions() -> None:
    source = """\
        while sm120_w:
            pass
        else:
            sm120_e()
        assert sm120_a, sm120_m
        x = sm120_b if sm120_t else sm120_o
        y = [sm120_i for sm120_v in sm120_s if sm120_c]
        if (sm120_p if q else sm120_n) or [sm120_j for _ in sm120_k]:
            pass
        """
    assert where(scanned(source, "sm120")) == [
        (1, 6, "condition", "sm120_w"),
        (4, 4, "call", "sm120_e"),
        (5, 7, "condition", "sm120_a"),
        (5, 16, "reference", "sm120_m"),
        (6, 15, "condition", "sm120_t"),
        (6, 4, "reference", "sm120_b"),
        (6, 28, "reference", "sm120_o"),
        (7, 5, "reference", "sm120_i"),
        (7, 17, "assignment", "sm120_v"),
        (7, 28, "reference", "sm120_s"),
        (7, 39, "condition", "sm120_c"),
        (8, 4, "condition", "sm120_p"),
        (8, 22, "condition", "sm120_n"),
        (8, 35, "condition", "sm120_j"),
        (8, 52, "condition", "sm120_k"),
    ]


def test_calls_keywords_attributes_and_handlers() -> None:
    source = """\
        obj.sm120_attr = f(sm120_arg, kw=sm120_kwv).sm120_call()
        try:
            pass
        except sm120_E as sm120_exc:
            sm120_h
        except (A,
                B) as sm120_tup:
            pass
        except:
            sm120_bare
        if g(sm120=1):
            pass
        """
    assert where(scanned(source, "sm120")) == [
        (1, 4, "assignment", "sm120_attr"),
        (1, 44, "call", "sm120_call"),
        (1, 19, "reference", "sm120_arg"),
        (1, 33, "reference", "sm120_kwv"),
        (4, 7, "reference", "sm120_E"),
        (4, 18, "assignment", "sm120_exc"),
        (5, 4, "reference", "sm120_h"),
        (7, 14, "assignment", "sm120_tup"),
        (10, 4, "reference", "sm120_bare"),
        (11, 5, "condition", "sm120"),
    ]


def test_an_attribute_split_over_lines_stands_where_its_name_does() -> None:
    source = "v = (a\n    .  sm120_x)\nw = sm120_y.z\n"
    assert where(scanned(source, "sm120")) == [
        (2, 7, "reference", "sm120_x"),
        (3, 4, "reference", "sm120_y"),
    ]


def test_match_patterns_bind_and_guards_are_conditions() -> None:
    source = """\
        match v:
            case sm120_K(sm120_p, sm120_kw=sm120_q) if sm120_g:
                sm120_body
            case {1: sm120_r, **sm120_rest}:
                pass
            case {**sm120_only}:
                pass
            case [1, *sm120_star] | (sm120_or as sm120_as):
                pass
            case P(x=1) as sm120_cap:
                pass
            case Q(a=1,
                   sm120_a2=2):
                pass
        """
    assert where(scanned(source, "sm120")) == [
        (2, 9, "reference", "sm120_K"),
        (2, 17, "assignment", "sm120_p"),
        (2, 26, "reference", "sm120_kw"),
        (2, 35, "assignment", "sm120_q"),
        (2, 47, "condition", "sm120_g"),
        (3, 8, "reference", "sm120_body"),
        (4, 13, "assignment", "sm120_r"),
        (4, 24, "assignment", "sm120_rest"),
        (6, 12, "assignment", "sm120_only"),
        (8, 14, "assignment", "sm120_star"),
        (8, 29, "assignment", "sm120_or"),
        (8, 41, "assignment", "sm120_as"),
        (10, 19, "assignment", "sm120_cap"),
        (13, 11, "reference", "sm120_a2"),
    ]


def test_strings_bytes_and_f_strings() -> None:
    source = """\
        a = b"sm120 bytes"
        b = f"x sm120 {sm120_v!r} {y:{sm120_w}}"
        c = 12
        if f"{sm120_c}":
            pass
        """
    assert where(scanned(source, "sm120")) == [
        (1, 6, "string", "sm120 bytes"),
        (2, 8, "string", "x sm120 "),
        (2, 15, "reference", "sm120_v"),
        (2, 30, "reference", "sm120_w"),
        (4, 6, "condition", "sm120_c"),
    ]
    assert scanned("x = 12\ny = None\n", "12", "None") == []


def test_import_names_aliases_and_segments() -> None:
    source = "import os.\\\n    sm120_x as al\nimport a.sm120.b, sm120 as  two\n"
    assert scanned(source, "sm120", "al", "=sm120", "two") == [
        ("sm120", 2, 4, "import", "os.sm120_x", ("os.sm120_x",)),
        ("al", 2, 15, "import", "al", ("os.sm120_x",)),
        ("sm120", 3, 7, "import", "a.sm120.b", ("a.sm120.b",)),
        ("=sm120", 3, 9, "import", "sm120", ()),
        ("sm120", 3, 18, "import", "sm120", ("sm120",)),
        ("=sm120", 3, 18, "import", "sm120", ("sm120",)),
        ("two", 3, 28, "import", "two", ("sm120",)),
    ]


def test_from_imports_their_module_and_relative_targets() -> None:
    source = """\
        from .. import sm120 as  b, c
        from .sm120.k import *
        from x import (a as
            sm120_alias)
        from   sm120mod.y import z
        """
    assert scanned(source, "sm120", "b", "=k") == [
        ("sm120", 1, 15, "import", "sm120", ("..sm120",)),
        ("b", 1, 25, "import", "b", ("..sm120",)),
        ("sm120", 2, 6, "import", "sm120.k", (".pkg.sm120.k",)),
        ("=k", 2, 12, "import", "k", ()),
        ("sm120", 4, 4, "import", "sm120_alias", ("x.a",)),
        ("sm120", 5, 7, "import", "sm120mod.y", ("sm120mod.y",)),
    ]
    assert scanned("from . import sm120\n", "sm120", is_package=True) == [
        ("sm120", 1, 14, "import", "sm120", (".pkg.mod.sm120",))
    ]


def test_a_from_module_is_reported_only_when_a_pattern_wants_it() -> None:
    # the module's own line and place are found only for a module a pattern matches
    assert scanned("from a.b import c\n", "zzz") == []
    assert scanned("from a . sm120 import c\n", "sm120") == [
        ("sm120", 1, 9, "import", "a.sm120", ("a.sm120",))
    ]


def test_a_type_parameter_is_a_definition_and_its_bound_is_walked() -> None:
    # ``class C[T: B]`` as 3.12 parses it, given to the scanner on any Python
    # (the name stands before the parameter too: it is found from the parameter's place)
    lines = ["sm120_T = 1", "class sm120_T[sm120_T: sm120_B]: pass", "x = 2"]
    bound = ast.Name(id="sm120_B", ctx=ast.Load(), lineno=2, col_offset=23)
    bound.end_lineno, bound.end_col_offset = 2, 30
    scanner = Scanner(lines, compile_patterns([parse_pattern("sm120")]), "pkg.mod", {}, None)
    scanner.visit(type_var("sm120_T", 2, 14, bound), condition=True)
    assert [
        (f.occurrence.line, f.occurrence.col, f.occurrence.kind.value, f.occurrence.name)
        for f in scanner.findings
    ] == [(2, 14, "definition", "sm120_T"), (2, 23, "reference", "sm120_B")]


def test_a_global_or_nonlocal_name_stands_after_its_keyword() -> None:
    # ``nonlocal al``: the keyword ends in ``al``, which is not the name (a bug until now)
    source = "def f():\n    nonlocal al\n    global al\n"
    assert where(scanned(source, "=al")) == [
        (2, 13, "reference", "al"),
        (3, 11, "reference", "al"),
    ]


def test_a_lambda_s_defaults_are_no_condition_and_its_body_is_its_place_s() -> None:
    source = """\
        f = lambda a=sm120_d: 0
        if (lambda: sm120_x)():
            pass
        """
    assert where(scanned(source, "sm120")) == [
        (1, 13, "reference", "sm120_d"),
        (2, 12, "condition", "sm120_x"),
    ]


def test_a_handler_s_name_stands_after_its_type_and_bodies_hold_no_docstring() -> None:
    source = """\
        try:
            pass
        except sm120_e as sm120_e:
            "sm120 not doc"
        except (sm120_t
        ) as sm120_t:
            pass
        except (E,
              sm120_x) as sm120_x:
            pass
        if a:
            "sm120 if"
        else:
            "sm120 else"
        """
    assert where(scanned(source, "sm120")) == [
        (3, 7, "reference", "sm120_e"),
        (3, 18, "assignment", "sm120_e"),
        (4, 5, "string", "sm120 not doc"),
        (5, 8, "reference", "sm120_t"),
        (6, 5, "assignment", "sm120_t"),
        (9, 6, "reference", "sm120_x"),
        (9, 18, "assignment", "sm120_x"),
        (12, 5, "string", "sm120 if"),
        (14, 5, "string", "sm120 else"),
    ]


def test_values_in_match_patterns_are_references_and_captures_stand_at_their_name() -> None:
    source = """\
        match v:
            case K.sm120_c:
                "sm120 case"
            case (K.sm120_x as y):
                pass
            case (P(
            ) as sm120_n):
                pass
            case [1,
        sm120_z]:
                pass
            case {K.sm120_k: 1}:
                pass
            case {0: 0, 1: 0, K.sm120_r: [1,
                    K.sm120_r], **sm120_r}:
                pass
            case K(V.sm120_v, a=V.sm120_w):
                pass
            case pkg.\\
          sm120_a.K(sm120_a=1):
                pass
        """
    assert where(scanned(source, "sm120")) == [
        (2, 11, "reference", "sm120_c"),
        (3, 9, "string", "sm120 case"),
        (4, 12, "reference", "sm120_x"),
        (7, 9, "assignment", "sm120_n"),
        (10, 0, "assignment", "sm120_z"),
        (12, 12, "reference", "sm120_k"),
        (14, 24, "reference", "sm120_r"),
        (15, 14, "reference", "sm120_r"),
        (15, 26, "assignment", "sm120_r"),
        (17, 13, "reference", "sm120_v"),
        (17, 26, "reference", "sm120_w"),
        (20, 2, "reference", "sm120_a"),
        (20, 12, "reference", "sm120_a"),
    ]


def test_a_class_decorator_is_no_condition_and_arguments_keep_their_place_s_kind() -> None:
    source = "@sm120_cd\nclass X: pass\nif g(sm120_a):\n    pass\n"
    assert where(scanned(source, "sm120")) == [
        (1, 1, "reference", "sm120_cd"),
        (3, 5, "condition", "sm120_a"),
    ]


def test_an_alias_of_a_continued_import_is_found_after_its_as() -> None:
    source = "import al.\\\n    b as al\n"
    assert where(scanned(source, "al")) == [(1, 7, "import", "al.b"), (2, 9, "import", "al")]


@pytest.mark.parametrize("definition", ["def f(): pass\n", "class F: pass\n"])
def test_the_type_parameters_of_a_definition_are_walked(definition: str) -> None:
    lines = ["sm120_T = 1", "class sm120_T[sm120_T]: pass", "x = 2"]
    tree = ast.parse(definition)
    node = tree.body[0]
    node.type_params = [type_var("sm120_T", 2, 14, None)]  # type: ignore[attr-defined]
    scanner = Scanner(lines, compile_patterns([parse_pattern("sm120")]), "pkg.mod", {}, None)
    scanner.visit(node, condition=True)
    assert [
        (f.occurrence.line, f.occurrence.col, f.occurrence.kind.value) for f in scanner.findings
    ] == [(2, 14, "definition")]


def test_an_alias_of_a_from_import_over_lines_is_found_after_its_as() -> None:
    assert where(scanned("from x import (sm120_b\n as sm120_b)\n", "sm120")) == [
        (1, 15, "import", "sm120_b"),
        (2, 4, "import", "sm120_b"),
    ]


def test_values_of_attributes_keywords_and_comprehension_targets_keep_the_condition() -> None:
    source = """\
        v = (a.
        sm120_q)
        while sm120_w.x:
            pass
        if [0 for a[sm120_i] in xs]:
            pass
        if f(k=sm120_v):
            pass
        """
    assert where(scanned(source, "sm120")) == [
        (2, 0, "reference", "sm120_q"),
        (3, 6, "condition", "sm120_w"),
        (5, 12, "condition", "sm120_i"),
        (7, 7, "condition", "sm120_v"),
    ]


def test_getattr_with_a_literal_on_a_resolved_name_is_an_occurrence_at_its_literal() -> None:
    """The getattr alias's one report site: the call reads ``os.path.join`` (issue 47)."""
    source = (
        'getattr(os.path, "j\\x6fin")\nif getattr(os.path, "join", 0):\n    getattr(os, "path")\n'
    )
    resolved: dict[Key, tuple[str, ...]] = {
        ("Attribute", 1, 8, 1, 15): ("os.path",),
        ("Attribute", 2, 11, 2, 18): ("os.path",),
        ("Name", 3, 12, 3, 14): ("os",),
    }
    assert scanned(source, "os.path.join", resolved=resolved) == [
        ("os.path.join", 1, 17, "reference", "join", ("os.path.join",)),
        ("os.path.join", 2, 20, "condition", "join", ("os.path.join",)),
    ]
    # the name alone (no resolution) is no occurrence of the qualified pattern, nor a name
    assert scanned(source, "os.path.join") == []
    string = ("join", 1, 12, "string", "join", ())
    assert scanned('getattr(x, "join")\n', "join") == [string]
    # resolved, it is a qualified pattern's occurrence only: a name pattern sees the string
    # (whether resolution ran must not change what a name pattern finds)
    resolved_o = {("Name", 1, 8, 1, 9): ("m",)}
    assert scanned('getattr(o, "join")\n', "join", resolved=resolved_o) == [string]
    assert scanned('getattr(o, "join")\n', "m.join", "join", resolved=resolved_o) == [
        ("m.join", 1, 11, "reference", "join", ("m.join",)),
        string,
    ]
