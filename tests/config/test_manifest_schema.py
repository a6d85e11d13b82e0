"""The manifest's JSON Schema (``pytest_cleantree/schemas/manifest-v1.json``), held to the parser.

Editors (taplo, Even Better TOML) check a manifest with the schema while it is written, and
``cleantree check`` with :func:`parse_manifest` when it runs: the two must not contradict
each other. The corpus is every manifest the suite holds: the examples (``examples/``, the
TOML blocks of the README and docs/manifest.md) and every text of the parser's table tests
(``tests/config/test_manifest.py``, read from its ``parametrize`` marks, so a case added there is
a case here).

A schema cannot check all the parser checks (a regular expression that does not compile or
cannot run on RE2, duplicate ids, the same path twice once normalised, a path outside the root,
a gitignore pattern pathspec refuses). So the schema may accept what the parser rejects, never
the reverse: a manifest the parser accepts is always schema-valid, and a manifest the schema
accepts but the parser rejects must be one of :data:`BEYOND_THE_SCHEMA` (each with the reason),
which the parser must still reject. Every other manifest gets the same verdict from both.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import pytest

import pytest_cleantree
from pytest_cleantree.config import manifest as manifest_module
from pytest_cleantree.config.manifest import MANIFEST_NAME, PYPROJECT_NAME, parse_manifest
from pytest_cleantree.core.errors import ManifestError
from pytest_cleantree.core.model import SELECTABLE_KINDS

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
SCHEMA_PATH = REPO / "pytest_cleantree" / "schemas" / "manifest-v1.json"
TABLE_TESTS = REPO / "tests" / "config" / "test_manifest.py"

#: Manifests the schema accepts and the parser rejects, by case name: what only the parser sees.
BEYOND_THE_SCHEMA = {
    "test_problems[id-duplicate]": "an id already used by another rule",
    "test_problems[id-duplicate-inline]": "an id already used by another rule",
    "test_problems[files-and-absent-overlap]": "the same path in files and absent",
    "test_problems[bad-regex]": "a regular expression that does not compile",
    "test_problems[absolute]": "an absolute path without allow_outside_root",
    "test_problems[dot-dot]": "'..' without allow_outside_root",
    "test_problems[double-slash]": "an empty segment ('//') in a path",
    "test_problems[duplicate-after-normalising]": "the same path twice once './' is dropped",
}


def schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return loaded


def table_tests() -> ModuleType:
    """``tests/config/test_manifest.py`` as a module of its own (its tables are the corpus)."""
    spec = importlib.util.spec_from_file_location("cleantree_manifest_table_tests", TABLE_TESTS)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def iter_table_manifests() -> Iterator[tuple[str, str, str]]:
    """(case name, text, path) of every manifest text the parser's table tests parametrize."""
    for name, function in sorted(vars(table_tests()).items()):
        for mark in getattr(function, "pytestmark", []):
            if mark.name != "parametrize":
                continue
            names = mark.args[0]
            names = [n.strip() for n in names.split(",")] if isinstance(names, str) else names
            if "text" not in names:
                continue
            path = PYPROJECT_NAME if "pyproject" in name else MANIFEST_NAME
            for index, param in enumerate(mark.args[1]):
                values = getattr(param, "values", param)
                case_id = getattr(param, "id", None) or str(index)
                yield f"{name}[{case_id}]", values[names.index("text")], path


def iter_example_manifests() -> Iterator[tuple[str, str, str]]:
    """The example manifests, and the manifests shown in the README and docs/manifest.md."""
    for path in sorted((REPO / "pytest_cleantree" / "examples").rglob(MANIFEST_NAME)):
        yield str(path.relative_to(REPO)), path.read_text(encoding="utf-8"), MANIFEST_NAME
    for doc in (REPO / "README.md", REPO / "docs" / "manifest.md"):
        blocks = re.findall(r"```toml\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)
        for index, block in enumerate(blocks):
            if "[[rule]]" in block:
                yield f"{doc.relative_to(REPO)}[toml {index}]", block, MANIFEST_NAME


CORPUS = [*iter_example_manifests(), *iter_table_manifests()]


def parser_accepts(text: str, path: str) -> bool:
    try:
        parse_manifest(text, path)
    except ManifestError:
        return False
    return True


def manifest_table(text: str, path: str) -> object:
    """The document the schema describes (a pyproject's ``[tool.cleantree]``), or ``None``
    when there is none: TOML syntax errors and a pyproject without the table are the
    parser's alone."""
    try:
        document = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError):
        return None
    if path == PYPROJECT_NAME:
        tool = document.get("tool")
        return tool.get("cleantree") if isinstance(tool, dict) else None
    return document


def test_the_corpus_is_the_suite() -> None:
    names = [name for name, _, _ in CORPUS]
    assert len(names) == len(set(names))
    assert len(names) > 90
    assert any(name.startswith("pytest_cleantree/examples/") for name in names)
    assert set(BEYOND_THE_SCHEMA) <= set(names), "a case named here is gone: update the list"


def test_the_schema_is_a_draft_7_schema() -> None:
    jsonschema.Draft7Validator.check_schema(schema())


@pytest.mark.parametrize(("name", "text", "path"), CORPUS, ids=[name for name, _, _ in CORPUS])
def test_the_schema_and_the_parser_agree(name: str, text: str, path: str) -> None:
    accepted = parser_accepts(text, path)
    table = manifest_table(text, path)
    if table is None:
        assert not accepted  # no document to check: the parser says why
        return
    errors = [e.message for e in jsonschema.Draft7Validator(schema()).iter_errors(table)]
    if accepted:
        assert errors == [], "the schema rejects a manifest the parser accepts"
    elif name in BEYOND_THE_SCHEMA:
        assert errors == [], f"the schema now sees {BEYOND_THE_SCHEMA[name]}: drop it from the list"
    else:
        assert errors, "the schema accepts a manifest the parser rejects"


def test_the_schema_names_every_key_the_parser_accepts() -> None:
    document = schema()
    rule = document["definitions"]["rule"]
    assert sorted(document["properties"]) == sorted(manifest_module._TOP_KEYS)
    assert sorted(rule["properties"]) == sorted(manifest_module._RULE_KEYS)
    unknown = {"$ref": "#/definitions/unknown_key"}  # an error on the key's value: one line
    assert document["additionalProperties"] == unknown
    assert rule["additionalProperties"] == unknown
    kinds = rule["properties"]["kinds"]["items"]["enum"]
    assert sorted(kinds) == sorted(kind.value for kind in SELECTABLE_KINDS)
    for key, value in [*document["properties"].items(), *rule["properties"].items()]:
        assert value.get("description"), f"{key} has no description"


def test_the_schema_id_is_the_release_url() -> None:
    """``$id`` is where the schema of this version is published: the repository's URL
    (``pyproject.toml``'s ``[project.urls]``, written once) at the release tag."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    homepage = project["project"]["urls"]["Homepage"]
    tag = f"v{pytest_cleantree.__version__}"
    path = SCHEMA_PATH.relative_to(REPO).as_posix()
    assert schema()["$id"] == f"{homepage}/raw/{tag}/{path}"


def test_the_example_manifests_name_the_shipped_schema() -> None:
    """taplo (and Even Better TOML) read a ``#:schema PATH-OR-URL`` header comment; a relative
    path is relative to the manifest."""
    examples = sorted((REPO / "pytest_cleantree" / "examples").rglob(MANIFEST_NAME))
    assert examples
    for path in examples:
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        assert first.startswith("#:schema "), f"{path}: no '#:schema' on the first line"
        target = first.removeprefix("#:schema ").strip()
        assert (path.parent / target).resolve() == SCHEMA_PATH, f"{path}: {target}"


def doc_table_keys(heading: str) -> set[str]:
    """The keys in the first column of the table under ``heading`` in docs/manifest.md."""
    text = (REPO / "docs" / "manifest.md").read_text(encoding="utf-8")
    section = text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]
    cells = re.findall(r"^\| `([^`]+)` \|", section, re.M)
    return {cell.strip("[]") for cell in cells}


def test_the_reference_lists_every_key() -> None:
    top, rule = doc_table_keys("Top-level keys"), doc_table_keys("Rule keys")
    assert sorted(set(manifest_module._TOP_KEYS) - top) == [], "missing from docs/manifest.md"
    assert sorted(set(manifest_module._RULE_KEYS) - rule) == [], "missing from docs/manifest.md"
