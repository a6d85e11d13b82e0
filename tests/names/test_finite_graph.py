"""The symbol graph ends on any web of modules, and a web past its budget is a loud error."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_cleantree.names.budget import Budget, GraphBudgetError
from pytest_cleantree.names.modules import name_tree
from pytest_cleantree.names.spellings import pattern_spellings
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


def star_web(root: Path, size: int, budget: int | None = None) -> None:
    """``size`` modules that each star-import all the others and define 30 functions.

    Every module exports every name of the web, so a graph that lists a star import as
    an edge per exported name holds ``size**3 * 30`` edges (3 * 10^7 at 100 modules:
    more than a minute and 3 GB before this round).  ``use.py`` imports ``f0_0`` from
    ``m5`` and calls it: both lines are ``web.m0.f0_0``'s.
    """
    package = root / "web"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("", encoding="utf-8")
    for i in range(size):
        stars = "".join(f"from .m{j} import *\n" for j in range(size) if j != i)
        defs = "".join(f"def f{i}_{k}(): ...\n" for k in range(30))
        (package / f"m{i}.py").write_text(stars + defs, encoding="utf-8")
    (root / "use.py").write_text("from web.m5 import f0_0\n\nf0_0()\n", encoding="utf-8")
    bound = f"graph_budget = {budget}\n" if budget is not None else ""
    (root / "cleantree.toml").write_text(
        f'root = "."\n{bound}[[rule]]\nid = "r"\nfiles = ["use.py"]\n'
        'forbid = ["web.m0.f0_0"]\nkinds = ["import", "call"]\n',
        encoding="utf-8",
    )


def check_json(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", "check", "--format", "json"],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(REPO), "CLEANTREE_CACHE_DIR": ""},
        timeout=120,
        check=False,
    )


@pytest.mark.slow
def test_a_100_module_star_web_gives_exact_findings(tmp_path: Path) -> None:
    """Within the default budget (about 2.5 million steps of its 5 million)."""
    star_web(tmp_path, 100)
    done = check_json(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    hits = [hit for result in json.loads(done.stdout)["results"] for hit in result["hits"]]
    assert sorted((h["file"], h["line"]) for h in hits) == [("use.py", 1), ("use.py", 3)]


def test_a_star_web_past_the_manifest_s_graph_budget_is_exit_2_naming_the_module(
    tmp_path: Path,
) -> None:
    star_web(tmp_path, 30, budget=2_000)
    done = check_json(tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    problems = [p for result in json.loads(done.stdout)["results"] for p in result["problems"]]
    assert len(problems) == 1
    assert problems[0].startswith(
        "the symbol graph passed its bound of 2000 steps at the module 'web"
    )
    assert "raise `graph_budget` in the manifest" in problems[0]


def test_explain_in_a_star_web_past_graph_budget_is_exit_2_naming_the_module(
    tmp_path: Path,
) -> None:
    star_web(tmp_path, 30, budget=2_000)
    done = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", "explain", "web.m0.f0_0"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO), "CLEANTREE_CACHE_DIR": ""},
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith(
        "cleantree: error: the symbol graph passed its bound of 2000 steps at the module 'web"
    )
