"""``run/judge.py`` called directly: each check's result from a plan and the analyses, with no
tree read (the plan and each file's findings are written here as a source would answer)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pytest_cleantree.core.checks import Check
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.findings import FileAnalysis, Finding
from pytest_cleantree.core.model import (
    Hit,
    Kind,
    Missing,
    Occurrence,
    Pattern,
    PatternTier,
    Problem,
    Result,
    Rule,
    Suppressed,
)
from pytest_cleantree.core.patterns import parse_pattern
from pytest_cleantree.run.judge import Found, failed, judge, judge_all
from pytest_cleantree.run.plan import Plan
from pytest_cleantree.sources.base import Expansion
from pytest_cleantree.sources.local import LocalSource


class _Host(LocalSource):
    host = "gpu-1"


SOURCE = _Host(Path("/tree"))
SM = Pattern("sm120", PatternTier.SUBSTRING, "sm120")
FP = Pattern("fp8", PatternTier.SUBSTRING, "fp8")
KEEP = Pattern("keep", PatternTier.SUBSTRING, "keep")
QUAL = Pattern("pkg.mod.run", PatternTier.QUALIFIED, "pkg.mod.run")


def _at(pattern: str, line: int, kind: Kind = Kind.CALL, col: int = 0) -> Finding:
    return Finding(pattern, Occurrence(line, col, kind, pattern))


def _analysis(path: str, lines: tuple[str, ...], *findings: Finding, **kw: object) -> FileAnalysis:
    return FileAnalysis(path, lines, findings, **kw)  # type: ignore[arg-type]


def _plan(
    checks: list[Check],
    named: Mapping[str, Expansion],
    present: Mapping[str, Expansion] | None = None,
    scoped: Mapping[str, tuple[str, ...]] | None = None,
) -> Plan:
    """Each check's scope gets its entry's paths unless ``scoped`` (by entry) says otherwise."""
    by_entry = dict(scoped or {})
    scopes = {}
    for check in checks:
        if check.absent:
            continue
        paths = by_entry.get(check.entry, named.get(check.entry, ()))
        scopes[(check.entry, check.rule.exclude)] = () if isinstance(paths, SourceError) else paths
    return Plan(named, present or {}, scopes, {}, None)


def test_a_check_on_a_file_reports_each_forbidden_line_once_with_all_its_kinds() -> None:
    rule = Rule("r", ("a.py",), forbid=(SM, FP))
    analysis = _analysis(
        "a.py",
        ("import sm120", "  x = sm120(fp8)  ", "y = 1", "fp8"),
        _at("sm120", 1, Kind.CALL, 9),
        _at("sm120", 1, Kind.IMPORT, 7),
        _at("sm120", 2, Kind.CALL, 6),
        _at("fp8", 2, Kind.REFERENCE, 12),
        _at("sm120", 2, Kind.ASSIGNMENT, 8),
        _at("fp8", 4, Kind.REFERENCE, 0),
    )
    check = Check(rule, "a.py")
    found = Found({"a.py": analysis}, {("a.py", ()): ("a.py",)})
    assert judge(check, SOURCE, ("a.py",), found).files == ("a.py",)
    assert judge(check, SOURCE, ("a.py",), found) == Result(
        rule,
        "a.py",
        "gpu-1",
        hits=(
            Hit("a.py", 1, (Kind.IMPORT, Kind.CALL), "import sm120", 7, ("sm120",)),
            Hit(
                "a.py",
                2,
                (Kind.ASSIGNMENT, Kind.CALL, Kind.REFERENCE),
                "x = sm120(fp8)",
                6,
                ("fp8", "sm120"),
            ),
            Hit("a.py", 4, (Kind.REFERENCE,), "fp8", 0, ("fp8",)),
        ),
        files=("a.py",),
    )


def test_kinds_the_rule_does_not_look_at_are_no_hit_but_text_always_is() -> None:
    rule = Rule("r", ("a.py",), forbid=(SM,), kinds=frozenset({Kind.CALL}))
    analysis = _analysis(
        "a.py",
        ("# sm120", "sm120()", "sm120 = 1", "sm120"),
        _at("sm120", 1, Kind.COMMENT),
        _at("sm120", 2, Kind.CALL),
        _at("sm120", 3, Kind.ASSIGNMENT),
        _at("sm120", 4, Kind.TEXT),
    )
    found = Found({"a.py": analysis}, {("a.py", ()): ("a.py",)})
    result = judge(Check(rule, "a.py"), SOURCE, ("a.py",), found)
    assert [(hit.line, hit.kinds) for hit in result.hits] == [(2, (Kind.CALL,)), (4, (Kind.TEXT,))]


def _code_text_hits(rule: Rule, path: str = "a.py", **kw: object) -> list[int]:
    """The lines reported of a file whose code line 1 holds ``g(a)``, a substring no name
    holds (found as grep finds it, kind text: see ``analysis.codetext``), beside a plain
    text line 2 and a string line 3 that hold it too."""
    analysis = _analysis(
        path,
        ("g(a)", "g(a)", "s = 'g(a)'"),
        _at("g(a)", 1, Kind.TEXT),
        _at("line:g(a)", 2, Kind.TEXT),
        _at("g(a)", 3, Kind.STRING),
        **kw,
    )
    found = Found({path: analysis}, {(path, ()): (path,)})
    return [hit.line for hit in judge(Check(rule, path), SOURCE, (path,), found).hits]


def test_a_code_line_a_pattern_no_name_holds_stands_on_counts_where_the_rule_sees_code() -> None:
    grep = parse_pattern("g(a)")
    line = parse_pattern("line:g(a)")
    code = frozenset({Kind.CALL})
    strings = frozenset({Kind.STRING})

    assert _code_text_hits(Rule("r", ("a.py",), forbid=(grep, line), kinds=code)) == [1, 2]
    # a rule that looks only at strings is shown its string, and the whole-line pattern
    assert _code_text_hits(Rule("r", ("a.py",), forbid=(grep, line), kinds=strings)) == [2, 3]
    # a file read as text (it did not parse) has every line's text findings, whatever the kinds
    troubled = Rule("r", ("a.py",), forbid=(grep, line), kinds=strings)
    assert _code_text_hits(troubled, problem="syntax error") == [1, 2, 3]
    # not Python: a line of text is always one
    assert _code_text_hits(Rule("r", ("a.md",), forbid=(grep, line), kinds=strings), "a.md") == [
        1,
        2,
        3,
    ]


def test_a_line_holding_an_unless_pattern_is_not_reported() -> None:
    rule = Rule("r", ("a.py",), forbid=(SM,), unless=(KEEP,))
    analysis = _analysis(
        "a.py",
        ("sm120(keep)", "sm120()", "keep"),
        _at("keep", 1, Kind.REFERENCE),
        _at("sm120", 1),
        _at("sm120", 2),
        _at("keep", 3, Kind.REFERENCE),
    )
    found = Found({"a.py": analysis}, {("a.py", ()): ("a.py",)})
    result = judge(Check(rule, "a.py"), SOURCE, ("a.py",), found)
    assert [hit.line for hit in result.hits] == [2]


def test_an_expected_pattern_found_nowhere_of_an_allowed_kind_is_missing_per_file() -> None:
    rule = Rule("r", ("*.py",), expect=(SM, FP), kinds=frozenset({Kind.CALL}))
    first = _analysis("a.py", ("sm120()",), _at("sm120", 1, Kind.CALL), _at("fp8", 1, Kind.STRING))
    second = _analysis("b.py", ("fp8()",), _at("fp8", 1, Kind.CALL))
    third = _analysis("c.py", ("x",), _at("fp8", 1, Kind.TEXT))
    paths = ("b.py", "a.py", "c.py")
    found = Found({"a.py": first, "b.py": second, "c.py": third}, {("*.py", ()): paths})
    result = judge(Check(rule, "*.py"), SOURCE, paths, found)
    assert result == Result(
        rule,
        "*.py",
        "gpu-1",
        missing=(Missing("b.py", "sm120"), Missing("a.py", "fp8"), Missing("c.py", "sm120")),
        files=paths,
    )


def test_a_counted_line_pattern_fails_past_its_count() -> None:
    """``line*N:`` (issue 43): expected, fewer than ``N`` lines are missing; forbidden, more
    than ``N`` are a violation, each line reported; ``N`` or fewer (or more) pass."""
    sync = parse_pattern("line*2:sync();")
    lines = ("sync();", "step();", "sync();", "sync();")
    three = _analysis("k.cuh", lines, *(_at(sync.text, n, Kind.TEXT) for n in (1, 3, 4)))
    one = _analysis("k.cuh", lines[:2], _at(sync.text, 1, Kind.TEXT))
    two = _analysis("k.cuh", lines[:3], *(_at(sync.text, n, Kind.TEXT) for n in (1, 3)))
    expect, forbid = Rule("e", ("k.cuh",), expect=(sync,)), Rule("f", ("k.cuh",), forbid=(sync,))

    def judged(rule: Rule, analysis: FileAnalysis) -> Result:
        found = Found({"k.cuh": analysis}, {("k.cuh", ()): ("k.cuh",)})
        return judge(Check(rule, "k.cuh"), SOURCE, ("k.cuh",), found)

    assert judged(expect, one).missing == (Missing("k.cuh", "line*2:sync();"),)
    assert judged(expect, two).ok
    assert judged(expect, three).ok
    assert judged(forbid, one).ok
    assert judged(forbid, two).ok
    assert [hit.line for hit in judged(forbid, three).hits] == [1, 3, 4]


def test_a_file_that_could_not_be_read_or_parsed_is_a_problem_of_the_check() -> None:
    rule = Rule("r", ("*.py",), forbid=(SM,))
    broken = _analysis(
        "b.py", ("sm120(",), _at("sm120", 1, Kind.TEXT), problem="invalid syntax", problem_line=1
    )
    analyses: dict[str, FileAnalysis | SourceError] = {
        "a.py": SourceError("a.py: permission denied"),
        "b.py": broken,
        "c.py": _analysis("c.py", ("x = 1",)),
    }
    paths = ("a.py", "b.py", "c.py")
    found = Found(analyses, {("*.py", ()): paths})
    assert judge(Check(rule, "*.py"), SOURCE, paths, found) == Result(
        rule,
        "*.py",
        "gpu-1",
        hits=(Hit("b.py", 1, (Kind.TEXT,), "sm120(", 0, ("sm120",)),),
        problems=(Problem("permission denied", "a.py"), Problem("invalid syntax", "b.py", 1)),
        files=paths,
    )


def test_found_indexes_each_readable_file_by_its_patterns_and_keeps_the_troubled_apart() -> None:
    analyses: dict[str, FileAnalysis | SourceError] = {
        "a.py": _analysis("a.py", ("sm120 fp8",), _at("sm120", 1), _at("fp8", 1)),
        "b.py": _analysis("b.py", ("sm120",), _at("sm120", 1)),
        "c.py": SourceError("c.py: gone"),
        "d.py": _analysis("d.py", ("sm120",), _at("sm120", 1), problem="bad"),
        "e.py": _analysis("e.py", ("x",)),
    }
    found = Found(analyses, {})
    assert found.analyses is analyses
    assert dict(found.with_pattern) == {"sm120": {"a.py", "b.py"}, "fp8": {"a.py"}}
    assert found.troubled == {"c.py", "d.py"}


def test_found_judges_a_forbid_only_rule_on_its_files_with_a_pattern_or_a_problem() -> None:
    analyses: dict[str, FileAnalysis | SourceError] = {
        "z.py": _analysis("z.py", ("sm120",), _at("sm120", 1)),
        "a.py": _analysis("a.py", ("fp8",), _at("fp8", 1)),
        "m.py": _analysis("m.py", ("x",)),
        "k.py": SourceError("k.py: gone"),
        "out.py": _analysis("out.py", ("sm120",), _at("sm120", 1)),
        "bad.py": SourceError("bad.py: gone"),
    }
    paths = ("z.py", "m.py", "a.py", "k.py")
    scoped = {("*.py", ("out.py",)): paths, ("m.py", ()): ("m.py",)}
    found = Found(analyses, scoped)
    forbid = Rule("r", ("*.py",), forbid=(SM, FP), exclude=("out.py",))
    assert found.to_judge(Check(forbid, "*.py")) == ["a.py", "k.py", "z.py"]
    assert found.to_judge(Check(forbid, "*.py")) == ["a.py", "k.py", "z.py"]  # scope kept
    only_sm = Rule("s", ("*.py",), forbid=(SM,), exclude=("out.py",))
    assert found.to_judge(Check(only_sm, "*.py")) == ["k.py", "z.py"]
    assert found.to_judge(Check(Rule("t", ("m.py",), forbid=(SM,)), "m.py")) == []
    expect = Rule("e", ("*.py",), forbid=(SM,), expect=(FP,), exclude=("out.py",))
    assert found.to_judge(Check(expect, "*.py")) == paths


def test_an_absent_entry_reports_what_is_present() -> None:
    rule = Rule("r", (), absent=("old", "gone"))
    found = Found({}, {})
    assert judge(Check(rule, "old", absent=True), SOURCE, ("old/a.py", "old"), found) == Result(
        rule,
        "absent:old",
        "gpu-1",
        present=("old/a.py", "old"),
        files=("old/a.py", "old"),
    )
    old = judge(Check(rule, "old", absent=True), SOURCE, ("old/a.py", "old"), found)
    assert old.files == ("old/a.py", "old")  # files are no part of a result's equality
    assert judge(Check(rule, "gone", absent=True), SOURCE, (), found) == Result(
        rule, "absent:gone", "gpu-1"
    )


def test_an_entry_naming_no_file_is_allowed_a_violation_or_a_problem() -> None:
    found = Found({}, {})
    allowed = Rule("r", ("a.py",), forbid=(SM,), missing_ok=True, must_exist=True)
    assert judge(Check(allowed, "a.py"), SOURCE, (), found) == Result(allowed, "a.py", "gpu-1")
    back = Rule("r", ("a.py",), expect=(SM, FP), must_exist=True)
    assert judge(Check(back, "a.py"), SOURCE, (), found) == Result(
        back, "a.py", "gpu-1", missing=(Missing("a.py", "sm120"), Missing("a.py", "fp8"))
    )
    itself = Rule("r", ("a.py",), forbid=(SM,), must_exist=True)
    assert judge(Check(itself, "a.py"), SOURCE, (), found) == Result(
        itself, "a.py", "gpu-1", missing=(Missing("a.py", "the file itself"),)
    )
    plain = Rule("r", ("a.py", "src/*.py"), forbid=(SM,))
    hint = "(set missing_ok = true to allow)"
    assert judge(Check(plain, "a.py"), SOURCE, (), found) == Result(
        plain, "a.py", "gpu-1", problems=(Problem(f"no such file under /tree {hint}", "a.py"),)
    )
    assert judge(Check(plain, "src/*.py"), SOURCE, (), found) == Result(
        plain,
        "src/*.py",
        "gpu-1",
        problems=(Problem(f"glob matches no file under /tree {hint}", "src/*.py"),),
    )


def test_failed_is_the_check_with_one_problem() -> None:
    rule = Rule("r", ("a.py",))
    problem = Problem("down")
    assert failed(Check(rule, "a.py"), SOURCE, problem) == Result(
        rule, "a.py", "gpu-1", problems=(problem,)
    )


def test_judge_all_judges_each_check_by_what_its_entry_expanded_to() -> None:
    rule = Rule("r", ("a.py", "gone.py", "err/*", "ex/*"), forbid=(SM,), absent=("old", "bad"))
    checks = [
        Check(rule, "a.py"),
        Check(rule, "gone.py"),
        Check(rule, "err/*"),
        Check(rule, "ex/*"),
        Check(rule, "old", absent=True),
        Check(rule, "bad", absent=True),
    ]
    plan = _plan(
        checks,
        named={
            "a.py": ("a.py",),
            "gone.py": (),
            "err/*": SourceError("err/*: cannot list"),
            "ex/*": ("ex/b.py",),
        },
        present={"old": ("old",), "bad": SourceError("cannot stat")},
        scoped={"ex/*": ()},
    )
    analyses: dict[str, FileAnalysis | SourceError] = {
        "a.py": _analysis("a.py", ("sm120()",), _at("sm120", 1)),
        "ex/b.py": _analysis("ex/b.py", ("sm120()",), _at("sm120", 1)),
    }
    judged = judge_all(checks, SOURCE, plan, analyses, {})
    assert list(judged) == checks
    hint = "(set missing_ok = true to allow)"
    assert list(judged.values()) == [
        Result(
            rule,
            "a.py",
            "gpu-1",
            hits=(Hit("a.py", 1, (Kind.CALL,), "sm120()", 0, ("sm120",)),),
            files=("a.py",),
        ),
        Result(
            rule,
            "gone.py",
            "gpu-1",
            problems=(Problem(f"no such file under /tree {hint}", "gone.py"),),
        ),
        Result(rule, "err/*", "gpu-1", problems=(Problem("cannot list", "err/*"),)),
        Result(rule, "ex/*", "gpu-1"),
        Result(rule, "absent:old", "gpu-1", present=("old",), files=("old",)),
        Result(rule, "absent:bad", "gpu-1", problems=(Problem("cannot stat", "bad"),)),
    ]


def test_judge_all_compares_a_rule_s_mode_with_each_file_s() -> None:
    """A mode is content (issue 43): another mode is missing, naming both; a mode that could
    not be told is a problem; a missing file of a rule that must exist is missing."""
    rule = Rule("m", ("a.sh", "b.sh", "c.sh", "gone.sh"), mode="100644", must_exist=True)
    checks = [Check(rule, entry) for entry in rule.files]
    named: dict[str, Expansion] = {"a.sh": ("a.sh",), "b.sh": ("b.sh",), "c.sh": ("c.sh",)}
    plan = _plan(checks, named={**named, "gone.sh": ()})
    modes = {"a.sh": "100644", "b.sh": "100755", "c.sh": SourceError("c.sh: cannot stat")}
    judged = list(judge_all(checks, SOURCE, plan, {}, {}, modes=modes).values())
    assert judged == [
        Result(rule, "a.sh", "gpu-1", files=("a.sh",)),
        Result(rule, "b.sh", "gpu-1", missing=(Missing("b.sh", "mode 100644, not 100755"),)),
        Result(rule, "c.sh", "gpu-1", problems=(Problem("cannot stat", "c.sh"),)),
        Result(rule, "gone.sh", "gpu-1", missing=(Missing("gone.sh", "the file itself"),)),
    ]


def test_the_local_source_tells_modes_as_git_writes_them(tmp_path: Path) -> None:
    (tmp_path / "run.sh").write_text("echo\n")
    (tmp_path / "run.sh").chmod(0o755)
    (tmp_path / "m.py").write_text("x = 1\n")
    (tmp_path / "m.py").chmod(0o644)
    (tmp_path / "link").symlink_to("m.py")
    modes = LocalSource(tmp_path).modes(["run.sh", "m.py", "link", "gone"])
    assert {path: str(mode) for path, mode in modes.items()} == {
        "run.sh": "100755",
        "m.py": "100644",
        "link": "120000",
        "gone": "gone: cannot read its mode: No such file or directory",
    }


def test_judge_all_makes_qualified_checks_incomplete_when_a_module_was_not_followed() -> None:
    qualified = Rule("q", ("a.py",), forbid=(QUAL,))
    expects = Rule("e", ("a.py",), expect=(QUAL,), absent=("old",))
    plain = Rule("p", ("a.py",), forbid=(SM,))
    checks = [
        Check(qualified, "a.py"),
        Check(expects, "a.py"),
        Check(expects, "old", absent=True),
        Check(plain, "a.py"),
    ]
    plan = _plan(checks, named={"a.py": ("a.py",)}, present={"old": ()})
    analyses: dict[str, FileAnalysis | SourceError] = {
        "a.py": _analysis("a.py", ("run()",), _at("pkg.mod.run", 1))
    }
    unfollowed = {"z/m.py": "z/m.py: cannot parse", "b/n.py": "too deep"}
    judged = judge_all(checks, SOURCE, plan, analyses, unfollowed)
    why = (Problem("too deep", "b/n.py"), Problem("cannot parse", "z/m.py"))
    assert [result.problems for result in judged.values()] == [why, why, (), ()]
    assert judged[checks[0]].hits == (Hit("a.py", 1, (Kind.CALL,), "run()", 0, ("pkg.mod.run",)),)
    assert judged[checks[1]].missing == ()


def test_judge_all_applies_inline_allows_naming_any_rule_of_the_manifest() -> None:
    rule = Rule("r", ("a.py",), forbid=(SM,))
    checks = [Check(rule, "a.py")]
    plan = _plan(checks, named={"a.py": ("a.py",)})
    line = "sm120()  # cleantree: allow r, other -- kept for the A/B run"
    analyses: dict[str, FileAnalysis | SourceError] = {
        "a.py": _analysis("a.py", (line,), _at("sm120", 1))
    }
    hit = Hit("a.py", 1, (Kind.CALL,), line, 0, ("sm120",))
    given = judge_all(checks, SOURCE, plan, analyses, {}, rule_ids={"r", "other"})
    assert given[checks[0]].hits == ()
    assert given[checks[0]].suppressed == (Suppressed(hit, "kept for the A/B run"),)
    own = judge_all(checks, SOURCE, plan, analyses, {})  # only the checks' rules are known
    assert own[checks[0]].suppressed == ()
    assert own[checks[0]].hits[0].note.startswith("the allow names 'other', which is no rule")


def test_an_allow_is_read_from_a_python_files_comments_not_from_a_string() -> None:
    rule = Rule("r", ("a.py",), forbid=(SM,))
    checks = [Check(rule, "a.py")]
    plan = _plan(checks, named={"a.py": ("a.py",)})
    line = 'sm120("# cleantree: allow r -- not a comment")'
    analyses: dict[str, FileAnalysis | SourceError] = {
        "a.py": _analysis("a.py", (line,), _at("sm120", 1), allows=())
    }
    judged = judge_all(checks, SOURCE, plan, analyses, {})
    assert judged[checks[0]].hits == (Hit("a.py", 1, (Kind.CALL,), line, 0, ("sm120",)),)
    assert judged[checks[0]].suppressed == ()


def test_a_code_line_a_regex_stands_on_counts_only_where_the_rule_sees_code() -> None:
    """A regex is searched on code lines as grep would (``core.patterns.greps_code``): such a
    line is not shown to a rule that looks only at strings, as a substring's is not."""
    regex = parse_pattern("re:g\\(")
    analysis = _analysis(
        "a.py",
        ("g(a)", "s = 'g(a)'"),
        _at(regex.text, 1, Kind.TEXT),
        _at(regex.text, 2, Kind.STRING),
    )
    found = Found({"a.py": analysis}, {("a.py", ()): ("a.py",)})

    def lines(kinds: frozenset[Kind]) -> list[int]:
        rule = Rule("r", ("a.py",), forbid=(regex,), kinds=kinds)
        return [hit.line for hit in judge(Check(rule, "a.py"), SOURCE, ("a.py",), found).hits]

    assert lines(frozenset({Kind.STRING})) == [2]
    assert lines(frozenset({Kind.CALL, Kind.STRING})) == [1, 2]
