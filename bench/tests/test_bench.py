"""The benchmark's pure parts: output parsers, rendered configurations, the generator.

No timing is asserted here, ever: timings are reported by ``bench/run.py``, not tested.
Run with ``python -m pytest bench/tests``.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import pytest
from corpora import iter_generated
from manifests import question, render_manifest, render_ruff, render_semgrep, rg_patterns
from names import QUALIFIED, SUBSTRINGS
from report import Cell, Extra, evaluate_targets, render_agreement, render_cell
from run import importtime_after
from tools import (
    Configs,
    Tool,
    invocation,
    parse_ast_grep,
    parse_cleantree,
    parse_rg,
    parse_ruff,
    parse_semgrep,
)

from pytest_cleantree.config.manifest import parse_manifest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


def test_names_are_distinct_and_enough() -> None:
    assert len(set(SUBSTRINGS)) == len(SUBSTRINGS) == 200
    assert len(set(QUALIFIED)) == len(QUALIFIED) == 200
    assert all("." in name for name in QUALIFIED)


def test_cleantree_rows_are_parsed_from_the_cli_and_pytest_output() -> None:
    text = (
        "s001: why\n"
        "pkg/a.py:12:1  import,call  import tempfile\n"
        "pkg/b c.py:3:6  string       x = 'tempfile'\n"
        "error: pkg/bad.py: cannot parse\n"
        "cleantree: 2 forbidden lines in 2 files (1 rule checked)\n"
        "FAILED ../configs/x/cleantree.toml::s001[**/*.py]\n"
    )
    assert parse_cleantree(text) == {("pkg/a.py", 12), ("pkg/b c.py", 3)}


def test_peer_outputs_become_the_same_lines() -> None:
    prefix = "corpora/gen-1k/"
    assert parse_rg("corpora/gen-1k/a.py:7:x = 1:2\n", prefix) == {("a.py", 7)}
    ruff = (
        "corpora/gen-1k/a.py:7:5: TID251 `subprocess.Popen` is banned: x\n"
        "corpora/gen-1k/b.py:1:7: invalid-syntax: Simple statements must be separated\n"
    )
    assert parse_ruff(ruff, prefix) == {("a.py", 7)}
    match = {"file": "corpora/gen-1k/a.py", "range": {"start": {"line": 6, "column": 0}}}
    assert parse_ast_grep(json.dumps(match) + "\n", prefix) == {("a.py", 7)}
    semgrep = {"results": [{"path": "corpora/gen-1k/a.py", "start": {"line": 7}}], "errors": []}
    assert parse_semgrep("warning\n" + json.dumps(semgrep), prefix) == {("a.py", 7)}


@pytest.mark.parametrize("kind", ["substring", "qualified"])
@pytest.mark.parametrize("size", [1, 20, 200])
def test_every_manifest_is_valid_and_has_one_rule_per_name(kind: str, size: int) -> None:
    q = question(kind, size)
    manifest = parse_manifest(render_manifest(q), "cleantree.toml")
    assert [rule.forbid[0].text for rule in manifest.rules] == list(q.names)
    assert all(rule.files == ("**/*.py",) for rule in manifest.rules)
    tiers = {rule.forbid[0].tier.value for rule in manifest.rules}
    assert tiers == {kind}


def test_ruff_asks_only_qualified_questions_over_every_file() -> None:
    assert render_ruff(question("substring", 20)) is None
    config = tomllib.loads(render_ruff(question("qualified", 20)) or "")
    assert config["exclude"] == []
    assert config["respect-gitignore"] is False
    assert list(config["lint"]["flake8-tidy-imports"]["banned-api"]) == list(QUALIFIED[:20])


def test_rg_searches_substrings_literally_and_qualified_names_by_last_part() -> None:
    assert rg_patterns(question("substring", 2)) == (list(SUBSTRINGS[:2]), True)
    patterns, fixed = rg_patterns(question("qualified", 1))
    assert (patterns, fixed) == ([r"\bPopen\b"], False)


def test_semgrep_rules_are_one_per_name() -> None:
    text = render_semgrep(question("qualified", 3))
    assert text.count("  - id: ") == 3
    assert "      - pattern: from subprocess import Popen" in text


def test_generated_modules_parse_and_are_reproducible() -> None:
    first = list(iter_generated(30))
    assert first == list(iter_generated(30))
    assert len({path for path, _ in first}) == 30
    for _, text in first:
        ast.parse(text)


def test_agreement_counts_both_ways() -> None:
    ours = frozenset({("a.py", 1), ("a.py", 2)})
    assert render_agreement(ours, ours) == "="
    assert render_agreement(frozenset({("a.py", 1), ("b.py", 9)}), ours) == "+1/-1"


def test_a_cell_shows_time_ratio_memory_and_lines() -> None:
    rg = Cell(wall=0.05, cpu=0.08, rss=8 * 2**20, lines=frozenset({("a.py", 1)}), runs=3)
    ours = Cell(wall=0.5, cpu=0.9, rss=64 * 2**20, lines=frozenset(), runs=3, incomplete=True)
    assert render_cell(ours, rg, ours, is_ref=True) == "0.50 s x10.0 · cpu 0.90 s · 64 MiB · 0!"
    assert render_cell(rg, rg, ours, is_ref=False) == "50 ms x1.0 · cpu 80 ms · 8 MiB · 1 +1/-0"
    assert render_cell(Cell(failure="n/a"), rg, ours, is_ref=False) == "n/a"


def test_targets_are_reported_not_asserted() -> None:
    class Corpus:
        name, files, mib = "gen-1k", 1000, 5.0

    cells = {
        ("gen-1k", "qualified-20", "cleantree"): Cell(wall=2.0, runs=1),
        ("gen-1k", "qualified-20", "ruff"): Cell(wall=0.5, runs=1),
    }
    extras = [Extra("plugin", 0.004, "s", "", key="plugin-import")]
    targets = {t.what: t for t in evaluate_targets([Corpus()], cells, extras)}
    assert targets["gen-1k, qualified-20: within 3x of ruff"].met is False
    assert targets["gen-1k, substring-20: faster than ast-grep"].met is None
    assert targets["plugin import without --cleantree < 5 ms"].met is True


def test_each_row_is_held_to_the_baseline_commit_run_beside_it() -> None:
    class Corpus:
        name, files, mib = "gen-1k", 1000, 5.0

    cells = {
        ("gen-1k", "substring-20", "cleantree"): Cell(wall=1.05, runs=3),
        ("gen-1k", "substring-20", "cleantree@abc"): Cell(wall=1.0, runs=3),
        ("gen-1k", "qualified-20", "cleantree"): Cell(wall=1.2, runs=3),
        ("gen-1k", "qualified-20", "cleantree@abc"): Cell(wall=1.0, runs=3),
        ("gen-1k", "qualified-20", "pytest --cleantree@abc"): Cell(failure="timeout"),
    }
    targets = {t.what: t for t in evaluate_targets([Corpus()], cells, [])}
    assert targets["gen-1k, substring-20: cleantree within 10% of cleantree@abc"].met is True
    assert targets["gen-1k, qualified-20: cleantree within 10% of cleantree@abc"].met is False
    unmeasured = "gen-1k, qualified-20: pytest --cleantree within 10% of pytest --cleantree@abc"
    assert targets[unmeasured].met is None


def test_a_baseline_runs_as_its_tool_with_its_own_code_first_on_the_path(tmp_path: Path) -> None:
    q = question("substring", 20)
    manifest, rg, ast_grep, semgrep, ini = (tmp_path / name for name in "mrasp")
    configs = Configs(manifest, rg, True, None, ast_grep, semgrep, ini)
    command = (sys.executable, "-m", "pytest_cleantree", "check")
    plain = invocation(Tool("cleantree", command=command), configs, q, "corpus")
    pinned = Tool("cleantree@abc", command=command, env=(("PYTHONPATH", "/base"),))
    based = invocation(pinned, configs, q, "corpus")
    assert plain is not None
    assert based is not None
    assert based.argv == plain.argv
    assert based.env == {**plain.env, "PYTHONPATH": "/base"}


def test_importtime_counts_what_comes_after_the_anchor() -> None:
    stderr = (
        "import time: self [us] | cumulative | imported package\n"
        "import time:       100 |        100 |   _pytest.x\n"
        "import time:       676 |     111291 | pytest\n"
        "import time:       318 |        318 |   pytest_cleantree\n"
        "import time:      3984 |       4302 | pytest_cleantree.plugin\n"
    )
    assert importtime_after(stderr, "pytest") == 318 + 3984
