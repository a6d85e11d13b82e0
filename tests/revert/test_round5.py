"""Issue 43: every experiment checkable, whatever it changed, in a Python file, a C/C++ header
and a shell script, each in a real git repository.

* Blame decides committed lines, both ways: a line git blame gives to the experiment is its
  line even when its text stood elsewhere in the file before (no new text, no new name).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from gitrepo import EXPERIMENT, Repo, git, reported


@dataclass(frozen=True)
class Known:
    """An experiment whose added lines all have texts the file had before."""

    path: str
    before: str
    after: str
    #: the lines it added, as they stand in ``after``
    added: tuple[str, ...]


PYTHON = Known(
    "pkg/prefill.py",
    """\
def prefill(
    x,
    backend: str = "auto",
):
    if backend == "auto":
        return x
    return -x


def decode(
    x,
    runner,
):
    if runner.backend == "auto":
        return x
    return -x
""",
    """\
def prefill(
    x,
    backend: str = "auto",
):
    if backend == "auto":
        return x
    return -x


def decode(
    x,
    runner,
    backend: str = "auto",
):
    if backend == "auto":
        return x
    return -x
""",
    ('    backend: str = "auto",', '    if backend == "auto":'),
)

HEADER = Known(
    "csrc/kernel.cuh",
    """\
#pragma once

__device__ void reduce(Block block) {
    block.sync();
    step(block);
    block.sync();
}

__device__ void scan(Block block) {
    step(block);
}
""",
    """\
#pragma once

__device__ void reduce(Block block) {
    block.sync();
    step(block);
    block.sync();
}

__device__ void scan(Block block) {
    block.sync();
    step(block);
}
""",
    ("    block.sync();",),
)

SHELL = Known(
    "scripts/run.sh",
    """\
#!/bin/sh
set -eu
build() {
    make all
}
check() {
    make test
}
build
check
""",
    """\
#!/bin/sh
set -eu
build() {
    make all
}
check() {
    make all
    make test
}
build
check
""",
    ("    make all",),
)

KNOWN = pytest.mark.parametrize("case", [PYTHON, HEADER, SHELL], ids=["python", "header", "shell"])


def _experiment(tmp_path: Path, case: Known) -> Repo:
    repo = Repo(tmp_path / "repo")
    repo.commit("Base", {case.path: case.before})
    repo.commit("Experiment", {case.path: case.after}, tag=EXPERIMENT)
    return repo


def _lines_of(repo: Repo, case: Known) -> set[tuple[str, int]]:
    """Where the experiment's added lines stand in the work tree (each the last line of its
    text: the experiment appended after the file's own)."""
    lines = (repo.path / case.path).read_text().split("\n")
    found = set()
    for text in case.added:
        numbers = [number for number, line in enumerate(lines, 1) if line == text]
        found.add((case.path, numbers[-1]))
    return found


@KNOWN
def test_a_committed_line_blamed_to_the_experiment_is_its_line_whatever_its_text(
    tmp_path: Path, case: Known
) -> None:
    """Its parent had the same text elsewhere in the file: blame, not the text, decides."""
    repo = _experiment(tmp_path, case)
    code, out, err = repo.check()
    assert code == 1, (out, err)
    rule = f"experiment-lines-{case.path.replace('/', '-')}"
    assert reported(out)[rule] == _lines_of(repo, case)


@KNOWN
def test_the_revert_of_an_experiment_of_known_lines_is_clean(tmp_path: Path, case: Known) -> None:
    repo = _experiment(tmp_path, case)
    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    code, out, err = repo.check()
    assert (code, err) == (0, ""), out
