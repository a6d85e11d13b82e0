"""Issue 43: every experiment checkable, whatever it changed, in a Python file, a C/C++ header
and a shell script, each in a real git repository.

* Blame decides committed lines, both ways: a line git blame gives to the experiment is its
  line even when its text stood elsewhere in the file before (no new text, no new name).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from gitrepo import EXPERIMENT, Repo, cleantree, from_diff, git, reported


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


# --------------------------------------------------------------------------- one plan


def _verdicts(repo: Repo, tmp_path: Path) -> tuple[int, int]:
    """``check --reverted O`` and a ``from-diff --rev O`` manifest, on the same tree."""
    derived = from_diff(repo.path, "--rev", EXPERIMENT)
    assert derived.returncode == 0, derived.stderr
    manifest = tmp_path / "derived.toml"
    manifest.write_text(derived.stdout)
    checked = cleantree(repo.path, "check", "--manifest", str(manifest), "--root", ".")
    assert "Traceback" not in checked.stderr
    return repo.check()[0], checked.returncode


@KNOWN
def test_from_diff_and_check_reverted_agree_on_an_experiment_of_known_lines(
    tmp_path: Path, case: Known
) -> None:
    """Issue 43: ``from-diff --rev O`` exited 2 ("nothing a manifest can check") where
    ``check --reverted O`` said clean; both see the experiment now, and its revert."""
    repo = _experiment(tmp_path, case)
    assert _verdicts(repo, tmp_path) == (1, 1)
    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    assert _verdicts(repo, tmp_path) == (0, 0)


# --------------------------------------------------------------------------- removals

SYNCS = "__device__ void f(Block block) {\n" + "    block.sync();\n    step(block);\n" * 6 + "}\n"
PREPARE = """\
#!/bin/sh
set -eu
make clean
make all
make clean
"""
ROUTES = """\
def route(x):
    if x:
        return x
    return None


def other(y):
    if y:
        return y
    return None
"""

REMOVALS = {
    # 2 of the 6 block.sync(); lines of a header
    "header": ("csrc/sync.cuh", SYNCS, SYNCS.replace("    block.sync();\n", "", 2)),
    # one of two equal lines of a script
    "shell": ("scripts/prepare.sh", PREPARE, PREPARE.replace("make clean\n", "", 1)),
    # a line whose text stays elsewhere in the file
    "python": ("pkg/routes.py", ROUTES, ROUTES.replace("    return None\n", "", 1)),
}
REMOVED = pytest.mark.parametrize("case", sorted(REMOVALS))


@REMOVED
def test_lines_the_experiment_removed_are_expected_back_with_their_count(
    tmp_path: Path, case: str
) -> None:
    """Issue 43: a change that only removes lines whose text stays in the file is checkable
    (it was "nothing a manifest can check", exit 2, both ways)."""
    path, before, after = REMOVALS[case]
    repo = Repo(tmp_path / "repo")
    repo.commit("Base", {path: before})
    repo.commit("Experiment", {path: after}, tag=EXPERIMENT)
    code, out, err = repo.check()
    assert (code, err) == (1, ""), out
    assert f"removed-lines-{path.replace('/', '-')}" in reported(out)
    assert _verdicts(repo, tmp_path) == (1, 1)
    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    assert _verdicts(repo, tmp_path) == (0, 0)
    # one of them taken away again, by hand: found
    repo.write({path: after})
    assert _verdicts(repo, tmp_path) == (1, 1)


BLANKS = {
    "header": (
        "csrc/sync.cuh",
        SYNCS,
        SYNCS.replace("    step(block);\n", "    step(block);\n\n", 1),
    ),
    "shell": ("scripts/prepare.sh", PREPARE, PREPARE + "\n"),
    "python": (
        "pkg/routes.py",
        ROUTES,
        ROUTES.replace("    return None\n", "    return None\n\n", 1),
    ),
}


@pytest.mark.parametrize("case", sorted(BLANKS))
def test_a_change_of_blank_lines_alone_is_compared_as_such(tmp_path: Path, case: str) -> None:
    """Issue 43: an added blank line is counted, not dropped."""
    path, before, after = BLANKS[case]
    repo = Repo(tmp_path / "repo")
    repo.commit("Base", {path: before})
    repo.commit("Experiment", {path: after}, tag=EXPERIMENT)
    assert _verdicts(repo, tmp_path) == (1, 1)
    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    assert _verdicts(repo, tmp_path) == (0, 0)
