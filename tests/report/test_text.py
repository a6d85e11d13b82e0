"""The text report, directly: golden strings of every part (rows, table, summary, statistics,
the uncovered-file notes, quiet), so that no line of the renderer changes unnoticed."""

from __future__ import annotations

import dataclasses
import os

import pytest

from pytest_cleantree.core.model import Hit, Kind, Missing, Problem, Result, Rule, Suppressed
from pytest_cleantree.report.context import PathFrame, RenderContext
from pytest_cleantree.report.text import (
    escape_controls,
    escape_json,
    render,
    render_report,
    render_result,
    render_rows,
    render_statistics,
    render_summary,
    render_table,
    shown_root,
)

RULE = Rule("no-sm120", ("a.py",), why="the sm120 experiment was reverted")
BARE = Rule("no-fp8", ("b.py",))
FILES = ("a.py", "b.py")


def _hit(path: str, line: int, col: int = 0, note: str = "") -> Hit:
    return Hit(path, line, (Kind.CALL, Kind.CONDITION), f"if sm120({line}):", col, note=note)


HITS = Result(RULE, "a.py", hits=(_hit("a.py", 3, 4), _hit("a.py", 10)), files=FILES)
OTHER = Result(
    BARE,
    "b.py",
    missing=(Missing("b.py", "sm90"),),
    present=("old.py",),
    problems=(Problem("cannot read", "b.py"),),
    files=FILES,
)


def test_render_rows_of_every_kind_of_finding() -> None:
    assert render_rows([HITS, OTHER]) == [
        ("a.py:3:5", "call,condition", "if sm120(3):"),
        ("a.py:10:1", "call,condition", "if sm120(10):"),
        ("b.py", "missing", "expected 'sm90'"),
        ("old.py", "present", "must not exist"),
        ("", "error", "b.py: cannot read"),
    ]


#: the checked folder ``src`` under the current folder, as the CLI frames it
SRC = PathFrame(root="src", base=os.getcwd())


def test_render_rows_under_a_root_and_on_a_host() -> None:
    remote = Result(RULE, "a.py", host="gpu1", hits=(_hit("a.py", 1),), present=("x.py",))
    assert render_rows([HITS, remote], SRC) == [
        ("src/a.py:3:5", "call,condition", "if sm120(3):"),
        ("src/a.py:10:1", "call,condition", "if sm120(10):"),
        ("gpu1:a.py:1:1", "call,condition", "if sm120(1):"),
        ("gpu1:x.py", "present", "must not exist"),
    ]
    problem = Result(RULE, "a.py", host="gpu1", problems=(Problem("unreachable"),))
    assert render_rows([problem]) == [("gpu1", "error", "unreachable")]


def test_a_note_follows_the_source_line() -> None:
    result = Result(RULE, "a.py", hits=(_hit("a.py", 2, note="the allow gives no reason"),))
    assert render_rows([result])[0][2] == "if sm120(2):  [the allow gives no reason]"


def test_render_table_aligns_and_collapses_an_empty_where() -> None:
    rows = [("a.py:1:1", "call", "x()"), ("long/b.py:10:2", "import", ""), ("", "error", "boom")]
    assert render_table(rows) == (
        "a.py:1:1        call    x()\nlong/b.py:10:2  import\nerror: boom"
    )
    assert render_table([]) == ""
    assert render_table([("a\x1b.py:1:1", "call", "x\rb")]) == "a\\x1b.py:1:1  call  x\\x0db"


def test_render_result_puts_the_why_first() -> None:
    assert render_result(HITS) == (
        "the sm120 experiment was reverted\n"
        "a.py:3:5   call,condition  if sm120(3):\n"
        "a.py:10:1  call,condition  if sm120(10):"
    )
    assert render_result(Result(BARE, "b.py", present=("b.py",))) == (
        "b.py  present  must not exist"
    )


def test_render_report_groups_by_rule_and_ends_with_the_summary() -> None:
    clean = Result(Rule("ok", ("c.py",)), "c.py", files=FILES)
    assert render_report([HITS, clean, OTHER]) == (
        "no-sm120: the sm120 experiment was reverted\n"
        "a.py:3:5   call,condition  if sm120(3):\n"
        "a.py:10:1  call,condition  if sm120(10):\n"
        "\n"
        "no-fp8\n"
        "b.py    missing  expected 'sm90'\n"
        "old.py  present  must not exist\n"
        "error: b.py: cannot read\n"
        "\n"
        "cleantree: 2 forbidden lines in 1 file; 1 expected pattern missing in 1 file; "
        "1 file that must not exist; 1 error: the check is incomplete (3 rules checked)"
    )


def test_a_why_keeps_its_line_breaks_and_escapes_other_controls() -> None:
    rule = Rule("r\x1b", ("a.py",), why="two\nlines\x1b[2K")
    result = Result(rule, "a.py", present=("a.py",))
    assert render_report([result]).split("\n")[:3] == [
        "r\\x1b: two",
        "lines\\x1b[2K",
        "a.py  present  must not exist",
    ]
    assert render_result(result).split("\n")[:2] == ["two", "lines\\x1b[2K"]


@pytest.mark.parametrize(
    ("results", "summary"),
    [
        pytest.param([], "cleantree: clean (0 rules, 0 files)", id="nothing"),
        pytest.param(
            [Result(RULE, "a.py", files=("a.py",))], "cleantree: clean (1 rule, 1 file)", id="one"
        ),
        pytest.param(
            [
                Result(RULE, "a.py", files=FILES),
                Result(BARE, "b.py", files=FILES),
                Result(BARE, "b.py", host="gpu1", files=("a.py",)),
            ],
            "cleantree: clean (2 rules, 3 files)",
            id="files-counted-once-per-host",
        ),
        pytest.param(
            [
                Result(RULE, "a.py", files=("a.py",)),
                Result(RULE, "b.py", files=("a.py", "b.py")),
            ],
            "cleantree: clean (1 rule, 2 files)",
            id="the-same-file-in-two-tuples-once",
        ),
        pytest.param(
            [Result(RULE, "a.py", suppressed=(Suppressed(_hit("a.py", 1), "r"),), files=FILES)],
            "cleantree: clean (1 rule, 2 files; 1 allowed inline)",
            id="allowed",
        ),
        pytest.param(
            [Result(RULE, "a.py", hits=(_hit("a.py", 1),), files=("a.py",))],
            "cleantree: 1 forbidden line in 1 file (1 rule checked)",
            id="one-hit",
        ),
        pytest.param(
            [
                Result(RULE, "*.py", hits=(_hit("a.py", 1), _hit("a.py", 2)), files=FILES),
                Result(BARE, "*.py", hits=(_hit("a.py", 3),), host="gpu1", files=FILES),
                Result(Rule("ok", ("c.py",)), "c.py", files=("c.py", "d.py")),
            ],
            "cleantree: 3 forbidden lines in 2 files (3 rules checked)",
            id="the-files-at-fault-not-those-read",
        ),
        pytest.param(
            [
                Result(
                    RULE,
                    "a.py",
                    missing=(Missing("a.py", "x"), Missing("a.py", "y")),
                    present=("p", "q"),
                    problems=(Problem("e1"), Problem("e2")),
                )
            ],
            "cleantree: 2 expected patterns missing in 1 file; 2 files that must not exist; "
            "2 errors: the check is incomplete (1 rule checked)",
            id="plurals",
        ),
        pytest.param(
            [Result(RULE, "a.py", missing=(Missing("a.py", "x"),))],
            "cleantree: 1 expected pattern missing in 1 file (1 rule checked)",
            id="missing-alone",
        ),
        pytest.param(
            [Result(RULE, "a.py", present=("p",))],
            "cleantree: 1 file that must not exist (1 rule checked)",
            id="present-alone",
        ),
        pytest.param(
            [Result(RULE, "a.py", problems=(Problem("e"),))],
            "cleantree: 1 error: the check is incomplete (1 rule checked)",
            id="error-alone",
        ),
    ],
)
def test_render_summary(results: list[Result], summary: str) -> None:
    assert render_summary(results) == summary


def test_render_statistics() -> None:
    many = Result(
        BARE, "b.py", host="gpu1", hits=tuple(_hit("b.py", n) for n in range(1, 12)), files=FILES
    )
    assert render_statistics([HITS, many], SRC) == (
        "lines remaining per rule:\n"
        "  11  no-fp8\n"
        "   2  no-sm120\n"
        "lines remaining per file:\n"
        "  11  gpu1:b.py\n"
        "   2  src/a.py"
    )
    # --statistics prints the errors too (issue 25): OTHER cannot read b.py
    assert render_statistics([OTHER]) == "no forbidden line remains\nerror: b.py: cannot read"


def test_render_of_a_clean_run_quiet_and_not() -> None:
    clean = [Result(RULE, "a.py", files=FILES)]
    assert render(clean, RenderContext()) == "cleantree: clean (1 rule, 2 files)"
    assert render(clean, RenderContext(quiet=True)) == ""


def test_render_of_findings_quiet_leaves_out_the_summary() -> None:
    text = render([HITS], RenderContext())
    assert text == render_report([HITS])
    quiet = render([HITS], RenderContext(quiet=True))
    assert quiet == text.rpartition("\n\n")[0]
    assert quiet.startswith("no-sm120: the sm120 experiment was reverted\n")
    assert "cleantree:" not in quiet


def test_render_statistics_then_the_summary() -> None:
    assert render([HITS], RenderContext(statistics=True)) == (
        "lines remaining per rule:\n"
        "  2  no-sm120\n"
        "lines remaining per file:\n"
        "  2  a.py\n"
        "\n"
        "cleantree: 2 forbidden lines in 1 file (1 rule checked)"
    )


def test_render_shows_paths_from_the_current_folder(tmp_path: os.PathLike[str]) -> None:
    root = os.path.join(tmp_path, "src")
    context = RenderContext(root=root, cwd=str(tmp_path))
    assert render([HITS], context).split("\n")[1].startswith("src/a.py:3:5 ")


def test_render_names_each_file_no_rule_covers_before_the_summary() -> None:
    clean = [Result(RULE, "a.py", files=FILES)]
    assert render(clean, RenderContext(uncovered=("x.txt", "y\x1b.txt"))) == (
        "cleantree: no rule covers x.txt\n"
        "cleantree: no rule covers y\\x1b.txt\n"
        "cleantree: clean (1 rule, 2 files)"
    )
    assert render([HITS], RenderContext(uncovered=("x.txt",))).split("\n")[-3:] == [
        "",
        "cleantree: no rule covers x.txt",
        "cleantree: 2 forbidden lines in 1 file (1 rule checked)",
    ]


@pytest.mark.parametrize(
    ("uncovered", "summary"),
    [
        (
            ("x.txt",),
            "cleantree: nothing checked: no rule covers the 1 file named (0 rules, 0 files)",
        ),
        (
            ("x.txt", "y.txt"),
            "cleantree: nothing checked: no rule covers the 2 files named (0 rules, 0 files)",
        ),
    ],
)
def test_render_with_no_rule_covering_any_named_file(
    uncovered: tuple[str, ...], summary: str
) -> None:
    notes = [f"cleantree: no rule covers {name}" for name in uncovered]
    assert render([], RenderContext(uncovered=uncovered)) == "\n".join([*notes, summary])


@pytest.mark.parametrize(
    ("root", "cwd", "shown"),
    [
        ("", "/w", ""),
        ("/w", "/w", ""),
        ("/w/src", "/w", "src"),
        ("/w/src/pkg/", "/w", "src/pkg"),
        ("/elsewhere/src", "/w", "/elsewhere/src"),
        ("/w2", "/w", "/w2"),
    ],
)
def test_shown_root(root: str, cwd: str, shown: str) -> None:
    assert shown_root(root, cwd) == shown


def test_shown_root_of_a_relative_root_is_taken_from_the_working_folder() -> None:
    assert shown_root("src", os.getcwd()) == "src"


@pytest.mark.parametrize(
    ("text", "escaped"),
    [
        ("a\tb", "a\tb"),
        ("a\x00b\x08\n\x1f\x7f\x9f", "a\\x00b\\x08\\x0a\\x1f\\x7f\\x9f"),
        (
            "\u202e\u061c\u200e\u200f\u202a\u2066\u2069",
            "\\u202e\\u061c\\u200e\\u200f\\u202a\\u2066\\u2069",
        ),
        ("caf\udce9", "caf\\xe9"),
        ("\ud800", "\\ud800"),
        ("é ü", "é ü"),
        (
            "\x7e\xa0\u061b\u200d\u2029\u202f\u2065\u206a",
            "\x7e\xa0\u061b\u200d\u2029\u202f\u2065\u206a",
        ),
        ("\x85", "\\x85"),
        ("\udc7f\udc80\udcff\udd00\udfff", "\\udc7f\\x80\\xff\\udd00\\udfff"),
    ],
)
def test_escape_controls(text: str, escaped: str) -> None:
    assert escape_controls(text) == escaped


def test_escape_json_keeps_json_valid_around_each_surrogate() -> None:
    assert escape_json('["a\udce9", "\ud800"]') == '["a\\\\xe9", "\\\\ud800"]'
    assert escape_json('"\x1b"') == '"\x1b"'


def test_whole_file_rows_under_a_root_and_on_a_host() -> None:
    local = Result(BARE, "b.py", missing=(Missing("b.py", "x"),), present=("old.py",))
    remote = dataclasses.replace(local, host="gpu1")
    assert render_rows([local, remote], SRC) == [
        ("src/b.py", "missing", "expected 'x'"),
        ("src/old.py", "present", "must not exist"),
        ("gpu1:b.py", "missing", "expected 'x'"),
        ("gpu1:old.py", "present", "must not exist"),
    ]
    assert render_result(local, SRC) == (
        "src/b.py    missing  expected 'x'\nsrc/old.py  present  must not exist"
    )


def test_statistics_paths_with_and_without_a_root(tmp_path: os.PathLike[str]) -> None:
    assert render_statistics([HITS]).split("\n")[-1] == "  2  a.py"
    context = RenderContext(root=os.path.join(tmp_path, "src"), cwd=str(tmp_path), statistics=True)
    assert render([HITS], context).split("\n")[3] == "  2  src/a.py"


def test_quiet_keeps_every_rule_s_block() -> None:
    other = Result(BARE, "b.py", present=("b.py",), files=FILES)
    quiet = render([HITS, other], RenderContext(quiet=True))
    assert quiet.split("\n\n") == [
        "no-sm120: the sm120 experiment was reverted\n"
        "a.py:3:5   call,condition  if sm120(3):\n"
        "a.py:10:1  call,condition  if sm120(10):",
        "no-fp8\nb.py  present  must not exist",
    ]


def test_files_are_counted_from_every_tuple_of_a_host() -> None:
    results = [Result(RULE, "a.py", files=("a.py", "b.py")), Result(BARE, "b.py", files=("a.py",))]
    assert render_summary(results) == "cleantree: clean (2 rules, 2 files)"


def test_colour_paints_paths_kinds_errors_and_the_summary_by_outcome() -> None:
    on = RenderContext(color=True)
    assert render([HITS], on) == (
        "no-sm120: the sm120 experiment was reverted\n"
        "\x1b[1ma.py:3:5\x1b[0m   \x1b[31mcall,condition\x1b[0m  if sm120(3):\n"
        "\x1b[1ma.py:10:1\x1b[0m  \x1b[31mcall,condition\x1b[0m  if sm120(10):\n"
        "\n"
        "\x1b[1;31mcleantree: 2 forbidden lines in 1 file (1 rule checked)\x1b[0m"
    )
    assert render([OTHER], on).split("\n")[1:4] == [
        "\x1b[1mb.py\x1b[0m    \x1b[31mmissing\x1b[0m  expected 'sm90'",
        "\x1b[1mold.py\x1b[0m  \x1b[31mpresent\x1b[0m  must not exist",
        "\x1b[33merror\x1b[0m: b.py: cannot read",
    ]
    assert render([OTHER], on).endswith("(1 rule checked)\x1b[0m")
    assert render([OTHER], on).split("\n")[-1].startswith("\x1b[1;33m")  # incomplete: yellow
    clean = Result(RULE, "a.py", files=FILES)
    assert render([clean], on) == "\x1b[1;32mcleantree: clean (1 rule, 2 files)\x1b[0m"
    assert render([], on).startswith("\x1b[1;33m")  # nothing checked is no clean
    assert "\x1b" not in render([HITS, OTHER], RenderContext())


def test_one_host_s_own_error_stands_in_its_host_block_after_the_rules() -> None:
    gone = Result(RULE, "a.py", host="gpu1", problems=(Problem("unknown host key"),), files=FILES)
    hit = Result(
        BARE, "b.py", host="gpu1", hits=(Hit("b.py", 2, (Kind.CALL,), "sm120()", 0),), files=FILES
    )
    assert render([gone, hit], RenderContext()).split("\n\n")[-2:] == [
        "host gpu1\nerror: unknown host key",
        "cleantree: 1 forbidden line in 1 file; 1 error: the check is incomplete (2 rules checked)",
    ]
    assert "no-sm120" not in render([gone, hit], RenderContext())  # its rule holds no row


def test_a_problem_s_path_is_shown_from_the_findings_base() -> None:
    """A file's error names it as its findings do (relative to the current folder, not to the
    root), so that both can be copied and opened."""
    broken = Result(RULE, "a.py", problems=(Problem("not valid", "sub/b.py", 3),), files=FILES)
    context = RenderContext(root="/w/root", cwd="/w")
    assert "error: root/sub/b.py:3: not valid" in render([broken], context)


def test_a_fleet_shows_a_host_s_own_error_once_and_a_status_line_per_host() -> None:
    gone_a = Result(RULE, "a.py", host="gpu1", problems=(Problem("gone"),), files=FILES)
    gone_b = Result(BARE, "b.py", host="gpu1", problems=(Problem("gone"),), files=FILES)
    fine = Result(RULE, "a.py", host="gpu2", files=FILES)
    # the host's error is under its host (its status line), not under a rule's heading
    assert render([gone_a, gone_b, fine], RenderContext()) == (
        "gpu1: unreachable: gone\n"
        "gpu2: clean\n"
        "\n"
        "cleantree: 1 error: the check is incomplete (2 rules checked)"
    )
    # one host is no fleet: no status block
    assert "gpu2: clean" not in render([fine], RenderContext())


def test_a_local_problem_of_no_file_stays_under_its_rule() -> None:
    """Only a remote host's own error moves to a host block: a local one without a path (a
    rule's pattern naming no module) stands under the rule it concerns."""
    unnamed = Result(
        RULE, "a.py", problems=(Problem("forbid: 'p.q' names no module"),), files=FILES
    )
    report = render([unnamed], RenderContext())
    assert report.startswith("no-sm120: the sm120 experiment was reverted\nerror: forbid:")
    assert "host" not in report
