"""The ``cleantree`` command, run as users run it: ``python -m pytest_cleantree`` and the
installed ``cleantree`` script, in a subprocess.  Exit codes: 0 clean, 1 violations, 2 could
not check; errors on stderr, one line, naming the file and the key, never a traceback."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

Row = tuple[str, int, str]
RowsIn = Callable[[Iterable[str]], set[Row]]

FUSION = "flashinfer-fusion-sm120-reverted"
#: the partial revert's root, as text output shows it from the example's folder
PARTIAL_ROOT = "partial-revert/python/sglang/"
WHY = "FlashInfer's TRTLLM allreduce JIT knows only SM90/SM100; on SM120 the server crashes"
REVERTED = "reverted/python/sglang"


@dataclass(frozen=True)
class Run:
    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()


def console_script() -> list[str]:
    """The ``cleantree`` entry point installed beside this Python (else the one on PATH)."""
    found = shutil.which("cleantree", path=str(Path(sys.executable).parent)) or shutil.which(
        "cleantree"
    )
    assert found, "the cleantree console script is not installed: pip install -e ."
    return [found]


COMMANDS = {
    "module": lambda: [sys.executable, "-m", "pytest_cleantree"],
    "script": console_script,
}


def runner_of(command: list[str]) -> Callable[..., Run]:
    def run(*args: str, cwd: Path) -> Run:
        done = subprocess.run(
            [*command, *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
        )
        assert "Traceback" not in done.stderr
        assert "Traceback" not in done.stdout
        return Run(done.returncode, done.stdout, done.stderr)

    return run


@pytest.fixture(params=sorted(COMMANDS))
def cleantree(request: pytest.FixtureRequest) -> Callable[..., Run]:
    """``cleantree(*args, cwd=...)`` runs the real command: both spellings, one per param."""
    return runner_of(COMMANDS[request.param]())


@pytest.fixture
def module_cleantree() -> Callable[..., Run]:
    """The same, through ``python -m`` only: for the many error cases, to keep the suite fast."""
    return runner_of(COMMANDS["module"]())


# ---------------------------------------------------------------- the story


@pytest.mark.slow
def test_the_partial_revert_exits_1_with_the_five_rows(
    cleantree: Callable[..., Run],
    example_tree: Path,
    story_rows: frozenset[Row],
    rows_in: RowsIn,
) -> None:
    result = cleantree("check", cwd=example_tree)

    assert result.code == 1
    assert result.err == ""
    assert rows_in(result.lines) == story_rows
    assert result.lines[0] == f"{FUSION}: {WHY}"
    assert result.lines[-1] == "cleantree: 5 forbidden lines in 2 files (3 rules checked)"


def test_the_full_revert_exits_0_with_one_summary_line(
    cleantree: Callable[..., Run], example_tree: Path
) -> None:
    result = cleantree("check", "--root", REVERTED, cwd=example_tree)

    assert result.code == 0
    assert result.err == ""
    assert result.lines == ["cleantree: clean (3 rules, 3 files)"]


def test_the_report_is_the_rows_in_manifest_order(
    module_cleantree: Callable[..., Run], example_tree: Path
) -> None:
    result = module_cleantree("check", cwd=example_tree)

    assert result.out == (
        f"{FUSION}: {WHY}\n"
        f"{PARTIAL_ROOT}srt/layers/communicator.py:15:5   import           is_sm120_supported,\n"
        f"{PARTIAL_ROOT}srt/layers/communicator.py:24:1   assignment,call  "
        "_is_sm120_supported = _is_cuda and is_sm120_supported()\n"
        f"{PARTIAL_ROOT}srt/layers/communicator.py:53:32  condition        "
        "if is_sm100_supported() or is_sm120_supported():\n"
        f"{PARTIAL_ROOT}srt/server_args.py:17:5           import           is_sm120_supported,\n"
        f"{PARTIAL_ROOT}srt/server_args.py:46:36          condition        "
        "if is_sm100_supported() or is_sm120_supported():\n"
        "\n"
        "cleantree: 5 forbidden lines in 2 files (3 rules checked)\n"
    )


def test_an_explicit_manifest_resolves_its_root_from_its_own_folder(
    module_cleantree: Callable[..., Run],
    example_tree: Path,
    story_rows: frozenset[Row],
    rows_in: RowsIn,
) -> None:
    elsewhere = example_tree.parent
    manifest = f"{example_tree.name}/cleantree.toml"

    partial = module_cleantree("check", "--manifest", manifest, cwd=elsewhere)
    full = module_cleantree(
        "check", "--manifest", manifest, "--root", f"{example_tree.name}/{REVERTED}", cwd=elsewhere
    )

    assert partial.code == 1
    assert rows_in(partial.lines) == story_rows
    assert full.code == 0, full.out + full.err


def test_the_pyproject_table_form(
    module_cleantree: Callable[..., Run],
    example_tree: Path,
    story_rows: frozenset[Row],
    rows_in: RowsIn,
) -> None:
    manifest = example_tree / "cleantree.toml"
    body = manifest.read_text().replace("[[rule]]", "[[tool.cleantree.rule]]")
    (example_tree / "pyproject.toml").write_text(
        '[project]\nname = "demo"\n\n[tool.cleantree]\n' + body
    )
    manifest.unlink()

    result = module_cleantree("check", cwd=example_tree)

    assert result.code == 1, result.err
    assert rows_in(result.lines) == story_rows


@pytest.mark.slow
def test_a_run_leaves_the_tree_untouched(
    cleantree: Callable[..., Run],
    example_tree: Path,
    snapshot: Callable[[Path], dict[str, tuple[bytes, int]]],
) -> None:
    before = snapshot(example_tree)

    assert cleantree("check", cwd=example_tree).code == 1
    assert cleantree("check", "--root", REVERTED, cwd=example_tree).code == 0

    assert snapshot(example_tree) == before
    assert "partial-revert/python/sglang/srt/server_args.py" in before


# ---------------------------------------------------------------- could not check: exit 2


def test_a_bad_manifest_exits_2_naming_the_file_and_the_key(
    cleantree: Callable[..., Run], example_tree: Path
) -> None:
    manifest = example_tree / "cleantree.toml"
    manifest.write_text(
        manifest.read_text().replace(
            'forbid = ["sm120"]\n', 'forbid = ["sm120"]\nseverity = "high"\n'
        )
    )

    result = cleantree("check", cwd=example_tree)

    assert result.code == 2
    assert result.out == ""
    assert result.err.splitlines() == [
        f"cleantree: error: {manifest}: rule 1 (line 12): unknown key 'severity' "
        "(valid keys: absent, exclude, expect, files, forbid, forbid_lines, "
        "forbid_lines_escaped, id, kinds, missing_ok, mode, must_exist, unless_lines, "
        "unless_lines_escaped, why)"
    ]


def test_every_manifest_problem_is_listed(
    module_cleantree: Callable[..., Run], example_tree: Path
) -> None:
    manifest = example_tree / "cleantree.toml"
    manifest.write_text(
        manifest.read_text()
        .replace("root =", "rot =")
        .replace('"NCCL_BUFFSIZE"]', '"NCCL_BUFFSIZE", 3]')
    )

    result = module_cleantree("check", cwd=example_tree)

    assert result.code == 2
    assert result.err.splitlines() == [
        f"cleantree: error: {manifest}: 2 problems",
        "  - unknown key 'rot' (did you mean 'root'?) (at line 6)",
        "  - rule 3 (line 23): forbid[2]: must be a string, not an integer",
    ]


def test_a_toml_syntax_error_exits_2_with_its_line(
    module_cleantree: Callable[..., Run], tmp_path: Path
) -> None:
    (tmp_path / "cleantree.toml").write_text('[[rule]]\nfiles = ["a.py"\nforbid = ["x"]\n')

    result = module_cleantree("check", cwd=tmp_path)

    assert result.code == 2
    assert result.out == ""
    [line] = result.err.splitlines()
    assert line.startswith(f"cleantree: error: {tmp_path / 'cleantree.toml'}: TOML syntax error: ")
    assert "(at line 3, column 1)" in line


def test_no_manifest_exits_2(module_cleantree: Callable[..., Run], tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()  # the search for a manifest stops at the repository's root
    result = module_cleantree("check", cwd=tmp_path)

    assert result.code == 2
    assert result.out == ""
    assert result.err.splitlines() == [
        "cleantree: error: no cleantree.toml (or pyproject.toml with [tool.cleantree]) here or "
        "in a parent folder up to the repository's root; pass --manifest PATH or --reverted REV, "
        "or run `cleantree init` to write a starter cleantree.toml here"
    ]


def test_a_missing_manifest_file_exits_2(
    module_cleantree: Callable[..., Run], tmp_path: Path
) -> None:
    result = module_cleantree("check", "--manifest", "nope.toml", cwd=tmp_path)

    assert result.code == 2
    assert result.err.splitlines() == [
        "cleantree: error: nope.toml: cannot read the manifest: no such file"
    ]


def test_a_missing_root_option_exits_2_with_one_error(
    cleantree: Callable[..., Run], example_tree: Path
) -> None:
    result = cleantree("check", "--root", "nowhere", cwd=example_tree)

    assert result.code == 2
    assert result.out == ""
    assert result.err.splitlines() == [
        f"cleantree: error: --root: root '{example_tree / 'nowhere'}' does not exist"
    ]


def test_a_missing_manifest_root_exits_2_naming_the_manifest(
    module_cleantree: Callable[..., Run], example_tree: Path
) -> None:
    shutil.rmtree(example_tree / "partial-revert")

    result = module_cleantree("check", cwd=example_tree)

    assert result.code == 2
    assert result.out == ""
    assert result.err.splitlines() == [
        f"cleantree: error: {example_tree / 'cleantree.toml'}: "
        f"root '{example_tree / 'partial-revert/python/sglang'}' does not exist"
    ]


def test_a_missing_file_exits_2_naming_it(
    module_cleantree: Callable[..., Run], example_tree: Path, rows_in: RowsIn
) -> None:
    (example_tree / "partial-revert/python/sglang/srt/server_args.py").unlink()

    result = module_cleantree("check", cwd=example_tree)

    assert result.code == 2
    assert result.err == ""
    assert (
        "error: partial-revert/python/sglang/srt/server_args.py: no such file under "
        f"{example_tree / 'partial-revert/python/sglang'} (set missing_ok = true to allow)"
    ) in result.lines
    # the rest is still checked and reported
    assert {row[0] for row in rows_in(result.lines)} == {"srt/layers/communicator.py"}
    assert result.lines[-1].endswith("1 error: the check is incomplete (3 rules checked)")


def test_an_unparseable_file_exits_2_and_shows_its_matching_lines(
    module_cleantree: Callable[..., Run], example_tree: Path, rows_in: RowsIn
) -> None:
    # broken where the forbidden name stands (a break in a method that cannot hold any
    # pattern is not looked at: as for a file that spells none, it cannot hide a hit)
    target = example_tree / "partial-revert/python/sglang/srt/server_args.py"
    text = target.read_text()
    broken = "def _handle_model_specific_adjustments(self"
    target.write_text(text.replace(broken + ")", broken))

    result = module_cleantree("check", cwd=example_tree)

    assert result.code == 2
    assert {(path, line) for path, line, _ in rows_in(result.lines)} >= {
        ("srt/server_args.py", 17),
        ("srt/server_args.py", 46),
    }
    assert any(
        line.startswith("error: partial-revert/python/sglang/srt/server_args.py:")
        and ": not valid Python " in line
        for line in result.lines
    )


def test_violations_in_an_incomplete_check_still_exit_2(
    module_cleantree: Callable[..., Run], example_tree: Path
) -> None:
    """Exit 1 promises every file was checked: a missing file anywhere makes it 2."""
    (example_tree / "partial-revert/python/sglang/sitecustomize.py").unlink()

    result = module_cleantree("check", cwd=example_tree)

    assert result.code == 2
    assert "5 forbidden lines in 2 files" in result.lines[-1]


def test_usage_errors_exit_2(module_cleantree: Callable[..., Run], tmp_path: Path) -> None:
    result = module_cleantree(cwd=tmp_path)

    assert result.code == 2
    assert "the following arguments are required: command" in result.err


def test_an_internal_error_exits_2_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bug must never read as "violations" (1), let alone "clean" (0)."""
    from pytest_cleantree.frontends.cli import main as cli

    def broken(*args: object) -> int:
        raise RuntimeError("boom")

    monkeypatch.delenv("CLEANTREE_DEBUG", raising=False)
    monkeypatch.setattr(cli, "_check", broken)
    assert cli.main(["check"]) == 2
    assert capsys.readouterr().err.startswith("cleantree: internal error: RuntimeError: boom")
    monkeypatch.setenv("CLEANTREE_DEBUG", "1")
    with pytest.raises(RuntimeError, match="boom"):
        cli.main(["check"])


def test_an_internal_error_looking_for_a_kept_answer_exits_2_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The kept-answer lookup runs before the check: a bug there is exit 2 too."""
    from pytest_cleantree.frontends.cli import main as cli
    from pytest_cleantree.run import answer_lookup

    def broken(*args: object) -> None:
        raise RuntimeError("lost")

    monkeypatch.delenv("CLEANTREE_DEBUG", raising=False)
    monkeypatch.setattr(answer_lookup, "lookup_typed", broken)
    assert cli.main(["check"]) == 2
    assert capsys.readouterr().err.startswith("cleantree: internal error: RuntimeError: lost")
