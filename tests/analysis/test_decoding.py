"""``analysis/decoding.py`` called directly: bytes to text as Python reads them (PEP 263)."""

from __future__ import annotations

import pytest

from pytest_cleantree.analysis import text
from pytest_cleantree.analysis.decoding import DECODE_ERRORS, RefusedSource, decode_python


@pytest.mark.parametrize(
    ("data", "decoded"),
    [
        (b"x = '\xc3\xa9'\n", "x = '\u00e9'\n"),  # no cookie: UTF-8
        (b"\xef\xbb\xbfx = 1\n", "x = 1\n"),  # the BOM is not text
        (b"# -*- coding: latin-1 -*-\nx = '\xe9'\n", "# -*- coding: latin-1 -*-\nx = '\u00e9'\n"),
        # a UTF-8 file that does not parse is still text: the parse, not the decoding, says so
        (b"# coding: utf-8\nx = (\n", "# coding: utf-8\nx = (\n"),
        (b"\xef\xbb\xbfx = (\n", "x = (\n"),
        (b"x = (\n", "x = (\n"),
    ],
)
def test_bytes_decode_by_bom_cookie_or_utf_8(data: bytes, decoded: str) -> None:
    assert decode_python(data) == decoded


def test_an_unknown_coding_and_bytes_that_do_not_decode_are_decode_errors() -> None:
    with pytest.raises(SyntaxError, match="unknown encoding"):
        decode_python(b"# coding: no-such-codec\nx = 1\n")
    with pytest.raises(UnicodeDecodeError):
        decode_python(b"x = 1\ny = 2\nz = '\xff'\n")  # past the cookie's lines
    assert (SyntaxError, UnicodeDecodeError, LookupError) == DECODE_ERRORS


@pytest.mark.parametrize("codec", ["rot13", "base64", "zlib"])
def test_a_cookie_naming_no_text_codec_is_a_lookup_error(codec: str) -> None:
    with pytest.raises(LookupError, match=f"'{codec}' is not a text encoding"):
        decode_python(f"# coding: {codec}\nx = 1\n".encode())


def test_a_coding_python_refuses_is_refused_with_the_text_it_gives() -> None:
    data = b"# coding: latin-1\nx = (\n"
    with pytest.raises(RefusedSource) as caught:
        decode_python(data)
    assert caught.value.decoded == "# coding: latin-1\nx = (\n"
    assert isinstance(caught.value.reason, SyntaxError)
    assert str(caught.value) == str(caught.value.reason)
    assert "never closed" in str(caught.value)


def test_over_the_parse_limit_a_coding_other_than_utf_8_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(text, "MAX_PARSE_BYTES", 2**20)
    head = b"# coding: latin-1\n"
    at_limit = head + b"#" * (2**20 - len(head) - 1) + b"\n"
    assert len(decode_python(at_limit)) == 2**20  # at the limit: Python is asked, and accepts
    over = at_limit + b"\n"
    with pytest.raises(RefusedSource) as caught:
        decode_python(over)
    assert str(caught.value) == (
        "its coding is iso-8859-1, which only Python's own parse can vouch for, and it is "
        "over the 1 MiB parse limit"
    )
    assert caught.value.decoded == over.decode("latin-1")
    assert isinstance(caught.value.reason, SyntaxError)
    # a UTF-8 file that large needs no parse to be read
    assert decode_python(b"#" * (2**20 + 1)) == "#" * (2**20 + 1)


def test_python_is_asked_to_parse_not_to_compile_and_names_no_file() -> None:
    # 'return' outside a function parses (the analysis reads the tree) but does not compile
    data = b"# coding: latin-1\nreturn '\xe9'\n"
    assert decode_python(data) == "# coding: latin-1\nreturn '\u00e9'\n"
    with pytest.raises(RefusedSource) as caught:
        decode_python(b"# coding: latin-1\nx = (\n")
    assert str(caught.value) == "'(' was never closed (<source>, line 2)"
