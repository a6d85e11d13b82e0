"""Helpers of the from-diff suite: git in a temporary repository, and the command in a
subprocess (the autouse fixture in ``conftest.py`` isolates both from the machine)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

#: Commits need an identity; nothing else of the machine's configuration may leak in.
IDENTITY = ("-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", *IDENTITY, "-C", str(repo), *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def cleantree(
    cwd: Path, *args: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the ``cleantree`` command in a subprocess, as a user would."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        check=False,
    )
    return subprocess.CompletedProcess(
        done.args,
        done.returncode,
        done.stdout.decode("utf-8", "surrogateescape"),  # a line of a file that is not UTF-8
        done.stderr.decode("utf-8", "surrogateescape"),
    )


def from_diff(
    cwd: Path, *args: str, stdin: bytes | None = None
) -> subprocess.CompletedProcess[str]:
    """``cleantree from-diff``, through the ``cleantree`` command itself."""
    return cleantree(cwd, "from-diff", *args, stdin=stdin)


#: The tag of the experiment in a :class:`Repo`.
EXPERIMENT = "experiment"


class Repo:
    """A repository grown commit by commit: ``commit`` writes files (``None`` deletes one)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir()
        git(path, "init", "-q", "-b", "main")

    def write(self, files: dict[str, str | bytes | None]) -> None:
        for name, text in files.items():
            if text is None:
                (self.path / name).unlink()
                continue
            (self.path / name).parent.mkdir(parents=True, exist_ok=True)
            if isinstance(text, bytes):
                (self.path / name).write_bytes(text)
            else:
                (self.path / name).write_text(text)

    def commit(self, message: str, files: dict[str, str | bytes | None], tag: str = "") -> None:
        self.write(files)
        git(self.path, "add", "-A")
        git(self.path, "commit", "-q", "-m", message)
        if tag:
            git(self.path, "tag", tag)

    def line_of(self, name: str, text: str) -> int:
        lines = (self.path / name).read_text().split("\n")
        assert lines.count(text) == 1, (name, text)
        return lines.index(text) + 1

    def check(self, *args: str) -> tuple[int, str, str]:
        done = cleantree(self.path, "check", "--reverted", EXPERIMENT, *args)
        assert "Traceback" not in done.stderr
        return done.returncode, done.stdout, done.stderr


def reported(stdout: str) -> dict[str, set[tuple[str, int]]]:
    """Each failed rule's id, with the (path, line) rows under it."""
    found: dict[str, set[tuple[str, int]]] = {}
    rule = ""
    for line in stdout.splitlines():
        header = re.match(r"^([A-Za-z0-9][\w.-]*): ", line)
        row = re.match(r"^(\S+?):(\d+)(?::\d+)?\s", line)
        if line.startswith("cleantree: "):
            continue
        if header and not row:
            rule = header.group(1)
            found[rule] = set()
        elif row:
            found[rule].add((row.group(1), int(row.group(2))))
    return found
