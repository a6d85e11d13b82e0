"""The SARIF document, directly: every result, notification, rule descriptor and fingerprint of
results of every kind, and of a run that could not start."""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any

from pytest_cleantree import __version__
from pytest_cleantree.core.errors import CleanTreeError, ManifestError
from pytest_cleantree.core.model import Hit, Kind, Missing, Problem, Result, Rule, Suppressed
from pytest_cleantree.core.patterns import parse_pattern
from pytest_cleantree.report import sarif
from pytest_cleantree.report.context import RenderContext
from pytest_cleantree.report.sarif import SARIF_SCHEMA, render_sarif, render_sarif_error

RULE = Rule(
    "no-sm120",
    ("src/*.py", "b.py"),
    forbid=(parse_pattern("sm120"), parse_pattern("sm1*")),
    expect=(parse_pattern("sm90"),),
    absent=("old.py",),
    why="reverted",
    line=7,
)
BARE = Rule("bare", ())
HIT = Hit("src/a.py", 3, (Kind.CALL, Kind.CONDITION), "if  sm120():", 4, ("sm120", "sm1*"))
NOTED = Hit("src/b.py", 1, (Kind.IMPORT,), "import sm120", 0, ("sm120",), note="no reason")
ALLOWED = Hit("src/c.py", 2, (Kind.CALL,), "sm120()", 0, ("sm120",))


def _print(rule: str, host: str, path: str, text: str) -> dict[str, str]:
    """Code scanning's identity of a finding: rule, host, file and the line's words."""
    material = "\0".join((rule, host, path, " ".join(text.split())))
    return {"cleantree/v1": hashlib.sha256(material.encode()).hexdigest()}


def _location(uri: str, **region: int) -> dict[str, Any]:
    return {"physicalLocation": {"artifactLocation": {"uri": uri}, "region": region}}


def _run(document: dict[str, Any]) -> dict[str, Any]:
    assert document["$schema"] == SARIF_SCHEMA
    assert document["version"] == "2.1.0"
    (run,) = document["runs"]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("pytest-cleantree", __version__)
    assert driver["informationUri"] == "https://pypi.org/project/pytest-cleantree/"
    return run  # type: ignore[no-any-return]


def test_render_sarif_is_every_result_and_notification() -> None:
    result = Result(
        RULE,
        "src/*.py",
        host="gpu1",
        hits=(HIT, NOTED),
        missing=(Missing("src/a.py", "sm90"),),
        present=("old.py",),
        problems=(Problem("cannot read", "src/d.py", 7), Problem("gone", "src/e.py"), Problem("x")),
        suppressed=(Suppressed(ALLOWED, "kept"),),
    )
    run = _run(json.loads(render_sarif([result], root="repo", manifest="cfg/m.toml")))
    assert run["results"] == [
        {
            "ruleId": "no-sm120",
            "level": "error",
            "message": {
                "text": "Forbidden sm120, sm1* remains (call,condition) on gpu1: if  sm120():"
            },
            "locations": [_location("repo/src/a.py", startLine=3, startColumn=5)],
            "partialFingerprints": _print("no-sm120", "gpu1", "repo/src/a.py", "if sm120():"),
        },
        {
            "ruleId": "no-sm120",
            "level": "error",
            "message": {
                "text": "Forbidden sm120 remains (import) on gpu1: import sm120 [no reason]"
            },
            "locations": [_location("repo/src/b.py", startLine=1, startColumn=1)],
            "partialFingerprints": _print("no-sm120", "gpu1", "repo/src/b.py", "import sm120"),
        },
        {
            "ruleId": "no-sm120",
            "level": "error",
            "message": {"text": "Forbidden sm120 remains (call) on gpu1: sm120()"},
            "locations": [_location("repo/src/c.py", startLine=2, startColumn=1)],
            "partialFingerprints": _print("no-sm120", "gpu1", "repo/src/c.py", "sm120()"),
            "suppressions": [{"kind": "inSource", "justification": "kept"}],
        },
        {
            "ruleId": "no-sm120",
            "level": "error",
            "message": {"text": "Expected sm90 does not occur in repo/src/a.py on gpu1"},
            "locations": [_location("cfg/m.toml", startLine=7)],
            "partialFingerprints": _print("no-sm120", "gpu1", "repo/src/a.py", "expect sm90"),
            "relatedLocations": [{"id": 0, **_location("repo/src/a.py", startLine=1)}],
        },
        {
            "ruleId": "no-sm120",
            "level": "error",
            "message": {"text": "repo/old.py must not exist on gpu1"},
            "locations": [_location("cfg/m.toml", startLine=7)],
            "partialFingerprints": _print("no-sm120", "gpu1", "repo/old.py", "absent"),
            "relatedLocations": [{"id": 0, **_location("repo/old.py", startLine=1)}],
        },
    ]
    assert run["invocations"] == [
        {
            "executionSuccessful": False,
            "toolExecutionNotifications": [
                {
                    "level": "error",
                    "message": {"text": "src/d.py: cannot read"},
                    "associatedRule": {"id": "no-sm120"},
                    "locations": [_location("repo/src/d.py", startLine=7)],
                },
                {
                    "level": "error",
                    "message": {"text": "src/e.py: gone"},
                    "associatedRule": {"id": "no-sm120"},
                    "locations": [
                        {"physicalLocation": {"artifactLocation": {"uri": "repo/src/e.py"}}}
                    ],
                },
                {
                    "level": "error",
                    "message": {"text": "x"},
                    "associatedRule": {"id": "no-sm120"},
                },
            ],
        }
    ]
    assert run["tool"]["driver"]["rules"] == [
        {
            "id": "no-sm120",
            "shortDescription": {"text": "reverted"},
            "fullDescription": {
                "text": "reverted (the rule forbids sm120, sm1*; expects sm90; "
                "requires absent old.py in src/*.py, b.py)"
            },
            "help": {
                "text": "reverted\n\nThe rule forbids sm120, sm1*; expects sm90; requires absent "
                "old.py in src/*.py, b.py. Remove what remains, or allow one line with a "
                "trailing comment: # cleantree: allow no-sm120 -- reason"
            },
            "defaultConfiguration": {"level": "error"},
        }
    ]


def test_a_whole_file_finding_without_a_manifest_points_at_the_file() -> None:
    rule = Rule("r", ("a.py",), line=0)
    result = Result(rule, "a.py", missing=(Missing("a.py", "x"),), present=("b.py",))
    run = _run(json.loads(render_sarif([result], root="")))
    assert [found["locations"] for found in run["results"]] == [
        [_location("a.py", startLine=1)],
        [_location("b.py", startLine=1)],
    ]
    assert all("relatedLocations" not in found for found in run["results"])
    with_manifest = _run(json.loads(render_sarif([result], root="", manifest="m.toml")))
    # a rule built in code has no line: the manifest's first line stands for it
    assert with_manifest["results"][0]["locations"] == [_location("m.toml", startLine=1)]


def test_each_rule_is_described_once_and_a_clean_run_succeeds() -> None:
    results = [Result(BARE, "a.py"), Result(BARE, "b.py"), Result(RULE, "c.py")]
    run = _run(json.loads(render_sarif(results, root="")))
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == ["bare", "no-sm120"]
    bare = run["tool"]["driver"]["rules"][0]
    assert bare["shortDescription"] == {"text": "cleantree rule bare"}
    assert bare["fullDescription"] == {"text": "cleantree rule bare (the rule cleantree rule)"}
    assert run["results"] == []
    assert run["invocations"] == [{"executionSuccessful": True, "toolExecutionNotifications": []}]


def test_the_descriptor_of_a_rule_that_only_expects() -> None:
    rule = Rule("e", ("a.py",), expect=(parse_pattern("x"),))
    run = _run(json.loads(render_sarif([Result(rule, "a.py")], root="")))
    described = run["tool"]["driver"]["rules"][0]
    assert described["fullDescription"] == {"text": "cleantree rule e (the rule expects x in a.py)"}


def test_uris_percent_encode_the_path() -> None:
    hit = Hit("a b/c%d.py", 1, (Kind.CALL,), "x", 0, ("x",))
    run = _run(json.loads(render_sarif([Result(BARE, "a", hits=(hit,))], root="")))
    assert run["results"][0]["locations"] == [
        _location("a%20b/c%25d.py", startLine=1, startColumn=1)
    ]


def test_render_sarif_error() -> None:
    error = ManifestError("m", ["a (line 2)", "b (at line 3, column 4)", "c"])
    run = _run(json.loads(render_sarif_error(error, manifest="cfg/m.toml")))
    assert run["results"] == []
    assert run["tool"]["driver"]["rules"] == []
    assert run["invocations"] == [
        {
            "executionSuccessful": False,
            "toolExecutionNotifications": [
                {
                    "level": "error",
                    "message": {"text": "a (line 2)"},
                    "locations": [_location("cfg/m.toml", startLine=2)],
                },
                {
                    "level": "error",
                    "message": {"text": "b (at line 3, column 4)"},
                    "locations": [_location("cfg/m.toml", startLine=3, startColumn=4)],
                },
                {
                    "level": "error",
                    "message": {"text": "c"},
                    "locations": [
                        {"physicalLocation": {"artifactLocation": {"uri": "cfg/m.toml"}}}
                    ],
                },
            ],
        }
    ]
    plain = _run(json.loads(render_sarif_error(CleanTreeError("boom"), manifest="m.toml")))
    assert plain["invocations"][0]["toolExecutionNotifications"] == [
        {"level": "error", "message": {"text": "boom"}}
    ]


def test_the_sarif_entries_take_paths_from_the_workspace(tmp_path: os.PathLike[str]) -> None:
    workspace = str(tmp_path)
    context = RenderContext(
        manifest=os.path.join(workspace, "cfg", "m.toml"),
        root=os.path.join(workspace, "src"),
        workspace=workspace,
    )
    result = Result(RULE, "a.py", present=("a.py",))
    assert sarif.render([result], context) == render_sarif(
        [result], root="src", manifest="cfg/m.toml"
    )
    error = CleanTreeError("boom")
    assert sarif.render_error(error, context) == render_sarif_error(error, manifest="cfg/m.toml")


def test_sarif_keeps_text_as_text_and_is_indented() -> None:
    hit = Hit("café.py", 1, (Kind.CALL,), "naïve()", 0, ("naïve",))
    text = render_sarif([Result(BARE, "café.py", hits=(hit,))], root="")
    assert '"text": "Forbidden naïve remains (call): naïve()"' in text
    assert '"uri": "caf%C3%A9.py"' in text
    assert text.startswith('{\n  "$schema": ')
    error = render_sarif_error(CleanTreeError("é"), manifest="")
    assert '"text": "é"' in error
    assert error.startswith('{\n  "$schema": ')


def test_a_descriptor_lists_every_expectation_and_absent_path() -> None:
    rule = Rule("r", (), expect=(parse_pattern("x"), parse_pattern("y")), absent=("a.py", "b.py"))
    run = _run(json.loads(render_sarif([Result(rule, "a.py")], root="")))
    assert run["tool"]["driver"]["rules"][0]["fullDescription"] == {
        "text": "cleantree rule r (the rule expects x, y; requires absent a.py, b.py)"
    }


def test_a_whole_file_finding_without_a_manifest_keeps_its_rule_and_fingerprint() -> None:
    rule = Rule("r", ("a.py",))
    run = _run(json.loads(render_sarif([Result(rule, "a.py", present=("b.py",))], root="")))
    (found,) = run["results"]
    assert found["ruleId"] == "r"
    assert found["partialFingerprints"] == _print("r", "", "b.py", "absent")


def test_the_sarif_error_entry_points_into_the_manifest(tmp_path: os.PathLike[str]) -> None:
    manifest = os.path.join(tmp_path, "m.toml")
    context = RenderContext(manifest=manifest, workspace=str(tmp_path))
    run = _run(json.loads(sarif.render_error(ManifestError(manifest, ["x (line 2)"]), context)))
    notification = run["invocations"][0]["toolExecutionNotifications"][0]
    assert notification["locations"] == [_location("m.toml", startLine=2)]
