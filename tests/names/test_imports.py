"""The graph's prefilter, stated directly: what a file's import statements take, read from its
text (:func:`~pytest_cleantree.names.imports.import_summary`), and which words it may spell.

The property that holds it to the parser over every spelling is in ``test_import_spellings.py``.
"""

from __future__ import annotations

import ast

import pytest

from pytest_cleantree.names.imports import (
    UNKNOWN_STAR,
    ImportSummary,
    import_summary,
    parsed_summary,
)

# ------------------------------------------------------------------ import_summary


def names_of(text: str) -> frozenset[tuple[str, str]]:
    return import_summary(text).names


def test_from_import_takes_each_name_with_the_last_part_of_its_module() -> None:
    summary = import_summary("from a.b import c, d as e\n")
    assert summary.names == {("b", "c"), ("b", "d")}  # ``e`` is the importer's own name
    assert summary.stars == frozenset()
    assert summary.modules == frozenset()


def test_a_relative_import_of_the_package_names_no_module() -> None:
    assert names_of("from . import x\n") == {("", "x")}
    assert names_of("from .sub import x\n") == {("sub", "x")}


def test_a_plain_import_names_its_modules_and_re_exports_only_a_renamed_one() -> None:
    summary = import_summary("import a.b as x, c.d.e as y, f, g as h\n")
    assert summary.names == {("a", "b"), ("d", "e"), ("", "g")}
    assert {"a", "b", "c", "d", "e", "f", "g"} <= summary.modules
    assert import_summary("import c\n").names == frozenset()
    assert import_summary("import c\n").modules == {"c"}


def test_a_renamed_top_level_module_has_no_module_part() -> None:
    assert names_of("import posixpath as path\n") == {("", "posixpath")}


def test_text_that_reads_like_an_import_but_not_plainly_gives_every_word() -> None:
    # over-approximation: no module before ``as``, so every word may be a name from anywhere
    assert names_of("text = 'import  as secret'\n") == {("", "secret'".rstrip("'"))}


def test_a_star_import_names_the_last_part_of_its_module() -> None:
    summary = import_summary("from pkg.core import *\n")
    assert summary.stars == {"core"}
    assert summary.names == frozenset()


def test_a_star_import_of_the_package_itself_is_an_unknown_star() -> None:
    assert import_summary("from . import *\n").stars == {UNKNOWN_STAR}


def test_a_star_on_the_next_line_is_still_a_star() -> None:
    assert import_summary("from pkg.core import \\\n    *\n").stars == {"core"}


def test_the_statement_ends_at_its_newline_or_semicolon() -> None:
    assert names_of("from m import a\nb = 1\n") == {("m", "a")}
    assert names_of("from m import a; b = 1\n") == {("m", "a")}
    assert names_of("from m import a") == {("m", "a")}  # the text's end


def test_brackets_and_backslashes_continue_the_statement() -> None:
    assert names_of("from m import (\n    a,\n    b)\nc = 1\n") == {("m", "a"), ("m", "b")}
    assert names_of("from m import a, \\\n    b\nc = 1\n") == {("m", "a"), ("m", "b")}
    # a closing bracket too many does not end the statement before its newline
    assert names_of("from m import a)\nb = 1\n") == {("m", "a")}
    assert names_of("from m import (a, b), (c\n, d)\ne = 1\n") == {
        ("m", "a"),
        ("m", "b"),
        ("m", "c"),
        ("m", "d"),
    }


def test_nested_brackets_close_one_at_a_time() -> None:
    assert names_of("from m import (a, (b)\n, c)\nd = 1\n") == {("m", "a"), ("m", "b"), ("m", "c")}
    assert names_of("from m import ((a,\n b))\nc = 1\n") == {("m", "a"), ("m", "b")}


def test_only_brackets_newlines_and_semicolons_shape_the_statement() -> None:
    assert names_of("from m import X\ny = 1\n") == {("m", "X")}
    assert names_of("from m import (X,\n b)\nc = 1\n") == {("m", "X"), ("m", "b")}
    assert names_of("from m import aXb\n") == {("m", "aXb")}


def test_a_backslash_newline_is_skipped_whole() -> None:
    assert names_of("from m import a, \\\n(b,\n c)\nd = 1\n") == {
        ("m", "a"),
        ("m", "b"),
        ("m", "c"),
    }


def test_a_comment_after_earlier_lines_is_skipped_to_its_own_newline() -> None:
    text = "x = 1\nfrom m import (a,  # note\n    b)\nd = 2\n"
    assert names_of(text) == {("m", "a"), ("m", "b")}


def test_every_import_statement_is_read() -> None:
    text = "from a import x\nfrom b import y\nfrom c import z\n"
    assert names_of(text) == {("a", "x"), ("b", "y"), ("c", "z")}


def test_the_module_part_is_the_last_of_a_long_dotted_name() -> None:
    assert names_of("from a.b.c import x\n") == {("c", "x")}
    assert import_summary("from a.b.c import *\n").stars == {"c"}


def test_only_the_import_line_itself_is_read_for_its_from() -> None:
    # a comment that ends in ``from`` on an earlier line makes no from-import
    assert names_of("y = 2\nx = 1  # from\nimport a as b\n") == {("", "a")}


def test_a_line_of_a_lone_backslash_continues_into_the_import() -> None:
    # continued, with nothing before: a plain import (Python reads it so)
    assert names_of("\\\nimport a as b\n") == {("", "a")}
    # a backslash that may end a comment: not plainly anything, every word from anywhere
    assert names_of("# from x \\\nimport a as b\n") == {("", "a"), ("", "b")}
    assert names_of("x = 1 \\\nimport a as b\n") == {("", "a"), ("", "b")}


def test_a_semicolon_inside_brackets_does_not_end_it() -> None:
    assert names_of("from m import (a;\n b)\nc = 1\n") == {("m", "a"), ("m", "b")}


def test_brackets_in_a_comment_do_not_count() -> None:
    # (a comment's words are taken too: an over-approximation, like a string's)
    assert names_of("from m import a  # (\nc = 1\n") == {("m", "a")}
    assert names_of("from m import (a,  # ) ;\n    c)\nd = 1\n") == {("m", "a"), ("m", "c")}
    assert names_of("from m import a  # (") == {("m", "a")}  # a comment to the text's end


def test_a_statement_past_the_bound_admits_the_file() -> None:
    # a clause of 19 998 words' characters ends inside the bound; one more does not
    inside = "from m import " + "a" * 19_998 + "\nb = 1\n"
    assert import_summary(inside).names == {("m", "a" * 19_998)}
    assert import_summary(inside).stars == frozenset()
    past = "from m import " + "a" * 19_999 + "\nb = 1\n"
    assert import_summary(past).stars == {UNKNOWN_STAR}
    assert import_summary(past).names == frozenset()
    # at the text's end, a statement of the bound's length is read whole
    assert import_summary("from m import " + "a" * 19_999).names == {("m", "a" * 19_999)}


def test_a_long_statement_after_an_unread_one_is_still_read() -> None:
    text = "from m import " + "a" * 20_000 + "\nfrom n import b\n"
    summary = import_summary(text)
    assert summary.stars == {UNKNOWN_STAR}
    assert summary.names == {("n", "b")}


def test_a_name_is_read_as_python_reads_it_nfkc() -> None:
    assert names_of("from m import \ufb01le\n") == {("m", "file")}
    assert import_summary("import \ufb01le as x\n").modules >= {"file"}


def test_import_inside_a_word_is_no_import() -> None:
    empty = ImportSummary(frozenset(), frozenset(), frozenset())
    for text in ("x_import = 1\n", "import_table = 2\n", "reimport = 3\n", "imports9 = 4\n"):
        assert import_summary(text) == empty, text
    assert import_summary("x.import_ = 1\nimportant(1)\n") == empty
    assert import_summary("# from m import") == empty  # the word at the text's end
    assert import_summary("") == empty


def test_import_at_the_start_of_the_text() -> None:
    assert import_summary("import a as b").names == {("", "a")}
    assert names_of("(import a as b)") == {("", "a"), ("", "b")}  # not where a statement starts


def test_a_from_import_spread_over_lines_names_its_module() -> None:
    assert names_of("from pkg.mod \\\n    import thing\n") == {("mod", "thing")}
    assert names_of("x = 1\nfrom pkg.mod \\\nimport thing\n") == {("mod", "thing")}
    # lines ended by a carriage return alone, or CRLF: Python's newlines too
    assert names_of("from pkg.mod \\\rimport thing\r") == {("mod", "thing")}
    assert names_of("from pkg \\\r\n . mod \\\r\nimport (a,\r\n b)\r\n") == {
        ("mod", "a"),
        ("mod", "b"),
    }


def test_spaces_and_continuations_may_stand_around_every_dot() -> None:
    assert names_of("from pkg . mod import name\n") == {("mod", "name")}
    assert names_of("from .. pkg .\\\n mod import name\n") == {("mod", "name")}
    assert names_of("from.mod import name\n") == {("mod", "name")}
    assert names_of("from .import name\n") == {("", "name")}
    summary = import_summary("import pkg . mod as m\n")
    assert summary.names == {("pkg", "mod")}
    assert summary.modules == {"pkg", "mod"}


def test_a_module_is_read_as_python_reads_it_nfkc() -> None:
    assert names_of("from pkg.\uff4d\uff4f\uff44 import name\n") == {("mod", "name")}
    assert import_summary("from \uff4d\uff4f\uff44 import *\n").stars == {"mod"}


def test_a_statement_after_a_semicolon_or_a_colon_is_read() -> None:
    assert names_of("x = 1; from m import a\n") == {("m", "a")}
    assert names_of("if x: from m import a\n") == {("m", "a")}
    assert names_of("x = 1; import a as b\n") == {("", "a")}


def test_a_backslash_on_an_earlier_line_does_not_continue_a_later_one() -> None:
    text = "x = '\\\\'\ny = 2\nimport a as b\n"
    assert names_of(text) == {("", "a")}


def test_a_text_that_opens_with_an_empty_line_and_ends_with_a_backslash() -> None:
    # the line before ``import`` starts the text: nothing before it continues
    assert names_of("\nimport a as b\nc = '\\\\'") == {("", "a")}
    assert import_summary("\nimport a as b\nx\\").names == {("", "a")}


# ------------------------------------------------------------------ ImportSummary.may_spell


@pytest.mark.parametrize(
    ("names", "stars", "words", "spells"),
    [
        ({("m", "f")}, set(), {"f", "m"}, True),  # from a module on the target's way
        ({("", "f")}, set(), {"f"}, True),  # from a module the text does not name
        ({("m", "f")}, set(), {"f"}, False),  # from a module that reaches no target
        ({("m", "g")}, set(), {"f", "m"}, False),  # a name that reaches none
        ({("f", "m")}, set(), {"f"}, False),
        (set(), {"m"}, {"m"}, True),  # a star import of a module on the way
        (set(), {"n"}, {"m"}, False),
        (set(), {UNKNOWN_STAR}, {"m"}, True),  # a star from a module the text does not name
        (set(), set(), {"m"}, False),
        ({("m", "g"), ("", "f")}, set(), {"f"}, True),
    ],
)
def test_may_spell(
    names: set[tuple[str, str]], stars: set[str], words: set[str], spells: bool
) -> None:
    summary = ImportSummary(frozenset(names), frozenset(stars))
    assert summary.may_spell(frozenset(words)) is spells


# ------------------------------------------------------------------ parsed_summary


def test_the_parser_s_reading_is_every_import_statement_anywhere() -> None:
    text = (
        "from a.b import c, d as e\n"
        "from . import x\n"
        "from .. import *\n"
        "from .sub import *\n"
        "import p.q as r, s\n"
        "import t as u\n"
        "def f():\n    from m import n\n"
    )
    summary = parsed_summary(ast.parse(text))
    assert summary.names == {("b", "c"), ("b", "d"), ("", "x"), ("p", "q"), ("", "t"), ("m", "n")}
    assert summary.stars == {UNKNOWN_STAR, "sub"}
    assert summary.modules == {"p", "q", "s", "t"}
    assert import_summary(text) == summary
