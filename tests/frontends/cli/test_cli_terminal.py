"""On a terminal, run as in an interactive shell (pseudo-terminals): the text report in colour
(paths, kinds, the summary), ``NO_COLOR`` and ``FORCE_COLOR`` honoured, and a progress line
that counts the files analysed of the files to analyse."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

CLEANTREE = [sys.executable, "-m", "pytest_cleantree"]
BOLD_PATH = "\x1b[1msrc/a.py:1:5\x1b[0m"
RED_KIND = "\x1b[31mreference\x1b[0m"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = sm120\n")
    (tmp_path / "src" / "b.py").write_text("y = 1\n")
    (tmp_path / "src" / "c.py").write_text("z = 2\n")
    (tmp_path / "cleantree.toml").write_text(
        '[[rule]]\nid = "no-sm120"\nfiles = ["src/*.py"]\nforbid = ["sm120"]\n'
    )
    return tmp_path


def _read_all(fd: int) -> str:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the terminal's other end is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(fd)
    return b"".join(chunks).decode()


def run(*args: str, cwd: Path, tty: bool, **env: str) -> tuple[int, str, str]:
    """``cleantree`` with stdout and stderr on pseudo-terminals (``tty``), else pipes."""
    import pty

    environ = {**os.environ, "CLEANTREE_PROGRESS_DELAY": "0", **env}
    for name in ("NO_COLOR", "FORCE_COLOR"):
        if name not in env:
            environ.pop(name, None)
    if not tty:
        done = subprocess.run(
            [*CLEANTREE, *args], cwd=cwd, env=environ, capture_output=True, text=True, timeout=120
        )
        return done.returncode, done.stdout, done.stderr
    out_primary, out_secondary = pty.openpty()
    err_primary, err_secondary = pty.openpty()
    with subprocess.Popen(
        [*CLEANTREE, *args], cwd=cwd, stdout=out_secondary, stderr=err_secondary, env=environ
    ) as process:
        os.close(out_secondary)
        os.close(err_secondary)
        out = _read_all(out_primary)
        err = _read_all(err_primary)
        process.wait(timeout=120)
    return process.returncode, out.replace("\r\n", "\n"), err


def test_a_terminal_gets_colour(project: Path) -> None:
    code, out, _ = run("check", cwd=project, tty=True)
    assert code == 1
    assert f"{BOLD_PATH}  {RED_KIND}  x = sm120" in out
    assert out.rstrip("\n").splitlines()[-1] == (
        "\x1b[1;31mcleantree: 1 forbidden line in 1 file (1 rule checked)\x1b[0m"
    )


def test_a_clean_tree_is_green(project: Path) -> None:
    (project / "src" / "a.py").write_text("x = 1\n")
    code, out, _ = run("check", cwd=project, tty=True)
    assert (code, out) == (0, "\x1b[1;32mcleantree: clean (1 rule, 3 files)\x1b[0m\n")


@pytest.mark.parametrize("value", ["1", "0", "false"])
def test_no_color_with_any_value_turns_it_off(project: Path, value: str) -> None:
    code, out, _ = run("check", cwd=project, tty=True, NO_COLOR=value, FORCE_COLOR="1")
    assert code == 1
    assert "\x1b[" not in out
    assert "src/a.py:1:5  reference  x = sm120" in out


def test_an_empty_no_color_is_not_set(project: Path) -> None:
    _, out, _ = run("check", cwd=project, tty=True, NO_COLOR="")
    assert BOLD_PATH in out


def test_force_color_paints_a_pipe_and_a_pipe_alone_is_plain(project: Path) -> None:
    assert BOLD_PATH in run("check", cwd=project, tty=False, FORCE_COLOR="1")[1]
    _, plain, _ = run("check", cwd=project, tty=False)
    assert "\x1b[" not in plain


def test_machine_formats_are_never_painted(project: Path) -> None:
    _, out, _ = run("check", "--format", "json", cwd=project, tty=True, FORCE_COLOR="1")
    assert "\x1b[" not in out


def test_the_progress_line_counts_done_of_total(project: Path) -> None:
    code, _, err = run("check", "--no-cache", cwd=project, tty=True)
    assert code == 1
    shown = [part for part in err.split("\r\x1b[K") if part]
    assert shown[0].startswith("cleantree: 1 rule, listing the files, ")
    counts = [re.search(r"(\d+)/(\d+) files analysed", part) for part in shown]
    first = next(index for index, found in enumerate(counts) if found)
    assert all("listing the files" in part for part in shown[:first])  # then counts only
    assert all(found is not None and found[2] == "3" for found in counts[first:]), shown
    assert counts[-1] is not None
    assert counts[-1][1] == "3"  # every file done
    assert err.endswith("\r\x1b[K")  # erased before the report
