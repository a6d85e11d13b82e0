"""The kept answer found under the command line as typed (run/answer_lookup.py, issue 47):
before the option parser, the manifest's loader or the model are imported, and never when
something it depends on changed, the manifest a search would now find included.

Each run is a fresh interpreter (a console script's start); the cold run keeps its answer
with no racy window (the file ``PROBE_KEEP`` names exists), the warm one imports only what it needs.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

#: the CLI in this process; then its exit code and the package modules it imported
PROBE = """
import os, sys
before = set(sys.modules)
if os.path.exists(os.environ["PROBE_KEEP"]):  # the same environment, warm or cold
    import pytest_cleantree.run.answers as answers
    answers.RACY_NS = 0
from pytest_cleantree.frontends.cli.main import main
code = main(sys.argv[1:])
sys.stdout.flush()
ours = sorted(m for m in sys.modules if m.split(".")[0] == "pytest_cleantree")
costly = sorted(m for m in set(sys.modules) - before if m in COSTLY)
print(repr(("PROBE", code, ours + costly)))
""".replace(
    "COSTLY",
    repr(("_hashlib", "importlib.util", "json", "typing", "pathlib", "argparse", "tomllib")),
)

ROOT = str(Path(__file__).parents[3])

#: all that a warm answer found under the typed command line may import of the package (and
#: of the standard library's costly modules the probe looks for: none; ``_hashlib`` loads
#: OpenSSL, 2 ms, where the digest needs only blake2b)
WARM_PATH = {
    "pytest_cleantree",
    "pytest_cleantree.agent",  # the walk, with the read and the needle test it re-exports
    "pytest_cleantree.agent.needle",
    "pytest_cleantree.agent.read",
    "pytest_cleantree.agent.walk",
    "pytest_cleantree.agent.wire",
    "pytest_cleantree.core",
    "pytest_cleantree.core.errors",
    "pytest_cleantree.frontends",
    "pytest_cleantree.frontends.cli",
    "pytest_cleantree.frontends.cli.main",
    "pytest_cleantree.run",
    "pytest_cleantree.run.answer_lookup",
    "pytest_cleantree.run.cachedir",
    "pytest_cleantree.run.signatures",
}

MANIFEST = """\
[[rule]]
id = "no-sm120"
files = ["**/*.py"]
forbid = ["sm120"]
"""


def run(cwd: Path, cache: Path, *args: str, keep: bool = False) -> tuple[int, str, set[str]]:
    """Exit code, stdout and the package modules imported, of ``cleantree check ARGS``."""
    env = {**os.environ, "CLEANTREE_CACHE_DIR": str(cache)}
    env["PYTHONPATH"] = os.pathsep.join([ROOT, *sys.path])
    keep_file = cache.parent / "keep-answers"
    env["PROBE_KEEP"] = str(keep_file)
    if keep:
        keep_file.touch()
    else:
        keep_file.unlink(missing_ok=True)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "check", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        check=False,
        timeout=120,
    )
    *shown, last = done.stdout.splitlines()
    marker, code, modules = ast.literal_eval(last)
    assert marker == "PROBE", done.stderr
    return code, "\n".join(shown), set(modules)


def make_tree(top: Path) -> Path:
    (top / ".git").mkdir(parents=True)  # discovery stops here
    (top / "cleantree.toml").write_text(MANIFEST)
    (top / "pkg" / "sub").mkdir(parents=True)
    (top / "pkg" / "__init__.py").write_text("")
    (top / "pkg" / "sub" / "m.py").write_text("value_1 = 'sm121'\n")
    (top / "pkg" / "hit.py").write_text("sm120 = 1\n")
    return top


def test_a_kept_answer_is_found_before_the_parser_and_the_manifest_loader(
    tmp_path: Path,
) -> None:
    tree, cache = make_tree(tmp_path / "tree"), tmp_path / "cache"
    cold = run(tree, cache, "--manifest", "cleantree.toml", keep=True)
    assert cold[0] == 1
    assert "pytest_cleantree.run.session" in cold[2]  # the probe sees a full run
    code, shown, modules = run(tree, cache, "--manifest", "cleantree.toml")
    assert (code, shown) == cold[:2]
    assert modules <= WARM_PATH, sorted(modules - WARM_PATH)


def test_a_manifest_a_search_would_now_find_is_read(tmp_path: Path) -> None:
    """Found by searching upwards from pkg/sub: a manifest written nearer, or a repository
    boundary on the way, changes which manifest the run reads; the kept answer is not used."""
    tree, cache = make_tree(tmp_path / "tree"), tmp_path / "cache"
    here = tree / "pkg" / "sub"
    cold = run(here, cache, keep=True)
    assert cold[0] == 1
    warm = run(here, cache)
    assert warm[:2] == cold[:2]
    assert "pytest_cleantree.config.manifest" not in warm[2]  # answered as typed
    (here / "cleantree.toml").write_text(MANIFEST.replace("sm120", "value_"))
    nearer = run(here, cache, keep=True)
    assert nearer[0] == 1
    assert "value_1" in nearer[1]
    assert "hit.py" not in nearer[1]
    (here / "cleantree.toml").unlink()
    assert run(here, cache, keep=True)[:2] == cold[:2]
    (tree / "pkg" / ".git").mkdir()  # pkg is a repository of its own: no manifest in it
    code, shown, _ = run(here, cache)
    assert code == 2
    assert shown == ""


def test_a_pyproject_table_added_on_the_way_is_read(tmp_path: Path) -> None:
    tree, cache = make_tree(tmp_path / "tree"), tmp_path / "cache"
    here = tree / "pkg" / "sub"
    assert run(here, cache, keep=True)[0] == 1
    table = MANIFEST.replace("[[rule]]", "[[tool.cleantree.rule]]").replace("sm120", "nothing")
    (tree / "pkg" / "pyproject.toml").write_text(table)
    code, shown, modules = run(here, cache)
    assert code == 0, shown
    assert "pytest_cleantree.run.session" in modules


def test_a_root_reached_through_a_link_retargeted_is_another_tree(tmp_path: Path) -> None:
    """``root = "current"``, a link to one release and then to another: the kept answer
    walked the first release's folder; the next run must read the second."""
    top, cache = tmp_path / "top", tmp_path / "cache"
    for release, text in (("v1", "ok = 1\n"), ("v2", "sm120 = 1\n")):
        (top / release).mkdir(parents=True)
        (top / release / "m.py").write_text(text)
    (top / "current").symlink_to("v1")
    (top / "cleantree.toml").write_text('root = "current"\n' + MANIFEST)
    assert run(top, cache, "--manifest", "cleantree.toml", keep=True)[0] == 0
    assert run(top, cache, "--manifest", "cleantree.toml")[0] == 0
    (top / "current").unlink()
    (top / "current").symlink_to("v2")
    code, shown, _ = run(top, cache, "--manifest", "cleantree.toml")
    assert code == 1, shown
    assert "m.py:1" in shown
