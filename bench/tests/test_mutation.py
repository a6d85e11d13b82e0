"""bench/mutation.py's pure parts: the uncached copy, mutant names, and the equivalent list."""

from __future__ import annotations

import ast
from pathlib import Path

from mutation import (
    TARGETS,
    Mutant,
    Target,
    changed_lines,
    load_equivalent,
    match_equivalent,
    mutant_function,
    strip_cache_decorators,
)

REPO = Path(__file__).resolve().parents[2]


def test_the_cache_decorators_are_taken_off_and_nothing_else() -> None:
    source = (
        "import functools\n"
        "@functools.lru_cache(maxsize=4)\n"
        "def a(x):\n    return x\n"
        "@functools.cache\n"
        "def b(x):\n    return x\n"
        "@staticmethod\n"
        "def c(x):\n    return x\n"
        "@functools.lru_cache(\n    maxsize=8,\n)\n"
        "def d(x):\n    return x\n"
    )
    stripped = strip_cache_decorators(source)
    assert stripped == (
        "import functools\n"
        "def a(x):\n    return x\n"
        "def b(x):\n    return x\n"
        "@staticmethod\n"
        "def c(x):\n    return x\n"
        "def d(x):\n    return x\n"
    )
    ast.parse(stripped)


def test_every_target_exists_with_its_tests() -> None:
    for target in TARGETS:
        assert (REPO / target.path).is_file(), target.path
        assert all((REPO / test).exists() for test in target.tests), target.tests
    assert len({target.name for target in TARGETS}) == len(TARGETS)


def test_mutant_names_and_changed_lines() -> None:
    assert mutant_function("pytest_cleantree.core.patterns.x__regex__mutmut_2") == "_regex"
    assert mutant_function("pkg.mod.xǁ_Parserǁ_rule__mutmut_6") == "_Parser._rule"
    diff = "--- a.py\n+++ a.py\n@@ -1 +1 @@\n-    x = 1\n+    x = 2\n y = 0"
    assert changed_lines(diff) == ("-x = 1", "+x = 2")


def test_an_equivalent_entry_matches_only_its_own_surviving_mutant() -> None:
    target = Target("m", "m.py", ())
    entries = [{"module": "m", "function": "f", "changed": ["-x = 1", "+x = 2"], "reason": "r"}]
    alive = Mutant("p.x_f__mutmut_1", "survived", "f", ("-x = 1", "+x = 2"))
    killed = Mutant("p.x_f__mutmut_2", "killed", "f", ("-x = 1", "+x = 2"))
    other = Mutant("p.x_g__mutmut_1", "survived", "g", ("-x = 1", "+x = 2"))
    assert match_equivalent(target, [alive, killed, other], entries) == {alive.name: "r"}


def test_the_equivalent_list_names_known_modules_and_gives_reasons() -> None:
    entries = load_equivalent()
    names = {target.name for target in TARGETS}
    for entry in entries:
        assert entry["module"] in names
        assert str(entry["reason"]).strip()
        assert [str(line)[0] for line in entry["changed"]][:1] == ["-"]  # type: ignore[attr-defined]
