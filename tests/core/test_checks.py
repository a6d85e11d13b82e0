"""``core/checks.py`` called directly: one check per rule and entry, in manifest order."""

from __future__ import annotations

from pytest_cleantree.core.checks import Check, iter_checks
from pytest_cleantree.core.model import Rule


def test_a_check_is_labelled_by_its_entry_and_an_absent_one_says_so() -> None:
    rule = Rule("r", ("a.py",))
    assert Check(rule, "srt/x.py").label == "srt/x.py"
    assert Check(rule, "srt/x.py", absent=True).label == "absent:srt/x.py"
    assert not Check(rule, "srt/x.py").absent


def test_every_entry_of_every_rule_is_a_check_in_manifest_order() -> None:
    first = Rule("first", ("b.py", "a/*.py"), absent=("gone.py",))
    second = Rule("second", (), absent=("old/", "older/"))
    third = Rule("third", ("c.py",))
    assert list(iter_checks([first, second, third])) == [
        Check(first, "b.py"),
        Check(first, "a/*.py"),
        Check(first, "gone.py", absent=True),
        Check(second, "old/", absent=True),
        Check(second, "older/", absent=True),
        Check(third, "c.py"),
    ]
    assert list(iter_checks([])) == []
