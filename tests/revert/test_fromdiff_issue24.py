"""Issue 24, one git scenario per numbered point, each from a real shape of history: a
changelog and an ``.rst`` page, a moved comment, a line re-applied, a revert of the revert
and a cherry-pick, a latin-1 line, and the habits (a shallow clone, a removal-only change,
a line reported once).  Each fails on the code before the issue was fixed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from gitrepo import EXPERIMENT, Repo, cleantree, from_diff, git, reported


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "repo")


def manifest_of(repo: Repo, *args: str) -> str:
    done = from_diff(repo.path, "--rev", EXPERIMENT, *args)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return done.stdout


# --------------------------------------------------------------------------- 1: prose

SKIPPING = """\
def skip(reason=""):
    raise Skipped(reason)
"""
DEPRECATIONS = """\
Deprecations and Removals
=========================

This page lists all features that are deprecated or removed in past major releases.
"""
CHANGELOG = """\
Changelog
=========

- Fix a crash when a plugin is registered twice.
"""
CI = "jobs:\n  test:\n    runs-on: ubuntu-latest\n"
RUN = "#!/bin/sh\nexec python -m pytest\n"


def test_prose_gives_no_names_and_later_prose_is_not_a_leftover(repo: Repo) -> None:
    """Point 1: the words of a changelog or an ``.rst`` page are not code names; after a
    clean revert, lines other commits wrote there that mention ``pytest.skip`` (or say
    "probably") are not leftovers.  Code files still give their own names: a YAML key, a
    shell ``export NAME=``, and never a shell keyword such as ``export``."""
    repo.commit(
        "Docs",
        {
            "src/skipping.py": SKIPPING,
            "doc/en/deprecations.rst": DEPRECATIONS,
            "CHANGELOG.rst": CHANGELOG,
            "ci.yml": CI,
            "run.sh": RUN,
        },
    )
    section = (
        "\nPassing ``msg=`` to ``pytest.skip``\n"
        "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n\n"
        "Ordinary users are probably not doing this: ``reason=`` is supported.\n"
    )
    repo.commit(
        "Deprecate msg= of pytest.skip",
        {
            "src/skipping.py": SKIPPING.replace('reason=""', 'reason="", msg_deprecated=None'),
            "doc/en/deprecations.rst": DEPRECATIONS + section,
            "CHANGELOG.rst": CHANGELOG + "- ``pytest.skip(msg=...)`` is deprecated (handler.)\n",
            "ci.yml": CI + "    turbo_cache: true\n",
            "run.sh": RUN.replace("exec", "export TURBO_CACHE=1\nexec"),
        },
        tag=EXPERIMENT,
    )
    derived = manifest_of(repo)
    for word in ("=Ordinary", "=doing", "=probably", "=handler", "=supported", "=export"):
        assert f'"{word}' not in derived
    assert 'id = "introduced-names-doc-en-deprecations.rst"' not in derived
    assert 'id = "introduced-names-CHANGELOG.rst"' not in derived
    assert '"Ordinary users are probably not doing this: ``reason=`` is supported.",' in derived
    assert 'forbid = [\n    "=turbo_cache",\n]' in derived
    assert 'forbid = [\n    "=TURBO_CACHE",\n]' in derived

    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    later = (
        "\nCalling ``pytest.skip`` at module level\n"
        "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n\n"
        "Ordinary test modules are probably doing it wrong: it is supported by a handler.\n"
    )
    repo.commit(
        "Document module-level skips",
        {
            "doc/en/deprecations.rst": DEPRECATIONS + later,
            "CHANGELOG.rst": CHANGELOG + "- Ordinary skips at module level are supported.\n",
        },
    )
    assert repo.check() == (0, "cleantree: clean (9 rules, 5 files)\n", "")
    # a shell line of a later commit holding the experiment's own name is a leftover
    repo.write({"run.sh": RUN.replace("exec", "TURBO_CACHE=2 exec")})
    code, out, _ = repo.check()
    assert (code, reported(out)) == (1, {"introduced-names-run.sh": {("run.sh", 2)}})


# --------------------------------------------------------------------------- 2: moved lines

HANDLER = """\
def handle_exception(self, e):
    # when they expect no exception on the stack.
    exc_info = sys.exc_info()
    return self.finalize(e)
"""


def test_a_line_the_experiment_moved_is_not_a_leftover(repo: Repo) -> None:
    """Point 2 (a Flask change): the experiment moved a comment below a line, and the revert
    restored the file exactly; git blame still gives the comment to the experiment, but
    its parent had that text: it is not an experiment line."""
    repo.commit("Handler", {"app.py": HANDLER})
    moved = HANDLER.replace(
        "    # when they expect no exception on the stack.\n    exc_info = sys.exc_info()\n",
        "    exc_info = sys.exc_info()\n    # when they expect no exception on the stack.\n",
    )
    repo.commit("Look at exc_info first", {"app.py": moved}, tag=EXPERIMENT)
    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    assert (repo.path / "app.py").read_text() == HANDLER
    blame = git(repo.path, "blame", "-l", "-s", "--", "app.py").splitlines()
    assert blame[1].startswith(git(repo.path, "rev-parse", EXPERIMENT).strip())  # the shape
    assert repo.check() == (0, "cleantree: clean (1 rule, 1 file)\n", "")


# --------------------------------------------------------------------------- 3: re-applied

MAIN = """\
import sys


def main(args):
    try:
        return run(args)
    except Exception:
        return 1
"""
EXPERIMENT_MAIN = """\
import py
import sys


def main(args):
    try:
        return run(args)
    except KeyboardInterrupt:
        raise KeyboardInterrupt()
    except Exception:
        return 1
"""


def test_a_line_of_the_experiment_re_applied_is_found(repo: Repo) -> None:
    """Point 3: one line of the experiment re-applied on the reverted tree, uncommitted, is
    found by its text, though it holds no name the experiment introduced
    (``KeyboardInterrupt`` is a builtin, ``py`` two letters).  Committed by a later commit
    that is no ``git patch-id`` twin of the experiment, it is that commit's line: blame
    first (issue 35), and it holds none of the experiment's names."""
    repo.commit("Main", {"cli.py": MAIN})
    repo.commit("Re-raise interrupts", {"cli.py": EXPERIMENT_MAIN}, tag=EXPERIMENT)
    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    assert repo.check() == (0, "cleantree: clean (1 rule, 1 file)\n", "")

    again = MAIN.replace("        return 1\n", "        raise KeyboardInterrupt()\n")
    repo.write({"cli.py": again})  # uncommitted
    line = repo.line_of("cli.py", "        raise KeyboardInterrupt()")
    code, out, _ = repo.check()
    assert (code, reported(out)) == (1, {"experiment-lines-cli.py": {("cli.py", line)}})
    assert "an experiment line: git blame gives it to the change" in out

    repo.commit("Interrupts again", {"cli.py": "import py\n" + again})  # a later commit
    assert repo.check() == (0, "cleantree: clean (1 rule, 1 file)\n", "")


# --------------------------------------------------------------------------- 4: other means

CONVERT = """\
def convert(value):
    return value.upper()
"""
CHECKED = """\
def convert(value):
    if not isinstance(value, str):
        raise TypeError(value)
    return value.upper()
"""


def test_a_revert_of_the_revert_brings_the_experiment_back(repo: Repo) -> None:
    """Point 4: after ``git revert`` of the revert, the experiment's lines are blamed to that
    commit; they are the experiment's all the same."""
    repo.commit("Convert", {"conv.py": CONVERT})
    repo.commit("Check the type", {"conv.py": CHECKED}, tag=EXPERIMENT)
    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    assert repo.check()[0] == 0
    git(repo.path, "revert", "--no-edit", "HEAD")  # Reapply "Check the type"
    code, out, _ = repo.check()
    assert (code, reported(out)) == (
        1,
        {"experiment-lines-conv.py": {("conv.py", 2), ("conv.py", 3)}},
    )


def test_a_cherry_pick_of_the_experiment_is_the_experiment(repo: Repo) -> None:
    """Point 4: the experiment cherry-picked onto another branch; its commit there has the
    experiment's ``git patch-id``, and its lines are the experiment's."""
    repo.commit("Convert", {"conv.py": CONVERT, "other.py": "OTHER = 1\n"})
    git(repo.path, "branch", "release")
    repo.commit("Check the type", {"conv.py": CHECKED}, tag=EXPERIMENT)
    git(repo.path, "checkout", "-q", "release")
    repo.commit("Release work", {"other.py": "OTHER = 2\n"})
    git(repo.path, "cherry-pick", EXPERIMENT)
    code, out, _ = repo.check()
    assert (code, reported(out)) == (
        1,
        {"experiment-lines-conv.py": {("conv.py", 2), ("conv.py", 3)}},
    )
    from pytest_cleantree.revert.git import twin_commits

    assert twin_commits(EXPERIMENT, repo.path) == {git(repo.path, "rev-parse", "HEAD").strip()}
    git(repo.path, "revert", "--no-edit", "HEAD")
    assert repo.check()[0] == 0


# --------------------------------------------------------------------------- 5: bytes

GREETING = b"Bonjour Andre\nAu revoir\n"
LEGACY = b"# -*- coding: latin-1 -*-\nAUTHORS = ['Andre']\n"


def test_a_latin_1_line_is_derived_stored_escaped_and_matched(repo: Repo, tmp_path: Path) -> None:
    """Point 5: an added line holding a latin-1 byte is an experiment line: in a text file
    (not UTF-8: written ``forbid_lines_escaped``) and in a Python file whose coding line
    says latin-1 (decoded as Python decodes it); the manifest finds both until reverted."""
    repo.commit("Greeting", {"greeting.txt": GREETING, "legacy.py": LEGACY})
    repo.commit(
        "Accents",
        {
            "greeting.txt": GREETING.replace(b"Andre", b"Andr\xe9"),
            "legacy.py": LEGACY + b"AUTHORS.append('Andr\xe9')\n",
        },
        tag=EXPERIMENT,
    )
    derived = manifest_of(repo)
    assert "added no line" not in derived
    assert 'forbid_lines_escaped = [\n    "Bonjour Andr\\\\xe9",\n]' in derived
    assert "forbid_lines = [\n    \"AUTHORS.append('André')\",\n]" in derived
    (tmp_path / "cleantree.toml").write_text(derived)
    manifest = str(tmp_path / "cleantree.toml")
    done = cleantree(repo.path, "check", "--manifest", manifest, "--root", ".")
    assert done.returncode == 1, done.stderr
    assert reported(done.stdout) == {
        "experiment-lines-greeting.txt": {("greeting.txt", 1)},
        "removed-lines-greeting.txt": set(),  # `Bonjour Andre` is missing
        "experiment-lines-legacy.py": {("legacy.py", 3)},
    }
    code, out, _ = repo.check()
    assert (code, reported(out)) == (
        1,
        {
            "experiment-lines-greeting.txt": {("greeting.txt", 1)},
            "removed-lines-greeting.txt": set(),
            "experiment-lines-legacy.py": {("legacy.py", 3)},
        },
    )
    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    done = cleantree(repo.path, "check", "--manifest", manifest, "--root", ".")
    assert done.returncode == 0, done.stdout + done.stderr
    assert repo.check()[0] == 0


# --------------------------------------------------------------------------- 6: habits


def test_a_shallow_clone_says_so_and_names_the_fix(repo: Repo, tmp_path: Path) -> None:
    """Point 6: in a shallow clone (actions/checkout's default) the commit is missing: the
    message says why and how to fetch it."""
    repo.commit("One", {"a.py": "A = 1\n"})
    repo.commit("Turbo", {"a.py": "A = 1\nTURBO = 1\n"}, tag=EXPERIMENT)
    repo.commit("Two", {"b.py": "B = 2\n"})
    sha = git(repo.path, "rev-parse", EXPERIMENT).strip()
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo.path}", str(clone))
    done = cleantree(clone, "check", "--reverted", sha)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"cleantree: error: {sha!r}: no such commit in {clone}: the repository is a shallow "
        "clone, its history is cut; fetch all of it (`git fetch --unshallow`, or "
        "`fetch-depth: 0` for actions/checkout)\n"
    )
    # the tip is there, its parent is not: not a root commit whose every file is new
    tip = git(clone, "rev-parse", "HEAD").strip()
    done = cleantree(clone, "check", "--reverted", tip)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"cleantree: error: {tip!r}: its parent is not in {clone}: the repository is a shallow "
        "clone, its history is cut; fetch all of it (`git fetch --unshallow`, or "
        "`fetch-depth: 0` for actions/checkout)\n"
    )


DEPRECATED = """\
import warnings


def new_api():
    return 2


def old_api():
    warnings.warn("old_api is deprecated", DeprecationWarning)
    return new_api()
"""


def test_a_removal_only_experiment_must_have_its_lines_back(repo: Repo) -> None:
    """Point 6: an experiment that only removed lines (a deprecated function dropped): with
    ``--reverted`` its lines must be back, exit 1 naming each missing one, exit 0 once the
    revert restored them, not exit 2 "nothing to check"."""
    repo.commit("API", {"api.py": DEPRECATED})
    dropped = DEPRECATED.split("\n\ndef old_api")[0] + "\n"
    repo.commit("Drop old_api", {"api.py": dropped}, tag=EXPERIMENT)
    code, out, err = repo.check()
    assert (code, err) == (1, "")
    assert out.splitlines()[1:4] == [
        "api.py  missing  expected 'line:def old_api():'",
        'api.py  missing  expected \'line:warnings.warn("old_api is deprecated", '
        "DeprecationWarning)'",
        "api.py  missing  expected 'line:return new_api()'",
    ]
    git(repo.path, "revert", "--no-edit", EXPERIMENT)
    assert repo.check() == (0, "cleantree: clean (1 rule, 1 file)\n", "")


LOADER = "def load(path):\n    return open(path).read()\n"


def test_a_from_diff_manifest_reports_a_line_once(repo: Repo, tmp_path: Path) -> None:
    """Point 6: a line that is an experiment line and holds an introduced name is reported
    once, as an experiment line, by a from-diff manifest, in the CLI and in pytest."""
    repo.commit("Loader", {"load.py": LOADER})
    repo.commit(
        "Turbo loader",
        {"load.py": LOADER + "\n\nTURBO_LOADER = load\n"},
        tag=EXPERIMENT,
    )
    (tmp_path / "cleantree.toml").write_text(manifest_of(repo))
    manifest = str(tmp_path / "cleantree.toml")
    done = cleantree(repo.path, "check", "--manifest", manifest, "--root", ".")
    assert done.returncode == 1
    assert reported(done.stdout) == {"experiment-lines-load.py": {("load.py", 5)}}
    assert done.stdout.splitlines()[-1] == "cleantree: 1 forbidden line in 1 file (2 rules checked)"
    plugin = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--cleantree",
            manifest,
            "--cleantree-root",
            str(repo.path),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert plugin.returncode == 1, plugin.stdout
    assert "1 failed, 1 passed" in plugin.stdout.splitlines()[-1]
    assert repo.check()[1].splitlines()[-1] == (
        "cleantree: 1 forbidden line in 1 file (2 rules checked)"
    )


def test_a_file_renamed_after_the_experiment_is_followed(repo: Repo) -> None:
    """On this project's own history: a later commit moved the files the experiment
    changed (tests/unit/ to tests/<package>/).  The experiment still in is found in the
    file under its new name (exit 1, not "no such file", exit 2), and a file it added, now
    renamed, is still present: never a false clean; reverted (by hand), it exits 0."""
    repo.commit("Convert", {"conv.py": CONVERT})
    repo.commit("Check the type", {"conv.py": CHECKED, "turbo.py": "TURBO = 1\n"}, tag=EXPERIMENT)
    git(repo.path, "mv", "conv.py", "convert.py")
    git(repo.path, "mv", "turbo.py", "fast.py")
    git(repo.path, "commit", "-q", "-m", "Rename")
    code, out, err = repo.check()
    assert (code, err) == (1, "")
    assert reported(out) == {
        "experiment-lines-convert.py": {("convert.py", 2), ("convert.py", 3)},
        "absent-fast.py": set(),
    }
    assert "fast.py  present  must not exist" in out
    repo.commit("Revert the type check", {"convert.py": CONVERT, "fast.py": None})
    assert repo.check() == (0, "cleantree: clean (2 rules, 1 file)\n", "")
