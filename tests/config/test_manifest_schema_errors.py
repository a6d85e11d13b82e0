"""One error per mistake: the manifest schema as an editor and a CI linter report it.

``cleantree check`` names each mistake of a manifest once; the schema must do as well, or a
user's editor buries six mistakes under eighty lines. taplo (Even Better TOML's engine)
underlines every line of the node an error is on, so an error on a table (``additionalProperties:
false``, a rule's ``required``) repeated itself once per line of the table: 81 errors for these
six mistakes before the schema placed each error on a value. The same manifest is checked here
by ``jsonschema`` (as a Python editor plugin would), ``check-jsonschema`` and taplo, each run
for real; a missing tool skips locally and fails under ``CI=true`` (``.ci/run`` installs both).
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path

import jsonschema
import pytest
from needs import missing

from pytest_cleantree.config.manifest import parse_manifest
from pytest_cleantree.core.errors import ManifestError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
SCHEMA_PATH = REPO / "pytest_cleantree" / "schemas" / "manifest-v1.json"

#: six mistakes, one of each sort a user makes; the schema is named as ``cleantree init`` does
SIX_MISTAKES = """\
#:schema ./cleantree.schema.json
root = "src"
exclud = ["tests/"]

[[rule]]
id = "misspelt-key"
files = ["pkg/**/*.py"]
forbid = ["x"]
wy = "a misspelt key"

[[rule]]
id = "wrong-type"
files = ["pkg/*.py"]
forbid = ["y"]
missing_ok = "yes"

[[rule]]
id = "unknown-kind"
files = ["a.py"]
forbid = ["z"]
kinds = ["cal"]

[[rule]]
id = "no-files"
forbid = ["w"]

[[rule]]
id = "glob-type"
files = [1]
forbid = ["v"]
"""
#: where each mistake is reported: its JSON path and the manifest line it is on
EXPECTED = [
    ("$.exclud[0]", 3),  # a misspelt top-level key
    ("$.rule[0].wy", 9),  # a misspelt rule key
    ("$.rule[1].missing_ok", 15),  # a string where a boolean goes
    ("$.rule[2].kinds[0]", 21),  # a kind that does not exist
    ("$.rule[3].forbid[0]", 25),  # forbid without the files it looks in
    ("$.rule[4].files[0]", 29),  # a number where a glob goes
]


def schema() -> dict[str, object]:
    loaded: dict[str, object] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return loaded


def need(tool: str, found: object) -> None:
    """A missing tool fails under CI (which installs it) and skips elsewhere."""
    if not found:
        missing(tool, "pip install -e '.[test-tools]'; taplo: npm install -g @taplo/cli")


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    """The six-mistake manifest beside a copy of the schema, as ``cleantree init`` lays out."""
    shutil.copyfile(SCHEMA_PATH, tmp_path / "cleantree.schema.json")
    path = tmp_path / "cleantree.toml"
    path.write_text(SIX_MISTAKES, encoding="utf-8")
    return path


def json_path(parts: Iterable[object]) -> str:
    """``$.rule[0].wy``, as check-jsonschema writes a path."""
    text = "$"
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else f".{part}"
    return text


def test_the_parser_names_the_same_six_mistakes() -> None:
    with pytest.raises(ManifestError) as raised:
        parse_manifest(SIX_MISTAKES, "cleantree.toml")
    assert str(raised.value).startswith("cleantree.toml: 6 problems")


def test_jsonschema_reports_one_error_per_mistake() -> None:
    validator = jsonschema.Draft7Validator(schema())
    errors = list(validator.iter_errors(tomllib.loads(SIX_MISTAKES)))
    assert sorted(json_path(e.absolute_path) for e in errors) == [p for p, _ in EXPECTED]
    # what an editor plugin shows first for the whole document is one of them
    best = jsonschema.exceptions.best_match(validator.iter_errors(tomllib.loads(SIX_MISTAKES)))
    assert best is not None
    assert json_path(best.absolute_path) in {p for p, _ in EXPECTED}


def test_check_jsonschema_reports_one_error_per_mistake(manifest: Path) -> None:
    need("check-jsonschema", importlib.util.find_spec("check_jsonschema"))
    done = subprocess.run(
        [
            *(sys.executable, "-m", "check_jsonschema", "--output-format", "json"),
            *("--schemafile", str(manifest.parent / "cleantree.schema.json"), str(manifest)),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert sorted(error["path"] for error in report["errors"]) == [p for p, _ in EXPECTED]


def test_taplo_reports_one_error_per_mistake_reading_the_schema_line(manifest: Path) -> None:
    """taplo finds the schema through the manifest's own ``#:schema ./cleantree.schema.json``
    line (relative to the manifest, so it works from any clone), and reports each mistake on
    its line, once."""
    taplo = shutil.which("taplo")
    need("taplo (npm install -g @taplo/cli)", taplo)
    assert taplo is not None
    done = subprocess.run(
        [taplo, "check", "--no-auto-config", "--colors", "never", manifest.name],
        cwd=manifest.parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode != 0, done.stderr
    errors = re.findall(r"^error: ", done.stderr, re.M)
    lines = [int(n) for n in re.findall(r"┌─ \S*cleantree\.toml:(\d+):\d+$", done.stderr, re.M)]
    assert lines == [line for _, line in EXPECTED], done.stderr
    assert len(errors) == len(EXPECTED), done.stderr


def test_taplo_accepts_the_clean_starter_shape(manifest: Path) -> None:
    """The other half: a correct manifest is no error under taplo (with the same line)."""
    taplo = shutil.which("taplo")
    need("taplo (npm install -g @taplo/cli)", taplo)
    assert taplo is not None
    manifest.write_text(
        '#:schema ./cleantree.schema.json\n[[rule]]\nid = "a"\nfiles = ["a.py"]\nforbid = ["x"]\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [taplo, "check", "--no-auto-config", "--colors", "never", manifest.name],
        cwd=manifest.parent,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
