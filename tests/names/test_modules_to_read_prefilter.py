"""The graph's remote prefilter is sound: a file the server keeps binds no word.

A server asked for the graph's words and :data:`~pytest_cleantree.names.modules_to_read.STAR_NEEDLE`
sends only the files its needle test (:func:`pytest_cleantree.agent.could_spell`) may
find one in.  Held to :mod:`ast` on every module of the standard library (a file kept
back imports none of the words and no star), and the spellings the graph finds through
such a server held to those it finds reading every file (the obvious path).
"""

from __future__ import annotations

import ast
import shutil
import sysconfig
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from pytest_cleantree.agent import could_spell
from pytest_cleantree.analysis import decode_python
from pytest_cleantree.names.imports import import_summary, parsed_summary
from pytest_cleantree.names.modules import name_tree
from pytest_cleantree.names.modules_to_read import STAR_NEEDLE
from pytest_cleantree.names.spellings import pattern_spellings
from pytest_cleantree.sources.base import NO_NEEDLE, FileRead, Needles, ReadAnswer
from pytest_cleantree.sources.local import LocalSource
from tests.names.test_import_spellings import covered, engine

STDLIB = Path(sysconfig.get_paths()["stdlib"])
#: words a pattern's spellings are made of, common and rare in the standard library
WORDS = ("join", "path", "Mapping", "abc", "Popen", "subprocess", "dumps", "json", "Any")


def server_keeps_back(data: bytes, needles: Sequence[str]) -> bool:
    """Does a server asked for exactly these needles keep this file back?"""
    return not could_spell(data, [(needle.encode(), needle) for needle in needles])


def kept_back(data: bytes, words: Sequence[str]) -> bool:
    """Does a server asked for the graph's ``words`` (with the star needle) keep it back?"""
    return server_keeps_back(data, [*words, STAR_NEEDLE])


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("import os\n", True),
        ("from subprocess import Popen\n", False),
        ("x = 'Popen'\n", False),  # a word anywhere: the test reads no syntax
        ("from . import *\n", False),  # binds what the package binds: no word shows it
        ("from pkg.core import \\\n    *\n", False),
        ("# -*- coding: latin-1 -*-\nimport os\n", False),  # its bytes are not its text
        ("import os  # é\n", False),  # not ASCII: a name may be NFKC of another
    ],
)
def test_the_server_keeps_back_only_what_shows_no_word_and_no_star(text: str, kept: bool) -> None:
    assert kept_back(text.encode(), ["Popen", "subprocess"]) is kept


def test_a_star_continued_on_the_next_line_is_a_star_import() -> None:
    summary = import_summary("from pkg.core import \\\n    *\n")
    assert summary.stars == frozenset({"core"})


def stdlib_files() -> list[Path]:
    return sorted(p for p in STDLIB.rglob("*.py") if "site-packages" not in p.parts)


def ast_imports(data: bytes) -> tuple[set[str], bool] | None:
    """The oracle: every part of every name the file's imports take, and whether one is a
    star (``None`` if :mod:`ast` cannot parse it)."""
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return None
    parts: set[str] = set()
    star = False
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            parts.update((node.module or "").split("."))
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                star = star or alias.name == "*"
                parts.update(alias.name.split("."))
                parts.update([alias.asname] if alias.asname else [])
    return parts, star


@pytest.mark.slow
def test_what_the_server_keeps_back_imports_no_word_in_the_standard_library() -> None:
    """Every module of the running Python: a file kept back imports none of the words
    and no star, by :mod:`ast` and by the graph's own summary."""
    kept = parsed = 0
    for path in stdlib_files():
        data = path.read_bytes()
        oracle = ast_imports(data)
        for chosen in [[word] for word in WORDS] + [list(WORDS)]:
            if not kept_back(data, chosen):
                continue
            kept += 1
            summary = import_summary(data.decode("ascii"))  # (kept back: ASCII, no cookie)
            assert not set(chosen) & {name for _, name in summary.names}, path
            assert not set(chosen) & (summary.stars | summary.modules), path
            if oracle is not None:
                parsed += 1
                assert not set(chosen) & oracle[0], path
                assert not oracle[1], path
    # the server keeps files back (else the test proves nothing)
    assert kept > 1000
    assert parsed > 1000


class ServerLike(LocalSource):
    """A local tree read as a server reads it: with needles, a file that spells none of
    those the graph sent is not sent (:data:`NO_NEEDLE`), by the servers' own test."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.kept: list[str] = []

    def read(
        self, paths: Sequence[str], needles: Needles | None = None
    ) -> Mapping[str, ReadAnswer]:
        found: dict[str, ReadAnswer] = dict(super().read(paths))
        if needles is None or isinstance(needles, Mapping):
            return found
        for path, data in found.items():
            if isinstance(data, FileRead) and server_keeps_back(data.data, list(needles)):
                found[path] = NO_NEEDLE
                self.kept.append(path)
        return found


PATTERNS = ("posixpath.join", "collections.abc.Mapping", "subprocess.Popen", "json.dumps")


@pytest.mark.slow
def test_the_graph_finds_the_same_spellings_through_a_server_as_reading_every_file(
    tmp_path: Path,
) -> None:
    """The standard library as a tree: kept back by a server or read whole, one answer.

    A copy without ``site-packages``: the graph walks the whole root, and what this
    machine has installed is not the tree the test is about.
    """
    root = tmp_path / "stdlib"
    shutil.copytree(STDLIB, root, ignore=shutil.ignore_patterns("site-packages", "__pycache__"))
    paths = sorted(str(p.relative_to(root)) for p in root.rglob("*.py"))
    local = LocalSource(root)
    server = ServerLike(root)
    naming = name_tree(local, paths, ())
    every = pattern_spellings(local, PATTERNS, naming.bases, naming.tree)
    through = pattern_spellings(server, PATTERNS, naming.bases, naming.tree)
    assert len(server.kept) > 500  # the server kept files back: the two paths differ
    assert through.names == every.names
    assert through.binds == every.binds
    assert through.stars == every.stars
    assert through.problems == every.problems


def test_a_server_sends_a_file_whose_only_import_is_an_unnamed_star(tmp_path: Path) -> None:
    """``from . import *`` holds no word of the pattern: only the star needle gets it sent,
    and without it ``pkg.mod.Popen`` is no spelling (a false clean over SSH)."""
    files = {
        "pkg/__init__.py": "from subprocess import Popen\n",
        "pkg/mod.py": "from . import *\n",
        "use.py": "from pkg.mod import Popen\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    server = ServerLike(tmp_path)
    naming = name_tree(server, sorted(files), ())
    found = pattern_spellings(server, ["subprocess.Popen"], naming.bases, naming.tree)
    assert "pkg.mod.Popen" in found.names["subprocess.Popen"]


SITE = Path(sysconfig.get_paths()["purelib"])
#: real trees, each with qualified patterns whose chains run through it
REAL_TREES = {
    "stdlib": (STDLIB, (), PATTERNS),
    "site-packages": (
        SITE,
        ("hypothesis", "_pytest", "astroid", "jedi"),
        (
            "hypothesis.strategies.integers",
            "_pytest.fixtures.fixture",
            "astroid.nodes.Module",
            "jedi.api.Script",
        ),
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(REAL_TREES))
def test_the_prefilter_and_every_module_parsed_give_one_graph_on_real_trees(
    tmp_path: Path, name: str
) -> None:
    """A real tree through the text's reading, and with every module parsed
    (``CLEANTREE_ENGINE=reference``): one graph; and every file's reading covers the
    parser's (a file kept out by the reading imports nothing the graph needs)."""
    base, packages, patterns = REAL_TREES[name]
    root = tmp_path / name
    if packages:
        for package in packages:
            shutil.copytree(
                base / package, root / package, ignore=shutil.ignore_patterns("__pycache__")
            )
    else:
        shutil.copytree(base, root, ignore=shutil.ignore_patterns("site-packages", "__pycache__"))
    paths = sorted(str(p.relative_to(root)) for p in root.rglob("*.py"))
    read = 0
    for path in paths:
        data = (root / path).read_bytes()
        try:
            tree = ast.parse(data)
            text = decode_python(data)
        except (SyntaxError, ValueError, LookupError):
            continue
        read += 1
        assert covered(import_summary(text), parsed_summary(tree)) == [], path
    assert read > 300
    source = LocalSource(root)
    tops = {path.split("/")[0].removesuffix(".py") for path in paths}
    naming = name_tree(source, paths, ())
    with engine("fast"):
        through = pattern_spellings(source, patterns, naming.bases, naming.tree)
    with engine("reference"):
        every = pattern_spellings(source, patterns, naming.bases, naming.tree)
    assert through.emap is not None
    assert every.emap is not None
    for pattern in patterns:  # the graph: every name that reaches a target, the same
        targets = through.targets[pattern]
        assert targets == every.targets[pattern]
        reached, reached_all = set(through.emap.reach(targets)), set(every.emap.reach(targets))
        # the tree's part of the graph is one; a module read from the environment (whatever
        # this process's sys.path holds: bench/ puts a top module ``report`` there) may be read
        # by the text's reading only, never by the parser's only
        assert {n for n in reached if n.split(".")[0] in tops} == {
            n for n in reached_all if n.split(".")[0] in tops
        }, pattern
        assert reached_all <= reached, pattern
        # what no import of the tree can reach is dropped: the text's reading may keep more
        # (a docstring that reads ``import Mapping`` keeps ``m.Mapping``), never fewer
        assert every.names[pattern] <= through.names[pattern], pattern
        assert every.ways[pattern] <= through.ways[pattern], pattern
        assert set(every.stars[pattern]) <= set(through.stars[pattern]), pattern
    assert through.problems == every.problems
