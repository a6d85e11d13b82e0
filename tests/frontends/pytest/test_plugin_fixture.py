"""The ``cleantree`` fixture: the manifest's checks written in an ordinary test, with the same
failure text, and no ``--cleantree`` or manifest needed."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

import pytest

Row = tuple[str, int, str]
RowsIn = Callable[[Iterable[str]], set[Row]]


def literal(text: str) -> str:
    """``text`` as an fnmatch pattern that matches only itself."""
    return "".join(f"[{char}]" if char in "[]*?" else char for char in text)


def server_args_rows(story_rows: frozenset[Row]) -> set[Row]:
    return {row for row in story_rows if row[0] == "srt/server_args.py"}


def assert_report_only(result: pytest.RunResult) -> None:
    """A failed check shows the report: no traceback, no chained exception, no fixture code."""
    output = result.stdout.str()
    assert "Traceback" not in output
    assert "During handling" not in output
    assert "fixture.py" not in output
    assert "cleantree.forbid(" not in output


def test_forbid_in_a_test_fails_with_the_same_rows_as_the_manifest(
    pytester: pytest.Pytester, example_tree: Path, story_rows: frozenset[Row], rows_in: RowsIn
) -> None:
    """Paths are relative to pytest's rootdir: here, the partially reverted tree."""
    pytester.makepyfile(
        test_revert="""
        def test_sm120_is_gone(cleantree):
            cleantree.forbid("srt/server_args.py", "sm120")

        def test_sm120_is_gone_from_the_fixed_tree(cleantree):
            cleantree.at("../../../reverted/python/sglang").forbid("srt/server_args.py", "sm120")
        """
    )

    result = pytester.runpytest("--rootdir", "partial-revert/python/sglang", "test_revert.py")

    result.assert_outcomes(failed=1, passed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_sm120_is_gone _*",
            "partial-revert/python/sglang/srt/server_args.py:17:5   import     is_sm120_supported,",
            "partial-revert/python/sglang/srt/server_args.py:46:36  condition  "
            "if is_sm100_supported() or is_sm120_supported():",
        ]
    )
    assert rows_in(result.outlines) == server_args_rows(story_rows)
    assert_report_only(result)


def test_fixture_and_manifest_report_the_same_rows(
    pytester: pytest.Pytester, example_tree: Path, story_rows: frozenset[Row], rows_in: RowsIn
) -> None:
    pytester.makepyfile(
        test_revert="""
        def test_story(cleantree):
            cleantree.at("partial-revert/python/sglang").forbid(
                ["srt/layers/communicator.py", "srt/server_args.py"], "sm120"
            )
        """
    )

    by_fixture = pytester.runpytest("test_revert.py")
    by_manifest = pytester.runpytest("--cleantree", "cleantree.toml")

    by_fixture.assert_outcomes(failed=1)
    assert rows_in(by_fixture.outlines) == story_rows
    assert rows_in(by_manifest.outlines) == rows_in(by_fixture.outlines)


def test_why_and_kinds(
    pytester: pytest.Pytester, example_tree: Path, story_rows: frozenset[Row], rows_in: RowsIn
) -> None:
    pytester.makepyfile(
        test_revert="""
        def test_imports_only(cleantree):
            cleantree.at("partial-revert/python/sglang").forbid(
                "srt/**/*.py", "sm120", kinds=["import"], why="SM120 fusion was reverted"
            )
        """
    )

    result = pytester.runpytest()

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "SM120 fusion was reverted",
            "partial-revert/python/sglang/srt/layers/communicator.py:15:5  *",
        ]
    )
    assert rows_in(result.outlines) == {row for row in story_rows if row[2] == "import"}


def test_expect(pytester: pytest.Pytester, example_tree: Path) -> None:
    pytester.makepyfile(
        test_revert="""
        def test_kept(cleantree):
            cleantree.at("reverted/python/sglang").expect(
                "srt/layers/communicator.py", "_is_sm90_supported", "_is_sm100_supported"
            )

        def test_lost(cleantree):
            cleantree.at("reverted/python/sglang").expect(
                "srt/layers/communicator.py", "_is_sm90_supported", "_is_sm89_supported"
            )
        """
    )

    result = pytester.runpytest("-rA")

    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_lost*",
            "reverted/python/sglang/srt/layers/communicator.py  missing  "
            "expected '_is_sm89_supported'",
        ]
    )
    assert "expected '_is_sm90_supported'" not in result.stdout.str()
    assert_report_only(result)


def test_absent(pytester: pytest.Pytester, example_tree: Path) -> None:
    pytester.makepyfile(
        test_revert="""
        def test_gone(cleantree):
            cleantree.at("reverted/python/sglang").absent("srt/sm120_fusion.py")

        def test_still_there(cleantree):
            cleantree.at("reverted/python/sglang").absent("srt/sm120_fusion.py", "sitecustomize.py")
        """
    )

    result = pytester.runpytest()

    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        ["*test_still_there*", "reverted/python/sglang/sitecustomize.py  present  must not exist"]
    )
    assert "sm120_fusion.py  present" not in result.stdout.str()


def test_a_missing_file_fails_unless_missing_ok(
    pytester: pytest.Pytester, example_tree: Path
) -> None:
    pytester.makepyfile(
        test_revert="""
        def test_strict(cleantree):
            cleantree.forbid("srt/gone.py", "sm120")

        def test_lenient(cleantree):
            cleantree.forbid("srt/gone.py", "sm120", missing_ok=True)
        """
    )

    result = pytester.runpytest()

    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_strict*",
            "error: srt/gone.py: no such file under * (set missing_ok = true to allow)",
        ]
    )


def test_a_missing_root_is_one_clean_failure(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        test_revert="""
        def test_elsewhere(cleantree):
            cleantree.at("nowhere").forbid("srt/server_args.py", "sm120")
        """
    )

    result = pytester.runpytest()

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*test_elsewhere*", "root '*/nowhere' does not exist"])
    assert len([line for line in result.outlines if line.startswith("root ")]) == 1
    assert_report_only(result)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        pytest.param(
            'cleantree.forbid("a.py", "x", kinds=["bogus"])',
            "ValueError: cleantree.forbid: unknown kind 'bogus' (valid kinds: assignment, call, *)",
            id="unknown-kind",
        ),
        pytest.param(
            'cleantree.forbid("a.py", "x", kinds=["text"])',
            "ValueError: cleantree.forbid: unknown kind 'text' *",
            id="text-is-not-selectable",
        ),
        pytest.param(
            'cleantree.forbid("a.py", "x", kinds=[])',
            "ValueError: cleantree.forbid: kinds must not be empty",
            id="no-kinds-would-match-nothing",
        ),
        pytest.param(
            'cleantree.forbid("a.py", "re:(")',
            "ValueError: cleantree.forbid: bad regular expression '(': *",
            id="bad-regex",
        ),
        pytest.param(
            'cleantree.forbid("a.py")',
            "ValueError: cleantree.forbid: give at least one file and one pattern",
            id="no-pattern",
        ),
    ],
)
def test_a_wrong_call_is_a_clear_error(pytester: pytest.Pytester, call: str, message: str) -> None:
    pytester.makepyfile(test_call=f"def test_call(cleantree):\n    {call}\n")

    result = pytester.runpytest()

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines([">*" + literal(call), f"E *{message}"])
    assert "fixture.py" not in result.stdout.str()  # the traceback ends at the caller's line


def test_kinds_as_one_string(
    pytester: pytest.Pytester, example_tree: Path, story_rows: frozenset[Row], rows_in: RowsIn
) -> None:
    pytester.makepyfile(
        test_revert="""
        def test_conditions(cleantree):
            cleantree.at("partial-revert/python/sglang").forbid(
                "srt/server_args.py", "sm120", kinds="condition"
            )
        """
    )

    result = pytester.runpytest()

    result.assert_outcomes(failed=1)
    assert rows_in(result.outlines) == {("srt/server_args.py", 46, "condition")}
