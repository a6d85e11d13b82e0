"""A pattern no name can hold (``is_sm120_supported()``, ``x = 1``), as a substring, is found
as grep finds it: on the code lines of a Python file too (kind ``text``), where it said "clean"
of a tree that still called the function.

The real ``cleantree`` command in a subprocess, on the story's lines.
"""

from __future__ import annotations

from pathlib import Path

from tests.frontends.cli.test_cli_pattern_names import run

STORY = (
    "from sglang.srt.utils import (\n"
    "    is_sm100_supported,\n"
    "    is_sm120_supported,\n"
    ")\n"
    "\n"
    "_is_sm120_supported = _is_cuda and is_sm120_supported()\n"
    "if is_sm100_supported() or is_sm120_supported():  # not is_sm120_supported() here\n"
    "    x = 1\n"
    "s = 'x = 1'\n"
    'print(f"{is_sm120_supported()}")\n'
)


def tree(root: Path, pattern: str, files: str = "*.py", extra: str = "") -> None:
    (root / "fused.py").write_text(STORY)
    (root / "notes.md").write_text("run is_sm120_supported() and x = 1 here\n")
    (root / "cleantree.toml").write_text(
        f'root = "."\n[[rule]]\nid = "r"\nfiles = ["{files}"]\nforbid = ["{pattern}"]\n{extra}'
    )


def reported(stdout: str, path: str = "fused.py") -> list[tuple[int, str]]:
    """(line, kinds) of each reported line of ``path``."""
    rows = [line.split() for line in stdout.splitlines() if line.startswith(f"{path}:")]
    return [(int(row[0].split(":")[1]), row[1]) for row in rows]


def test_a_call_written_with_its_parentheses_is_found_on_every_code_line(tmp_path: Path) -> None:
    tree(tmp_path, "is_sm120_supported()")

    done = run(tmp_path, "check")

    assert done.returncode == 1, done.stdout
    assert reported(done.stdout) == [(6, "text"), (7, "text"), (10, "text")]


def test_code_text_and_a_string_on_their_own_lines(tmp_path: Path) -> None:
    tree(tmp_path, "x = 1")

    done = run(tmp_path, "check")

    assert done.returncode == 1, done.stdout
    assert reported(done.stdout) == [(8, "text"), (9, "string")]


def test_a_rule_that_looks_only_at_strings_is_not_shown_code(tmp_path: Path) -> None:
    tree(tmp_path, "x = 1", extra='kinds = ["string"]\n')

    done = run(tmp_path, "check")

    assert done.returncode == 1, done.stdout
    assert reported(done.stdout) == [(9, "string")]


def test_a_rule_that_looks_only_at_comments_sees_the_comment(tmp_path: Path) -> None:
    tree(tmp_path, "is_sm120_supported()", extra='kinds = ["comment"]\n')

    done = run(tmp_path, "check")

    assert done.returncode == 1, done.stdout
    assert reported(done.stdout) == [(7, "comment")]


def test_in_a_text_file_it_is_matched_as_before(tmp_path: Path) -> None:
    tree(tmp_path, "is_sm120_supported()", files="*.md")

    done = run(tmp_path, "check")

    assert done.returncode == 1, done.stdout
    assert reported(done.stdout, "notes.md") == [(1, "text")]


def test_a_regex_written_with_its_parenthesis_is_found_on_every_code_line(
    tmp_path: Path,
) -> None:
    """A regex is grep's too: ``is_sm1[02]0_supported\\(`` matches no name, and said "clean"
    of the story's file; the import lines stay the scan's (a name holds the match)."""
    tree(tmp_path, "re:is_sm1[02]0_supported\\\\(")

    done = run(tmp_path, "check")

    assert done.returncode == 1, done.stdout
    assert reported(done.stdout) == [(6, "text"), (7, "text"), (10, "text")]


def test_a_regex_some_names_hold_is_reported_once_a_line_with_the_scan_s_kind(
    tmp_path: Path,
) -> None:
    tree(tmp_path, "re:is_sm120_supported(\\\\(|$)")

    done = run(tmp_path, "check")

    assert done.returncode == 1, done.stdout
    assert reported(done.stdout) == [
        (3, "import"),
        (6, "assignment,call"),
        (7, "condition"),
        (10, "call"),
    ]
