"""The report registry: ``--format`` accepts its names, each renders, and a format's module is
imported only when that format is asked for."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_cleantree.core.errors import CleanTreeError, ManifestError
from pytest_cleantree.frontends.cli.main import build_parser
from pytest_cleantree.report.context import RenderContext
from pytest_cleantree.report.registry import (
    DEFAULT_FORMAT,
    FORMAT_NAMES,
    FORMATS,
    describe_formats,
    render,
    render_error,
)

REPO = Path(__file__).resolve().parents[2]
#: every renderer but the default's, from the registry (a new format joins by its row there)
MACHINE = {f.module for name, f in FORMATS.items() if name != DEFAULT_FORMAT}
#: what each format shows for a clean run: a new format's row here is part of its tests
CLEAN_RUN = {
    "text": "cleantree: clean (0 rules, 0 files)",
    "json": '"text": "cleantree: clean (0 rules, 0 files)"',
    "github": "::notice title=cleantree::cleantree: clean (0 rules, 0 files)",
    "sarif": '"results": []',
}


def test_the_cli_accepts_every_format_of_the_registry_and_no_other() -> None:
    for name in FORMAT_NAMES:
        assert build_parser().parse_args(["check", "--format", name]).format == name
    with pytest.raises(SystemExit):
        build_parser().parse_args(["check", "--format", "xml"])


@pytest.mark.parametrize("name", FORMAT_NAMES)
def test_every_format_renders_a_clean_run(name: str) -> None:
    assert name in CLEAN_RUN, f"format {name!r} has no row in CLEAN_RUN: add what it shows"
    assert CLEAN_RUN[name] in render(name, [], RenderContext(workspace="/w"))


def test_every_row_of_the_table_above_is_a_registered_format() -> None:
    assert set(CLEAN_RUN) <= set(FORMAT_NAMES)


def test_only_formats_that_can_report_an_error_render_one() -> None:
    error = ManifestError("m.toml", ["files must be a list (line 3)"])
    context = RenderContext(manifest="m.toml", workspace=os.getcwd())
    shown = {name: render_error(name, error, context) for name in FORMATS}
    assert shown["text"] is None
    document = json.loads(str(shown["json"]))
    assert (document["summary"]["complete"], document["results"]) == (False, [])
    assert document["errors"] == [
        {"message": "files must be a list (line 3)", "file": "m.toml", "line": 3, "column": 0}
    ]
    assert shown["github"] == (
        "::error file=m.toml,line=3,title=cleantree could not check::files must be a list (line 3)"
    )
    assert '"startLine": 3' in str(shown["sarif"])
    assert render_error("github", CleanTreeError("no tree"), context) == (
        "::error title=cleantree could not check::no tree"
    )


def test_an_unknown_format_is_named_with_the_known_ones() -> None:
    known = r"\(one of text, json, github, sarif\)"
    with pytest.raises(ValueError, match=rf"^unknown report format 'xml' {known}$"):
        render("xml", [], RenderContext())


def test_the_help_lists_each_format_with_its_summary_the_default_first() -> None:
    assert describe_formats() == (
        "text (default), json (schemas/report-v1.json), github (workflow annotations), "
        "sarif (2.1.0, for code scanning)"
    )


def run_and_list_report_modules(*args: str) -> set[str]:
    code = (
        "import sys\n"
        "from pytest_cleantree.frontends.cli.main import main\n"
        "main(['check', '--manifest', 'pytest_cleantree/examples/sm120/cleantree.toml',\n"
        f"      '--no-cache', *{args!r}])\n"
        "print(repr(sorted(m for m in sys.modules if m.startswith('pytest_cleantree.report'))))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
        check=True,
    )
    last = completed.stdout.strip().splitlines()[-1]
    return set(ast.literal_eval(last))


def test_a_text_run_imports_no_machine_renderer() -> None:
    """Run with ``sys.executable -m``/``-c`` and PYTHONPATH: this checkout's code."""
    assert not run_and_list_report_modules() & MACHINE


def test_a_sarif_run_imports_the_sarif_renderer_only() -> None:
    assert run_and_list_report_modules("--format", "sarif") & MACHINE == {
        "pytest_cleantree.report.sarif"
    }
