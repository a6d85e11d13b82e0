"""``cleantree reference``: the manifest's keys and the exit codes, offline, from the one source
(the shipped schema), run as a user runs it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_cleantree.config.starter import SCHEMA_FILE
from pytest_cleantree.frontends.cli.reference import EXIT_CODES

REPO = Path(__file__).resolve().parents[3]


def cleantree(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


def schema_keys() -> dict[str, str]:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    top = {name: spec["description"] for name, spec in schema["properties"].items()}
    rule = schema["definitions"]["rule"]["properties"]
    return {**top, **{f"rule.{name}": spec["description"] for name, spec in rule.items()}}


def flat(text: str) -> str:
    return " ".join(text.split())


def test_every_key_of_the_schema_is_printed_with_its_description(tmp_path: Path) -> None:
    done = cleantree("reference", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    printed = flat(done.stdout)
    keys = schema_keys()
    assert {"root", "rule.files", "rule.forbid", "rule.missing_ok"} <= set(keys)
    for name, description in keys.items():
        assert f"{name} {flat(description)}" in printed, name
    assert "exit codes" in done.stdout


@pytest.mark.parametrize("asked", ["forbid", "rule.forbid"])
def test_one_key_is_printed_alone(tmp_path: Path, asked: str) -> None:
    done = cleantree("reference", asked, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "rule.forbid"
    assert flat(done.stdout) == flat(f"rule.forbid {schema_keys()['rule.forbid']}")


def test_an_unknown_key_is_an_error_that_lists_the_keys(tmp_path: Path) -> None:
    done = cleantree("reference", "forbidd", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("cleantree: error: no manifest key 'forbidd' (keys: ")
    assert "forbid," in done.stderr
    assert "exit-codes" in done.stderr


def test_the_exit_codes_are_the_ones_docs_cli_lists(tmp_path: Path) -> None:
    table = (REPO / "docs" / "cli.md").read_text(encoding="utf-8").split("## Exit codes", 1)[1]
    rows = re.findall(r"^\| `(\d)` \| (.+) \|$", table.split("\n## ", 1)[0], re.M)
    assert rows == list(EXIT_CODES)
    done = cleantree("reference", "exit-codes", cwd=tmp_path)
    assert done.returncode == 0
    for code, text in EXIT_CODES:
        assert f"{code} {flat(text)}" in flat(done.stdout)


def test_what_init_writes_points_at_the_reference(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    assert cleantree("init", cwd=tmp_path).returncode == 0
    written = (tmp_path / "cleantree.toml").read_text(encoding="utf-8")
    assert "`cleantree reference`" in written
    assert "docs/manifest.md" not in written  # not in the wheel: out of reach offline
