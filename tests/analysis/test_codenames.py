"""A file's code names: every name an exact pattern, looked for in code, matches there."""

from __future__ import annotations

import pytest

from pytest_cleantree.analysis.codenames import CodeNames, code_names
from pytest_cleantree.analysis.text import MAX_PARSE_BYTES

SOURCE = '''"""The docstring names sm120."""
import os.path as p
from a.b.c import x, y as z

# a comment names hopper


def f(arg, *, kw=1):
    s = "a string names blackwell"
    return os.getcwd(arg)


class C(Base):
    attr: int = 2


f(1)
'''


def test_every_name_in_code_with_where_it_first_stands() -> None:
    assert code_names(SOURCE).names == {
        "os.path": (2, 7),
        "os": (2, 7),
        "path": (2, 7),
        "p": (2, 17),
        "a.b.c": (3, 4),
        "a": (3, 4),
        "b": (3, 4),
        "c": (3, 4),
        "x": (3, 18),
        "y": (3, 21),
        "z": (3, 25),
        "f": (8, 0),
        "arg": (8, 6),
        "kw": (8, 14),
        "s": (9, 4),
        "getcwd": (10, 14),
        "C": (13, 0),
        "Base": (13, 8),
        "attr": (14, 4),
        "int": (14, 10),
    }


def test_strings_docstrings_and_comments_give_no_name() -> None:
    names = code_names(SOURCE).names

    assert {"docstring", "sm120", "hopper", "blackwell", "comment", "string"} & set(names) == set()


def test_names_are_in_source_order_whatever_the_walk_visits_first() -> None:
    # the test of a conditional expression is walked before its body
    names = code_names("x = a if b else c\n").names

    assert list(names.items()) == [("x", (1, 0)), ("a", (1, 4)), ("b", (1, 9)), ("c", (1, 16))]


def test_a_name_used_again_keeps_its_first_place() -> None:
    assert code_names("f = 1\nf()\nf.g\n").names == {"f": (1, 0), "g": (3, 2)}


def test_the_modules_own_definitions_and_assigned_names() -> None:
    source = (
        "import os\nfrom m import n\na = 1\nb: int = 2\nc: str\nd, (e, g) = 1, (2, 3)\n"
        "def f():\n    inner = 1\nclass C:\n    member = 1\na = 3\nfor i in r: pass\n"
        "h += 1\nwith m as w: pass\n(v := 1)\nasync def af(): pass\n"
    )

    assert code_names(source).defined == ("a", "b", "c", "d", "e", "g", "f", "C", "af")


def test_a_file_with_no_names() -> None:
    assert code_names('"""Only a docstring."""\n# and a comment\n') == CodeNames({}, ())


def test_a_file_that_does_not_parse_raises_the_parse_error_with_its_path() -> None:
    with pytest.raises(SyntaxError) as raised:
        code_names("def (:\n", "pkg/bad.py")
    assert raised.value.filename == "pkg/bad.py"
    with pytest.raises(SyntaxError) as unnamed:
        code_names("def (:\n")
    assert unnamed.value.filename == "<unknown>"


def test_a_file_over_the_parse_limit_in_utf8_bytes_raises() -> None:
    # fewer characters than the limit, more bytes: the limit is on the bytes
    text = "#" + "\u00e9" * (MAX_PARSE_BYTES // 2)

    with pytest.raises(
        ValueError, match=r"\Aover the parse limit: the check reads it as text, not code\Z"
    ):
        code_names(text)


def test_a_deeply_nested_file_gives_its_names() -> None:
    source = "x = " + " + ".join(["a"] * 1500) + "\nb = 1\n"

    assert code_names(source) == CodeNames({"x": (1, 0), "a": (1, 4), "b": (2, 0)}, ("x", "b"))
