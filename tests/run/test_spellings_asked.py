"""A file is asked only the spellings it may hold (issue 44): the same report, less work.

A qualified pattern's spellings and ways (names through module aliases) ran to 18,516 on a
site-packages tree, and each was asked of each file (``present_patterns``, ``part_of``),
62.6 million pairs.  Now each needle is asked once per file, and a way only when the file
may spell its parts (``analysis.asking.present_asked``).  ``CLEANTREE_ENGINE=every-spelling``
keeps the old path, each pattern of the list asked in turn: the oracle here.

* a hypothesis property over generated packages that alias and re-export ``os.path.join``
  (module imports, ``as``, ``from``, relative, star imports, definitions, strings), used
  through them from files inside and outside the package: the report is byte for byte the
  oracle's;
* the per-file work does not grow with the spellings: with 100 or 200 modules that each
  make their own ways to the target, a file that uses none of them is asked the same
  patterns, and charged the same steps.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_cleantree.analysis import asking, text
from pytest_cleantree.frontends.cli.main import main
from pytest_cleantree.names import budget

MANIFEST = 'root = "."\n[[rule]]\nid = "r"\nfiles = ["**/*.py"]\nforbid = {patterns}\n'

#: how a module of the package binds something on the way to ``os.path.join`` (``{m}``:
#: another module of the package)
BINDS = (
    "import os\n",
    "import os.path\n",
    "import os.path as p\n",
    "from os import path\n",
    "from os import path as pth\n",
    "from os.path import join\n",
    "from os.path import join as pj\n",
    "from pkg.{m} import *\n",
    "from .{m} import *\n",
    "from . import {m}\n",
    "import pkg.{m} as q\n",
    "from pkg import {m} as r\n",
    "from .. import pkg\n",
    "def join(a):\n    return a\n",
    "np = os = 1\n",
)
#: how a file uses what the package binds (``{m}``: a module of the package)
USES = (
    "import pkg.{m}\nv = pkg.{m}.os.path.join('a')\n",
    "from pkg.{m} import p\nv = p.join('a')\n",
    "from pkg.{m} import path\nv = path.join('a')\n",
    "from pkg import {m}\nv = {m}.pj('a')\n",
    "from pkg.{m} import *\nv = join('a') + pth.join('b')\n",
    "from .{m} import os\nv = os.path.join('a')\n",
    "from . import {m}\nv = {m}.q.os.path.join('a')\n",
    "import pkg.{m} as z\nv = getattr(z, 'pj')('a')\n",
    "v = 'pkg.{m}.os.path.join'\n",
    "# see pkg.{m}.p.join\nv = ''.join([])\n",
    "from ... import pkg\nv = pkg.{m}.r.path.join('a')\n",
    "x = ','.join(['a'])\n",
)


@contextlib.contextmanager
def in_tree(top: Path, engine: str | None) -> Iterator[None]:
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    os.environ["CLEANTREE_CACHE_DIR"] = ""
    os.environ.pop("CLEANTREE_ENGINE", None)
    if engine is not None:
        os.environ["CLEANTREE_ENGINE"] = engine
    os.chdir(top)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


@contextlib.contextmanager
def few_ways(count: int) -> Iterator[None]:
    """Narrow the ways of any list (by default a list of few asks each of every file)."""
    saved = asking.FEW_WAYS
    asking.FEW_WAYS = count
    try:
        yield
    finally:
        asking.FEW_WAYS = saved


def check(top: Path, engine: str | None = None) -> tuple[int, str]:
    out = io.StringIO()
    with in_tree(top, engine), contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = main(["check", "--no-cache", "--jobs", "1", "--manifest", "cleantree.toml"])
    return code, out.getvalue()


def write(top: Path, files: dict[str, str], patterns: list[str]) -> None:
    for name, content in files.items():
        path = top / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    (top / "cleantree.toml").write_text(MANIFEST.format(patterns=patterns))


@st.composite
def trees(draw: st.DrawFn) -> dict[str, str]:
    count = draw(st.integers(1, 5))
    modules = [f"m{i}" for i in range(count)]
    files = {"pkg/__init__.py": "".join(draw(st.lists(st.sampled_from(BINDS), max_size=2)))}
    for module in modules:
        binds = draw(st.lists(st.sampled_from(BINDS), min_size=1, max_size=3))
        others = [m for m in modules if m != module] or ["missing"]
        files[f"pkg/{module}.py"] = "".join(
            b.format(m=draw(st.sampled_from(others))) for b in binds
        )
    for i in range(draw(st.integers(1, 4))):
        place = draw(st.sampled_from(["use{i}.py", "pkg/use{i}.py", "pkg/sub/use{i}.py"]))
        uses = draw(st.lists(st.sampled_from(USES), min_size=1, max_size=3))
        files[place.format(i=i)] = "".join(u.format(m=draw(st.sampled_from(modules))) for u in uses)
    if any(name.startswith("pkg/sub/") for name in files):
        files["pkg/sub/__init__.py"] = ""
    return files


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    files=trees(),
    patterns=st.sampled_from([["os.path.join"], ["os.path.join", "posixpath.join", "os.path"]]),
)
def test_the_report_is_the_oracles_byte_for_byte(
    files: dict[str, str], patterns: list[str]
) -> None:
    with tempfile.TemporaryDirectory() as folder, few_ways(0):
        top = Path(folder)
        write(top, files, patterns)
        assert check(top) == check(top, "every-spelling")


def _package(top: Path, modules: int) -> None:
    """``modules`` modules that each make ways to ``os.path.join`` (``pkg.mI.os``,
    ``pkg.mI.os.path``, ``pkg.mI.p``), files that use two of them, and files that use none
    (they spell ``join``, ``os`` and ``path``, as most files of a real tree do)."""
    files = {"pkg/__init__.py": ""}
    for i in range(modules):
        files[f"pkg/m{i}.py"] = "import os\nimport os.path as p\n\n\ndef f():\n    return 1\n"
    files["use_a.py"] = "import pkg.m0\nv = pkg.m0.os.path.join('a')\n"
    files["use_b.py"] = "from pkg.m1 import p\nv = p.join('a')\n"
    for i in range(8):
        files[f"plain{i}.py"] = "import os\n\nv = ', '.join(os.path.split('a/b'))\n"
    write(top, files, ["os.path.join"])


class Asked:
    """The patterns each file is asked (kept by ``asked_positions``), and the steps charged."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.kept: dict[str, int] = {}
        self.steps: dict[str, int] = {}
        asked_positions, spend_on = asking.asked_positions, budget.Meter.spend_on

        def counted_present(views, patterns, module, **kwargs):  # type: ignore[no-untyped-def]
            kept = asked_positions(views, patterns, module, **kwargs)
            assert kept is not None
            self.kept[module] = len(kept)
            return kept

        def counted_spend(meter, pattern, path, count):  # type: ignore[no-untyped-def]
            self.steps[path] = count
            return spend_on(meter, pattern, path, count)

        monkeypatch.setattr("pytest_cleantree.analysis.fast.asked_positions", counted_present)
        monkeypatch.setattr(budget.Meter, "spend_on", counted_spend)


@pytest.mark.parametrize("modules", [100, 200])
def test_the_work_per_file_does_not_grow_with_the_spellings(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, modules: int
) -> None:
    _package(tmp_path, modules)
    asked = Asked(monkeypatch)
    monkeypatch.setattr(asking, "FEW_WAYS", 64)  # by default narrowed from 4,096 ways
    code, out = check(tmp_path)
    assert code == 1, out
    assert "use_a.py:2:" in out
    assert "use_b.py:2:" in out
    assert not any(f"plain{i}.py" in out for i in range(8))
    # a file that uses no module of the package is asked the pattern and its own spellings
    # only (``os.path.join``, ``posixpath.join``...), however many ways the package makes
    assert {asked.kept[f"plain{i}"] for i in range(8)} == {PLAIN_KEPT}
    assert {asked.steps[f"plain{i}.py"] for i in range(8)} == {PLAIN_KEPT}
    # a file that uses one module is asked that module's ways, not the others'
    assert asked.kept["use_a"] < 12
    assert asked.steps["use_a.py"] < 12


#: what a file of ``_package`` that uses no module of it is asked (the pattern's spellings
#: whose last name it spells): measured, the same for 100 modules and 200
PLAIN_KEPT = 6


def test_the_oracle_asks_every_way_of_every_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the narrowing saves: the old path asks a plain file every way of the package."""
    _package(tmp_path, 80)
    seen: list[int] = []
    present = text.present_patterns

    def counted(views, patterns, **kwargs):  # type: ignore[no-untyped-def]
        kept = present(views, patterns, **kwargs)
        seen.append(len(kept))
        return kept

    monkeypatch.setattr("pytest_cleantree.analysis.fast.present_patterns", counted)
    code, _ = check(tmp_path, "every-spelling")
    assert code == 1
    assert min(seen) > 80  # eighty modules, a way or more each, asked of every file


#: real code: packages of the standard library, copied as a tree of their own, with names
#: they import and re-export (``email.message.Message``, ``json.decoder.JSONDecodeError``)
#: and names from outside them (``os.path.join``, ``typing.Optional``)
STDLIB = Path(os.__file__).parent
REAL_PATTERNS = [
    "os.path.join",
    "typing.Optional",
    "email.utils.formataddr",
    "email.message.Message",
    "json.decoder.JSONDecodeError",
    "importlib.util.find_spec",
]


def _stdlib_tree(top: Path, packages: list[str]) -> None:
    import shutil

    for package in packages:
        shutil.copytree(
            STDLIB / package,
            top / package,
            ignore=shutil.ignore_patterns("__pycache__", "test", "tests"),
        )
    (top / "cleantree.toml").write_text(MANIFEST.format(patterns=REAL_PATTERNS))


def test_real_code_the_report_is_the_oracles(tmp_path: Path) -> None:
    _stdlib_tree(tmp_path, ["json", "email"])
    with few_ways(0):
        narrowed = check(tmp_path)
    assert narrowed[0] == 1, narrowed[1]  # something is found: the comparison is not empty
    assert narrowed == check(tmp_path, "every-spelling")


@pytest.mark.slow
def test_real_code_more_packages_the_report_is_the_oracles(tmp_path: Path) -> None:
    _stdlib_tree(tmp_path, ["json", "email", "importlib", "logging", "unittest", "concurrent"])
    with few_ways(0):
        narrowed = check(tmp_path)
    assert narrowed[0] == 1, narrowed[1]
    assert narrowed == check(tmp_path, "every-spelling")
