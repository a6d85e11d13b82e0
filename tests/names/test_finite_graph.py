"""The symbol graph ends on any web of modules, and a web past its budget is a loud error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_cleantree.names.modules import name_tree
from pytest_cleantree.names.spellings import pattern_spellings
from pytest_cleantree.names.symbols import Budget, GraphBudgetError
from pytest_cleantree.sources.local import LocalSource, resolve_local_root

REPO = Path(__file__).resolve().parents[2]
MODULES = 60


def cyclic_web(root: Path) -> None:
    """``MODULES`` modules that star-import and alias each other in cycles.

    Module ``i`` defines ``f{i}``, star-imports module ``i+1``, imports module ``i+7``
    under an alias and re-exports ``g`` of module ``i+13``; the package star-imports all.
    Only ``web/m0.py``'s definition and ``use.py``'s two uses are lines of ``web.m0.f0``
    (``a5`` is ``m12``, whose star import takes ``f0`` round the ring).  The commit
    before the finite graph reported the definition alone.
    """
    package = root / "web"
    package.mkdir(parents=True)
    stars = "".join(f"from .m{i} import *\n" for i in range(MODULES))
    (package / "__init__.py").write_text(stars, encoding="utf-8")
    for i in range(MODULES):
        star, alias, other = (i + 1) % MODULES, (i + 7) % MODULES, (i + 13) % MODULES
        (package / f"m{i}.py").write_text(
            f"from .m{star} import *\n"
            f"from web import m{alias} as a{i}\n"
            f"from .m{other} import g as g{i}\n"
            f"def f{i}(): ...\n"
            "g = 1\n",
            encoding="utf-8",
        )
    (root / "use.py").write_text(
        "import web\nfrom web.m5 import a5\n\nweb.f0()\na5.f0()\nweb.f1()\n",
        encoding="utf-8",
    )


def test_a_cyclic_web_gives_exact_findings(tmp_path: Path) -> None:
    cyclic_web(tmp_path)
    (tmp_path / "cleantree.toml").write_text(
        'root = "."\n[[rule]]\nid = "r"\nfiles = ["use.py", "web/m0.py"]\n'
        'forbid = ["web.m0.f0"]\nkinds = ["import", "definition", "call", "reference"]\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", "check", "--format", "json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO), "CLEANTREE_CACHE_DIR": ""},
        timeout=300,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    results = json.loads(done.stdout)["results"]
    hits = [hit for result in results for hit in result["hits"]]
    assert sorted((h["file"], h["line"]) for h in hits) == [
        ("use.py", 4),
        ("use.py", 5),
        ("web/m0.py", 4),
    ]


def test_a_web_past_the_budget_names_where_it_stopped(tmp_path: Path) -> None:
    cyclic_web(tmp_path)
    source = LocalSource(resolve_local_root("", tmp_path))
    paths = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*.py"))
    naming = name_tree(source, paths, ())
    with pytest.raises(GraphBudgetError, match=r"bound of 50 steps at the module 'web"):
        pattern_spellings(source, ["web.m0.f0"], naming.bases, naming.tree, budget=Budget(50))
    found = pattern_spellings(source, ["web.m0.f0"], naming.bases, naming.tree)
    assert "web.f0" in found.names["web.m0.f0"]
