"""``cleantree check FILE...``: which rules cover which named files, as a pure function."""

from __future__ import annotations

import pytest

from pytest_cleantree.core.model import Rule
from pytest_cleantree.run.selection import select_rules


def rule(files: tuple[str, ...] = (), absent: tuple[str, ...] = ()) -> Rule:
    return Rule(id="r", files=files, absent=absent)


@pytest.mark.parametrize(
    ("given", "paths", "files", "absent", "uncovered"),
    [
        (rule(files=("a.py",)), ["a.py", "b.py"], ("a.py",), (), ("b.py",)),
        (rule(files=("./a.py",)), ["a.py"], ("./a.py",), (), ()),
        (rule(files=("src/*.py",)), ["src/a.py", "src/x/b.py"], ("src/a.py",), (), ("src/x/b.py",)),
        (rule(files=("**/*.py",)), ["../s/l.py"], None, None, ("../s/l.py",)),
        (rule(files=("../s/l.py",)), ["../s/l.py"], ("../s/l.py",), (), ()),
        (rule(files=("../s/*.py",)), ["../s/l.py"], ("../s/l.py",), (), ()),
        (rule(absent=("k/sm120",)), ["k/sm120/a/k.py"], (), ("k/sm120",), ()),
        (rule(absent=("k/sm1*",)), ["k/sm120/k.py"], (), ("k/sm120",), ()),
        (rule(absent=("k/sm120/k.py",)), ["k/sm120/k.py"], (), ("k/sm120/k.py",), ()),
        (rule(absent=("k/sm120",)), ["k/sm12.py"], None, None, ("k/sm12.py",)),
        (rule(absent=("..",)), ["../x.py"], None, None, ("../x.py",)),
    ],
)
def test_a_rule_covers_a_named_file_as_the_whole_tree_check_would(
    given: Rule,
    paths: list[str],
    files: tuple[str, ...] | None,
    absent: tuple[str, ...] | None,
    uncovered: tuple[str, ...],
) -> None:
    selection = select_rules([given], paths)
    assert selection.uncovered == uncovered
    if files is None:
        assert selection.rules == ()
    else:
        (narrowed,) = selection.rules
        assert (narrowed.files, narrowed.absent) == (files, absent)
