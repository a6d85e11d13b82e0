"""Fail closed, round 4 (issue 34): text files read as their language writes them, through
the CLI on both engines.

Words of text files (identifiers split at dots, JSON strings decoded), encodings (a BOM
stripped, UTF-16 and UTF-32 decoded, other bytes an error) and allows counted only in the
file type's comments.  Each case passed a dirty tree before.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from runs import check_tree as check

ENGINES = ["fast", "reference"]


def rule(forbid: str, files: str) -> str:
    return f'root = "."\n[[rule]]\nid = "gone"\nfiles = ["{files}"]\nforbid = [{forbid}]\n'


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("forbid", "name", "data", "where"),
    [
        pytest.param(
            '"=is_sm120_supported"',
            "run.sh",
            b'#!/bin/sh\npython -c "import m; m.is_sm120_supported()"\n',
            "run.sh:2:",
            id="exact-in-a-shell-command",
        ),
        pytest.param(
            '"is_sm1*_supported"',
            "ci.yaml",
            b"check: sglang.srt.utils.is_sm120_supported\n",
            "ci.yaml:1:",
            id="glob-in-a-yaml-value",
        ),
        pytest.param(
            '"=enable_sm120_fusion"',
            "n.ipynb",
            b'{\n "cells": [\n  {"source": ["\\tenable_sm120_fusion()\\n"]}\n ]\n}\n',
            "n.ipynb:3:",
            id="notebook-escape-decoded",
        ),
        pytest.param(
            '"=enable_sm120_fusion"',
            "c.json",
            b'{"cmd": "\\u0065nable_sm120_fusion"}\n',
            "c.json:1:",
            id="json-unicode-escape-decoded",
        ),
    ],
)
def test_words_of_text_files(
    tmp_path: Path, engine: str, forbid: str, name: str, data: bytes, where: str
) -> None:
    done = check(tmp_path, rule(forbid, name), {name: data}, engine=engine)
    assert done.returncode == 1, done.stdout + done.stderr
    assert where in done.stdout, done.stdout


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("codec", ["utf-16", "utf-32", "utf-16-be", "utf-32-le"])
def test_utf16_and_utf32_with_a_bom_are_decoded(tmp_path: Path, engine: str, codec: str) -> None:
    bom = {"utf-16-be": b"\xfe\xff", "utf-32-le": b"\xff\xfe\x00\x00"}.get(codec, b"")
    data = bom + "x: 1\ncall is_sm120_supported\n".encode(codec)
    done = check(tmp_path, rule('"=is_sm120_supported"', "k.txt"), {"k.txt": data}, engine=engine)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "k.txt:2:" in done.stdout


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("forbid", "data"),
    [
        pytest.param('"=is_sm120"', "is_sm120\n".encode("utf-16-le"), id="utf16-without-a-bom"),
        pytest.param(
            '"=café_sm120"', "café_sm120\n".encode("latin-1"), id="latin1-pattern-beyond-ascii"
        ),
    ],
)
def test_other_undecodable_text_that_may_hide_a_pattern_is_an_error(
    tmp_path: Path, engine: str, forbid: str, data: bytes
) -> None:
    done = check(tmp_path, rule(forbid, "k.txt"), {"k.txt": data}, engine=engine)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "cannot read as text" in done.stdout


@pytest.mark.parametrize("engine", ENGINES)
def test_latin1_text_is_read_as_grep_reads_it_for_an_ascii_pattern(
    tmp_path: Path, engine: str
) -> None:
    data = "caf\xe9 is_sm120\n".encode("latin-1")
    done = check(tmp_path, rule('"=is_sm120"', "k.txt"), {"k.txt": data}, engine=engine)
    assert done.returncode == 1, done.stdout + done.stderr


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", ["notes.txt", "m.py", "c.yaml"])
def test_forbid_lines_on_the_first_line_after_a_utf8_bom(
    tmp_path: Path, engine: str, name: str
) -> None:
    manifest = f'root = "."\n[[rule]]\nid = "gone"\nfiles = ["{name}"]\nforbid_lines = ["x = 1"]\n'
    done = check(tmp_path, manifest, {name: b"\xef\xbb\xbfx = 1\ny = 2\n"}, engine=engine)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{name}:1:" in done.stdout


ALLOW = "cleantree: allow gone -- not a comment"


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("name", "line"),
    [
        pytest.param("ci.yaml", f'cmd: "use_sm120 # {ALLOW}"', id="yaml-string"),
        pytest.param("ci.yaml", f"cmd: 'use_sm120 # {ALLOW}'", id="yaml-single-quoted"),
        pytest.param("run.sh", f'echo "use_sm120 # {ALLOW}"', id="shell-string"),
        pytest.param("run.sh", f"echo use_sm120#{ALLOW}", id="shell-hash-inside-a-word"),
        pytest.param("c.json", f'{{"cmd": "use_sm120 # {ALLOW}"}}', id="json-string"),
    ],
)
def test_an_allow_in_a_text_file_counts_only_in_its_comments(
    tmp_path: Path, engine: str, name: str, line: str
) -> None:
    files = {name: (line + "\n").encode()}
    done = check(tmp_path, rule('"sm120"', name), files, engine=engine)
    assert done.returncode == 1, done.stdout + done.stderr


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("name", ["ci.yaml", "run.sh", "Makefile", "notes.txt"])
def test_an_allow_in_a_comment_of_a_text_file_still_allows(
    tmp_path: Path, engine: str, name: str
) -> None:
    files = {name: b"x: use_sm120  # cleantree: allow gone -- kept on purpose\n"}
    done = check(tmp_path, rule('"sm120"', name), files, engine=engine)
    assert done.returncode == 0, done.stdout + done.stderr


NFD = "cafe\u0301_sm120"  # "café_sm120" with a combining accent: Python reads it NFKC


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("name", "line", "kind"),
    [
        pytest.param("a.py", f"{NFD} = 1", "assignment", id="name-in-nfd-bytes"),
        pytest.param("b.py", "caf\u00e9_sm120 = 1", "assignment", id="same-name-in-nfc-bytes"),
        pytest.param("c.py", f"x = '{NFD}'", "string", id="string-as-written"),
        # the value holds the pattern as written only once the escape is decoded: the fast
        # path's prefilter must look for the written body, not only its NFKC form (a miss
        # found on the standard library's ctypes tests, ``"ab\u2070"`` against ``ab⁰``)
        pytest.param("e.py", "x = 'cafe\\u0301_sm120'", "string", id="string-by-escape"),
        pytest.param("d.txt", f"run {NFD}", "text", id="text-as-written"),
    ],
)
def test_a_pattern_in_nfd_bytes_matches_names_after_nfkc_and_text_as_written(
    tmp_path: Path, engine: str, name: str, line: str, kind: str
) -> None:
    files = {name: (line + "\n").encode()}
    done = check(tmp_path, rule(f'"={NFD}"', name), files, engine=engine)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{name}:1:" in done.stdout, done.stdout
    assert kind in done.stdout, done.stdout
