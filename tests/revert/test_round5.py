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
    """Issue 43: an added blank line is compared, not dropped: counted in a manifest,
    pinned by blame with ``--reverted`` (the one line the experiment wrote, not every
    blank line of the file)."""
    path, before, after = BLANKS[case]
    repo = Repo(tmp_path / "repo")
    repo.commit("Base", {path: before})
    repo.commit("Experiment", {path: after}, tag=EXPERIMENT)
    code, out, _ = repo.check()
    [(where, line)] = reported(out)[f"experiment-lines-{path.replace('/', '-')}"]
    assert (code, where, (repo.path / path).read_text().split("\n")[line - 1]) == (1, path, "")
    assert _verdicts(repo, tmp_path) == (1, 1)
    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    assert _verdicts(repo, tmp_path) == (0, 0)


# --------------------------------------------------------------------------- modes

#: (path, text, mode before, mode the experiment gave it)
MODES = {
    "header": ("csrc/kernel.cuh", HEADER.before, 0o644, 0o755),
    "shell": ("scripts/run.sh", SHELL.before, 0o755, 0o644),
    "python": ("tests/unit/test_x.py", PYTHON.before, 0o755, 0o644),
}
GIT_MODE = {0o644: "100644", 0o755: "100755"}


def _mode_experiment(tmp_path: Path, case: str) -> tuple[Repo, str]:
    path, text, before, after = MODES[case]
    repo = Repo(tmp_path / "repo")
    repo.write({path: text, "other.py": "x = 1\n"})
    (repo.path / path).chmod(before)
    repo.commit("Base", {})
    (repo.path / path).chmod(after)
    repo.commit("Experiment", {"other.py": "x = 1\ny = 2\n"}, tag=EXPERIMENT)
    return repo, path


@pytest.mark.parametrize("case", sorted(MODES))
def test_a_mode_the_experiment_changed_is_expected_back(tmp_path: Path, case: str) -> None:
    """Issue 43: a mode is content.  Still changed: exit 1 naming the file and both modes
    (it was exit 2, "modes are not checked", even once the revert restored it)."""
    repo, path = _mode_experiment(tmp_path, case)
    _, _, before, after = MODES[case]
    code, out, err = repo.check()
    assert (code, err) == (1, ""), out
    expected = f"{path}  missing  expected 'mode {GIT_MODE[before]}, not {GIT_MODE[after]}'"
    assert expected in out.splitlines()
    assert _verdicts(repo, tmp_path) == (1, 1)  # a manifest's `mode` key, from from-diff
    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    assert repo.check() == (0, "cleantree: clean (2 rules, 2 files)\n", "")
    assert _verdicts(repo, tmp_path) == (0, 0)
    # changed again in the work tree alone: found
    (repo.path / path).chmod(after)
    assert _verdicts(repo, tmp_path) == (1, 1)


# --------------------------------------------------------------------------- no trace


def test_a_range_that_leaves_no_trace_says_so_and_is_no_error(tmp_path: Path) -> None:
    """Issue 43: an empty file added then removed, a script renamed there and back: the
    range changes nothing; ``--reverted`` says it could not check it (it was exit 2)."""
    repo = Repo(tmp_path / "repo")
    repo.commit("Base", {"scripts/run.sh": SHELL.before})
    git(repo.path, "tag", "base")
    repo.commit("Add", {"csrc/empty.cuh": "", "pkg/__init__.py": ""})
    git(repo.path, "mv", "scripts/run.sh", "scripts/go.sh")
    repo.commit("Move", {})
    repo.commit("Remove", {"csrc/empty.cuh": None, "pkg/__init__.py": None})
    git(repo.path, "mv", "scripts/go.sh", "scripts/run.sh")
    repo.commit("Move back", {}, tag=EXPERIMENT)
    done = cleantree(repo.path, "check", "--reverted", f"base..{EXPERIMENT}")
    assert (done.returncode, done.stdout) == (0, "cleantree: clean (0 rules, 0 files)\n")
    assert done.stderr == (
        f"cleantree: not checked: base..{EXPERIMENT}: changes nothing (git diff is empty)\n"
    )


@pytest.mark.parametrize("path", ["csrc/empty.cuh", "scripts/empty.sh", "pkg/__init__.py"])
def test_an_empty_file_the_experiment_deleted_must_exist_again(tmp_path: Path, path: str) -> None:
    """It holds no line and no name, but its existence is checkable (it was "nothing a
    manifest can check", exit 2)."""
    repo = Repo(tmp_path / "repo")
    repo.commit("Base", {path: ""})
    repo.commit("Experiment", {path: None}, tag=EXPERIMENT)
    code, out, err = repo.check()
    assert (code, err) == (1, ""), out
    assert f"{path}  missing  expected 'the file itself'" in out.splitlines()
    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    assert repo.check() == (0, "cleantree: clean (1 rule, 1 file)\n", "")


# --------------------------------------------------------------------------- after later history

#: An experiment that swaps a line with the blank line before it: git diffs the experiment
#: one way and its revert the other, so after a later commit (no longer byte for byte the
#: file before it) blame gives the untouched copy of the line to the experiment.
SWAPS = {
    "header": ("csrc/load.cuh", "// top\nload(kv);\n", "#pragma unroll"),
    "shell": ("scripts/ci.sh", "# top\nmake all\n", "fi"),
    "python": ("pkg/loop.py", "# top\nx = 1\n", "pass"),
}


@pytest.mark.parametrize("case", sorted(SWAPS))
def test_a_revert_at_the_tip_after_later_commits_is_clean(tmp_path: Path, case: str) -> None:
    """Risk (a) of issue 43, found on flashinfer (38ebb15114 reverted at the tip: ``#pragma
    unroll`` and two ``}`` given to it by blame): a file that reverting the experiment once
    more would not change holds none of its lines, whatever blame's alignment says."""
    path, head, line = SWAPS[case]
    before = f"{head}\n{line}\n"
    repo = Repo(tmp_path / "repo")
    repo.commit("Base", {path: before})
    repo.commit("Experiment", {path: f"{head}{line}\n\n"}, tag=EXPERIMENT)
    repo.commit("Later", {path: "LATER" + f"{head}{line}\n\n"[1:]})
    assert repo.check()[0] == 1  # still in, after the later commit
    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    code, out, err = repo.check()
    assert (code, err) == (0, ""), out


#: A text of which the experiment removes the first line, and a later commit the last.
COUNTS = {
    "header": ("csrc/sync.cuh", "    step(block, {});", "    block.sync();"),
    "shell": ("scripts/prepare.sh", "make part{}", "make clean"),
    "python": ("pkg/routes.py", "def f{}(x):\n    if x:\n        return x", "    pass"),
}


@pytest.mark.parametrize("case", sorted(COUNTS))
def test_a_count_a_later_commit_lowered_is_no_violation_after_a_revert_at_the_tip(
    tmp_path: Path, case: str
) -> None:
    """Risk (b) of issue 43, found on flashinfer (efa05fb19e reverted at the tip: three texts
    expected back at their count before it, where a later commit had removed others): in a
    file that reverting the experiment once more would leave as it is, each line it removed
    is back; a count below the old one is later history's."""
    path, filler, text = COUNTS[case]
    parts = [f"{filler.format(i)}\n{text}\n" for i in range(8)]
    before = "".join(parts)
    after = "".join([filler.format(0) + "\n", *parts[1:]])  # the experiment: the first one gone
    later = after[: -len(text) - 1]  # and a later commit: the last
    repo = Repo(tmp_path / "repo")
    repo.commit("Base", {path: before})
    repo.commit("Experiment", {path: after}, tag=EXPERIMENT)
    repo.commit("Later", {path: later})
    code, out, _ = repo.check()
    assert code == 1, out  # still in
    assert f"expected 'line*8:{text.strip()}'" in out
    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    assert (repo.path / path).read_text().count(text + "\n") == 7
    code, out, err = repo.check()
    assert (code, err) == (0, ""), out
