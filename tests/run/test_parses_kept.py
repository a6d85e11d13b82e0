"""Parses kept across runs (issue 44): a second qualified run over an unchanged tree, with a
changed manifest (so no kept whole answer applies), parses nothing the graph parsed.

The graph's whole-module parses (:func:`~pytest_cleantree.names.exports.parse_module_exports`,
of the tree's modules and of the environment's) and its import summaries
(:func:`~pytest_cleantree.names.imports.import_summary`) are counted in a CLI run in this
process; the environment's per-process memo is emptied between runs, as a new process has it.
On generated packages (re-exports by ``from``, star, alias and module imports, relative or
absolute, through up to four modules), the warm run's report is the cold (``--no-cache``)
run's, and the graph parses nothing in it.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pytest_cleantree.frontends.cli.main import main
from pytest_cleantree.names import environment, modules_to_read, spellings
from pytest_cleantree.run import answers

MANIFEST = 'root = "."\n[[rule]]\nid = "r"\nfiles = ["**/*.py"]\nforbid = {patterns}\n'
#: how a module re-exports ``f`` from the module before it (``{m}``: its name)
FORMS = (
    "from pkg.{m} import f\n",
    "from .{m} import f\n",
    "from .{m} import *\n",
    "from pkg.{m} import f as g\nf = g\n",
    "import pkg.{m} as h\nf = h.f\n",
    "x = 1\n",  # re-exports nothing
)


@contextlib.contextmanager
def in_tree(top: Path, cache: Path) -> Iterator[None]:
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    os.environ["CLEANTREE_CACHE_DIR"] = str(cache)
    os.environ.pop("CLEANTREE_ENGINE", None)
    os.chdir(top)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


class Parses:
    """The graph's parses, counted by what was parsed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.seen: list[str] = []
        for module in (modules_to_read, spellings, environment):
            self._count(monkeypatch, module, "parse_module_exports")
        self._count(monkeypatch, modules_to_read, "import_summary")

    def _count(self, monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> None:
        real = getattr(module, name)

        def counted(*args: object, **kwargs: object) -> object:
            self.seen.append(f"{name}:{str(args[0])[:60]!r}")
            return real(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)

    def run(self, top: Path, cache: Path, patterns: list[str], *args: str) -> tuple[int, object]:
        """A check in this process, as a new one: the environment's memo emptied."""
        environment._PARSED.clear()
        (top / "cleantree.toml").write_text(MANIFEST.format(patterns=json.dumps(patterns)))
        out = io.StringIO()
        with in_tree(top, cache), contextlib.redirect_stdout(out):
            code = main(["check", "--manifest", "cleantree.toml", "--format", "json", *args])
        report = json.loads(out.getvalue())
        report.pop("duration_s", None)
        return code, report


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Parses:
    monkeypatch.setattr(answers, "RACY_NS", 0)
    monkeypatch.setattr("pytest_cleantree.run.cache.RACY_NS", 0)
    return Parses(monkeypatch)


def build(top: Path, chain: list[int], use: int) -> None:
    """``pkg/core.py`` defines ``f``; ``pkg/m{i}.py`` re-exports it from the module before
    (``FORMS[chain[i]]``); ``use.py`` imports ``f`` from one of them and calls it."""
    files = {"pkg/__init__.py": "", "pkg/core.py": "import os\n\n\ndef f():\n    pass\n"}
    before = "core"
    for index, form in enumerate(chain):
        files[f"pkg/m{index}.py"] = FORMS[form].format(m=before)
        before = f"m{index}"
    source = "core" if use >= len(chain) else f"m{use}"
    files["use.py"] = f"from pkg.{source} import f\nimport os.path\n\nf()\nos.path.join('a')\n"
    for name, text in files.items():
        path = top / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        os.utime(path, (1_000_000_000, 1_000_000_000))


def warm_equals_cold(parses: Parses, chain: list[int], use: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        top, cache = Path(folder) / "tree", Path(folder) / "cache"
        build(top, chain, use)
        first = ["pkg.core.f", "os.path.join"]
        parses.run(top, cache, first)
        cold_parses = list(parses.seen)
        assert any("parse_module_exports" in p for p in cold_parses)  # the counter counts
        changed = [*first, "=unrelated"]  # another manifest: no kept whole answer applies
        parses.seen.clear()
        warm = parses.run(top, cache, changed)
        assert parses.seen == [], f"parsed again: {parses.seen}"
        cold = parses.run(top, Path(folder) / "other", changed, "--no-cache")
        assert warm == cold


def test_a_changed_manifest_parses_nothing_the_graph_parsed(parses: Parses) -> None:
    warm_equals_cold(parses, [0, 2, 4, 1], 0)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(st.integers(0, len(FORMS) - 1), max_size=4), st.integers(0, 4))
@example([2, 2], 0)
@example([5], 0)
def test_warm_equals_cold_on_generated_packages(parses: Parses, chain: list[int], use: int) -> None:
    warm_equals_cold(parses, chain, use)
