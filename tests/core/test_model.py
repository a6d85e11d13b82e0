"""``core/model.py`` called directly: the kinds and tiers by their names, what each record holds
by default, and what a result says of itself."""

from __future__ import annotations

from pytest_cleantree.core.model import (
    CODE_KINDS,
    DEFAULT_KINDS,
    SELECTABLE_KINDS,
    Hit,
    Kind,
    Manifest,
    Missing,
    Occurrence,
    Pattern,
    PatternTier,
    Problem,
    Result,
    Rule,
    Suppressed,
    is_python_path,
)

SM = Pattern("sm120", PatternTier.SUBSTRING, "sm120")
RULE = Rule("r", ("a.py",))


def test_kinds_are_named_as_the_manifest_writes_them_most_specific_first() -> None:
    assert [kind.value for kind in Kind] == [
        "import",
        "definition",
        "assignment",
        "condition",
        "call",
        "reference",
        "string",
        "docstring",
        "comment",
        "text",
    ]
    assert str(Kind.CALL) == "call"
    assert f"{Kind.DOCSTRING}" == "docstring"
    assert Kind("comment") is Kind.COMMENT


def test_the_kind_sets() -> None:
    assert set(Kind) - DEFAULT_KINDS == {Kind.DOCSTRING, Kind.COMMENT}
    code = CODE_KINDS
    assert code == {
        Kind.IMPORT,
        Kind.DEFINITION,
        Kind.ASSIGNMENT,
        Kind.CONDITION,
        Kind.CALL,
        Kind.REFERENCE,
    }
    assert set(Kind) - SELECTABLE_KINDS == {Kind.TEXT}


def test_pattern_tiers_are_named() -> None:
    assert [tier.value for tier in PatternTier] == [
        "substring",
        "glob",
        "regex",
        "qualified",
        "exact",
        "line",
    ]


def test_a_pattern_is_hashed_by_its_text_and_compared_whole() -> None:
    assert (SM.line, SM.needles) == (0, ())
    same_text = Pattern("sm120", PatternTier.SUBSTRING, "sm120", line=3)
    assert hash(same_text) == hash(SM) == hash("sm120")
    assert same_text != SM
    assert len({SM, Pattern("sm120", PatternTier.SUBSTRING, "sm120")}) == 1


def test_a_rule_looks_at_the_default_kinds_and_lists_its_patterns_in_order() -> None:
    assert RULE.forbid == RULE.expect == RULE.unless == ()
    assert (RULE.absent, RULE.exclude, RULE.why, RULE.line) == ((), (), "", 0)
    assert (RULE.missing_ok, RULE.must_exist) == (False, False)
    assert RULE.kinds is DEFAULT_KINDS
    fp8 = Pattern("fp8", PatternTier.SUBSTRING, "fp8")
    keep = Pattern("keep", PatternTier.SUBSTRING, "keep")
    full = Rule("r", ("a.py",), forbid=(SM,), expect=(fp8,), unless=(keep,))
    assert full.patterns == (SM, fp8, keep)
    assert RULE.patterns == ()


def test_a_manifest_allows_nothing_outside_its_root_by_default() -> None:
    manifest = Manifest("m.toml", ".", (RULE,))
    assert manifest.hosts == ()
    assert manifest.allow_outside_root is False
    assert (manifest.exclude, manifest.import_roots) == ((), ())


def test_records_default_to_no_qualification_column_patterns_or_note() -> None:
    assert Occurrence(1, 2, Kind.CALL, "x").qualified == ()
    hit = Hit("a.py", 3, (Kind.CALL,), "x()")
    assert (hit.col, hit.patterns, hit.note) == (0, (), "")
    assert Missing("a.py", "sm120").pattern == "sm120"
    assert Suppressed(hit, "why").reason == "why"


def test_a_problem_reads_as_path_colon_message_and_is_not_repeated() -> None:
    assert str(Problem("cannot connect")) == "cannot connect"
    assert str(Problem("cannot decode", "a.py", 3)) == "a.py: cannot decode"
    assert (Problem("x").path, Problem("x").line) == ("", 0)
    assert Problem.at("a.py", "a.py: permission denied") == Problem("permission denied", "a.py")
    assert Problem.at("a.py", "b.py: gone", 2) == Problem("b.py: gone", "a.py", 2)
    assert Problem.at("a.py", "a.py:gone") == Problem("a.py:gone", "a.py")
    assert Problem.at("a", "a: ") == Problem("", "a")


def test_a_result_is_ok_only_without_findings_and_complete_without_problems() -> None:
    clean = Result(RULE, "a.py")
    assert (clean.host, clean.files, clean.suppressed) == ("", (), ())
    assert clean.ok
    assert clean.complete
    hit = Hit("a.py", 1, (Kind.CALL,), "x()")
    for failing in (
        Result(RULE, "a.py", hits=(hit,)),
        Result(RULE, "a.py", missing=(Missing("a.py", "p"),)),
        Result(RULE, "a.py", present=("old",)),
    ):
        assert not failing.ok
        assert failing.complete
    broken = Result(RULE, "a.py", problems=(Problem("x"),))
    assert not broken.ok
    assert not broken.complete
    allowed = Result(RULE, "a.py", suppressed=(Suppressed(hit, "kept"),))
    assert allowed.ok


def test_the_files_read_are_no_part_of_a_results_equality() -> None:
    assert Result(RULE, "a.py", files=("a.py",)) == Result(RULE, "a.py")
    assert Result(RULE, "a.py", files=("a.py",)).files == ("a.py",)


def test_a_python_path_is_one_of_python_s_suffixes() -> None:
    paths = ("a.py", "a.pyi", "d/a.pyw", "a.pyc", "a.py.txt", "py", "a.PY")

    assert [p for p in paths if is_python_path(p)] == ["a.py", "a.pyi", "d/a.pyw"]
