"""Functional case files: every finding must be marked inline, and every marker found.

A case file starts with ``# cleantree-case: forbid=PATTERN[,PATTERN] [kinds=K,K]``; a line
that must be reported ends with ``# [kind,kind]`` (the kinds of that line, exactly).  The
header line itself is not checked.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from pytest_cleantree.core.checks import iter_checks
from pytest_cleantree.core.model import DEFAULT_KINDS, Kind, Rule
from pytest_cleantree.core.patterns import parse_pattern
from pytest_cleantree.run.check import check_all
from pytest_cleantree.sources.local import LocalSource

CASES = Path(__file__).parent.parent / "cases"
MARKER = re.compile(r"#.*\[([a-z,]+)\]\s*$")


def _header(text: str) -> Rule:
    first = text.splitlines()[0]
    settings = dict(part.split("=", 1) for part in first.split(":", 1)[1].split())
    kinds = DEFAULT_KINDS
    if "kinds" in settings:
        kinds = frozenset(Kind(kind) for kind in settings["kinds"].split(","))
    forbid = tuple(parse_pattern(p) for p in settings["forbid"].split(","))
    return Rule(id="case", files=("*",), forbid=forbid, kinds=kinds)


def _markers(text: str) -> dict[int, set[str]]:
    marked: dict[int, set[str]] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        match = MARKER.search(line)
        if match and number > 1:
            marked[number] = set(match.group(1).split(","))
    return marked


@pytest.mark.parametrize("case", sorted(p.name for p in CASES.glob("*.py")))
def test_findings_equal_markers(case: str, tmp_path: Path) -> None:
    text = (CASES / case).read_text()
    (tmp_path / case).write_text(text)
    rule = dataclasses.replace(_header(text), files=(case,))
    (result,) = check_all(list(iter_checks([rule])), LocalSource(tmp_path)).values()
    assert result.problems == ()
    found = {hit.line: {kind.value for kind in hit.kinds} for hit in result.hits if hit.line > 1}
    assert found == _markers(text)
