"""Fail closed, round 5 (issue 42): lines.

``forbid_lines_escaped`` matches the bytes it names in any file whose bytes hold them (a
UTF-8 file's line decodes them as characters; a Python file with a coding line reads them
another way); a match that stands wholly on one line of a joined string is reported there
(``tests/analysis/test_soundness.py`` holds the scan to it, both engines).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from runs import check_tree as check

ENGINES = ["fast", "reference"]

ESCAPED = 'root = "."\n[[rule]]\nid = "gone"\nfiles = ["{name}"]\nforbid_lines_escaped = [{line}]\n'

#: (id, file name, its bytes, the entry as TOML writes it, the line it must be found on)
CASES = [
    ("utf-8 shell", "run.sh", b"#!/bin/sh\necho caf\xc3\xa9\n", r"'echo caf\xc3\xa9'", 2),
    ("utf-8 python", "m.py", b"x = 1\nprint('caf\xc3\xa9')\n", r""""print('caf\\xc3\\xa9')" """, 2),
    ("latin-1 text", "notes.txt", b"caf\xe9\n", r"'caf\xe9'", 1),
    (
        "python with a latin-1 coding line",
        "m.py",
        b"# -*- coding: latin-1 -*-\nx = 'caf\xe9'\n",
        r""""x = 'caf\\xe9'" """,
        2,
    ),
    (
        "python with a latin-1 coding line holding utf-8 bytes",
        "m.py",
        b"# -*- coding: latin-1 -*-\nx = 'caf\xc3\xa9'\n",
        r""""x = 'caf\\xc3\\xa9'" """,
        2,
    ),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("name", "data", "line", "number"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_forbid_lines_escaped_finds_the_bytes_it_names(
    tmp_path: Path, engine: str, name: str, data: bytes, line: str, number: int
) -> None:
    done = check(tmp_path, ESCAPED.format(name=name, line=line), {name: data}, engine=engine)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{name}:{number}:" in done.stdout, done.stdout
