"""The fast path against the reference path, finding for finding, on real code.

The reference (:mod:`pytest_cleantree.analysis.reference`) decodes, parses the
whole file and walks all of it; the fast path skips files and pieces by text.
Every shortcut must be an over-approximation, so the two must agree on every
finding's pattern, line, column and kind, on code nobody here wrote: the
standard library of the running Python and the installed packages.

A file the reference cannot parse under this Python is left out (the fast
path reports a syntax error only where a piece that spells a pattern fails to
parse; see the README).  The CI profile checks every standard-library file and
a fixed sample of site-packages; ``CLEANTREE_DIFFERENTIAL=all`` checks every
file of both (the long campaign, see docs/reliability.md).
"""

from __future__ import annotations

import os
import random
import re
import sysconfig
from collections.abc import Iterable
from pathlib import Path

import pytest

from pytest_cleantree.analysis import Finding, analyze_fast, analyze_reference
from pytest_cleantree.core.patterns import parse_pattern

STDLIB = Path(sysconfig.get_paths()["stdlib"])
SITE = Path(sysconfig.get_paths()["purelib"])
LONG = os.environ.get("CLEANTREE_DIFFERENTIAL") == "all"

#: names that are everywhere (many findings), rare, spelt in strings and comments, globbed
PLAIN = ("Error", "encod", "=self", "*_lock*", "__all__", "=cls")
#: qualified names reached through every import form in real code
QUALIFIED = (
    "os.path.join",
    "sys.exc_info",
    "warnings.warn",
    "collections.abc.Mapping",
    "subprocess.Popen",
    "typing.TYPE_CHECKING",
)


def python_files(top: Path, *, skip: tuple[str, ...] = ()) -> list[Path]:
    return sorted(
        path
        for path in top.rglob("*.py")
        if path.is_file() and not any(part in skip for part in path.relative_to(top).parts)
    )


def sample(paths: list[Path], size: int, seed: str) -> list[Path]:
    if LONG or len(paths) <= size:
        return paths
    return sorted(random.Random(seed).sample(paths, size))


def placed(findings: Iterable[Finding]) -> list[tuple[object, ...]]:
    return sorted(
        (f.pattern, f.occurrence.line, f.occurrence.col, f.occurrence.kind.value) for f in findings
    )


def disagreements(files: list[Path], root: Path, patterns: tuple[str, ...]) -> list[str]:
    parsed = [parse_pattern(p) for p in patterns]
    out: list[str] = []
    compared = 0
    for path in files:
        rel = path.relative_to(root).as_posix()
        data = path.read_bytes()
        reference = analyze_reference(rel, data, parsed)
        if reference.problem and "not valid Python" in reference.problem:
            continue  # see the module docstring
        fast = analyze_fast(rel, data, parsed)
        compared += 1
        if fast.problem != reference.problem:
            out.append(f"{rel}: problem {fast.problem!r} != {reference.problem!r}")
            continue
        mine, theirs = placed(fast.findings), placed(reference.findings)
        if mine != theirs:
            missing = sorted(set(theirs) - set(mine))[:3]
            extra = sorted(set(mine) - set(theirs))[:3]
            out.append(f"{rel}: fast misses {missing}, adds {extra}")
    assert compared >= len(files) // 2, "most files must be compared"
    return out


STDLIB_FILES = python_files(STDLIB, skip=("site-packages", "lib2to3", "__pycache__"))
SITE_FILES = python_files(SITE, skip=("__pycache__",))
CHUNKS = 8


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_fast_equals_reference_on_the_standard_library_plain_patterns(chunk: int) -> None:
    files = STDLIB_FILES[chunk::CHUNKS]
    assert disagreements(files, STDLIB, PLAIN) == []


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_fast_equals_reference_on_the_standard_library_qualified_patterns(chunk: int) -> None:
    files = sample(STDLIB_FILES, 600, "stdlib-qualified")[chunk::CHUNKS]
    assert disagreements(files, STDLIB, QUALIFIED) == []


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_fast_equals_reference_on_site_packages(chunk: int) -> None:
    files = sample(SITE_FILES, 800, "site-packages")[chunk::CHUNKS]
    assert disagreements(files, SITE, PLAIN + QUALIFIED[:3]) == []


#: names that star imports in the standard library bring in, and are used after them
STAR_NAMES = frozenset({"Error", "join", "sep", "TclError", "END", "LEFT", "c_int", "N", "E"})
STAR_IMPORT = re.compile(r"^[ \t]*from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]+\*", re.M)


@pytest.mark.slow
def test_fast_equals_reference_on_star_imports_of_the_standard_library() -> None:
    """Every standard-library file that star-imports, each star module binding ``STAR_NAMES``."""
    out: list[str] = []
    compared = 0
    for path in STDLIB_FILES:
        data = path.read_bytes()
        modules = {m.lstrip(".") for m in STAR_IMPORT.findall(data.decode("latin-1"))} - {""}
        if not modules:
            continue
        rel = path.relative_to(STDLIB).as_posix()
        stars = {module: STAR_NAMES for module in modules}
        parsed = [parse_pattern(f"{m}.{n}") for m in sorted(modules) for n in sorted(STAR_NAMES)]
        reference = analyze_reference(rel, data, parsed, stars=stars)
        if reference.problem and "not valid Python" in reference.problem:
            continue  # see the module docstring
        compared += 1
        fast = analyze_fast(rel, data, parsed, stars=stars)
        if (fast.problem, placed(fast.findings)) != (reference.problem, placed(reference.findings)):
            out.append(rel)
    assert compared >= 20
    assert out == []
