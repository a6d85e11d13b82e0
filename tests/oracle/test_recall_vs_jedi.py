"""Recall against an independent resolver, on real code nobody here wrote.

For names of astroid (installed here, about 100 modules of re-exports, star
imports and uses inside the defining modules), jedi's ``goto`` with
``follow_imports`` lists every line whose name leads to the definition.  The
real ``cleantree check`` with the qualified pattern must report each of those
lines (it may report more: strings that spell the qualified name, and names
bound twice).  Issue 12 measured 19% to 79% here before resolution followed the
tree; a crash on astroid's mutually importing modules was found by this test.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import astroid
import pytest
from jedi_oracle import jedi_uses

#: a name re-exported by the package, a class used everywhere, and one used in its own module
NAMES = (
    "astroid.exceptions.InferenceError",
    "astroid.nodes.node_classes.Const",
    "astroid.manager.AstroidManager",
)
CHECK = (sys.executable, "-m", "pytest_cleantree", "check")
EVERY_KIND = '["import", "definition", "assignment", "condition", "call", "reference"]'


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("recall")
    shutil.copytree(
        Path(astroid.__file__).parent,
        root / "astroid",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    return root


@pytest.mark.slow
@pytest.mark.parametrize("qualified", NAMES)
def test_every_use_jedi_resolves_is_reported(tree: Path, qualified: str) -> None:
    oracle = jedi_uses(tree, qualified)
    assert len(oracle) > 20, "jedi must find the uses for the comparison to mean anything"
    manifest = tree / "cleantree.toml"
    manifest.write_text(
        f'root = "."\n[[rule]]\nid = "r"\nfiles = ["astroid/**/*.py"]\n'
        f'forbid = ["{qualified}"]\nkinds = {EVERY_KIND}\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [*CHECK, "--manifest", str(manifest), "--format", "json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={**os.environ, "CLEANTREE_CACHE_DIR": ""},
    )
    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    found = {(hit["file"], hit["line"]) for r in document["results"] for hit in r["hits"]}
    assert sorted(oracle - found) == []
