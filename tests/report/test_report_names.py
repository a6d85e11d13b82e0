"""Every format takes any bytes: one escaping model for names that are not UTF-8 (issue 23).

A byte that is not UTF-8 (``os.fsdecode`` keeps it as U+DC80 + byte) is shown ``\\xNN``
in text, GitHub annotations and JSON strings, and percent-encoded from the name's bytes
in SARIF URIs; any other lone surrogate is shown ``\\udXXX``.  Every document is UTF-8.
"""

from __future__ import annotations

import json
import os

import pytest

from pytest_cleantree.core.model import Hit, Kind, Problem, Result, Rule
from pytest_cleantree.report.context import RenderContext
from pytest_cleantree.report.github import render_github
from pytest_cleantree.report.json import render_json
from pytest_cleantree.report.sarif import render_sarif
from pytest_cleantree.report.text import (
    escape_controls,
    escape_json,
    escape_surrogates,
    render,
    render_statistics,
)

NAME = os.fsdecode(b"src/caf\xe9.py")
SHOWN = "src/caf\\xe9.py"
LINE = 's = "\ud800"; use_sm120()'


@pytest.mark.parametrize(
    ("given", "surrogates", "controls"),
    [
        (NAME, SHOWN, SHOWN),
        (os.fsdecode(b"\xff\x80"), "\\xff\\x80", "\\xff\\x80"),
        ("\ud800x\udfff", "\\ud800x\\udfff", "\\ud800x\\udfff"),
        ("caf\u00e9\x1b", "caf\u00e9\x1b", "caf\u00e9\\x1b"),  # real text is kept
        ("plain", "plain", "plain"),
    ],
)
def test_one_escaping_model(given: str, surrogates: str, controls: str) -> None:
    assert escape_surrogates(given) == surrogates
    assert escape_controls(given) == controls


def test_json_text_holds_the_escape_as_its_value() -> None:
    text = escape_json(json.dumps([NAME, LINE], ensure_ascii=False))
    text.encode("utf-8")  # valid UTF-8
    assert json.loads(text) == [SHOWN, 's = "\\ud800"; use_sm120()']


def result() -> Result:
    rule = Rule(id="gone", files=("src/*.py",))
    hit = Hit(NAME, 1, (Kind.CALL,), LINE, 13, ("sm120",))
    problem = Problem("cannot read", NAME, 2)
    return Result(rule, "src/*.py", hits=(hit,), present=(NAME,), problems=(problem,))


def test_text() -> None:
    text = render([result()], RenderContext())
    text.encode("utf-8")
    assert text.splitlines()[1:3] == [
        f'{SHOWN}:1:14  call     s = "\\ud800"; use_sm120()',
        f"{SHOWN}       present  must not exist",
    ]
    assert SHOWN in render_statistics([result()])


def test_github() -> None:
    lines = render_github([result()], root="").splitlines()
    "\n".join(lines).encode("utf-8")
    assert lines[0] == (
        f'::error file={SHOWN},line=1,col=14,title=cleantree gone::call: s = "\\ud800"; use_sm120()'
    )
    assert lines[2] == f"::error file={SHOWN},line=2,title=cleantree gone::{SHOWN}: cannot read"


def test_json() -> None:
    text = render_json([result()], manifest="m", root="")
    document = json.loads(text.encode("utf-8"))
    (only,) = document["results"]
    assert only["hits"][0]["file"] == only["present"][0] == SHOWN
    assert only["hits"][0]["source"] == 's = "\\ud800"; use_sm120()'
    assert only["problem_locations"] == [{"file": SHOWN, "line": 2}]


def test_sarif() -> None:
    text = render_sarif([result()], root="repo", manifest="")
    document = json.loads(text.encode("utf-8"))
    run = document["runs"][0]
    uris = [
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]
    ]
    assert uris == ["repo/src/caf%E9.py", "repo/src/caf%E9.py"]
    (note,) = run["invocations"][0]["toolExecutionNotifications"]
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == (
        "repo/src/caf%E9.py"
    )
    assert "repo/src/caf\\xe9.py must not exist" in [r["message"]["text"] for r in run["results"]]


def test_sarif_a_surrogate_no_byte_gave_is_shown_in_the_uri() -> None:
    rule = Rule(id="gone", files=("x",))
    result = Result(rule, "x", present=("a\ud800.py",))
    document = json.loads(render_sarif([result], root="", manifest="").encode("utf-8"))
    location = document["runs"][0]["results"][0]["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "a%5Cud800.py"
