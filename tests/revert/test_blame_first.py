"""Blame first (issue 35): who wrote a committed line decides whether it is the experiment's.

A committed line is an experiment line when git blame gives it to the experiment's commits or
to a ``git patch-id`` twin of them (a cherry-pick, a revert of the revert); a line another
commit wrote is a leftover only when it holds a distinctive name the experiment introduced.
The text of a line decides only for lines not committed (the work tree).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from gitrepo import EXPERIMENT, Repo, git, reported

#: the file before the experiment: ``warnings`` is already a name of its code
BASE = """\
from warnings import warn


def load(path):
    warn("slow path")
    return open(path).read()
"""

#: the experiment: ``import warnings`` (no name of it is new) and a turbo loader
TURBO = """\
from warnings import warn
import warnings


def load(path):
    warn("slow path")
    return open(path).read()


def turbo_load(path):
    warnings.simplefilter("ignore")
    return load(path)
"""

#: a later commit, after the revert, writes ``import warnings`` again for its own code
LATER = """\
from warnings import warn
import warnings


def load(path):
    warn("slow path")
    return open(path).read()


def quiet_load(path):
    with warnings.catch_warnings():
        return load(path)
"""


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    repo = Repo(tmp_path / "repo")
    repo.commit("Loader", {"load.py": BASE})
    repo.commit("Turbo loader", {"load.py": TURBO}, tag=EXPERIMENT)
    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    return repo


def test_a_later_commit_writing_an_experiment_lines_text_again_is_not_a_leftover(
    repo: Repo,
) -> None:
    """``import warnings``, written again by a later commit, is that commit's line: its text
    equals an experiment line, but blame gives it to another commit, and it holds no name the
    experiment introduced (the file had ``warnings`` before)."""
    repo.commit("Quiet loader", {"load.py": LATER})
    assert repo.check() == (0, "cleantree: clean (2 rules, 1 file)\n", "")


def test_a_later_commit_holding_an_introduced_name_is_still_a_leftover(repo: Repo) -> None:
    """Blame does not hide a later line that holds the experiment's own code: its name."""
    repo.commit("Quiet loader", {"load.py": LATER.replace("quiet_load", "turbo_load")})
    code, out, _ = repo.check()
    assert code == 1
    line = repo.line_of("load.py", "def turbo_load(path):")
    assert reported(out) == {"introduced-names-load.py": {("load.py", line)}}


def test_a_cherry_picked_experiment_line_is_the_experiments(repo: Repo) -> None:
    """A cherry-pick of the experiment is its ``git patch-id`` twin: its lines are the
    experiment's, ``import warnings`` included, though that line holds no introduced name."""
    git(repo.path, "checkout", "-q", "-b", "again", f"{EXPERIMENT}^")
    repo.commit("Docs", {"README": "loader\n"})
    git(repo.path, "cherry-pick", EXPERIMENT)
    code, out, _ = repo.check()
    assert code == 1
    lines = {
        repo.line_of("load.py", text)
        for text in (
            "import warnings",
            "def turbo_load(path):",
            '    warnings.simplefilter("ignore")',
            "    return load(path)",
        )
    }
    assert reported(out) == {"experiment-lines-load.py": {("load.py", n) for n in lines}}


def test_an_uncommitted_line_with_an_experiment_lines_text_is_a_leftover(repo: Repo) -> None:
    """Not committed, no blame can tell who wrote it: its text is the experiment's."""
    again = "from warnings import warn\nimport warnings\n"
    repo.write({"load.py": BASE.replace("from warnings import warn\n", again)})
    code, out, _ = repo.check()
    assert code == 1
    line = repo.line_of("load.py", "import warnings")
    assert reported(out) == {"experiment-lines-load.py": {("load.py", line)}}
