"""The graph's prefilter (:func:`~pytest_cleantree.names.graph.may_bind`) is sound.

A file it leaves unread must be one whose imports name no word and no star: held to
:func:`import_summary` on every module of the standard library, and the spellings the
graph finds with it held to those it finds summarising every file (the obvious path).
"""

from __future__ import annotations

import ast
import shutil
import sysconfig
from collections.abc import Iterable
from pathlib import Path

import pytest

from pytest_cleantree.analysis import decode_python
from pytest_cleantree.names import graph
from pytest_cleantree.names.graph import import_summary, may_bind
from pytest_cleantree.names.modules import name_tree
from pytest_cleantree.names.spellings import pattern_spellings
from pytest_cleantree.sources.local import LocalSource

STDLIB = Path(sysconfig.get_paths()["stdlib"])
#: words a pattern's spellings are made of, common and rare in the standard library
WORDS = ("join", "path", "Mapping", "abc", "Popen", "subprocess", "dumps", "json", "Any")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("import os\n", False),
        ("from subprocess import Popen\n", True),
        ("x = 'Popen'\n", True),  # a word anywhere: the filter reads no syntax
        ("from . import *\n", True),  # binds what the package binds: no word shows it
        ("from pkg.core import \\\n    *\n", True),
        ("y = a * b\n", False),  # a star that is no star import
        ("# -*- coding: latin-1 -*-\nimport os\n", True),  # its bytes are not its text
        ("import os  # é\n", True),  # not ASCII: a name may be NFKC of another
    ],
)
def test_may_bind_reads_the_bytes(text: str, expected: bool) -> None:
    assert may_bind(text.encode(), [b"Popen", b"subprocess"]) is expected


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


def test_what_may_bind_leaves_unread_imports_no_word_in_the_standard_library() -> None:
    """Every module of the running Python: an unread file's imports take none of the
    words and no star, by :mod:`ast` and by the graph's own summary."""
    words = {word.encode(): word for word in WORDS}
    left = parsed = 0
    for path in stdlib_files():
        data = path.read_bytes()
        oracle = ast_imports(data)
        for chosen in [[word] for word in words] + [list(words)]:
            if may_bind(data, chosen):
                continue
            left += 1
            named = {words[w] for w in chosen}
            summary = import_summary(decode_python(data))
            assert not named & {name for _, name in summary.names}, path
            assert not named & (summary.stars | summary.modules), path
            if oracle is not None:  # (the summary's unknown star is its over-long statement)
                parsed += 1
                assert not named & oracle[0], path
                assert not oracle[1], path
    # the filter leaves files unread (else the test proves nothing)
    assert left > 1000
    assert parsed > 1000


PATTERNS = ("posixpath.join", "collections.abc.Mapping", "subprocess.Popen", "json.dumps")


@pytest.mark.slow
def test_the_graph_finds_the_same_spellings_as_summarising_every_file(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The standard library as a tree: with the prefilter and without, the same answer.

    A copy without ``site-packages``: the graph walks the whole root, and what this
    machine has installed is not the tree the test is about.
    """
    root = tmp_path / "stdlib"
    shutil.copytree(STDLIB, root, ignore=shutil.ignore_patterns("site-packages", "__pycache__"))
    source = LocalSource(root)
    paths = sorted(str(p.relative_to(root)) for p in root.rglob("*.py"))
    naming = name_tree(source, paths, ())
    left: list[bool] = []

    def counted(data: bytes, words: Iterable[bytes]) -> bool:
        answer = may_bind(data, words)
        left.extend([True] if not answer else [])
        return answer

    monkeypatch.setattr(graph, "may_bind", counted)
    filtered = pattern_spellings(source, PATTERNS, naming.bases, naming.tree)
    assert len(left) > 1000  # the prefilter left files unread: the two paths differ
    monkeypatch.setattr(graph, "may_bind", lambda data, words: True)
    every = pattern_spellings(source, PATTERNS, naming.bases, naming.tree)
    assert filtered.names == every.names
    assert filtered.binds == every.binds
    assert filtered.stars == every.stars
    assert filtered.problems == every.problems
