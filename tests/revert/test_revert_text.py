"""The text of changed files (``revert/text.py``): bytes kept byte for byte, lone surrogates
for the bytes that are not UTF-8, and a Python file read by its coding line."""

from __future__ import annotations

import pytest

from pytest_cleantree.revert.text import checked_text, decode_text, encode_text, unrepresentable

LATIN1_PYTHON = "# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n".encode("latin-1")


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"plain\n",
        "caf\xe9 \u2603\n".encode(),
        b"bad \xff\xfe byte\n",
        b"\x80",
        b"\xed\xa0\x80",
    ],
)
def test_decode_then_encode_gives_back_the_same_bytes(data: bytes) -> None:
    assert encode_text(decode_text(data)) == data


def test_utf8_is_decoded_as_utf8() -> None:
    assert decode_text("caf\xe9\n".encode()) == "caf\xe9\n"
    assert encode_text("caf\xe9") == b"caf\xc3\xa9"


def test_an_undecodable_byte_becomes_a_lone_surrogate() -> None:
    assert decode_text(b"a\xffb") == "a\udcffb"
    assert encode_text("a\udcffb") == b"a\xffb"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", False),
        ("plain ascii", False),
        ("caf\xe9 \u2603 \U0001f600", False),
        ("\ud7ff\ue000", False),  # the code points either side of the surrogates
        (chr(0xD800), True),  # the first surrogate
        (chr(0xDFFF), True),  # the last
        ("a\udcffb", True),  # in the middle of a line
        ("text then \udc80", True),  # at its end
    ],
)
def test_unrepresentable_means_a_lone_surrogate(text: str, expected: bool) -> None:
    assert unrepresentable(text) is expected


def test_a_decoded_bad_byte_is_unrepresentable() -> None:
    assert unrepresentable(decode_text(b"x = '\xff'\n"))
    assert not unrepresentable(decode_text("x = 'caf\xe9'\n".encode()))


@pytest.mark.parametrize("path", ["mod.py", "stub.pyi", "gui.pyw", "pkg/deep/mod.py"])
def test_a_python_file_is_read_by_its_coding_line(path: str) -> None:
    assert checked_text(path, LATIN1_PYTHON) == "# -*- coding: latin-1 -*-\nname = 'caf\xe9'\n"


@pytest.mark.parametrize("path", ["notes.txt", "mod.py.orig", "Makefile", "mod_py"])
def test_another_file_is_read_as_utf8_whatever_its_first_line(path: str) -> None:
    # the latin-1 byte is not UTF-8: kept as a surrogate, the coding line ignored
    assert checked_text(path, LATIN1_PYTHON) == "# -*- coding: latin-1 -*-\nname = 'caf\udce9'\n"


def test_a_python_file_python_cannot_decode_is_read_as_utf8() -> None:
    # no coding line, and bytes that are not UTF-8: decode_python refuses, the text stays
    assert checked_text("mod.py", b"x = '\xff'\n") == "x = '\udcff'\n"
    # an unknown coding: refused too
    unknown = b"# coding: no-such-codec\nx = 1\n"
    assert checked_text("mod.py", unknown) == unknown.decode()
    # a codec that is not a text encoding
    rot = b"# coding: rot13\nx = 1\n"
    assert checked_text("mod.py", rot) == rot.decode()


def test_a_python_file_with_a_bom_loses_it() -> None:
    assert checked_text("mod.py", b"\xef\xbb\xbfx = 1\n") == "x = 1\n"
    assert checked_text("notes.txt", b"\xef\xbb\xbfx = 1\n") == "\ufeffx = 1\n"
