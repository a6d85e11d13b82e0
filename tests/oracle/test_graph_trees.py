"""The symbol graph on made-up trees, one per construct, the expected lines marked inline.

Each tree marks with ``# [hit]`` every line a use of the symbol stands on (the
definition included).  Every spelling of the symbol, as a pattern, must report
exactly the marked lines, through the real ``cleantree check`` (issue 22): a
pattern written at the definition or at any re-export finds the same lines.
Star-import lines are routes (never marked); a value taken from the symbol is
not an alias of it (``mode = ForwardMode.EXTEND`` is marked, later ``mode`` uses
are not).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

MARK = "# [hit]"
CHECK = (sys.executable, "-m", "pytest_cleantree", "check")
#: the checkout this test belongs to: the CLI runs its code, whatever is installed
REPO = Path(__file__).resolve().parents[2]

TREES: dict[str, tuple[dict[str, str], tuple[str, ...], str]] = {
    # (files, every spelling of the symbol, extra manifest lines)
    "ordinary-module-re-export": (
        {
            "pkg/__init__.py": "",
            "pkg/layers/__init__.py": "",
            "pkg/layers/gate.py": (
                f"class GateLogit:\n    pass\n\n\nclass TopK:  {MARK}\n    pass\n"
            ),
            "pkg/layers/moe.py": f"from .gate import GateLogit, TopK  # noqa: F401  {MARK}\n",
            "pkg/models/m.py": f"from pkg.layers.moe import TopK  {MARK}\n\nx = TopK()  {MARK}\n",
        },
        ("pkg.layers.gate.TopK", "pkg.layers.moe.TopK"),
        "",
    ),
    "module-alias": (
        {
            "pkg/__init__.py": "",
            "pkg/impl.py": f"def join(a):  {MARK}\n    return a\n",
            "pkg/osl.py": "import pkg.impl as path\n",
            "use.py": (
                f"from pkg import osl\n\nosl.path.join('x')  {MARK}\n"
                f"from pkg.osl import path\n\npath.join('y')  {MARK}\n"
            ),
        },
        ("pkg.impl.join", "pkg.osl.path.join"),
        "",
    ),
    "two-hops": (
        {
            "pkg/__init__.py": f"from .sib import f  {MARK}\n",
            "pkg/sib.py": f"from .core import f  {MARK}\n",
            "pkg/core.py": f"def f():  {MARK}\n    pass\n",
            "use.py": f"import pkg\n\npkg.f()  {MARK}\n",
        },
        ("pkg.core.f", "pkg.sib.f", "pkg.f"),
        "",
    ),
    "star-chain-with-all-extended": (
        {
            "pkg/__init__.py": "from ._models import *\n",
            "pkg/_models.py": (
                "__all__ = ['Other']\n__all__ += ['Request']\n\n\n"
                f"class Request:  {MARK}\n    pass\n\n\nclass Other:\n    pass\n"
            ),
            "use.py": (
                f"import pkg\n\npkg.Request()  {MARK}\n"
                f"from pkg import Request  {MARK}\n\nRequest()  {MARK}\n"
            ),
        },
        ("pkg._models.Request", "pkg.Request"),
        "",
    ),
    "non-ancestor-re-export": (
        {
            "a/__init__.py": "",
            "a/defs.py": f"def g():  {MARK}\n    pass\n",
            "b/__init__.py": "",
            "b/reexp.py": f"from a.defs import g  {MARK}\n",
            "c/__init__.py": "",
            "c/use.py": f"from b.reexp import g  {MARK}\n\ng()  {MARK}\n",
        },
        ("a.defs.g", "b.reexp.g"),
        "",
    ),
    "parameter-default": (
        {
            "pkg/__init__.py": "",
            "pkg/warn.py": f"def warn(message):  {MARK}\n    print(message)\n",
            "use.py": (
                "from pkg import warn as warnings_module\nimport pkg.warn\n\n\n"
                f"def f(_warn=pkg.warn.warn):  {MARK}\n    _warn('x')  {MARK}\n"
            ),
        },
        ("pkg.warn.warn",),
        "",
    ),
    "a-value-is-not-an-alias": (
        {
            "pkg/__init__.py": "",
            "pkg/enums.py": f"class ForwardMode:  {MARK}\n    EXTEND = 1\n",
            "use.py": (
                f"from pkg.enums import ForwardMode  {MARK}\n\n"
                f"mode = ForwardMode.EXTEND  {MARK}\nprint(mode)\n"
            ),
        },
        ("pkg.enums.ForwardMode",),
        "",
    ),
    "namespace-package-over-two-folders": (
        {
            "src1/ns/a.py": f"def f():  {MARK}\n    pass\n",
            "src2/ns/b.py": f"from ns.a import f  {MARK}\n",
            "use.py": f"from ns.b import f  {MARK}\n\nf()  {MARK}\n",
        },
        ("ns.a.f", "ns.b.f"),
        'import_roots = ["src1", "src2"]\n',
    ),
}


def marked(files: dict[str, str]) -> set[tuple[str, int]]:
    return {
        (name, number)
        for name, text in files.items()
        for number, line in enumerate(text.splitlines(), 1)
        if line.endswith(MARK)
    }


def reported(root: Path, pattern: str, extra: str) -> set[tuple[str, int]]:
    manifest = root / "cleantree.toml"
    manifest.write_text(
        f'root = "."\n{extra}[[rule]]\nid = "r"\nfiles = ["**/*.py"]\nforbid = ["{pattern}"]\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [*CHECK, "--manifest", str(manifest), "--format", "json"],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    document = json.loads(done.stdout)
    return {(hit["file"], hit["line"]) for r in document["results"] for hit in r["hits"]}


CASES = [(name, spelling) for name, (_, spellings, _) in TREES.items() for spelling in spellings]


@pytest.mark.parametrize(("tree", "pattern"), CASES, ids=[f"{t}:{p}" for t, p in CASES])
def test_every_spelling_reports_exactly_the_marked_lines(
    tmp_path: Path, tree: str, pattern: str
) -> None:
    files, _, extra = TREES[tree]
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    assert sorted(reported(tmp_path, pattern, extra)) == sorted(marked(files))


def explained(root: Path, name: str) -> set[str]:
    """The spellings ``cleantree explain --root`` lists (no manifest: the tree alone)."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", "explain", "--root", str(root), name],
        capture_output=True,
        text=True,
        cwd=root.parent,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return {
        line.split()[0]
        for line in done.stdout.splitlines()[1:]
        if line.startswith("  ") and not line.startswith("  module ")  # the target's module
    }


@pytest.mark.parametrize("tree", sorted(set(TREES) - {"namespace-package-over-two-folders"}))
def test_explain_lists_every_spelling_and_each_finds_what_check_finds(
    tmp_path: Path, tree: str
) -> None:
    """``explain`` and ``check`` name modules alike: each spelling explain lists is a pattern
    that finds exactly the marked lines (the namespace tree needs its manifest's roots)."""
    files, spellings, extra = TREES[tree]
    root = tmp_path / "tree"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    listed = explained(root, spellings[0])
    assert set(spellings) <= listed
    for spelling in sorted(listed):
        assert sorted(reported(root, spelling, extra)) == sorted(marked(files)), spelling
