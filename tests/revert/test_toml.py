"""A plan written as a manifest's text (``revert/toml.py``): strings and comments that TOML can
hold whatever the change's text, and lines that are not UTF-8 written escaped."""

from __future__ import annotations

import sys

from pytest_cleantree.revert.plan import Plan, PlannedRule
from pytest_cleantree.revert.toml import render_manifest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

ABSENT = Plan([PlannedRule("new.py", "absent", why="added")])


def test_a_string_escapes_what_toml_cannot_hold_as_it_is() -> None:
    root = 'a"b\\c\nd\te\x01f\x7fg\u2028h'
    text = render_manifest(ABSENT, why="w", root=root)
    assert 'root = "a\\"b\\\\c\\nd\\te\\u0001f\\u007fg\u2028h"' in text.split("\n")
    assert tomllib.loads(text)["root"] == root


def test_a_comment_holds_no_line_break_control_character_or_surrogate() -> None:
    why = "a\udc80b\udcffc\x01d\x7fe\ud800f\udfffg\udc7fh\udd00i\n\u2028j"
    text = render_manifest(ABSENT, why=why, root="")
    expected = "a\\x80b\\xffc\\x01d\\x7fe\\ud800f\\udfffg\\udc7fh\\udd00i\\x0a\u2028j"
    assert text.split("\n")[1] == f"#   {expected}"
    noted = Plan(ABSENT.rules, [("bad\udcff.py", "note\x01")])
    assert "#   bad\\xff.py: note\\x01" in render_manifest(noted, why="w", root="").split("\n")


def test_lines_that_are_not_utf8_are_written_escaped() -> None:
    lines = ("plain = 1", "x = '\udcff'", "back\\slash")
    plan = Plan([PlannedRule("m.py", "lines", lines=lines, why="added")])
    [rule] = tomllib.loads(render_manifest(plan, why="w", root=""))["rule"]
    assert rule["forbid_lines"] == ["plain = 1", "back\\slash"]
    assert rule["forbid_lines_escaped"] == ["x = '\\xff'"]


def test_utf8_lines_have_no_escaped_array() -> None:
    plan = Plan([PlannedRule("m.py", "lines", lines=("plain = 1",), why="added")])
    [rule] = tomllib.loads(render_manifest(plan, why="w", root=""))["rule"]
    assert "forbid_lines_escaped" not in rule


def test_a_names_rule_without_experiment_lines_spares_no_line() -> None:
    plan = Plan([PlannedRule("m.py", "names", ("turbo",), why="names", code=True)])
    [rule] = tomllib.loads(render_manifest(plan, why="w", root=""))["rule"]
    assert rule["forbid"] == ["=turbo"]
    assert "unless_lines" not in rule
