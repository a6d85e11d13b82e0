"""The symbol graph against jedi on a package whose modules import it under an alias, in cycles.

networkx's submodules do ``import networkx as nx`` (261 of them, outside its tests) while
``networkx/__init__.py`` star-imports them back (``from networkx.algorithms import *``,
each level declaring ``__all__``): a web of cycles (issue 48, as the last round asked).
A consumer outside the package imports through the public spellings; a pattern written
at the definition or at a public spelling must report every line jedi resolves to the
definition, inside the package too (``nx.has_path`` in other algorithms), and nothing
else.  Star-import lines are routes, not uses.

networkx is pinned: the installed one when it is that version, else installed with
``pip install --no-deps --target`` into a cache folder once.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from jedi_oracle import jedi_uses, rebased

PIN = "3.6.1"
REPO = Path(__file__).resolve().parents[2]
CHECK = (sys.executable, "-m", "pytest_cleantree", "check")
EVERY_KIND = '["import", "definition", "assignment", "condition", "call", "reference"]'
CONSUMER = """\
import networkx as nx
from networkx import has_path
from networkx.algorithms import has_path as reachable


def linked(graph, a, b):
    return nx.has_path(graph, a, b) or has_path(graph, b, a) or reachable(graph, a, a)
"""
TARGET = "networkx.algorithms.shortest_paths.generic.has_path"
SPELLINGS = (TARGET, "networkx.has_path")


def pinned_networkx() -> Path:
    """The folder of networkx ``PIN``: installed, or fetched into the cache once."""
    try:
        if importlib.metadata.version("networkx") == PIN:
            import networkx

            return Path(networkx.__file__).parent
    except importlib.metadata.PackageNotFoundError:
        pass
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    target = cache / "cleantree-oracle" / f"networkx-{PIN}"
    if not (target / "networkx" / "__init__.py").exists():
        pip = (sys.executable, "-m", "pip", "install", "--no-deps", "--quiet", "--target")
        subprocess.run(
            [*pip, str(target), f"networkx=={PIN}"],
            check=True,
            timeout=300,
        )
    return target / "networkx"


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("cyclic") / "tree"
    package = pinned_networkx()
    shutil.copytree(package, root / "networkx", ignore=shutil.ignore_patterns("__pycache__"))
    (root / "use.py").write_text(CONSUMER, encoding="utf-8")
    with rebased(str(package), str(root / "networkx")):
        yield root


def reported(root: Path, pattern: str) -> set[tuple[str, int]]:
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
    return {(hit["file"], hit["line"]) for result in document["results"] for hit in result["hits"]}


@pytest.mark.slow
@pytest.mark.oracle
def test_every_spelling_finds_what_jedi_resolves_through_the_cycles(tree: Path) -> None:
    oracle = jedi_uses(tree, TARGET, names=("reachable",))
    assert {("use.py", 7), ("use.py", 2)} <= oracle
    for spelling in SPELLINGS:
        found = reported(tree, spelling)
        assert sorted(oracle - found) == [], spelling
        assert sorted(found - oracle) == [], spelling
