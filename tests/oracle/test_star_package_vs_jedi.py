"""The symbol graph against jedi on an installed package that re-exports through star imports.

PyYAML (a test dependency) does ``from .error import *``, ``from .loader import *`` ...
in ``yaml/__init__.py``, each sub-module declaring ``__all__``.  A consumer file outside
the package imports through the public spelling (``import yaml``, ``from yaml import``);
a pattern written at the definition or at the public spelling must report every line
jedi resolves to the definition, with the root at the folder holding the package and
at the folder above it.  Star-import lines are routes, not uses: never reported.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from jedi_oracle import jedi_uses, rebased

REPO = Path(__file__).resolve().parents[2]
CHECK = (sys.executable, "-m", "pytest_cleantree", "check")
EVERY_KIND = '["import", "definition", "assignment", "condition", "call", "reference"]'
CONSUMER = """\
import yaml
from yaml import SafeLoader, YAMLError as Broken


def load(text):
    try:
        return yaml.load(text, Loader=SafeLoader)
    except yaml.YAMLError:
        return None
    except Broken:
        raise


class Strict(yaml.SafeLoader):
    pass
"""
TARGETS = {
    "yaml.error.YAMLError": ("yaml.YAMLError",),
    "yaml.loader.SafeLoader": ("yaml.SafeLoader",),
}


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("star") / "tree"
    package = Path(yaml.__file__).parent
    shutil.copytree(package, root / "yaml", ignore=shutil.ignore_patterns("__pycache__", "*.so"))
    (root / "use.py").write_text(CONSUMER, encoding="utf-8")
    with rebased(str(package), str(root / "yaml")):
        yield root


def reported(root: Path, pattern: str, prefix: str) -> set[tuple[str, int]]:
    manifest = root / "cleantree.toml"
    manifest.write_text(
        f'root = "."\n[[rule]]\nid = "r"\nfiles = ["**/*.py"]\n'
        f'forbid = ["{pattern}"]\nkinds = {EVERY_KIND}\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [*CHECK, "--manifest", str(manifest), "--format", "json"],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(REPO), "CLEANTREE_CACHE_DIR": ""},
        timeout=300,
        check=False,
    )
    manifest.unlink()
    assert done.returncode == 1, done.stdout + done.stderr
    document = json.loads(done.stdout)
    return {
        (hit["file"].removeprefix(prefix), hit["line"])
        for result in document["results"]
        for hit in result["hits"]
    }


@pytest.mark.slow
@pytest.mark.parametrize("target", sorted(TARGETS))
def test_every_spelling_finds_what_jedi_resolves(tree: Path, target: str) -> None:
    oracle = jedi_uses(tree, target, names=("Broken",))
    assert ("use.py", 8) in oracle or ("use.py", 7) in oracle
    for root, prefix in ((tree, ""), (tree.parent, "tree/")):
        for spelling in (target, *TARGETS[target]):
            found = reported(root, spelling, prefix)
            assert sorted(oracle - found) == [], (root, spelling)
            assert sorted(found - oracle) == [], (root, spelling)
