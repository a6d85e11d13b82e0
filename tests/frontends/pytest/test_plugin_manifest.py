"""Which manifest ``pytest --cleantree`` checks, what it does with a broken one, and that the
plugin does nothing at all (imports included) when ``--cleantree`` is not given."""

from __future__ import annotations

import ast
import shutil
import textwrap
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

Row = tuple[str, int, str]
RowsIn = Callable[[Iterable[str]], set[Row]]

FUSION_RULE = """\
[[{table}]]
id = "flashinfer-fusion-sm120-reverted"
files = ["srt/layers/communicator.py", "srt/server_args.py"]
forbid = ["sm120"]
"""


def assert_no_traceback(text: str) -> None:
    assert "Traceback" not in text
    assert "raise " not in text
    assert "manifest.py:" not in text
    assert "plugin.py:" not in text


# ---------------------------------------------------------------- inert unless asked


def test_without_cleantree_only_the_tests_run(
    pytester: pytest.Pytester, example_tree: Path
) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")

    result = pytester.runpytest("-rA")

    result.assert_outcomes(passed=1)
    assert "cleantree.toml" not in result.stdout.str()


def test_without_cleantree_a_broken_manifest_is_not_even_read(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toml", cleantree="this is not TOML [")
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")

    pytester.runpytest().assert_outcomes(passed=1)


@pytest.mark.slow
def test_without_cleantree_nothing_heavy_is_imported(
    pytester: pytest.Pytester, example_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYTEST_ADDOPTS")  # every installed plugin, as on a user's machine
    pytester.makeconftest(
        """
        import sys

        def pytest_unconfigure(config):  # the last hook: all the session imported
            with open("modules.txt", "w") as out:
                out.write(repr(sorted(sys.modules)))
        """
    )
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")

    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")

    result.assert_outcomes(passed=1)
    modules = set(ast.literal_eval((pytester.path / "modules.txt").read_text()))
    assert "pytest_cleantree.plugin" in modules  # loaded through its entry point, yet inert:
    heavy = ("astroid", "paramiko", "re2")
    assert not {name for name in modules if name.split(".")[0] in heavy}
    # pytest loads the plugin in every session on the machine: what it imports there is a
    # decision (issue 36), each module of the package named (the manifest's parser, the
    # model, the engine and the session's report are for --cleantree only)
    assert {name for name in modules if name.startswith("pytest_cleantree")} <= {
        "pytest_cleantree",
        "pytest_cleantree.plugin",
        "pytest_cleantree.core",
        "pytest_cleantree.core.errors",
        "pytest_cleantree.frontends",
        "pytest_cleantree.frontends.declare",  # the option table, split three ways (issue 47)
        "pytest_cleantree.frontends.option_row",
        "pytest_cleantree.frontends.options",
        "pytest_cleantree.frontends.pytest",
        "pytest_cleantree.frontends.pytest.items",  # the plugin, split in two (issue 47)
        "pytest_cleantree.frontends.pytest.plugin",
        "pytest_cleantree.report",
        "pytest_cleantree.report.registry",
    }
    assert "pytest_cleantree.config.manifest" not in modules
    assert "pytest_cleantree.config.entries" not in modules
    assert "pytest_cleantree.core.model" not in modules


# ---------------------------------------------------------------- which manifest


@pytest.mark.slow
def test_a_named_manifest_does_not_collect_the_tests_beside_it(
    pytester: pytest.Pytester, example_tree: Path
) -> None:
    pytester.makepyfile(test_gpu="raise RuntimeError('no GPU on this machine')\n")

    named = pytester.runpytest("--cleantree", "cleantree.toml")
    everything = pytester.runpytest("--cleantree")  # control: the sibling does raise

    named.assert_outcomes(failed=2, passed=2)
    assert "no GPU" not in named.stdout.str()
    everything.assert_outcomes(errors=1)
    everything.stdout.fnmatch_lines(["*RuntimeError: no GPU on this machine*"])


def test_the_manifest_option_works_from_another_folder(
    pytester: pytest.Pytester,
    example_source: Path,
    story_rows: frozenset[Row],
    rows_in: RowsIn,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    shutil.copytree(example_source, pytester.path / "project")
    elsewhere = pytester.mkdir("elsewhere")
    monkeypatch.chdir(elsewhere)

    partial = pytester.runpytest("--cleantree", "--cleantree-manifest", "../project/cleantree.toml")
    full = pytester.runpytest(
        "--cleantree",
        "--cleantree-manifest",
        "../project/cleantree.toml",
        "--cleantree-root",
        "../project/reverted/python/sglang",
    )

    partial.assert_outcomes(failed=2, passed=2)
    assert rows_in(partial.outlines) == story_rows
    full.assert_outcomes(passed=4)


def test_a_missing_manifest_option_file_is_a_usage_error(pytester: pytest.Pytester) -> None:
    result = pytester.runpytest("--cleantree", "--cleantree-manifest", "nowhere.toml")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--cleantree-manifest: no such file: nowhere.toml*"])


def test_cleantree_without_a_manifest_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_plain="def test_plain():\n    pass\n")

    result = pytester.runpytest("--cleantree")

    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--cleantree: no cleantree.toml*--cleantree-manifest PATH*"])
    assert "test_plain" not in result.stdout.str()


def test_a_pyproject_without_the_table_is_no_manifest(pytester: pytest.Pytester) -> None:
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\nmarkers = ["cleantree_ish: x"]\n')

    result = pytester.runpytest("--cleantree")

    assert result.ret == pytest.ExitCode.USAGE_ERROR


def test_the_pyproject_table_form(
    pytester: pytest.Pytester, example_tree: Path, story_rows: frozenset[Row], rows_in: RowsIn
) -> None:
    (example_tree / "cleantree.toml").unlink()
    pytester.makepyprojecttoml(
        '[tool.pytest.ini_options]\naddopts = ["--cleantree"]\n\n'
        '[tool.cleantree]\nroot = "partial-revert/python/sglang"\n\n'
        + FUSION_RULE.format(table="tool.cleantree.rule")
    )

    result = pytester.runpytest("-rA")  # --cleantree comes from the addopts

    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(
        [
            "FAILED pyproject.toml::flashinfer-fusion-sm120-reverted[[]srt/layers/*.py[]]",
            "FAILED pyproject.toml::flashinfer-fusion-sm120-reverted[[]srt/server_args.py[]]",
        ]
    )
    assert rows_in(result.outlines) == story_rows


def test_only_the_selected_manifest_is_collected(
    pytester: pytest.Pytester, example_tree: Path
) -> None:
    """Other ``.toml`` files (a test suite's own fixture manifests) are not checks."""
    pytester.mkdir("fixtures")
    pytester.path.joinpath("fixtures", "cleantree.toml").write_text("not TOML at all [")
    pytester.path.joinpath("fixtures", "other.toml").write_text("[[rule]]\n")

    result = pytester.runpytest("--cleantree", "--collect-only", "-q")

    assert result.ret == pytest.ExitCode.OK
    assert all(line.startswith("cleantree.toml::") for line in result.outlines if "::" in line)
    result.stdout.fnmatch_lines(["4 tests collected*"])


# ---------------------------------------------------------------- a broken manifest


def test_an_unknown_key_is_a_collection_error_with_one_clear_message(
    pytester: pytest.Pytester, example_tree: Path
) -> None:
    manifest = example_tree / "cleantree.toml"
    manifest.write_text(
        manifest.read_text().replace(
            'forbid = ["sm120"]\n', 'forbid = ["sm120"]\nseverity = "high"\n'
        )
    )

    result = pytester.runpytest("--cleantree")

    result.assert_outcomes(errors=1)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    output = result.stdout.str()
    assert output.count("severity") == 1
    result.stdout.fnmatch_lines(
        [
            "*ERROR collecting cleantree.toml*",
            "*/cleantree.toml: rule 1 (line 12): unknown key 'severity' (valid keys: *)",
            "*short test summary info*",
        ]
    )
    assert_no_traceback(output)


def test_every_problem_of_a_manifest_is_reported_at_once(
    pytester: pytest.Pytester, example_tree: Path
) -> None:
    manifest = example_tree / "cleantree.toml"
    text = manifest.read_text().replace('forbid = ["sm120"]', 'frobid = ["sm120"]')
    manifest.write_text(text.replace('"NCCL_BUFFSIZE"]', '"NCCL_BUFFSIZE", 3]'))

    result = pytester.runpytest("--cleantree")

    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            # one problem per mistake: the misspelt key is not also "nothing to check"
            "*/cleantree.toml: 2 problems",
            "  - rule 1 (line 11): unknown key 'frobid' (did you mean 'forbid'?)",
            "  - rule 3 (line 23): forbid[2]: must be a string, not an integer",
        ]
    )
    assert_no_traceback(result.stdout.str())


def test_a_toml_syntax_error_is_a_collection_error(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toml", cleantree='root = "src\n[[rule]]\n')

    result = pytester.runpytest("--cleantree")

    result.assert_outcomes(errors=1)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*cleantree.toml: TOML syntax error: *(at line 1, column *)"])
    assert result.stdout.str().count("TOML syntax error") == 1
    assert_no_traceback(result.stdout.str())


def test_a_broken_manifest_fails_collect_only_too(pytester: pytest.Pytester) -> None:
    pytester.makefile(".toml", cleantree=textwrap.dedent("[[rule]]\nfiles = []\n"))

    result = pytester.runpytest("--cleantree", "--collect-only", "-q")

    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*files: must not be empty*"])
