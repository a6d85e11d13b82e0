"""Fail closed, round 3 (issue 23), classes 1, 2, 3, 5, 9 and a lone surrogate: the one text model.

Every case here was a false clean (or a crash) before: the tree holds a forbidden needle, or
Python refuses a file, and the check must say so on both engines.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from runs import check_tree as check
from runs import cleantree
from runs import one_rule as rule

ENGINES = ["fast", "reference"]


# class 1: needles that are not identifiers, spelt by escapes or newline translation
NEEDLE_CASES = [
    ("backslash", "'C:\\cuda'", b'p = "C:\\\\cuda"\n', 1),
    ("single quote", '''"it's"''', b"s = 'it\\'s'\n", 1),
    ("double quote", """'say "hi"'""", b's = "say \\"hi\\""\n', 1),
    ("tab", '"a\\tb"', b's = "a\\tb"\n', 1),
    ("newline", '"a\\nb"', b's = "a\\nb"\n', 1),
    ("bell", '"a\\u0007b"', b's = "a\\ab"\n', 1),
    ("crlf in a triple-quoted string", '"one\\ntwo"', b'x = 1\r\ns = """one\r\ntwo"""\r\n', 2),
    # more of what the tokenizer makes (the last found by tests/trust/test_differential_needles.py)
    ("lone cr in a triple-quoted string", '"one\\ntwo"', b's = """one\rtwo"""\n', 1),
    ("raw joined to escaped", '"\\\\tA"', b's = r"\\t" "\\x41"\n', 1),
    ("f-string doubled brace", '"a{b"', b'x = 1\ns = f"a{{b"\n', 2),
    ("f-string self-documenting", '"for x="', b'x = 1\ns = f"for {x=}"\n', 2),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("forbid", "source", "line"), [c[1:] for c in NEEDLE_CASES], ids=[c[0] for c in NEEDLE_CASES]
)
def test_a_needle_spelt_by_an_escape_is_found(
    tmp_path: Path, engine: str, forbid: str, source: bytes, line: int
) -> None:
    done = check(tmp_path, rule(forbid), {"m.py": source}, engine=engine)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"m.py:{line}:" in done.stdout, done.stdout


# class 2: a coding cookie Python refuses
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("codec", ["cp037", "utf_16_be"])
def test_a_cookie_python_refuses_is_an_error(tmp_path: Path, engine: str, codec: str) -> None:
    source = f"# coding: {codec}\nx = 'sm120'\n".encode("ascii")
    with pytest.raises(SyntaxError):
        compile(source, "m.py", "exec")
    done = check(tmp_path, rule('"sm120"'), {"m.py": source}, engine=engine)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "m.py" in done.stdout + done.stderr


# class 3: files over the parse limit
@pytest.mark.parametrize("engine", ENGINES)
def test_an_oversize_file_is_never_a_silent_clean(tmp_path: Path, engine: str) -> None:
    padding = b"# " + b"x" * 70 + b"\n"
    source = b'X = "\\x73m120"\n' + padding * (9 * 2**20 // len(padding))
    done = check(tmp_path, rule('"sm120"'), {"m.py": source}, engine=engine)
    assert done.returncode in (1, 2), done.stdout + done.stderr
    if done.returncode == 1:
        assert "m.py:1:" in done.stdout
    else:
        assert "m.py" in done.stdout + done.stderr


# class 5: an allow must be a comment
@pytest.mark.parametrize("engine", ENGINES)
def test_an_allow_inside_a_string_allows_nothing(tmp_path: Path, engine: str) -> None:
    source = b'run(is_sm120(), note="# cleantree: allow gone -- vendor")\n'
    done = check(tmp_path, rule('"is_sm120"'), {"m.py": source}, engine=engine)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "m.py:1:" in done.stdout


def test_an_allow_in_a_comment_still_allows(tmp_path: Path) -> None:
    source = b"run(is_sm120())  # cleantree: allow gone -- vendor\n"
    done = check(tmp_path, rule('"is_sm120"'), {"m.py": source})
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("engine", ENGINES)
def test_an_allow_inside_a_triple_quoted_string_allows_nothing(tmp_path: Path, engine: str) -> None:
    """The line alone reads like code with a comment; the file says it is in a string."""
    source = b's = """\nis_sm120()  # cleantree: allow gone -- vendor\n"""\n'
    done = check(tmp_path, rule('"is_sm120"'), {"m.py": source}, engine=engine)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "m.py:2:" in done.stdout


def test_an_allow_inside_a_string_allows_nothing_from_a_warm_cache(tmp_path: Path) -> None:
    """The comment tokens are cached with the findings: a warm run reads the same allows."""
    tree = tmp_path / "tree"
    tree.mkdir()
    env = {"CLEANTREE_CACHE_DIR": str(tmp_path / "cache")}
    files = {
        "m.py": b'run(is_sm120(), note="# cleantree: allow gone -- vendor")\n',
        "n.py": b"run(is_sm120())  # cleantree: allow gone -- vendor\n",
    }
    for _ in range(2):
        done = check(tree, rule('"is_sm120"', files="*.py"), files, env=env)
        assert done.returncode == 1, done.stdout + done.stderr
        assert "m.py:1:" in done.stdout, done.stdout
        assert "n.py" not in done.stdout, done.stdout
    assert any((tmp_path / "cache").rglob("*.json")), "no cache was written"


def test_an_allow_in_a_text_file_is_read_from_its_line(tmp_path: Path) -> None:
    manifest = rule('"is_sm120"', files="run.sh")
    source = b"is_sm120 --fast  # cleantree: allow gone -- vendor\n"
    done = check(tmp_path, manifest, {"run.sh": source})
    assert done.returncode == 0, done.stdout + done.stderr


# a lone surrogate in a literal (class 8's crash on a regex run)
@pytest.mark.parametrize("engine", ENGINES)
def test_a_lone_surrogate_in_a_literal_does_not_crash_a_regex_run(
    tmp_path: Path, engine: str
) -> None:
    source = b's = "\\ud800"\nuse_sm120()\n'
    done = check(tmp_path, rule('"re:sm1[0-9]+"'), {"m.py": source}, engine=engine)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "m.py:2:" in done.stdout


# class 9: over SSH, the server's needle test must send every file the reference finds in
def remote_check(
    tmp_path: Path, setup: Any, manifest: str, files: dict[str, bytes], engine: str
) -> subprocess.CompletedProcess[str]:
    root = tmp_path / "tree"
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    (tmp_path / "cleantree.toml").write_text(manifest.replace('root = "."\n', ""))
    ssh = ["--ssh-config", str(setup.ssh_config), "--known-hosts", str(setup.known_hosts)]
    return cleantree(
        "check",
        "--host",
        f"{setup.alias}:{root}",
        *ssh,
        "--python",
        sys.executable,
        cwd=tmp_path,
        env={**os.environ, "CLEANTREE_CACHE_DIR": "", "CLEANTREE_ENGINE": engine},
    )


@pytest.mark.ssh
@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("forbid", "source", "line"), [c[1:] for c in NEEDLE_CASES], ids=[c[0] for c in NEEDLE_CASES]
)
def test_a_needle_spelt_by_an_escape_is_found_over_ssh(
    tmp_path: Path, ssh_setup: Any, engine: str, forbid: str, source: bytes, line: int
) -> None:
    done = remote_check(tmp_path, ssh_setup, rule(forbid), {"m.py": source}, engine)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"m.py:{line}:" in done.stdout, done.stdout


@pytest.mark.ssh
@pytest.mark.parametrize("engine", ENGINES)
def test_a_cookie_python_refuses_is_an_error_over_ssh(
    tmp_path: Path, ssh_setup: Any, engine: str
) -> None:
    source = b"# coding: cp037\nx = 'sm120'\n"
    done = remote_check(tmp_path, ssh_setup, rule('"sm120"'), {"m.py": source}, engine)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "m.py" in done.stdout + done.stderr
