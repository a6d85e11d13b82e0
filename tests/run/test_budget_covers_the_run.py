"""The run's budget counts the analysis a qualified pattern causes, not only its graph.

Forty modules re-export ``pkg.core.f`` and forty files use it through them: the graph is
small, but each of the pattern's forty-odd spellings is asked of each of the eighty files.
Under a ``graph_budget`` the graph fits in and the analysis does not, the run ends with
exit 2 naming the pattern and the file where it stopped (issue 44: a site-packages run
compared names with spellings for ten minutes, silently, its budget watching the graph).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _tree(root: Path, budget: int) -> None:
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "core.py").write_text("def f():\n    return 1\n")
    for i in range(40):
        (root / "pkg" / f"m{i}.py").write_text(
            f"from pkg.core import f\n\n\ndef g{i}():\n    return f()\n"
        )
        (root / f"u{i}.py").write_text(f"from pkg.m{i} import f\n\nf()\n")
    (root / "cleantree.toml").write_text(
        f'root = "."\ngraph_budget = {budget}\n\n'
        '[[rule]]\nid = "r"\nfiles = ["**/*.py"]\nforbid = ["pkg.core.f"]\n'
    )


def _check(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", "check", "--no-cache"],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(REPO), "CLEANTREE_CACHE_DIR": ""},
        timeout=120,
        check=False,
    )


def test_an_analysis_past_the_budget_is_exit_2_naming_the_pattern_and_the_file(
    tmp_path: Path,
) -> None:
    _tree(tmp_path, 2_000)  # the graph takes about 1,000 steps, the analysis about 3,000
    done = _check(tmp_path)
    assert done.returncode == 2, done.stdout + done.stderr
    said = done.stdout + done.stderr
    assert "the analysis of the qualified pattern 'pkg.core.f' passed the run's bound" in said
    assert "of 2000 steps at the file '" in said
    assert "raise `graph_budget` in the manifest" in said
    assert "the symbol graph passed" not in said  # the graph itself fit in


def test_the_same_tree_within_the_budget_finds_every_use(tmp_path: Path) -> None:
    _tree(tmp_path, 50_000)
    done = _check(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    for i in range(40):
        assert f"u{i}.py:3:1" in done.stdout
        assert f"pkg/m{i}.py:5:12" in done.stdout
