"""Inline allows: parsed from a reported line's source (table-driven), then applied to results
directly, without a subprocess, so that every line of the judging is stated by a test."""

from __future__ import annotations

import dataclasses

import pytest

from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.findings import FileAnalysis
from pytest_cleantree.core.model import Hit, Kind, Result, Rule, Suppressed
from pytest_cleantree.run.allows import Allow, apply_allows, parse_allow

HOW = "write '# cleantree: allow RULE_ID -- reason'"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("x = sm120()", None),
        (
            "x = sm120()  # cleantree: allow no-sm120 -- kept for the A/B run",
            Allow(("no-sm120",), "kept for the A/B run"),
        ),
        ("x = sm120()  #cleantree:allow a, b.c -- why", Allow(("a", "b.c"), "why")),
        ("x = sm120()  # cleantree: allow a b -- why -- more", Allow(("a", "b"), "why -- more")),
        (
            "x = sm120()  # cleantree: allow no-sm120",
            Allow(("no-sm120",), "", f"the allow gives no reason: {HOW}"),
        ),
        (
            "x = sm120()  # cleantree: allow no-sm120 --  ",
            Allow(("no-sm120",), "", f"the allow gives no reason: {HOW}"),
        ),
        (
            "x = sm120()  # cleantree: allow -- because",
            Allow((), "because", f"the allow names no rule: {HOW}"),
        ),
        (
            "x  # cleantree: allow $x -- r",
            Allow(("$x",), "r", f"the allow names '$x', which is not a rule id: {HOW}"),
        ),
        ("x  # cleantree: allowed no -- r", None),
    ],
)
def test_parse_allow(source: str, expected: Allow | None) -> None:
    assert parse_allow(source) == expected


RULE = Rule("no-sm120", ("a.py",))
OTHER = Rule("no-fp8", ("a.py",))
IDS = frozenset({"no-sm120", "no-fp8"})
ALLOWED = Hit("a.py", 1, (Kind.CALL,), "sm120()  # cleantree: allow no-sm120 -- kept for A/B")
PLAIN = Hit("a.py", 2, (Kind.CALL,), "sm120()")
FOR_OTHER = Hit("a.py", 3, (Kind.CALL,), "sm120()  # cleantree: allow no-fp8 -- other rule")
NO_REASON = Hit("a.py", 4, (Kind.CALL,), "sm120()  # cleantree: allow no-sm120")
UNKNOWN = Hit("a.py", 5, (Kind.CALL,), "sm120()  # cleantree: allow no-sm12 -- typo")


def test_a_valid_allow_moves_its_hit_to_suppressed_with_the_reason() -> None:
    earlier = Suppressed(Hit("a.py", 9, (Kind.CALL,), "x"), "earlier")
    result = Result(RULE, "a.py", hits=(PLAIN, ALLOWED), suppressed=(earlier,))
    applied = apply_allows({"k": result}, IDS)
    assert applied == {
        "k": dataclasses.replace(
            result, hits=(PLAIN,), suppressed=(earlier, Suppressed(ALLOWED, "kept for A/B"))
        )
    }


def test_an_allow_of_another_rule_of_the_manifest_leaves_the_hit_as_it_is() -> None:
    result = Result(RULE, "a.py", hits=(FOR_OTHER, PLAIN))
    # nothing was allowed: the very same result comes back, not an equal copy
    assert apply_allows({"k": result}, IDS)["k"] is result
    # and for the rule it names, the same line is allowed
    other = Result(OTHER, "a.py", hits=(FOR_OTHER,))
    assert apply_allows({"k": other}, IDS)["k"].suppressed == (Suppressed(FOR_OTHER, "other rule"),)


def test_a_refused_allow_keeps_the_hit_and_says_why() -> None:
    result = Result(RULE, "a.py", hits=(NO_REASON, UNKNOWN, PLAIN))
    applied = apply_allows({"k": result}, IDS)["k"]
    assert applied.suppressed == ()
    assert [hit.line for hit in applied.hits] == [4, 5, 2]
    no_reason = f"the allow gives no reason: {HOW}"
    assert applied.hits[0] == dataclasses.replace(NO_REASON, note=no_reason)
    # the wording after the name may grow (a did-you-mean); what it starts with may not
    assert applied.hits[1].note.startswith(
        "the allow names 'no-sm12', which is no rule of the manifest"
    )
    assert dataclasses.replace(applied.hits[1], note="") == UNKNOWN
    assert applied.hits[2] is PLAIN


def test_an_unknown_id_is_reported_even_beside_the_rule_itself() -> None:
    hit = Hit("a.py", 1, (Kind.CALL,), "x  # cleantree: allow no-sm120, nope -- r")
    applied = apply_allows({"k": Result(RULE, "a.py", hits=(hit,))}, IDS)["k"]
    assert applied.suppressed == ()
    assert applied.hits[0].note.startswith("the allow names 'nope', which is no rule")


def test_every_result_is_judged_and_a_result_without_hits_is_kept_as_it_is() -> None:
    empty = Result(RULE, "b.py")
    first = Result(RULE, "a.py", hits=(ALLOWED,))
    last = Result(OTHER, "c.py", hits=(PLAIN,))
    applied = apply_allows({"empty": empty, "first": first, "last": last}, IDS)
    assert list(applied) == ["empty", "first", "last"]
    assert applied["empty"] is empty
    assert applied["first"].hits == ()
    assert applied["first"].suppressed == (Suppressed(ALLOWED, "kept for A/B"),)
    assert applied["last"] is last


def test_an_empty_mapping_gives_an_empty_mapping() -> None:
    assert apply_allows({}, IDS) == {}


def test_an_unknown_id_near_a_rule_id_says_which_one_was_meant() -> None:
    far = Hit("a.py", 6, (Kind.CALL,), "sm120()  # cleantree: allow zzz -- typo")
    applied = apply_allows({"k": Result(RULE, "a.py", hits=(UNKNOWN, far))}, IDS)["k"]
    assert [hit.note for hit in applied.hits] == [
        "the allow names 'no-sm12', which is no rule of the manifest (did you mean 'no-sm120'?)",
        # nothing near: no suffix, and not the list of every rule id either
        "the allow names 'zzz', which is no rule of the manifest",
    ]


def test_an_allow_is_read_from_the_files_comments_when_its_analysis_is_given() -> None:
    in_string = Hit("a.py", 1, (Kind.CALL,), "f('# cleantree: allow no-sm120 -- in a string')")
    in_comment = Hit("a.py", 2, (Kind.CALL,), "sm120(")  # the comment closes the call below
    analysis = FileAnalysis(
        "a.py",
        (in_string.source, in_comment.source),
        (),
        allows=((2, "# cleantree: allow no-sm120 -- the comment of line 2"),),
    )
    result = Result(RULE, "a.py", hits=(in_string, in_comment))
    applied = apply_allows({"k": result}, IDS, {"a.py": analysis})["k"]
    assert applied.hits == (in_string,)
    assert applied.suppressed == (Suppressed(in_comment, "the comment of line 2"),)
    # without the analysis, or with a file that could not be read, the line is read as it is
    for analyses in (None, {"a.py": SourceError("a.py: gone")}, {"b.py": analysis}):
        applied = apply_allows({"k": result}, IDS, analyses)["k"]
        assert applied.hits == (in_comment,)
        assert applied.suppressed == (Suppressed(in_string, "in a string')"),)
