"""The session's report under pytest: every format and output file of ``cleantree check``,
written once for the session, with the content the CLI writes for the same manifest."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

SUMMARY = "cleantree: 5 forbidden lines in 2 files (3 rules checked)"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", "check", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_pytest_writes_the_sarif_and_json_the_cli_writes(
    pytester: pytest.Pytester, example_tree: Path, workers: tuple[str, ...]
) -> None:
    ran = pytester.runpytest_subprocess(
        "--cleantree",
        "cleantree.toml",
        "-p",
        "no:cacheprovider",
        "--cleantree-sarif-output",
        "pytest.sarif",
        "--cleantree-json-output",
        "pytest.json",
        *workers,
    )
    checked = cli(
        "--manifest",
        "cleantree.toml",
        "--sarif-output",
        "cli.sarif",
        "--json-output",
        "cli.json",
        cwd=example_tree,
    )

    ran.assert_outcomes(failed=2, passed=2)
    assert checked.returncode == 1, checked.stderr
    for suffix in ("sarif", "json"):
        mine = json.loads((example_tree / f"pytest.{suffix}").read_text(encoding="utf-8"))
        theirs = json.loads((example_tree / f"cli.{suffix}").read_text(encoding="utf-8"))
        assert mine == theirs, suffix  # nothing run-specific in either: the whole document
    document = json.loads((example_tree / "pytest.json").read_text(encoding="utf-8"))
    assert document["summary"]["text"] == SUMMARY
    assert len(document["results"]) == 4  # passed checks too: the report is the session's
    # one document however the manifest was named: found by discovery, the CLI's is the same
    assert document["manifest"] == str(example_tree / "cleantree.toml")
    assert Path(document["root"]).is_absolute()
    found = cli("--json-output", "found.json", cwd=example_tree)
    assert found.returncode == 1, found.stderr
    assert json.loads((example_tree / "found.json").read_text(encoding="utf-8")) == document


def test_the_summary_line_is_the_clis_under_both_front_ends(
    pytester: pytest.Pytester, example_tree: Path
) -> None:
    ran = pytester.runpytest("--cleantree", "cleantree.toml")
    checked = cli("--manifest", "cleantree.toml", cwd=example_tree)

    assert checked.stdout.splitlines()[-1] == SUMMARY
    ran.stdout.fnmatch_lines(["*- cleantree -*", SUMMARY])
    assert ran.outlines.count(SUMMARY) == 1


def test_a_format_prints_its_whole_report_once_in_the_terminal_summary(
    pytester: pytest.Pytester, example_tree: Path
) -> None:
    ran = pytester.runpytest("--cleantree", "cleantree.toml", "--cleantree-format", "github")
    checked = cli("--manifest", "cleantree.toml", "--format", "github", cwd=example_tree)

    ran.assert_outcomes(failed=2, passed=2)
    commands = [line for line in ran.outlines if line.startswith("::")]
    assert commands == checked.stdout.splitlines()
    assert commands[-1] == f"::notice title=cleantree::{SUMMARY}"


def test_quiet_leaves_out_the_summary_and_statistics_count_per_rule(
    pytester: pytest.Pytester, example_tree: Path
) -> None:
    quiet = pytester.runpytest("--cleantree", "cleantree.toml", "--cleantree-quiet")
    statistics = pytester.runpytest("--cleantree", "cleantree.toml", "--cleantree-statistics")

    quiet.assert_outcomes(failed=2, passed=2)
    assert SUMMARY not in quiet.outlines
    statistics.stdout.fnmatch_lines(
        ["lines remaining per rule:", "  5  flashinfer-fusion-sm120-reverted", "", SUMMARY]
    )


def test_an_output_that_cannot_be_written_fails_the_run_and_names_it(
    pytester: pytest.Pytester, example_tree: Path
) -> None:
    ran = pytester.runpytest(
        "--cleantree",
        "--cleantree-manifest",
        "cleantree.toml",
        "--cleantree-root",
        "reverted/python/sglang",
        "--cleantree-sarif-output",
        "no/such/folder/out.sarif",
    )

    ran.assert_outcomes(passed=4)  # the tree is clean; the report is lost: not a green run
    assert ran.ret == pytest.ExitCode.TESTS_FAILED
    ran.stdout.fnmatch_lines(
        ["cleantree: error: --cleantree-sarif-output: cannot write *no/such/folder/out.sarif: *"]
    )
    assert "Traceback" not in ran.stdout.str()


def test_one_output_file_is_one_manifest(pytester: pytest.Pytester, example_tree: Path) -> None:
    (example_tree / "second").mkdir()
    (example_tree / "second" / "cleantree.toml").write_text(
        'root = "."\n[[rule]]\nid = "r"\nfiles = ["*.py"]\nforbid = ["x"]\n', encoding="utf-8"
    )
    ran = pytester.runpytest(
        "--cleantree",
        "cleantree.toml",
        "second/cleantree.toml",
        "--cleantree-json-output",
        "out.json",
    )

    assert ran.ret == pytest.ExitCode.TESTS_FAILED
    ran.stdout.fnmatch_lines(["cleantree: error: *one report is one manifest*2*"])
    assert not (example_tree / "out.json").exists()


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_a_manifest_that_cannot_start_still_writes_the_clis_sarif(
    pytester: pytest.Pytester, workers: tuple[str, ...]
) -> None:
    """A valid SARIF document saying why, as ``cleantree check --sarif-output`` writes it:
    a code-scanning upload must not fail for a missing file when the manifest is at fault."""
    pytester.makefile(
        ".toml", cleantree='root = "."\n[[rule]]\nid = "r"\nfiles = 3\nforbid = ["x"]\n'
    )
    ran = pytester.runpytest_subprocess(
        "--cleantree", "cleantree.toml", "--cleantree-sarif-output", "pytest.sarif", *workers
    )
    checked = cli("--manifest", "cleantree.toml", "--sarif-output", "cli.sarif", cwd=pytester.path)

    assert ran.ret != pytest.ExitCode.OK  # a collection error (xdist says 1, pytest 2)
    ran.stdout.fnmatch_lines(["*cleantree.toml: rule 1 (line 4): files: must be a list*"])
    assert checked.returncode == 2
    mine = json.loads((pytester.path / "pytest.sarif").read_text(encoding="utf-8"))
    theirs = json.loads((pytester.path / "cli.sarif").read_text(encoding="utf-8"))
    assert mine == theirs
    assert "Traceback" not in ran.stdout.str()


def test_a_manifest_that_cannot_start_still_writes_the_clis_json(pytester: pytest.Pytester) -> None:
    """As the SARIF above: the JSON document with the problem and an incomplete status."""
    pytester.makefile(
        ".toml", cleantree='root = "."\n[[rule]]\nid = "r"\nfiles = 3\nforbid = ["x"]\n'
    )
    ran = pytester.runpytest_subprocess(
        "--cleantree", "cleantree.toml", "--cleantree-json-output", "pytest.json"
    )
    checked = cli("--manifest", "cleantree.toml", "--json-output", "cli.json", cwd=pytester.path)

    assert ran.ret != pytest.ExitCode.OK
    assert checked.returncode == 2
    mine = json.loads((pytester.path / "pytest.json").read_text(encoding="utf-8"))
    theirs = json.loads((pytester.path / "cli.json").read_text(encoding="utf-8"))
    assert mine == theirs
    assert mine["summary"]["complete"] is False
    (problem,) = mine["errors"]
    assert (problem["file"], problem["line"]) == ("cleantree.toml", 4)
