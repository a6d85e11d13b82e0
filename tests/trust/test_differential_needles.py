"""The fast path against the reference for any needle: drawn from each file's own values.

:mod:`test_differential` holds the two paths equal for identifier-shaped needles; the
probe of issue 23 found false cleans wherever a needle held what the tokenizer makes
(``"C:\\\\cuda"`` spells ``C:\\cuda``, a CRLF triple-quoted string spells ``one\\ntwo``).
Here the needles are pieces of each file's own decoded string values and identifiers,
chosen around quotes, backslashes, whitespace, newlines and non-ASCII characters: the
reference finds each (it was drawn from what the parse sees), and the fast path must find
exactly the same, finding for finding.  The agent's needle test (what a server answers
before sending a file) must never say "no needle" for a file where the reference finds one.

Files and needles are drawn deterministically (seeded by the file's path); the default
profile samples, the ``slow`` ones take more (``CLEANTREE_DIFFERENTIAL=all``: every file).
"""

from __future__ import annotations

import ast
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_differential import LONG, SITE, SITE_FILES, STDLIB, STDLIB_FILES, placed, sample

from pytest_cleantree import agent
from pytest_cleantree.analysis import analyze_fast, analyze_reference
from pytest_cleantree.analysis.decoding import DECODE_ERRORS, decode_python
from pytest_cleantree.core.model import Pattern, PatternTier

#: what the tokenizer makes or what trips a text view: a needle is drawn around these
SPECIAL = frozenset("\"'\\ \t\n\r\f\v\a\b{}#")
_SURROGATE = re.compile("[\ud800-\udfff]")
#: needles drawn per file, at most
PER_FILE = 8


def values_and_names(tree: ast.AST) -> tuple[list[str], list[str]]:
    """The string values (f-string parts too) and the identifiers a parse of the file sees."""
    values: list[str] = []
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value:
            values.append(node.value)
        elif isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Attribute):
            names.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return values, sorted(names)


def pieces_around(value: str, rng: random.Random) -> Iterator[str]:
    """Substrings of ``value`` that hold one of its special or non-ASCII characters."""
    at = [index for index, char in enumerate(value) if char in SPECIAL or not char.isascii()]
    for index in rng.sample(at, min(len(at), 2)):
        start = max(0, index - rng.randint(0, 6))
        piece = value[start : index + 1 + rng.randint(0, 6)]
        if piece.strip() and not _SURROGATE.search(piece):  # TOML cannot write one
            yield piece


def drawn_needles(rel: str, data: bytes) -> list[Pattern] | None:
    """The file's own needles (``None``: the file is no Python this Python parses)."""
    try:
        tree = ast.parse(decode_python(data))
    except (*DECODE_ERRORS, ValueError, RecursionError, MemoryError):
        return None
    rng = random.Random(rel)
    values, names = values_and_names(tree)
    special = sorted({p for value in values for p in pieces_around(value, rng)})
    plain = sorted({v[:12] for v in values if v[:12].strip() and not _SURROGATE.search(v[:12])})
    chosen = rng.sample(special, min(len(special), PER_FILE - 3))
    chosen += rng.sample(plain, min(len(plain), 1))
    patterns = [Pattern(needle, PatternTier.SUBSTRING, needle) for needle in chosen]
    for name in rng.sample(names, min(len(names), 2)):
        patterns.append(Pattern(name[1:] or name, PatternTier.SUBSTRING, name[1:] or name))
        patterns.append(Pattern("=" + name, PatternTier.EXACT, name))
    return list({p.text: p for p in patterns}.values())


def disagreements(files: list[Path], root: Path) -> list[str]:
    """Where the fast path or the agent's needle test differs from the reference."""
    out: list[str] = []
    compared = 0
    for path in files:
        rel = path.relative_to(root).as_posix()
        data = path.read_bytes()
        patterns = drawn_needles(rel, data)
        if not patterns:
            continue
        compared += 1
        reference = analyze_reference(rel, data, patterns)
        fast = analyze_fast(rel, data, patterns)
        if fast.problem != reference.problem:
            out.append(f"{rel}: problem {fast.problem!r} != {reference.problem!r}")
        mine, theirs = placed(fast.findings), placed(reference.findings)
        if mine != theirs:
            missing = sorted(set(theirs) - set(mine))[:3]
            extra = sorted(set(mine) - set(theirs))[:3]
            out.append(f"{rel}: fast misses {missing}, adds {extra}")
        for needle in sorted(reference.patterns_found):
            body = next(p.body for p in patterns if p.text == needle)
            if not agent.could_spell(data, [(agent.enc(body), body)]):
                out.append(f"{rel}: the agent says no {needle!r}, the reference finds it")
    assert compared >= len(files) // 2, "most files must be compared"
    return out


CHUNKS = 4


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_any_needle_of_the_standard_library(chunk: int) -> None:
    files = sample(STDLIB_FILES, 240, "needles-stdlib")[chunk::CHUNKS]
    assert disagreements(files, STDLIB) == []


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_any_needle_of_site_packages(chunk: int) -> None:
    files = sample(SITE_FILES, 160, "needles-site")[chunk::CHUNKS]
    assert disagreements(files, SITE) == []


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_any_needle_of_more_of_the_standard_library_and_site_packages(chunk: int) -> None:
    size = None if LONG else 1200
    stdlib = STDLIB_FILES if size is None else sample(STDLIB_FILES, size, "needles-stdlib-more")
    site = SITE_FILES if size is None else sample(SITE_FILES, size, "needles-site-more")
    assert disagreements(stdlib[chunk::CHUNKS], STDLIB) == []
    assert disagreements(site[chunk::CHUNKS], SITE) == []
