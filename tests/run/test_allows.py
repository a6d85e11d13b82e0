"""Inline allows, parsed from a reported line's source (table-driven)."""

from __future__ import annotations

import pytest

from pytest_cleantree.run.allows import Allow, parse_allow

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
