"""bench/mutation.py's pure parts: the uncached copy, mutant names, and the equivalent list."""

from __future__ import annotations

import ast
from pathlib import Path

from mutation import (
    OUTSIDE,
    TARGETS,
    Mutant,
    Target,
    changed_lines,
    fingerprint,
    load_equivalent,
    match_equivalent,
    mutant_function,
    mutmut_config,
    sha256_of,
    stale_rows,
    strip_cache_decorators,
    timed_out,
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


def test_every_module_of_the_package_is_a_target_or_says_why_not() -> None:
    package = REPO / "pytest_cleantree"
    modules = {
        path.relative_to(REPO).as_posix()
        for path in package.rglob("*.py")
        if "examples" not in path.relative_to(package).parts
    }
    targets = {target.path for target in TARGETS}
    assert not targets & set(OUTSIDE)
    assert modules == targets | set(OUTSIDE)
    assert all(reason.strip() for reason in OUTSIDE.values())


def test_mutant_names_and_changed_lines() -> None:
    assert mutant_function("pytest_cleantree.core.patterns.x__regex__mutmut_2") == "_regex"
    assert mutant_function("pkg.mod.xǁ_Parserǁ_rule__mutmut_6") == "_Parser._rule"
    diff = "--- a.py\n+++ a.py\n@@ -1 +1 @@\n-    x = 1\n+    x = 2\n y = 0"
    assert changed_lines(diff) == ("-x = 1", "+x = 2")


def test_a_run_where_many_mutants_timed_out_is_not_trusted() -> None:
    def run(timeouts: int, others: int) -> list[Mutant]:
        return [Mutant(f"m{i}", "timeout", "f", ()) for i in range(timeouts)] + [
            Mutant(f"k{i}", "killed", "f", ()) for i in range(others)
        ]

    assert timed_out(run(1, 4)) == ""  # one in five: a loop mutmut stopped
    assert timed_out(run(2, 8)) == ""
    assert timed_out([]) == ""
    assert timed_out(run(3, 9)) == (
        "3 of 12 mutants timed out (a timeout counts as a kill): the machine was too "
        "loaded to measure, or the fork server could not run the tests (mutmut counts its "
        "exit 4 as a timeout)"
    )
    assert timed_out(run(385, 0)).startswith("385 of 385 mutants timed out")
    assert "timeout_constant = 3.0\n" in mutmut_config(Target("m", "m.py", ("t.py",)))


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


def _tree(root: Path) -> Target:
    (root / "pkg").mkdir()
    (root / "pkg" / "m.py").write_text("def f():\n    return 1\n")
    (root / "tests" / "m").mkdir(parents=True)
    (root / "tests" / "test_m.py").write_text("def test_f(): ...\n")
    (root / "tests" / "m" / "test_a.py").write_text("a = 1\n")
    (root / "tests" / "m" / "test_b.py").write_text("b = 1\n")
    return Target("m", "pkg/m.py", ("tests/test_m.py", "tests/m"))


def _measured(target: Target, root: Path) -> dict[str, dict[str, object]]:
    row = {"commit": "c0ffee" * 6, "error": "", "sha256": fingerprint(target, root)}
    return {target.name: row}


def test_a_row_is_fresh_while_its_module_and_tests_are_unchanged(tmp_path: Path) -> None:
    target = _tree(tmp_path)
    record = _measured(target, tmp_path)
    (tmp_path / "pkg" / "other.py").write_text("x = 2\n")  # not the module, not its tests
    assert stale_rows(record, [target], tmp_path) == []


def test_a_row_whose_module_changed_is_stale(tmp_path: Path) -> None:
    target = _tree(tmp_path)
    record = _measured(target, tmp_path)
    (tmp_path / "pkg" / "m.py").write_text("def f():\n    return 2\n")
    assert stale_rows(record, [target], tmp_path) == [("m", "module changed since c0ffeec0ffee")]


def test_a_changed_test_file_makes_the_row_stale(tmp_path: Path) -> None:
    target = _tree(tmp_path)
    record = _measured(target, tmp_path)
    (tmp_path / "tests" / "test_m.py").write_text("def test_f(): assert False\n")
    assert stale_rows(record, [target], tmp_path) == [
        ("m", "tests changed: tests/test_m.py since c0ffeec0ffee")
    ]


def test_a_file_added_to_a_folder_of_tests_makes_the_row_stale(tmp_path: Path) -> None:
    target = _tree(tmp_path)
    record = _measured(target, tmp_path)
    (tmp_path / "tests" / "m" / "__pycache__").mkdir()
    (tmp_path / "tests" / "m" / "__pycache__" / "test_a.pyc").write_bytes(b"\0")
    assert stale_rows(record, [target], tmp_path) == []  # a byte-code cache is no test
    (tmp_path / "tests" / "m" / "test_c.py").write_text("c = 1\n")
    assert stale_rows(record, [target], tmp_path) == [
        ("m", "tests changed: tests/m since c0ffeec0ffee")
    ]


def test_a_folder_hash_covers_names_and_contents_in_sorted_order(tmp_path: Path) -> None:
    _tree(tmp_path)
    before = sha256_of(tmp_path, "tests/m")
    (tmp_path / "tests" / "m" / "test_a.py").write_text("b = 1\n")
    (tmp_path / "tests" / "m" / "test_b.py").write_text("a = 1\n")
    assert sha256_of(tmp_path, "tests/m") != before  # the same contents, swapped between names
    assert sha256_of(tmp_path, "pkg/m.py") == (
        "5b76d0962c09ab4ee309fac65fad3568c97abdec983b405146ae3e86a235e352"  # sha256sum
    )


def test_never_measured_without_tests_failed_or_unhashed_rows_are_listed(tmp_path: Path) -> None:
    target = _tree(tmp_path)
    untested = Target("u", "pkg/m.py", ())
    failed = Target("f", "pkg/m.py", ("tests/test_m.py",))
    old = Target("o", "pkg/m.py", ("tests/test_m.py",))
    record: dict[str, dict[str, object]] = {
        "u": {"commit": "1" * 40, "error": ""},
        "f": {"commit": "2" * 40, "error": "mutmut exited 1: boom"},
        "o": {"commit": "3" * 40, "error": ""},
    }
    assert stale_rows(record, [target, untested, failed, old], tmp_path) == [
        ("m", "never measured"),
        ("u", "no direct tests"),
        ("f", "its last run failed: mutmut exited 1: boom"),
        ("o", "measured at 333333333333 without hashes"),
    ]


def test_other_direct_tests_than_were_run_make_the_row_stale(tmp_path: Path) -> None:
    target = _tree(tmp_path)
    record = _measured(target, tmp_path)
    fewer = Target("m", "pkg/m.py", ("tests/test_m.py",))
    assert stale_rows(record, [fewer], tmp_path) == [("m", "other direct tests since c0ffeec0ffee")]
