"""A warm run over an unchanged tree reads its answers and imports no analysis (issue 21).

Each run is a fresh interpreter, as a CI job or a pre-commit hook is: the first fills the
cache, the second must find every answer there and so never load the analysis package,
astroid, paramiko, RE2 or the export map.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_cleantree.report.registry import DEFAULT_FORMAT, FORMATS

#: run the CLI's check in this process, then print every module it imported
PROBE = """
import sys
from pytest_cleantree.frontends.cli.main import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
print(repr((code, sorted(sys.modules))))
"""

MANIFEST = """\
root = "."

[[rule]]
id = "no-sm120"
files = ["**/*.py"]
forbid = ["sm120", "NCCL_BUFFSIZE", "*_sm120_*"]

[[rule]]
id = "kept"
files = ["pkg/a.py"]
expect = ["keep_me"]
"""

NEVER_WARM = ("pytest_cleantree.analysis", "astroid", "paramiko", "re2")
NEVER_WARM_NAMES = (
    "pytest_cleantree.names.exports",
    "pytest_cleantree.names.spellings",
    "pytest_cleantree.names.modules",
)


def run_check(tree: Path, cache: Path) -> tuple[int, set[str]]:
    env = {**os.environ, "XDG_CACHE_HOME": str(cache.resolve())}
    env.pop("CLEANTREE_CACHE_DIR", None)  # the cache under XDG_CACHE_HOME, as users have it
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parents[3]), *sys.path])
    manifest = str(tree / "cleantree.toml")
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "check", "--manifest", manifest],
        capture_output=True,
        text=True,
        env=env,
        cwd=tree,
        check=False,
    )
    last = done.stdout.strip().splitlines()[-1]
    code, modules = ast.literal_eval(last)
    return code, set(modules)


def imported(modules: set[str], roots: tuple[str, ...]) -> set[str]:
    return {m for m in modules if m in roots or m.startswith(tuple(r + "." for r in roots))}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    folder = tmp_path / "tree"
    (folder / "pkg").mkdir(parents=True)
    (folder / "cleantree.toml").write_text(MANIFEST)
    (folder / "pkg" / "__init__.py").write_text("")
    (folder / "pkg" / "a.py").write_text("def keep_me():\n    return 1\n")
    (folder / "pkg" / "b.py").write_text("import os\n\nsm90 = os.environ\n")
    return folder


def test_a_warm_run_imports_no_analysis(tree: Path, tmp_path: Path) -> None:
    cold_code, cold = run_check(tree, tmp_path / "cache")
    assert cold_code == 0
    assert "pytest_cleantree.analysis" in cold  # the cold run did analyse: the probe sees it
    warm_code, warm = run_check(tree, tmp_path / "cache")
    assert warm_code == 0
    assert imported(warm, NEVER_WARM) == set()
    assert imported(warm, NEVER_WARM_NAMES) == set()
    # text asked: no other renderer
    assert (
        imported(warm, tuple(f.module for name, f in FORMATS.items() if name != DEFAULT_FORMAT))
        == set()
    )


def test_a_changed_file_is_analysed_again_in_a_new_process(tree: Path, tmp_path: Path) -> None:
    """The warm path is not a blind one: a file changed since is read and analysed."""
    assert run_check(tree, tmp_path / "cache")[0] == 0
    (tree / "pkg" / "b.py").write_text("sm120 = 1\n")
    code, modules = run_check(tree, tmp_path / "cache")
    assert code == 1
    assert "pytest_cleantree.analysis" in modules


#: what only qualified patterns need: the symbol graph, name resolution, astroid
QUALIFIED_ONLY = ("astroid", "pytest_cleantree.names")


def test_a_cold_exact_run_imports_no_qualified_machinery(tree: Path, tmp_path: Path) -> None:
    """A run imports what its patterns need: without a qualified pattern, no graph, no
    astroid (issue 44); with one, the graph is loaded (the probe can see it)."""
    (tree / "cleantree.toml").write_text(
        'root = "."\n[[rule]]\nid = "x"\nfiles = ["**/*.py"]\nforbid = ["=keep_me", "sm90"]\n'
    )
    code, modules = run_check(tree, tmp_path / "cache")
    assert code == 1
    assert "pytest_cleantree.analysis" in modules
    assert imported(modules, QUALIFIED_ONLY) == set()
    (tree / "cleantree.toml").write_text(
        'root = "."\n[[rule]]\nid = "x"\nfiles = ["**/*.py"]\nforbid = ["os.environ"]\n'
    )
    code, modules = run_check(tree, tmp_path / "cache")
    assert code == 1
    assert "pytest_cleantree.names.modules_to_read" in modules
