"""``cleantree from-diff`` as an argparse adapter: options reach the core, bad input exits 2
with one line naming the file (and line), never a traceback."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import pytest
from gitrepo import git

from pytest_cleantree.frontends.cli import fromdiff as cli_fromdiff
from pytest_cleantree.frontends.cli.fromdiff import add_from_diff_commands, main, run_from_diff

PATCH = "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-x = 1\n+x = turbo_ß\n"


def run(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    *argv: str,
    stdin: bytes = b"",
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "m.py").write_text("x = turbo_ß\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def commits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository with a root commit and two more, each adding a name."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    for number, name in enumerate(("first", "second", "third"), 1):
        (repo / "m.py").write_text("".join(f"n{i} = {i}\n" for i in range(1, number + 1)))
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"Add {name}")
    monkeypatch.chdir(repo)
    return repo


def test_registers_on_a_parent_parser_with_its_handler() -> None:
    parser = argparse.ArgumentParser(prog="cleantree")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("check")
    add_from_diff_commands(commands)
    args = parser.parse_args(["from-diff", "--rev", "HEAD~1..HEAD", "--no-text"])
    assert args.handler is run_from_diff
    assert (args.rev, args.patch, args.no_text, args.expect_removed) == (
        "HEAD~1..HEAD",
        None,
        True,
        False,
    )


def test_stdin_patch_prints_utf8(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, out, err = run(capsys, monkeypatch, "from-diff", "-", stdin=PATCH.encode())
    assert (code, err) == (0, "")
    assert '    "=turbo_ß",\n' in out
    assert "#   the diff on stdin\n" in out


def test_why_override_and_expect_removed(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tree / "p.diff").write_text(PATCH.replace("x = 1", "x = legacy"), encoding="utf-8")
    code, out, _ = run(
        capsys, monkeypatch, "from-diff", "p.diff", "--why", "ticket 42", "--expect-removed"
    )
    assert code == 0
    assert 'expect = [\n    "=legacy",\n]\nkinds = [' in out
    assert 'why = "ticket 42: an introduced name: ' in out


def test_root_is_written_relative_to_the_current_folder(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tree / "sub").mkdir()
    monkeypatch.chdir(tree / "sub")
    patch = PATCH.replace("m.py", "pkg/m.py")
    (tree / "pkg").mkdir()
    (tree / "pkg" / "m.py").write_text("x = turbo_ß\n", encoding="utf-8")
    code, out, err = run(
        capsys, monkeypatch, "from-diff", "-", "--repo", "..", "--root", "pkg", stdin=patch.encode()
    )
    assert (code, err) == (0, "")
    assert '\nroot = "../pkg"\n' in out
    assert 'files = ["m.py"]' in out


@pytest.mark.parametrize(
    ("argv", "stdin", "message"),
    [
        pytest.param(
            ["from-diff", "nope.diff"],
            b"",
            "cleantree: error: nope.diff: cannot read the patch: No such file or directory\n",
            id="missing-patch",
        ),
        pytest.param(
            ["from-diff", "-"],
            b"--- a/m.py\n+++ b/m.py\n@@ -1 +1 @ x\n",
            "cleantree: error: <stdin>:3: malformed hunk header '@@ -1 +1 @ x'\n",
            id="malformed",
        ),
        pytest.param(
            ["from-diff", "-"],
            b"",
            "cleantree: error: <stdin>: no file changes found: is it a unified diff?\n",
            id="empty",
        ),
        pytest.param(
            ["from-diff", "-", "--repo", "missing"],
            b"",
            "cleantree: error: --repo missing: no such folder\n",
            id="missing-repo",
        ),
        pytest.param(
            ["from-diff", "-", "--strip", "-1"],
            b"",
            "cleantree: error: --strip -1: must be 0 or more\n",
            id="negative-strip",
        ),
    ],
)
def test_bad_input_exits_2_with_one_message(
    tree: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    stdin: bytes,
    message: str,
) -> None:
    assert run(capsys, monkeypatch, *argv, stdin=stdin) == (2, "", message)


@pytest.mark.parametrize(
    "argv",
    [["from-diff"], ["from-diff", "-", "--rev", "HEAD"], ["from-diff", "--strip", "x", "-"]],
    ids=["no-source", "two-sources", "bad-strip"],
)
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert "usage: cleantree from-diff" in capsys.readouterr().err


def test_rev_outside_a_repository(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    code, out, err = run(capsys, monkeypatch, "from-diff", "--rev", "HEAD")
    assert (code, out) == (2, "")
    assert err.startswith("cleantree: error: git rev-parse --show-toplevel: fatal: not a git ")


def test_revisions_single_root_range_and_merge_base(
    commits: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def why(*argv: str) -> str:
        code, out, err = run(capsys, monkeypatch, "from-diff", *argv)
        assert (code, err) == (0, ""), err
        return out.splitlines()[1]

    short = {rev: git(commits, "rev-parse", "--short", rev).strip() for rev in ("@", "@~1", "@~2")}
    assert why("--rev", "HEAD") == f'#   HEAD ({short["@"]}) "Add third"'
    assert why("--rev", short["@~2"]) == f'#   {short["@~2"]} "Add first"'  # the root commit
    assert why("--rev", "HEAD~2..HEAD") == (
        f'#   HEAD~2..HEAD ({short["@~2"]}..{short["@"]}, 2 commits up to) "Add third"'
    )
    assert why("--rev", "HEAD~1...HEAD") == (
        f'#   HEAD~1...HEAD ({short["@~1"]}..{short["@"]}) "Add third"'
    )


@pytest.mark.parametrize(
    ("rev", "message"),
    [
        ("nope", "cleantree: error: 'nope': no such commit in {repo}\n"),
        ("--all", "cleantree: error: '--all' is not a revision\n"),
        ("HEAD..HEAD", "cleantree: error: HEAD..HEAD: changes nothing (git diff is empty)\n"),
    ],
)
def test_bad_revisions(
    commits: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    rev: str,
    message: str,
) -> None:
    expected = message.format(repo=commits)
    assert run(capsys, monkeypatch, "from-diff", f"--rev={rev}") == (2, "", expected)


def test_standalone_entry_point_builds_a_parser() -> None:
    parser = cli_fromdiff.build_parser()
    assert parser.prog == "cleantree"
    assert parser.parse_args(["from-diff", "-"]).handler is run_from_diff


def test_a_diff_that_applies_neither_way_is_derived_from_the_diff_alone(
    tree: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 24 (was the "does-not-apply" case of the refusals above): ``git diff base exp |
    cleantree from-diff -`` on a half-reverted tree derives the file's lines from the diff
    alone, says why it could not verify them, and names the file on stderr."""
    patch = PATCH.replace("x = 1", "y = 1").replace("turbo_ß", "other").encode()
    code, out, err = run(capsys, monkeypatch, "from-diff", "-", stdin=patch)
    assert code == 0
    assert (
        "#   m.py: the diff does not apply to the tree (a partly reverted file?): as already "
        "applied, hunk 1 (@@ -1,1 +1,1 @@ at diff line 3) expects 'x = other' at line 1, found "
        "'x = turbo_ß'; as not yet applied, hunk 1 (@@ -1,1 +1,1 @@ at diff line 3) expects "
        "'y = 1' at line 1, found 'x = turbo_ß'. Not verified: derived from the diff alone, "
        "its lines are checked, not its names (--rev BASE..EXPERIMENT checks both)\n"
    ) in out
    assert 'forbid_lines = [\n    "x = other",\n]' in out
    assert 'id = "introduced-names' not in out
    assert err == (
        "cleantree: not verified against the tree (the diff applies to it neither way): m.py: "
        "derived from the diff alone, their lines are checked, not their names (see the "
        "manifest's notes; --rev BASE..EXPERIMENT checks both)\n"
    )
