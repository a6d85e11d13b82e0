"""Input written to hurt: regexes that backtrack forever, timeouts that are not numbers,
source lines that drive the terminal.  Each has a defined outcome, reached quickly."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from runs import cleantree


def write_tree(root: Path, manifest: str, files: dict[str, str | bytes]) -> None:
    (root / "cleantree.toml").write_text(manifest)
    for name, data in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data)


# ---------------------------------------------------------------- item 14: regex engine


def test_a_catastrophic_regex_finishes(tmp_path: Path) -> None:
    """``(a+)+$`` against 40 a's and a b backtracks 2**40 times in a backtracking engine."""
    name = "a" * 40 + "b"
    manifest = '[[rule]]\nfiles = ["m.py"]\nforbid = ["re:(a+)+$", "re:bb$"]\n'
    write_tree(tmp_path, manifest, {"m.py": f"{name} = 1\nx = '{name}'\nbb = 2\n"})
    completed = cleantree("check", cwd=tmp_path, timeout=60)
    assert completed.returncode == 1, completed.stderr
    assert "m.py:3" in completed.stdout
    assert "m.py:1" not in completed.stdout
    assert "m.py:2" not in completed.stdout


def test_a_regex_re2_cannot_run_is_refused_by_the_manifest(tmp_path: Path) -> None:
    manifest = '[[rule]]\nfiles = ["m.py"]\nforbid = ["re:(sm)\\\\1"]\n'
    write_tree(tmp_path, manifest, {"m.py": "smsm = 1\n"})
    completed = cleantree("check", cwd=tmp_path)
    assert completed.returncode == 2
    assert "forbid[0]" in completed.stderr
    assert "'(sm)\\\\1'" in completed.stderr
    assert "RE2" in completed.stderr
    assert "E0000" not in completed.stderr  # RE2's own log line stays quiet


# ---------------------------------------------------------------- item 13: timeouts


@pytest.mark.parametrize("option", ["--timeout", "--connect-timeout"])
@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0", "soon"])
def test_a_timeout_that_is_no_duration_is_a_usage_error(
    option: str, value: str, tmp_path: Path
) -> None:
    write_tree(tmp_path, '[[rule]]\nfiles = ["m.py"]\nforbid = ["x"]\n', {"m.py": "y = 1\n"})
    completed = cleantree("check", f"{option}={value}", cwd=tmp_path)
    assert completed.returncode == 2
    assert completed.stderr.startswith("usage: ")
    assert f"error: argument {option}: {value!r} is not a number of seconds" in completed.stderr
    assert "internal error" not in completed.stderr


@pytest.mark.slow
def test_the_connect_timeout_is_the_one_given(tmp_path: Path) -> None:
    """A server that accepts the connection but never greets: the handshake waits 1 s."""
    write_tree(tmp_path, '[[rule]]\nfiles = ["m.py"]\nforbid = ["x"]\n', {"m.py": "y = 1\n"})
    (tmp_path / "known_hosts").write_text("")
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        port = silent.getsockname()[1]
        completed = cleantree(
            "check",
            "--host",
            f"ssh://127.0.0.1:{port}/srv",
            "--known-hosts",
            str(tmp_path / "known_hosts"),
            "--connect-timeout",
            "1.5",
            cwd=tmp_path,
        )
    assert completed.returncode == 2, completed.stderr
    assert "within 1.5 s" in completed.stdout


# ---------------------------------------------------------------- item 18: terminal controls

#: a line that, printed raw, erases itself (ESC [2K), then reverses (U+202E) and beeps
HOSTILE_LINE = "sm120 = 1  # \x1b[2K all clean \x9b2K \u202eevil\x07"
HOSTILE_MANIFEST = '[[rule]]\nid = "r"\nwhy = "gone"\nfiles = ["*.py"]\nforbid = ["sm120"]\n'


def test_controls_in_a_reported_line_are_escaped_in_text(tmp_path: Path) -> None:
    files = {"m.py": HOSTILE_LINE + "\n", "n\x1b[1A.py": "sm120 = 2\n"}
    write_tree(tmp_path, HOSTILE_MANIFEST, files)
    completed = cleantree("check", cwd=tmp_path)
    assert completed.returncode == 1, completed.stderr
    assert completed.stdout == (
        "r: gone\n"
        "m.py:1:1         assignment  sm120 = 1  # \\x1b[2K all clean \\x9b2K \\u202eevil\\x07\n"
        "n\\x1b[1A.py:1:1  assignment  sm120 = 2\n"
        "\n"
        "cleantree: 2 forbidden lines in 2 files (1 rule checked)\n"
    )


def test_controls_keep_their_real_value_in_json(tmp_path: Path) -> None:
    write_tree(tmp_path, HOSTILE_MANIFEST, {"m.py": HOSTILE_LINE + "\n"})
    completed = cleantree("check", "--format", "json", cwd=tmp_path)
    assert completed.returncode == 1, completed.stderr
    (result,) = json.loads(completed.stdout)["results"]
    assert [hit["source"] for hit in result["hits"]] == [HOSTILE_LINE]
