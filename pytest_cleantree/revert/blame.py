"""Which lines of the work tree are an experiment's now, as git blame gives them (and
``git merge-file`` for a file the experiment's revert would leave as it is)."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_cleantree.analysis import split_lines

from .gitcmd import run_git
from .text import checked_text, decode_text

__all__ = ["experiment_lines_now", "undone"]


_BLAME_HEADER = re.compile(rb"([0-9a-f]{40,64}) [0-9]+ ([0-9]+)(?: [0-9]+)?")


def experiment_lines_now(
    top: Path,
    path: str,
    commits: set[str],
    bounds: Sequence[str] = (),
    *,
    introduced: frozenset[str] = frozenset(),
    before: bytes | None = None,
    after: bytes | None = None,
    blanks: bool = False,
) -> list[tuple[int, str]]:
    """The lines of the work tree's ``path`` that are the experiment's now: ``(line, text
    stripped)``, blank lines left out unless ``blanks`` (a change of blank lines alone);
    none for a missing file.

    Blame decides committed lines, both ways.  A committed line is the experiment's when
    git blame gives it to one of ``commits`` (the experiment's, and their ``git patch-id``
    twins: a cherry-pick, a revert of the revert), whether or not its text is new: a line
    the experiment wrote where its parent had the same text elsewhere in the file
    (``backend: str = "auto",`` given to one more function), or a line it moved, is its
    line.  A file whose bytes are again those it had before the experiment (``before``)
    holds none: git may still give a moved line to the experiment after a revert that
    restored the file byte for byte (a swap of two lines, diffed the other way round);
    nor do the committed lines of one that reverting the experiment once more would leave
    as it is (``after``: its bytes with the experiment; a revert at the tip after later
    commits).
    A line another commit wrote is not the experiment's, whatever its text (``import
    warnings`` added again by a later refactoring): it is a leftover only when it holds a
    name the experiment introduced, which the ``introduced-names`` rule finds.  A line not
    committed (the work tree: a line re-applied by hand) is the experiment's when its text
    is one the experiment added that its parent did not have (``introduced``).  ``bounds``
    (``^BASE``) stops the walk where the experiment starts: lines older than it cannot be
    the experiment's.  The text pinned is the file decoded as the check decodes it, so a
    pinned line matches itself.
    """
    file = top / path
    if not file.is_file():
        return []
    data = file.read_bytes()
    if data == before:
        return []  # restored byte for byte: nothing of the experiment is left in it
    # committed lines only: a line re-applied by hand is found by its text (issue 24)
    reverted = before is not None and after is not None and undone(data, after, before)
    blamed = _blamed(run_git(top, "blame", "--porcelain", *bounds, "--", path), commits)
    lines = split_lines(checked_text(path, data))
    same = len(lines) - (lines[-1] == "") == blamed.count  # else: line breaks git ignores
    found = []
    for number, line in sorted(blamed.lines.items()):
        text = (lines[number - 1] if same else decode_text(line.raw)).strip()
        if reverted and line.committed:
            continue
        if (text or blanks) and _experiment_line(line, text, introduced):
            found.append((number, text))
    return found


def undone(data: bytes, after: bytes, before: bytes) -> bool:
    """Would reverting the experiment once more leave ``data`` as it is?

    ``git merge-file`` brings the experiment's change of the file undone (``after`` to
    ``before``) into ``data``, as ``git revert`` does.  A merge without conflicts that
    changes nothing means no line of the experiment stands where it wrote it: what git
    blame then gives to the experiment is an equal line its revert's diff aligned the
    other way (``#pragma unroll`` or ``}`` kept from the experiment's copy).  A line of
    the experiment still there, or written again by hand, would be taken out: not undone.
    """
    env = {**os.environ, "LC_ALL": "C"}
    with tempfile.TemporaryDirectory(prefix="cleantree-undone-") as folder:
        files = []
        for name, content in (("now", data), ("with", after), ("without", before)):
            file = Path(folder) / name
            file.write_bytes(content)
            files.append(str(file))
        try:
            done = subprocess.run(
                ["git", "merge-file", "-p", "--quiet", *files],
                capture_output=True,
                check=False,
                env=env,
            )
        except FileNotFoundError:
            return False
    return done.returncode == 0 and done.stdout == data


def _experiment_line(line: _BlamedLine, text: str, introduced: frozenset[str]) -> bool:
    """Blame first: a committed line is the experiment's when its commits (or twins) wrote
    it; a line not committed yet, when its text is one the experiment added."""
    if line.ours:
        return True
    return not line.committed and text in introduced


@dataclass(frozen=True)
class _BlamedLine:
    """One line as git blame gives it: its bytes, whether one of the experiment's commits
    wrote it (``ours``), and whether any commit did (``committed``: else the work tree)."""

    raw: bytes
    ours: bool
    committed: bool


@dataclass
class _Blamed:
    """What git blame says of each line written since the base."""

    lines: dict[int, _BlamedLine]
    count: int


def _blamed(out: bytes, commits: set[str]) -> _Blamed:
    """Read ``git blame --porcelain``: lines of a boundary commit (the base or older, or a root
    commit) left out, unless it is one of ``commits``."""
    blamed: dict[int, _BlamedLine] = {}
    boundary: set[bytes] = set()
    count, final, sha = 0, 0, b""
    for raw in out.split(b"\n"):
        header = _BLAME_HEADER.fullmatch(raw)
        if header is not None:
            sha, final = header.group(1), int(header.group(2))
        elif raw == b"boundary":
            boundary.add(sha)
        elif raw.startswith(b"\t") and sha:
            count += 1
            ours = sha.decode() in commits  # a root commit is a boundary too, but ours
            if ours or sha not in boundary:
                blamed[final] = _BlamedLine(raw[1:], ours, sha.strip(b"0") != b"")
            sha = b""
    return _Blamed(blamed, count)
