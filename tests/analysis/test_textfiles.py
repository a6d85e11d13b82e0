"""The model of non-Python text: decoding, JSON string views, ``#`` comments."""

from __future__ import annotations

import codecs

import pytest

from pytest_cleantree.analysis.comments import comments_of
from pytest_cleantree.analysis.textfiles import (
    _UNREAD_SUFFIXES,
    decode_text,
    string_views,
    text_comments,
    text_language,
    text_names,
)
from pytest_cleantree.core.model import Pattern, PatternTier
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
def test_a_shell_lines_comment(line: str, comment: str | None) -> None:
    assert comments_of("shell", (line,)) == (((1, comment),) if comment is not None else ())


def test_string_views_decode_strings_and_keep_lines() -> None:
    lines = ('{"a": ["\\tx()\\n",', ' "\\u0079"]}', "plain")
    assert string_views("n.ipynb", lines) == ('{"a": ["\tx()\n",', ' "y"]}', "plain")
    assert string_views("a.txt", lines) is None


def test_text_comments_by_file_type() -> None:
    lines = ("a # one", '"b # two"')
    assert text_comments("x.yaml", lines) == ((1, "# one"),)
    assert text_comments("Makefile", lines) == ((1, "# one"), (2, '# two"'))  # make: no quotes
    assert text_comments("x.ini", lines) == ()  # configparser: an inline # is the value's
    assert text_comments("x.json", lines) == ()
    assert text_comments("notes.md", lines) == ()  # Markdown: none read (see comments.py)
    assert text_comments("notes.txt", lines) is None


def test_text_names_are_the_words_exact_and_glob_patterns_see() -> None:
    assert {"m", "is_x", "m.is_x"} <= text_names("run.sh", b'python -c "import m; m.is_x()"\n')
    notebook = b'{"source": ["\\tenable_y()\\n"]}\n'
    assert "enable_y" in text_names("n.ipynb", notebook)
    assert "is_z" in text_names("u.txt", "is_z\n".encode("utf-16"))


# ---------------------------------------------------------------- each case, stated in full


@pytest.mark.parametrize(
    "data",
    [
        codecs.BOM_UTF8 + "é\n".encode(),
        codecs.BOM_UTF16_LE + "é\n".encode("utf-16-le"),
        codecs.BOM_UTF16_BE + "é\n".encode("utf-16-be"),
        codecs.BOM_UTF32_LE + "é\n".encode("utf-32-le"),
        codecs.BOM_UTF32_BE + "é\n".encode("utf-32-be"),
    ],
    ids=["utf-8", "utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"],
)
def test_a_byte_order_mark_says_the_encoding_and_is_dropped(data: bytes) -> None:
    assert decode_text(data) == ("é\n", None)


@pytest.mark.parametrize(
    ("data", "codec"),
    [
        (codecs.BOM_UTF8 + b"caf\xe9\n", "UTF-8-SIG"),
        (codecs.BOM_UTF16_BE + b"\x00a\x00", "UTF-16"),
        (codecs.BOM_UTF16_LE + b"\x00\xdc", "UTF-16"),
    ],
    ids=["utf-8", "utf-16-half-a-character", "utf-16-lone-surrogate"],
)
def test_a_byte_order_mark_then_bytes_it_cannot_decode_is_a_problem(
    data: bytes, codec: str
) -> None:
    text, problem = decode_text(data)

    assert text == data.decode("utf-8", errors="surrogateescape")
    assert problem is not None
    assert problem.startswith(f"starts with a {codec} byte-order mark but ")
    assert problem != f"starts with a {codec} byte-order mark but "


def test_nul_bytes_are_a_problem_whatever_the_patterns() -> None:
    assert decode_text(b"a\x00b\xe9\n") == (
        "a\x00b\udce9\n",
        "cannot read as text: it holds NUL bytes: UTF-16 or UTF-32 without a byte-order mark, "
        "or not text",
    )


def test_bytes_beyond_utf8_name_the_first_pattern_beyond_ascii_and_the_byte() -> None:
    patterns = [parse_pattern("=caf"), parse_pattern("=née"), parse_pattern("=café")]

    assert decode_text(b"x\nab caf\xe9\n", patterns) == (
        "x\nab caf\udce9\n",
        "cannot read as text: invalid continuation byte at line 2 (byte 0xe9 at offset 8 of "
        "the file) (not UTF-8, no UTF-16 or UTF-32 byte-order mark), and pattern '=née' is "
        "not ASCII",
    )


@pytest.mark.parametrize(
    ("body", "unsure"),
    [
        ("a\x7f", False),
        ("a\x80", True),
        ("caf" + chr(0xDC80), False),
        ("caf" + chr(0xDCFF), False),
        ("caf" + chr(0xDC7F), True),
        ("caf" + chr(0xDD00), True),
    ],
    ids=["delete", "beyond-ascii", "first-kept-byte", "last-kept-byte", "below", "above"],
)
def test_a_kept_byte_in_a_pattern_is_no_character_beyond_ascii(body: str, unsure: bool) -> None:
    pattern = Pattern(body, PatternTier.SUBSTRING, body)

    assert (decode_text(b"caf\xe9\n", [pattern])[1] is not None) is unsure


@pytest.mark.parametrize("path", ["a.json", "dir/A.JSON", "n.ipynb", "N.IPYNB"])
def test_json_files_by_suffix_any_case(path: str) -> None:
    assert string_views(path, ('"\\u0079"',)) == ('"y"',)


@pytest.mark.parametrize("path", ["a.json5", "json", "a.js", "a.toml"])
def test_other_files_have_no_string_view(path: str) -> None:
    assert string_views(path, ('"\\u0079"',)) is None


def test_a_yaml_view_decodes_double_quoted_escapes_and_doubled_single_quotes() -> None:
    lines = ('run: "\\x73m\\u0031\\U00000032\\x30 \\q"', "note: 'it''s'", "plain: \\x41")

    assert string_views("ci.YML", lines) == ('run: "sm120 \\q"', "note: 'it's'", "plain: \\x41")


def test_a_json_string_that_does_not_decode_is_kept_as_written() -> None:
    lines = ('"\\x41" "\\u0041"', '"\\ud800"')

    assert string_views("a.json", lines) == ('"\\x41" "A"', '"\ud800"')


@pytest.mark.parametrize(
    ("path", "language"),
    [
        *((f"x{suffix}", "shell") for suffix in (".sh", ".bash", ".zsh")),
        ("x.yaml", "yaml"),
        ("X.YML", "yaml"),
        ("x.toml", "toml"),
        ("x.r", "r"),
        ("x.rb", "ruby"),
        ("x.pl", "perl"),
        ("x.mk", "make"),
        ("x.cmake", "cmake"),
        ("dir/Makefile", "make"),
        ("GNUmakefile", "make"),
        ("Dockerfile", "dockerfile"),
        ("Dockerfile.dev", "dockerfile"),
        ("web.dockerfile", "dockerfile"),
        ("Containerfile", "dockerfile"),
        ("sub/CMakeLists.txt", "cmake"),
    ],
)
def test_files_with_hash_comments(path: str, language: str) -> None:
    lines = ("a: 1", "b: 2  # cleantree: allow r -- why", "# c")

    assert text_language(path) == language
    assert text_comments(path, lines) == ((2, "# cleantree: allow r -- why"), (3, "# c"))


@pytest.mark.parametrize(
    ("path", "language"), [("x.cfg", "ini"), ("x.ini", "ini"), ("x.conf", "conf")]
)
def test_ini_files_have_whole_line_comments(path: str, language: str) -> None:
    lines = ("a = 1", "b = 2  # cleantree: allow r -- why", "  # c", "; d")

    assert text_language(path) == language
    expected = ((3, "# c"), (4, "; d")) if language == "ini" else ((3, "# c"),)
    assert text_comments(path, lines) == expected


@pytest.mark.parametrize(
    "path",
    ["notes.txt", "x.py.txt", "makefile.txt", "README", "dir/LICENSE", "x.rst", "x.csv", "x.LOG"],
)
def test_plain_text_has_its_allows_read_from_the_line(path: str) -> None:
    assert text_language(path) is None
    assert text_comments(path, ("# c",)) is None


@pytest.mark.parametrize("path", ["x.foo", "x.nix", "x.vhd", "x.py3", "dir/x.unknown"])
def test_a_file_of_an_unknown_language_has_no_comment(path: str) -> None:
    """It may hold strings no grammar here reads: an allow there counts for nothing, where it
    was read from the whole line (``s = "# cleantree: allow ..."`` allowed the line)."""
    assert text_comments(path, ('s = "# c"', "# c")) == ()


@pytest.mark.parametrize("path", [".env", "dir/.env.local", "prod.env", ".ENV.production"])
def test_a_dotenv_file_is_read_as_shell(path: str) -> None:
    assert text_comments(path, ('A="# not"', "B=1  # c")) == ((2, "# c"),)


@pytest.mark.parametrize(
    ("first", "language"),
    [
        ("#!/bin/bash", "shell"),
        ("#! /bin/sh -e", "shell"),
        ("#!/usr/bin/env bash", "shell"),
        ("#!/usr/bin/env -S bash -e", "shell"),
        ("#!/usr/bin/env zsh", "shell"),
        ("#!/usr/bin/perl -w", "perl"),
        ("#!/usr/bin/env ruby", "ruby"),
        ("#!/usr/bin/env Rscript", "r"),
        ("#!/usr/bin/env node", "javascript"),
        ("#!/usr/bin/python3", "json"),  # a language not read here: no comment
        ("#!/usr/bin/env", "json"),
        ("#!", "json"),
        ("# not a shebang", None),  # plain text
    ],
)
def test_a_file_without_a_suffix_is_read_by_its_shebang(first: str, language: str | None) -> None:
    assert text_language("bin/launch", first) == language
    assert text_language("bin/launch.sh", first) == "shell"  # a suffix decides first


def test_a_shell_script_without_a_suffix_has_its_comments_read() -> None:
    lines = ("#!/bin/bash", 'echo "# cleantree: allow r -- no"', "run  # c")

    assert text_comments("bin/launch", lines) == ((1, "#!/bin/bash"), (3, "# c"))


@pytest.mark.parametrize(
    "path",
    ["x.kt", "q.SQL", "p.html", "k.ptx", "m.lua", *(f"f{s}" for s in sorted(_UNREAD_SUFFIXES))],
)
def test_a_language_with_strings_and_no_grammar_here_has_no_comment(path: str) -> None:
    """The same text in its strings and its comments cannot be told apart: none counts."""
    assert text_comments(path, ('s = "# c"', "# c", "// c")) == ()


@pytest.mark.parametrize("path", ["a.json", "n.IPYNB"])
def test_json_files_have_no_comment(path: str) -> None:
    assert text_comments(path, ('{"a": "# b"}', "# c")) == ()


@pytest.mark.parametrize(
    ("line", "comment"),
    [
        ("a\t# c", "# c"),
        ("a #b #c", "#b #c"),
        ("a#b #c", "#c"),
        ("'a\\' # b", "# b"),  # no escape inside single quotes
        ('"a\\" # b', None),
        ("\\# a # b", "# b"),
        ('"a\\" # b" # c', "# c"),
        ("x # ", "# "),
        ("X # c", "# c"),
        ("`a # c", None),  # a backtick quotes as well
        ("", None),
    ],
)
def test_shell_comments_words_quotes_and_escapes(line: str, comment: str | None) -> None:
    assert comments_of("shell", (line,)) == (((1, comment),) if comment is not None else ())


def test_text_names_hold_every_lines_words_and_the_string_views() -> None:
    assert text_names("a.txt", b"alpha beta\ngamma\n") == {"alpha", "beta", "gamma"}
    assert "delta" in text_names("a.json", b'{"k": "\\u0064elta"}\n')
    assert "delta" not in text_names("a.txt", b'{"k": "\\u0064elta"}\n')


def test_a_yaml_escape_letter_is_its_character_and_a_code_past_unicode_stays_written() -> None:
    assert string_views("x.yaml", ('k: "a\\tb\\N"',)) == ('k: "a\tb\x85"',)
    assert string_views("x.yaml", ('k: "\\U0010FFFF\\U00110000 x"',)) == (
        'k: "\U0010ffff\\U00110000 x"',
    )


def test_a_shebang_names_its_interpreter_with_or_without_a_path() -> None:
    assert text_language("launch", "#!bash") == "shell"
    assert text_language("launch", "#!sh -e") == "shell"


def test_a_file_of_no_lines_is_read_by_its_name_alone() -> None:
    assert text_comments("launch", ()) is None
    assert text_comments("launch.sh", ()) == ()


def test_a_json_suffix_decides_before_a_name_does() -> None:
    assert text_language("Dockerfile.json") == "json"
    assert text_language(".env.json") == "json"
