"""``analysis/records.py`` called directly: why a file was not analysed, word for word."""

from __future__ import annotations

import sys

import pytest

from pytest_cleantree.analysis.records import decode_problem, parse_problem

VERSION = f"{sys.version_info.major}.{sys.version_info.minor}"
ANOTHER = (
    "If the code targets another Python, run the check under that Python (for example "
    "`python3.12 -m pytest --cleantree`); lines whose text matches are listed"
)


def test_a_byte_that_does_not_decode_is_named_with_its_line_offset_and_codec() -> None:
    with pytest.raises(UnicodeDecodeError) as caught:
        b"x = 1\n# ab\xff\n".decode("utf-8")
    assert decode_problem(caught.value) == (
        "cannot decode as Python source: invalid start byte at line 2 (byte 0xff at offset 10 "
        "of the file) (utf-8)"
    )


@pytest.mark.parametrize("kind", [LookupError, TypeError])
def test_a_cookie_naming_no_text_codec_is_an_encoding_problem(kind: type[Exception]) -> None:
    assert decode_problem(kind("'rot13' is not a text encoding")) == (
        "cannot decode as Python source: encoding problem: 'rot13' is not a text encoding"
    )


def test_any_other_decoding_error_says_what_python_said() -> None:
    assert decode_problem(SyntaxError("unknown encoding: nope")) == (
        "cannot decode as Python source: unknown encoding: nope"
    )


def test_a_syntax_error_gives_its_line_and_what_to_do() -> None:
    error = SyntaxError("invalid syntax", ("a.py", 3, 5, "x = (\n"))
    assert parse_problem(error) == (
        f"not valid Python {VERSION} syntax: invalid syntax at line 3. {ANOTHER}"
    )
    assert parse_problem(SyntaxError("invalid syntax")) == (
        f"not valid Python {VERSION} syntax: invalid syntax at unknown line. {ANOTHER}"
    )


@pytest.mark.parametrize("error", [RecursionError("deep"), MemoryError()])
def test_too_deep_a_file_says_so(error: RecursionError | MemoryError) -> None:
    assert parse_problem(error) == (
        f"not valid Python {VERSION} syntax: too deeply nested for this Python. {ANOTHER}"
    )


def test_a_value_error_says_what_python_said() -> None:
    error = ValueError("source code string cannot contain null bytes")
    assert parse_problem(error) == (
        f"not valid Python {VERSION} syntax: source code string cannot contain null bytes. "
        + ANOTHER
    )


@pytest.mark.parametrize(
    "message",
    [
        "Missing parentheses in call to 'print'. Did you mean print(...)?",
        "Missing parentheses in call to 'exec'. Did you mean exec(...)?",
        "multiple exception types must be parenthesized",
        "leading zeros in decimal integer literals are not permitted; use an 0o prefix",
    ],
)
def test_python_2_code_is_named_as_such(message: str) -> None:
    assert parse_problem(SyntaxError(message, ("a.py", 2, 1, "x"))) == (
        f"not valid Python {VERSION} syntax: {message} at line 2: it looks like Python 2 code, "
        "which no Python 3 parses; lines whose text matches are listed"
    )


def test_python_3_s_words_elsewhere_or_in_a_value_error_are_no_python_2() -> None:
    inside = "invalid syntax (Missing parentheses in call to 'print')"
    assert parse_problem(SyntaxError(inside, ("a.py", 2, 1, "x"))).endswith(ANOTHER)
    value = "Missing parentheses in call to 'print'"
    assert parse_problem(ValueError(value)) == (
        f"not valid Python {VERSION} syntax: {value}. {ANOTHER}"
    )
