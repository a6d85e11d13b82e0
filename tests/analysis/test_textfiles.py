"""The model of non-Python text: decoding, JSON string views, ``#`` comments."""

from __future__ import annotations

import pytest

from pytest_cleantree.analysis.textfiles import (
    decode_text,
    hash_comment,
    json_views,
    text_comments,
    text_names,
)
from pytest_cleantree.core.patterns import parse_pattern


@pytest.mark.parametrize(
    ("data", "text", "problem"),
    [
        (b"\xef\xbb\xbfa\n", "a\n", False),
        (b"a\n", "a\n", False),
        ("a\n".encode("utf-16"), "a\n", False),
        ("a\n".encode("utf-32"), "a\n", False),
        (b"\xff\xfe\x00\x00a\x00", "\x00a", False),  # UTF-16 LE starting with U+0000
        (b"caf\xe9\n", "caf\udce9\n", False),  # latin-1, ASCII patterns: read as grep reads it
        (b"a\x00b\n", "a\x00b\n", True),  # UTF-16 without a mark, or binary
        (b"\xfe\xff\x00", "\ufffd\x00", True),  # a UTF-16 BE BOM, then half a character
    ],
)
def test_decode_text(data: bytes, text: str, problem: bool) -> None:
    found, why = decode_text(data)
    assert (why is not None) is problem, why
    if not data.startswith(b"\xfe"):
        assert found == text


def test_bytes_beyond_utf8_are_a_problem_for_a_pattern_beyond_ascii() -> None:
    patterns = [parse_pattern("=café")]
    assert decode_text(b"caf\xe9\n", patterns)[1] is not None
    assert decode_text("café\n".encode(), patterns)[1] is None
    assert decode_text(b"caf\xe9\n", [parse_pattern("=caf")])[1] is None


@pytest.mark.parametrize(
    ("line", "comment"),
    [
        ("# all", "# all"),
        ("x: 1  # c", "# c"),
        ('x: "a # b"', None),
        ("x: 'a # b' # c", "# c"),
        ("echo a#b", None),
        ('echo "a\\"#b" # c', "# c"),
        ("echo a\\ #b", None),
        ("it's # c", None),  # an unclosed quote: no comment (an allow does not count)
    ],
)
def test_hash_comment(line: str, comment: str | None) -> None:
    assert hash_comment(line) == comment


def test_json_views_decode_strings_and_keep_lines() -> None:
    lines = ('{"a": ["\\tx()\\n",', ' "\\u0079"]}', "plain")
    assert json_views("n.ipynb", lines) == ('{"a": ["\tx()\n",', ' "y"]}', "plain")
    assert json_views("a.yaml", lines) is None


def test_text_comments_by_file_type() -> None:
    lines = ("a # one", '"b # two"')
    assert text_comments("x.yaml", lines) == ((1, "# one"),)
    assert text_comments("Makefile", lines) == ((1, "# one"),)
    assert text_comments("x.json", lines) == ()
    assert text_comments("notes.md", lines) is None


def test_text_names_are_the_words_exact_and_glob_patterns_see() -> None:
    assert {"m", "is_x", "m.is_x"} <= text_names("run.sh", b'python -c "import m; m.is_x()"\n')
    notebook = b'{"source": ["\\tenable_y()\\n"]}\n'
    assert "enable_y" in text_names("n.ipynb", notebook)
    assert "is_z" in text_names("u.txt", "is_z\n".encode("utf-16"))
