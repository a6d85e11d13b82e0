"""The founding story through ``pytest --cleantree``: the partial revert fails with exactly the
five remaining lines, the full revert passes, and the output is a report, not a traceback."""

from __future__ import annotations

import importlib
import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

Row = tuple[str, int, str]
RowsIn = Callable[[Iterable[str]], set[Row]]

FUSION = "flashinfer-fusion-sm120-reverted"
#: the partial revert's root, as text output shows it from the example's folder
PARTIAL_ROOT = "partial-revert/python/sglang/"
WHY = "FlashInfer's TRTLLM allreduce JIT knows only SM90/SM100; on SM120 the server crashes"


def outcomes_by_id(lines: Iterable[str]) -> dict[str, str]:
    """``{node id: PASSED/FAILED/ERROR}`` from the ``-rA`` short summary."""
    found: dict[str, str] = {}
    for line in lines:
        match = re.match(r"^(PASSED|FAILED|ERROR) (\S+)", line)
        if match:
            found[match[2]] = match[1]
    return found


def test_partial_revert_fails_with_exactly_the_five_remaining_lines(
    pytester: pytest.Pytester, example_tree: Path, story_rows: frozenset[Row], rows_in: RowsIn
) -> None:
    result = pytester.runpytest("--cleantree")

    result.assert_outcomes(failed=2, passed=2)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert rows_in(result.outlines) == story_rows
    result.stdout.fnmatch_lines(
        [
            f"*{FUSION}[[]srt/layers/communicator.py[]]*",
            WHY,
            f"{PARTIAL_ROOT}srt/layers/communicator.py:15:5   import           is_sm120_supported,",
            f"{PARTIAL_ROOT}srt/layers/communicator.py:24:1   assignment,call  "
            "_is_sm120_supported = *",
            f"{PARTIAL_ROOT}srt/layers/communicator.py:53:32  condition        "
            "if is_sm100_supported() or *",
            f"*{FUSION}[[]srt/server_args.py[]]*",
            WHY,
            f"{PARTIAL_ROOT}srt/server_args.py:17:5   import     is_sm120_supported,",
            f"{PARTIAL_ROOT}srt/server_args.py:46:36  condition  "
            "if is_sm100_supported() or is_sm120_supported():",
        ]
    )


def test_full_revert_passes_with_cleantree_root(
    pytester: pytest.Pytester, example_tree: Path, rows_in: RowsIn
) -> None:
    result = pytester.runpytest("--cleantree", "--cleantree-root", "reverted/python/sglang")

    result.assert_outcomes(passed=4)
    assert result.ret == pytest.ExitCode.OK
    assert rows_in(result.outlines) == set()


def test_failure_output_is_a_report_not_a_traceback(
    pytester: pytest.Pytester, example_tree: Path
) -> None:
    result = pytester.runpytest("--cleantree")

    output = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert "Traceback" not in output
    assert "def runtest" not in output
    assert re.search(r"\.py:\d+: CleanTreeFailure", output) is None
    assert "plugin.py" not in output
    assert result.errlines == []


def test_node_ids_name_the_manifest_the_rule_and_the_entry(
    pytester: pytest.Pytester, example_tree: Path
) -> None:
    result = pytester.runpytest("--cleantree", "-rA")

    assert outcomes_by_id(result.outlines) == {
        f"cleantree.toml::{FUSION}[srt/layers/communicator.py]": "FAILED",
        f"cleantree.toml::{FUSION}[srt/server_args.py]": "FAILED",
        "cleantree.toml::sm90-sm100-paths-kept[srt/layers/communicator.py]": "PASSED",
        "cleantree.toml::nccl-experiment-knobs-removed[sitecustomize.py]": "PASSED",
    }


def test_collect_only_lists_exactly_the_ids(
    pytester: pytest.Pytester, example_tree: Path, story_ids: tuple[str, ...]
) -> None:
    result = pytester.runpytest("--cleantree", "--collect-only", "-q")

    assert result.ret == pytest.ExitCode.OK
    assert [line for line in result.outlines if "::" in line] == list(story_ids)
    result.stdout.fnmatch_lines(["4 tests collected*"])


def test_collection_reads_no_target_file(
    pytester: pytest.Pytester, example_tree: Path, story_ids: tuple[str, ...]
) -> None:
    # both trees gone: collection must not notice, the run must
    for tree in ("partial-revert", "reverted"):
        for path in sorted((example_tree / tree).rglob("*"), reverse=True):
            path.rmdir() if path.is_dir() else path.unlink()
        (example_tree / tree).rmdir()

    collected = pytester.runpytest("--cleantree", "--collect-only", "-q")
    ran = pytester.runpytest("--cleantree")

    assert collected.ret == pytest.ExitCode.OK
    assert [line for line in collected.outlines if "::" in line] == list(story_ids)
    ran.assert_outcomes(errors=4)
    ran.stdout.fnmatch_lines(["*error: *root '*partial-revert/python/sglang' does not exist"])


def test_collection_asks_the_source_nothing(
    pytester: pytest.Pytester, example_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A spy on the only doors to the tree (the inner run is in-process: same modules)."""
    # through sys.modules: pytester drops the modules an earlier inner run imported, so the
    # package's ``runner`` attribute may be a stale module that the next run does not use
    runner = importlib.import_module("pytest_cleantree.run.runner")
    LocalSource = importlib.import_module("pytest_cleantree.sources.local").LocalSource

    calls: list[str] = []
    real_open, real_expand, real_read = (
        runner.open_local_source,
        LocalSource.expand,
        LocalSource.read,
    )

    def spy(name: str, real: Callable[..., object]) -> Callable[..., object]:
        def recorded(*args: object, **kwargs: object) -> object:
            calls.append(name)
            return real(*args, **kwargs)

        return recorded

    monkeypatch.setattr(runner, "open_local_source", spy("open", real_open))
    monkeypatch.setattr(LocalSource, "expand", spy("expand", real_expand))
    monkeypatch.setattr(LocalSource, "read", spy("read", real_read))

    pytester.runpytest("--cleantree", "--collect-only", "-q").assert_outcomes()
    at_collection = list(calls)
    pytester.runpytest("--cleantree").assert_outcomes(failed=2, passed=2)

    assert at_collection == []
    assert {"open", "expand", "read"} <= set(calls)  # the spy does see a real run


def test_items_carry_the_cleantree_marker(pytester: pytest.Pytester, example_tree: Path) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")

    only_checks = pytester.runpytest("--cleantree", "-m", "cleantree")
    only_tests = pytester.runpytest("--cleantree", "-m", "not cleantree")

    only_checks.assert_outcomes(failed=2, passed=2, deselected=1)
    only_tests.assert_outcomes(passed=1, deselected=4)


def test_k_selects_checks_by_entry(
    pytester: pytest.Pytester, example_tree: Path, story_rows: frozenset[Row], rows_in: RowsIn
) -> None:
    result = pytester.runpytest("--cleantree", "-k", "server_args")

    result.assert_outcomes(failed=1, deselected=3)
    assert rows_in(result.outlines) == {row for row in story_rows if row[0] == "srt/server_args.py"}


def test_k_selects_checks_by_rule(pytester: pytest.Pytester, example_tree: Path) -> None:
    result = pytester.runpytest("--cleantree", "-k", "nccl or sm90")

    result.assert_outcomes(passed=2, deselected=2)


def test_a_node_id_on_the_command_line_runs_that_check_alone(
    pytester: pytest.Pytester, example_tree: Path, story_rows: frozenset[Row], rows_in: RowsIn
) -> None:
    result = pytester.runpytest("--cleantree", f"cleantree.toml::{FUSION}[srt/server_args.py]")

    result.assert_outcomes(failed=1)
    assert rows_in(result.outlines) == {row for row in story_rows if row[0] == "srt/server_args.py"}


def test_last_failed_reruns_only_the_failed_checks(
    pytester: pytest.Pytester, example_tree: Path
) -> None:
    """Node ids come from the manifest alone, so pytest's cache can name them in the next run."""
    pytester.runpytest("--cleantree").assert_outcomes(failed=2, passed=2)

    result = pytester.runpytest("--cleantree", "--lf", "-rA")

    result.assert_outcomes(failed=2)  # and nothing else ran
    result.stdout.fnmatch_lines(["run-last-failure: rerun previous 2 failures*"])
    assert set(outcomes_by_id(result.outlines)) == {
        f"cleantree.toml::{FUSION}[srt/layers/communicator.py]",
        f"cleantree.toml::{FUSION}[srt/server_args.py]",
    }


def test_two_manifests_in_one_run_each_use_their_own_root(
    pytester: pytest.Pytester, example_source: Path
) -> None:
    for name, root in (("partial", "partial-revert"), ("fixed", "reverted")):
        shutil.copytree(example_source, pytester.path / name)
        manifest = pytester.path / name / "cleantree.toml"
        text = manifest.read_text().replace('root = "partial-revert/', f'root = "{root}/')
        manifest.write_text(text)

    result = pytester.runpytest(
        "--cleantree", "partial/cleantree.toml", "fixed/cleantree.toml", "-rA"
    )

    outcomes = outcomes_by_id(result.outlines)
    assert len(outcomes) == 8
    assert {node for node, outcome in outcomes.items() if outcome == "FAILED"} == {
        f"partial/cleantree.toml::{FUSION}[srt/layers/communicator.py]",
        f"partial/cleantree.toml::{FUSION}[srt/server_args.py]",
    }


def test_junitxml_holds_the_failure_text(pytester: pytest.Pytester, example_tree: Path) -> None:
    pytester.runpytest("--cleantree", "--junitxml=report.xml").assert_outcomes(failed=2, passed=2)

    cases = {
        case.get("name"): case for case in ET.parse(example_tree / "report.xml").iter("testcase")
    }
    assert set(cases) == {
        f"{FUSION}[srt/layers/communicator.py]",
        f"{FUSION}[srt/server_args.py]",
        "sm90-sm100-paths-kept[srt/layers/communicator.py]",
        "nccl-experiment-knobs-removed[sitecustomize.py]",
    }
    failure = cases[f"{FUSION}[srt/server_args.py]"].find("failure")
    assert failure is not None
    assert failure.text is not None
    assert failure.text.splitlines() == [
        WHY,
        f"{PARTIAL_ROOT}srt/server_args.py:17:5   import     is_sm120_supported,",
        f"{PARTIAL_ROOT}srt/server_args.py:46:36  condition  "
        "if is_sm100_supported() or is_sm120_supported():",
    ]
    assert cases["nccl-experiment-knobs-removed[sitecustomize.py]"].find("failure") is None
    assert {case.get("classname") for case in cases.values()} == {"cleantree.toml"}


@pytest.mark.slow
def test_xdist_gives_the_same_outcome_per_node_id_as_a_serial_run(
    pytester: pytest.Pytester, example_tree: Path, story_ids: tuple[str, ...]
) -> None:
    serial = pytester.runpytest("--cleantree", "-rA")
    parallel = pytester.runpytest_subprocess("--cleantree", "-rA", "-n", "2")

    parallel.assert_outcomes(failed=2, passed=2)
    parallel.stdout.fnmatch_lines(["*2 workers*"])
    assert set(outcomes_by_id(serial.outlines)) == set(story_ids)
    assert outcomes_by_id(parallel.outlines) == outcomes_by_id(serial.outlines)


def test_a_run_leaves_the_tree_untouched(
    pytester: pytest.Pytester,
    example_tree: Path,
    snapshot: Callable[[Path], dict[str, tuple[bytes, int]]],
) -> None:
    trees = [example_tree / "partial-revert", example_tree / "reverted"]
    before = [snapshot(tree) for tree in trees]

    pytester.runpytest("--cleantree").assert_outcomes(failed=2, passed=2)
    pytester.runpytest("--cleantree", "--cleantree-root", "reverted/python/sglang")

    assert [snapshot(tree) for tree in trees] == before
    assert before[0]  # the snapshot saw the files
