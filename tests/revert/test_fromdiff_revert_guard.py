"""``cleantree check --reverted O`` on the shapes of history that real reverts have, one git
scenario per case of issue 13, each built in a temporary repository.

The experiment's own lines are the ground truth (git blame of the work tree); beside them,
lines that hold a code name the experiment introduced.  Nothing else is a leftover.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from gitrepo import EXPERIMENT, Repo, cleantree, from_diff, git, reported


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "repo")


# --------------------------------------------------------------------------- case 1

LOADER = """\
import os


def load(paths):
    return [os.path.basename(p) for p in paths]
"""

TURBO = """\


def turbo_load(a, n):
    table = dict(a=n)
    label = "skip tests during collection"
    return ", ".join(table) + label
"""

LATER = """\


def summary(a, n):
    counts = dict(a=n)  # skip tests during collection
    return ", ".join(counts) + " skip tests during collection"
"""


@pytest.mark.slow
def test_lines_of_later_commits_with_common_words_and_short_names_are_not_leftovers(
    repo: Repo,
) -> None:
    """Case 1: after a revert that was not byte-exact, a later commit's lines are not flagged
    for builtins (``dict``), builtin methods (``join``), one- or two-letter names (``a``,
    ``n``) or the words of the experiment's strings."""
    repo.commit("Loader", {"load.py": LOADER})
    repo.commit("Turbo loader", {"load.py": LOADER + TURBO}, tag=EXPERIMENT)
    # reverted by hand: the function is gone, a blank line of it stays
    repo.commit("Revert turbo loader", {"load.py": LOADER + "\n"})
    repo.commit("Summaries", {"load.py": LOADER + "\n" + LATER})
    assert repo.check() == (0, "cleantree: clean (2 rules, 1 file)\n", "")

    # a later line that does hold an introduced code name is a leftover: an introduced name
    repo.write({"load.py": LOADER + "\n" + LATER.replace("counts = ", "table = counts = ")})
    code, out, _ = repo.check()
    line = repo.line_of("load.py", "    table = counts = dict(a=n)  # skip tests during collection")
    assert code == 1
    assert reported(out) == {"introduced-names-load.py": {("load.py", line)}}
    assert "an introduced name: new in this file's code" in out


# --------------------------------------------------------------------------- case 2

SERIALIZE = """\
import attrs


def dump(obj):
    return attrs.asdict(obj)
"""


@pytest.mark.slow
def test_an_experiment_that_only_uses_names_the_file_had_is_checked_by_its_lines(
    repo: Repo,
) -> None:
    """Case 2: ``from attrs import asdict`` where ``attrs.asdict`` was used before introduces
    no name; its lines are still the experiment's, and checked."""
    repo.commit("Serializer", {"ser.py": SERIALIZE})
    promoted = SERIALIZE.replace("import attrs\n", "import attrs\nfrom attrs import asdict\n")
    promoted = promoted.replace("return attrs.asdict(obj)", "return asdict(obj)")
    repo.commit("Use asdict directly", {"ser.py": promoted}, tag=EXPERIMENT)

    code, out, _ = repo.check()
    assert code == 1
    import_line = repo.line_of("ser.py", "from attrs import asdict")
    use_line = repo.line_of("ser.py", "    return asdict(obj)")
    assert reported(out) == {
        "experiment-lines-ser.py": {("ser.py", import_line), ("ser.py", use_line)},
        "removed-lines-ser.py": set(),  # `return attrs.asdict(obj)` is missing
    }
    assert "an experiment line: git blame gives it to the change" in out

    # a partial revert, not committed: the line left is found at its exact line
    repo.write({"ser.py": promoted.replace("return asdict(obj)", "return attrs.asdict(obj)")})
    code, out, _ = repo.check()
    assert (code, reported(out)) == (1, {"experiment-lines-ser.py": {("ser.py", import_line)}})

    git(repo.path, "checkout", "--", ".")
    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    assert repo.check() == (0, "cleantree: clean (2 rules, 1 file)\n", "")


# --------------------------------------------------------------------------- case 3

LOGS = """\
import logging

FORMAT = "%(asctime)s %(message)s"


def level_of(record):
    return record.levelname
"""


@pytest.mark.slow
def test_a_word_inside_a_string_does_not_hide_a_new_name(repo: Repo) -> None:
    """Case 3: ``%(message)s`` in a format string before; ``record.message`` is still a name
    the experiment introduced, and a later copy of it is a leftover."""
    repo.commit("Logs", {"logs.py": LOGS}, tag="base")
    added = "\n\ndef text_of(record):\n    return record.message\n"
    repo.commit("Message text", {"logs.py": LOGS + added}, tag=EXPERIMENT)
    copied = LOGS.replace("return record.levelname", "return record.levelname, record.message")
    repo.commit("Levels with their text", {"logs.py": copied + added})
    repo.commit("Revert message text", {"logs.py": copied})

    code, out, _ = repo.check()
    line = repo.line_of("logs.py", "    return record.levelname, record.message")
    assert code == 1
    assert reported(out) == {"introduced-names-logs.py": {("logs.py", line)}}  # not FORMAT
    git(repo.path, "checkout", "-q", "base")  # the file as before the experiment
    assert repo.check()[0] == 0


# --------------------------------------------------------------------------- cases 4 and 7

LEGACY = """\
LIMIT = 3


def old_path():
    pass


class OldKernel:
    pass
"""


@pytest.mark.slow
def test_a_deleted_file_still_missing_is_a_violation(repo: Repo) -> None:
    """Case 4: the file the experiment deleted is still missing: a violation (exit 1) of its
    restore rule, not an error asking for ``missing_ok``."""
    repo.commit("Legacy", {"legacy.py": LEGACY, "keep.py": "KEEP = 1\n"})
    repo.commit("Drop legacy", {"legacy.py": None}, tag=EXPERIMENT)

    code, out, err = repo.check()
    assert (code, err) == (1, "")
    short = git(repo.path, "rev-parse", "--short", EXPERIMENT).strip()
    assert out == (
        f'restore-legacy.py: {EXPERIMENT} ({short}) "Drop legacy": the change deleted this file\n'
        "legacy.py  missing  expected '=LIMIT'\n"
        "legacy.py  missing  expected '=OldKernel'\n"
        "legacy.py  missing  expected '=old_path'\n"
        "\n"
        "cleantree: 3 expected patterns missing in 1 file (1 rule checked)\n"
    )
    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    assert repo.check() == (0, "cleantree: clean (1 rule, 1 file)\n", "")


def test_the_summary_counts_missing_names_as_names(repo: Repo) -> None:
    """Case 7: names missing from one restored file are counted as names, not as files."""
    repo.commit("Legacy", {"legacy.py": LEGACY})
    repo.commit("Drop legacy", {"legacy.py": None}, tag=EXPERIMENT)
    repo.commit("Bring some of it back", {"legacy.py": "LIMIT = 3\n"})
    code, out, _ = repo.check()
    assert code == 1
    last = out.splitlines()[-1]
    assert last == "cleantree: 2 expected patterns missing in 1 file (1 rule checked)"


# --------------------------------------------------------------------------- case 5

PY2 = 'import sys\n\nprint "usage: tool FILE"\nsys.exit(2)\n'


@pytest.mark.slow
def test_a_python_2_file_is_checked_by_its_lines(repo: Repo) -> None:
    """Case 5: a file the running Python cannot parse (Python 2) is checked by the
    experiment's lines, which need no parse; from-diff says it is not valid Python X.Y."""
    repo.commit("Tool", {"tool.py": PY2})
    turbo = PY2.replace("sys.exit(2)\n", 'print "turbo mode"\nsys.exit(2)\n')
    repo.commit("Turbo notice", {"tool.py": turbo}, tag=EXPERIMENT)

    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    code, out, err = repo.check()
    # what it could not check is said (issue 43), as from-diff notes it
    said = f"cleantree: not checked: tool.py: not valid Python {version} syntax ("
    assert (code, err.startswith(said), err.count("\n")) == (1, True, 1), err
    assert err.endswith("): its lines are checked, not its names\n")
    line = repo.line_of("tool.py", 'print "turbo mode"')
    assert reported(out) == {"experiment-lines-tool.py": {("tool.py", line)}}
    assert "newer Python" not in out

    derived = from_diff(repo.path, "--rev", EXPERIMENT)
    assert derived.returncode == 0
    assert f"#   tool.py: not valid Python {version} syntax (" in derived.stdout
    assert "its lines are checked, not its names" in derived.stdout

    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    code, out, err = repo.check()
    assert (code, out, err.startswith(said)) == (0, "cleantree: clean (1 rule, 1 file)\n", True)


# --------------------------------------------------------------------------- case 6


@pytest.mark.slow
def test_an_experiment_that_only_removed_lines_must_have_them_back(repo: Repo) -> None:
    """Case 6, and issue 24's removal-only change: with ``--reverted``, the lines the
    experiment removed must be back (exit 1 naming each missing one, exit 0 once the revert
    restored them), not "nothing to check"; from-diff's --expect-removed still does what its
    help says."""
    repo.commit("Fusion", {"m.py": "x = 1\nlegacy_fusion()\n"})
    repo.commit("No fusion", {"m.py": "x = 1\n"}, tag=EXPERIMENT)
    code, out, err = repo.check()
    short = git(repo.path, "rev-parse", "--short", EXPERIMENT).strip()
    assert (code, err) == (1, "")
    assert out == (
        f'removed-lines-m.py: {EXPERIMENT} ({short}) "No fusion": a line the change removed: '
        "a complete revert brings it back\n"
        "m.py  missing  expected 'line:legacy_fusion()'\n"
        "\n"
        "cleantree: 1 expected pattern missing in 1 file (1 rule checked)\n"
    )
    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    assert repo.check() == (0, "cleantree: clean (1 rule, 1 file)\n", "")
    # and the command the message of old pointed to does what it says
    derived = from_diff(repo.path, "--rev", EXPERIMENT, "--expect-removed")
    assert derived.returncode == 0
    assert 'expect = [\n    "=legacy_fusion",\n]' in derived.stdout


# --------------------------------------------------------------------------- without git


@pytest.mark.slow
def test_a_manifest_derived_here_catches_a_verbatim_leftover_in_a_tree_without_history(
    repo: Repo, tmp_path: Path
) -> None:
    """No git where the check runs (a server): the experiment's lines themselves are
    checked (``forbid_lines``), wherever they now stand, with their line number."""
    repo.commit("Serializer", {"ser.py": SERIALIZE})
    promoted = SERIALIZE.replace("import attrs\n", "import attrs\nfrom attrs import asdict\n")
    repo.commit("Use asdict", {"ser.py": promoted}, tag=EXPERIMENT)
    manifest = from_diff(repo.path, "--rev", EXPERIMENT)
    assert manifest.returncode == 0, manifest.stderr
    assert 'forbid_lines = [\n    "from attrs import asdict",\n]' in manifest.stdout

    server = tmp_path / "server"
    server.mkdir()
    (server / "cleantree.toml").write_text(manifest.stdout)
    (server / "ser.py").write_text(SERIALIZE)  # reverted
    assert cleantree(server, "check").returncode == 0
    # the leftover moved: reverted by hand above it, the import now stands lower, indented
    (server / "ser.py").write_text(
        "# header\n" + SERIALIZE + "if True:\n    from attrs import asdict\n"
    )
    done = cleantree(server, "check")
    assert done.returncode == 1
    assert reported(done.stdout) == {"experiment-lines-ser.py": {("ser.py", 8)}}


# --------------------------------------------------------------------------- merges


@pytest.mark.slow
def test_a_merge_commit_is_the_experiment_its_branch_brought_in(repo: Repo) -> None:
    """A merge is taken against its first parent: every line its branch brought in is an
    experiment line, and lines of the main line are not."""
    repo.commit("Serializer", {"ser.py": SERIALIZE, "main.py": "MAIN = 1\n"})
    git(repo.path, "checkout", "-q", "-b", "turbo")
    repo.commit("Turbo one", {"ser.py": SERIALIZE + "\nTURBO = True\n"})
    repo.commit("Turbo two", {"ser.py": SERIALIZE + "\nTURBO = True\nturbo_level = 2\n"})
    git(repo.path, "checkout", "-q", "main")
    repo.commit("Main work", {"main.py": "MAIN = 2\n"})
    git(repo.path, "merge", "-q", "--no-ff", "--no-edit", "turbo")
    git(repo.path, "tag", EXPERIMENT)

    code, out, _ = repo.check()
    assert code == 1
    lines = {
        ("ser.py", repo.line_of("ser.py", text)) for text in ("TURBO = True", "turbo_level = 2")
    }
    assert reported(out) == {"experiment-lines-ser.py": lines}
    git(repo.path, "revert", "--no-edit", "-m", "1", EXPERIMENT)
    assert repo.check() == (0, "cleantree: clean (2 rules, 1 file)\n", "")
