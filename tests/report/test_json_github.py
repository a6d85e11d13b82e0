"""The JSON report and the GitHub annotations, directly: the whole document and the whole
command text for results of every kind, and the registry entries' use of the context."""

from __future__ import annotations

import json
import os
from pathlib import Path

from pytest_cleantree import __version__
from pytest_cleantree.core.errors import CleanTreeError, ManifestError
from pytest_cleantree.core.model import Hit, Kind, Missing, Problem, Result, Rule, Suppressed
from pytest_cleantree.report import github
from pytest_cleantree.report import json as json_format
from pytest_cleantree.report.context import RenderContext, error_places, join_root
from pytest_cleantree.report.github import render_github, render_github_error
from pytest_cleantree.report.json import JSON_SCHEMA_ID, render_json

RULE = Rule("no-sm120", ("src/*.py",), why="reverted")
HIT = Hit("src/a.py", 3, (Kind.CALL, Kind.CONDITION), "if sm120():", 4, ("sm120",))
NOTED = Hit("src/b.py", 1, (Kind.IMPORT,), "import sm120", 0, ("sm120", "sm1*"), note="why not")
ALLOWED = Hit("src/c.py", 2, (Kind.CALL,), "sm120()  # allow", 0, ("sm120",))
FAILED = Result(
    RULE,
    "src/*.py",
    host="gpu1",
    hits=(HIT, NOTED),
    missing=(Missing("src/a.py", "sm90"),),
    present=("src/old.py",),
    problems=(Problem("cannot read", "src/d.py", 7), Problem("gone")),
    files=("src/a.py", "src/b.py"),
    suppressed=(Suppressed(ALLOWED, "kept"),),
)
CLEAN = Result(Rule("ok", ("x.py",)), "x.py", files=("x.py",))


def test_render_json_is_the_whole_document() -> None:
    document = json.loads(render_json([FAILED, CLEAN], manifest="m.toml", root="/w"))
    assert document == {
        "$schema": JSON_SCHEMA_ID,
        "version": 1,
        "tool": {"name": "pytest-cleantree", "version": __version__},
        "manifest": "m.toml",
        "root": "/w",
        "summary": {
            "clean": False,
            "complete": False,
            "text": "cleantree: 2 forbidden lines in 2 files; 1 expected pattern missing in "
            "1 file; 1 file that must not exist; 2 errors: the check is incomplete "
            "(2 rules checked; 1 allowed inline)",
            "hits": 2,
            "missing": 1,
            "present": 1,
            "problems": 2,
            "suppressed": 1,
        },
        "hosts": [
            {
                "host": "gpu1",
                "status": "unreachable",
                "text": "gpu1: unreachable: gone",
                "hits": 2,
                "missing": 1,
                "present": 1,
                "problems": 2,
                "reason": "gone",
            },
            {
                "host": "",
                "status": "clean",
                "text": "local: clean",
                "hits": 0,
                "missing": 0,
                "present": 0,
                "problems": 0,
            },
        ],
        "results": [
            {
                "rule": "no-sm120",
                "entry": "src/*.py",
                "host": "gpu1",
                "why": "reverted",
                "ok": False,
                "checked": 2,
                "hits": [
                    {
                        "file": "src/a.py",
                        "path": "src/a.py",
                        "line": 3,
                        "column": 5,
                        "kinds": ["call", "condition"],
                        "source": "if sm120():",
                        "patterns": ["sm120"],
                    },
                    {
                        "file": "src/b.py",
                        "path": "src/b.py",
                        "line": 1,
                        "column": 1,
                        "kinds": ["import"],
                        "source": "import sm120",
                        "patterns": ["sm120", "sm1*"],
                        "note": "why not",
                    },
                ],
                "suppressed": [
                    {
                        "file": "src/c.py",
                        "path": "src/c.py",
                        "line": 2,
                        "column": 1,
                        "kinds": ["call"],
                        "source": "sm120()  # allow",
                        "patterns": ["sm120"],
                        "reason": "kept",
                    }
                ],
                "missing": [{"file": "src/a.py", "path": "src/a.py", "pattern": "sm90"}],
                "present": ["src/old.py"],
                "problems": ["src/d.py: cannot read", "gone"],
                "problem_locations": [
                    {"file": "src/d.py", "line": 7},
                    {"file": "", "line": 0},
                ],
            },
            {
                "rule": "ok",
                "entry": "x.py",
                "host": "",
                "why": "",
                "ok": True,
                "checked": 1,
                "hits": [],
                "suppressed": [],
                "missing": [],
                "present": [],
                "problems": [],
                "problem_locations": [],
            },
        ],
    }


def test_render_json_of_a_clean_complete_run_is_indented() -> None:
    text = render_json([CLEAN], manifest="", root="")
    document = json.loads(text)
    assert document["summary"]["clean"] is True
    assert document["summary"]["complete"] is True
    assert text.startswith('{\n  "$schema": ')


def test_the_json_entry_makes_the_manifest_absolute_from_the_run_s_folder() -> None:
    context = RenderContext(manifest="m.toml", root="/w", workspace="/", cwd="/w")
    assert json_format.render([CLEAN], context) == render_json(
        [CLEAN], manifest="/w/m.toml", root="/w"
    )


def test_render_github_is_every_command() -> None:
    assert render_github([CLEAN, FAILED], root="repo").split("\n") == [
        "::error file=repo/src/a.py,line=3,col=5,title=cleantree no-sm120 @gpu1::"
        "call,condition: if sm120(): (reverted)",
        "::error file=repo/src/b.py,line=1,col=1,title=cleantree no-sm120 @gpu1::"
        "import: import sm120 [why not] (reverted)",
        "::error file=repo/src/a.py,title=cleantree no-sm120 @gpu1::"
        "expected 'sm90' does not occur (reverted)",
        "::error file=repo/src/old.py,title=cleantree no-sm120 @gpu1::must not exist (reverted)",
        "::error file=repo/src/d.py,line=7,title=cleantree no-sm120 @gpu1::src/d.py: cannot read",
        "::error title=cleantree no-sm120 @gpu1::gone",
        "::notice title=cleantree::cleantree: 2 forbidden lines in 2 files; "
        "1 expected pattern missing in 1 file; 1 file that must not exist; "
        "2 errors: the check is incomplete (2 rules checked; 1 allowed inline)",
    ]


def test_render_github_of_a_clean_run_and_at_the_root() -> None:
    assert render_github([CLEAN], root="") == (
        "::notice title=cleantree::cleantree: clean (1 rule, 1 file)"
    )
    bare = Result(Rule("r", ("a.py",)), "a.py", hits=(HIT,), present=("a.py",))
    assert render_github([bare], root=".").split("\n")[:2] == [
        "::error file=src/a.py,line=3,col=5,title=cleantree r::call,condition: if sm120():",
        "::error file=a.py,title=cleantree r::must not exist",
    ]


def test_github_escapes_the_summary_and_every_property() -> None:
    rule = Rule("r", ("a.py",))
    result = Result(rule, "a.py", problems=(Problem("50%\r\nx", "a:b,c.py", 2),))
    assert render_github([result], root="") == (
        "::error file=a%3Ab%2Cc.py,line=2,title=cleantree r::a:b,c.py: 50%25%0D%0Ax\n"
        "::notice title=cleantree::cleantree: 1 error: the check is incomplete (1 rule checked)"
    )


def test_the_github_entry_puts_paths_under_the_workspace(tmp_path: os.PathLike[str]) -> None:
    root = os.path.join(tmp_path, "repo", "src")
    context = RenderContext(root=root, workspace=os.path.join(tmp_path, "repo"))
    bare = Result(Rule("r", ("a.py",)), "a.py", present=("a.py",))
    assert github.render([bare], context).split("\n")[0] == (
        "::error file=src/a.py,title=cleantree r::must not exist"
    )
    assert RenderContext(root="/w").workspace_root() == "/w"
    assert RenderContext(workspace="/w").workspace_root() == ""


def test_render_github_error_points_into_the_manifest() -> None:
    error = ManifestError("m.toml", ["rule 2 (line 14): forbid[0]: empty pattern", "no rules"])
    assert render_github_error(error, manifest="cfg/m.toml") == (
        "::error file=cfg/m.toml,line=14,title=cleantree could not check::"
        "rule 2 (line 14): forbid[0]: empty pattern\n"
        "::error file=cfg/m.toml,title=cleantree could not check::no rules"
    )
    syntax = ManifestError("m.toml", ["TOML syntax error: x (at line 3, column 5)"])
    assert render_github_error(syntax, manifest="m.toml") == (
        "::error file=m.toml,line=3,col=5,title=cleantree could not check::"
        "TOML syntax error: x (at line 3, column 5)"
    )
    assert render_github_error(CleanTreeError("boom"), manifest="m.toml") == (
        "::error title=cleantree could not check::boom"
    )


def test_the_github_error_entry_names_the_manifest_from_the_workspace(
    tmp_path: os.PathLike[str],
) -> None:
    manifest = os.path.join(tmp_path, "cfg", "m.toml")
    context = RenderContext(manifest=manifest, workspace=str(tmp_path))
    assert github.render_error(CleanTreeError("boom"), context) == (
        "::error title=cleantree could not check::boom"
    )
    error = ManifestError(manifest, ["no rules (line 1)"])
    assert github.render_error(error, context) == (
        "::error file=cfg/m.toml,line=1,title=cleantree could not check::no rules (line 1)"
    )
    assert RenderContext().workspace_manifest() == ""
    assert RenderContext(manifest="m.toml").workspace_manifest() == "m.toml"


def test_error_places_and_join_root() -> None:
    error = ManifestError("m", ["a (line 2)", "b (at line 3, column 4)", "c"])
    assert error_places(error, "m.toml") == [
        ("a (line 2)", "m.toml", 2, 0),
        ("b (at line 3, column 4)", "m.toml", 3, 4),
        ("c", "m.toml", 0, 0),
    ]
    assert error_places(CleanTreeError("x"), "m.toml") == [("x", "", 0, 0)]
    assert join_root("", "a.py") == "a.py"
    assert join_root(".", "a.py") == "a.py"
    assert join_root("repo", "a.py") == "repo/a.py"
    assert join_root("repo/", "../a.py") == "a.py"


def test_json_keeps_text_as_text() -> None:
    hit = Hit("café.py", 1, (Kind.CALL,), "naïve()", 0, ("naïve",))
    text = render_json([Result(RULE, "café.py", hits=(hit,))], manifest="m", root="")
    assert '"file": "café.py"' in text
    assert '"source": "naïve()"' in text
    assert '\n      "rule": "no-sm120",\n' in text  # two spaces a level


def test_join_root_normalises_a_path_at_the_root() -> None:
    # one normalisation for every format (issue 25): no "." or ".." segments
    assert join_root("", "a/../b.py") == "b.py"
    assert join_root(".", "a/./b.py") == "a/b.py"
    assert join_root("r", "a/./b.py") == "r/a/b.py"


def test_the_schema_named_is_the_shipped_one_at_this_release() -> None:
    """``$schema`` resolves: it is the shipped report schema's ``$id``, the repository's URL
    of that file at this version's tag (not an ``.invalid`` placeholder)."""
    import pytest_cleantree

    shipped = Path(pytest_cleantree.__file__).parent / "schemas" / "report-v1.json"
    schema = json.loads(shipped.read_text(encoding="utf-8"))
    tag = f"v{__version__}"
    expected = (
        "https://github.com/pytest-cleantree/pytest-cleantree/raw/"
        f"{tag}/pytest_cleantree/schemas/report-v1.json"
    )
    assert JSON_SCHEMA_ID == schema["$id"] == expected
    document = json.loads(render_json([CLEAN], manifest="m.toml", root="/w"))
    assert document["$schema"] == expected


def test_the_registry_s_document_holds_absolute_paths_whichever_front_end() -> None:
    """pytest's parts hold the manifest and root as typed (relative); the document is the
    CLI's: both absolute, from the run's folder."""
    from pytest_cleantree.report.context import RenderContext
    from pytest_cleantree.report.registry import render

    context = RenderContext(manifest="cleantree.toml", root="python/sglang", cwd="/work/fork")
    document = json.loads(render("json", [CLEAN], context))
    assert document["manifest"] == "/work/fork/cleantree.toml"
    assert document["root"] == "/work/fork/python/sglang"


def _error_document(manifest: str, root: str, errors: list[dict[str, object]]) -> str:
    """The error document as the schema states it, in the report's layout (two spaces a
    level, text as text)."""
    text = "; ".join(
        f"{e['file']}: {e['message']}" if e["file"] else str(e["message"]) for e in errors
    )
    document = {
        "$schema": JSON_SCHEMA_ID,
        "version": 1,
        "tool": {"name": "pytest-cleantree", "version": __version__},
        "manifest": manifest,
        "root": root,
        "summary": {
            "clean": False,
            "complete": False,
            "text": "cleantree: error: " + text,
            "hits": 0,
            "missing": 0,
            "present": 0,
            "problems": len(errors),
            "suppressed": 0,
        },
        "hosts": [],
        "results": [],
        "errors": errors,
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


def test_the_json_error_entry_is_the_whole_document_naming_each_problem() -> None:
    manifest = os.path.join("/ws", "cfg", "m.toml")
    context = RenderContext(manifest=manifest, root="/ws/src", workspace="/ws")
    error = ManifestError(manifest, ["rule 2 (line 14): empty pattern", "no (at line 3, column 5)"])
    assert json_format.render_error(error, context) == _error_document(
        "cfg/m.toml",
        "/ws/src",
        [
            {
                "message": "rule 2 (line 14): empty pattern",
                "file": "cfg/m.toml",
                "line": 14,
                "column": 0,
            },
            {"message": "no (at line 3, column 5)", "file": "cfg/m.toml", "line": 3, "column": 5},
        ],
    )
    text = json_format.render_error(CleanTreeError("café"), RenderContext())
    assert text == _error_document(
        "", "", [{"message": "café", "file": "", "line": 0, "column": 0}]
    )
    assert '\n    "text": "cleantree: error: café",\n' in text


def test_the_json_entry_leaves_an_empty_a_remote_and_an_absolute_path_as_they_are() -> None:
    assert json_format._absolute("", "/c") == ""
    assert json_format._absolute("ssh://h/x", "/c") == "ssh://h/x"
    assert json_format._absolute("/a/b", "/c") == "/a/b"
    assert json_format._absolute("a/../b", "/c") == "/c/b"
    assert json_format._absolute("b", "") == os.path.join(os.getcwd(), "b")
