"""Exclusions, directly: which patterns are refused, how ``--exclude`` joins a manifest, and
which files each check's scope keeps (gitignore semantics, relative to the root)."""

from __future__ import annotations

import pytest

from pytest_cleantree.config.exclusions import (
    exclude_problem,
    scope_of,
    scope_paths,
    with_exclusions,
)
from pytest_cleantree.core.checks import Check
from pytest_cleantree.core.model import Manifest, Rule


@pytest.mark.parametrize(
    ("pattern", "problem"),
    [
        ("", "empty pattern"),
        ("   ", "empty pattern"),
        ("#x", "'#x' is a comment in gitignore syntax: write '\\#x' to match '#'"),
        ("\\#x", None),
        ("build/", None),
        (" x", None),
        ("a#b", None),
    ],
)
def test_exclude_problem(pattern: str, problem: str | None) -> None:
    assert exclude_problem(pattern) == problem


@pytest.mark.parametrize("pattern", ["!", "a\\"])
def test_exclude_problem_of_a_pattern_pathspec_refuses(pattern: str) -> None:
    # pathspec's own reason follows in parentheses, in pathspec's words
    problem = exclude_problem(pattern)
    assert problem is not None
    assert problem.startswith(f"'{pattern}' is not a valid gitignore pattern (")
    assert problem.endswith(")")


def _manifest() -> Manifest:
    rules = (
        Rule("a", ("x.py",), exclude=("gen/",)),
        Rule("b", ("y.py",)),
    )
    return Manifest("m.toml", ".", rules, exclude=("gen/",))


def test_with_exclusions_adds_the_patterns_to_every_rule_and_to_the_manifest() -> None:
    manifest = with_exclusions(_manifest(), ["*_pb2.py", "vendor/"])
    assert [rule.exclude for rule in manifest.rules] == [
        ("gen/", "*_pb2.py", "vendor/"),
        ("*_pb2.py", "vendor/"),
    ]
    assert manifest.exclude == ("gen/", "*_pb2.py", "vendor/")
    assert [rule.id for rule in manifest.rules] == ["a", "b"]
    assert (manifest.path, manifest.root) == ("m.toml", ".")


def test_with_no_exclusions_the_manifest_is_kept_as_it_is() -> None:
    manifest = _manifest()
    assert with_exclusions(manifest, []) is manifest


def test_with_exclusions_names_the_first_bad_pattern() -> None:
    with pytest.raises(ValueError, match=r"^'#a' is a comment in gitignore syntax"):
        with_exclusions(_manifest(), ["ok/", "#a", ""])
    with pytest.raises(ValueError, match=r"^empty pattern$"):
        with_exclusions(_manifest(), ["ok/", "", "#a"])


def test_scope_paths_takes_out_what_a_rule_excludes() -> None:
    kept = Rule("kept", ("**/*.py",))
    pruned = Rule("pruned", ("**/*.py",), exclude=("gen/", "*_pb2.py", "!keep_pb2.py"))
    expanded = {"**/*.py": ("a.py", "gen/b.py", "c/d_pb2.py", "keep_pb2.py", "c/gen/e.py")}
    scoped = scope_paths([Check(kept, "**/*.py"), Check(pruned, "**/*.py")], expanded)
    assert scoped == {
        ("**/*.py", ()): expanded["**/*.py"],
        ("**/*.py", pruned.exclude): ("a.py", "keep_pb2.py"),
    }
    # without exclusions the expansion's own tuple is shared, not copied
    assert scoped["**/*.py", ()] is expanded["**/*.py"]


def test_scope_paths_gives_each_scope_once_and_nothing_for_an_unexpanded_entry() -> None:
    one = Rule("one", ("a.py", "b/*.py"), exclude=("b/x.py",))
    two = Rule("two", ("b/*.py",), exclude=("b/x.py",))
    checks = [Check(one, "a.py"), Check(one, "b/*.py"), Check(two, "b/*.py"), Check(two, "z.py")]
    expanded = {"a.py": ("a.py",), "b/*.py": ("b/x.py", "b/y.py")}
    scoped = scope_paths(checks, expanded)
    assert list(scoped) == [
        ("a.py", ("b/x.py",)),
        ("b/*.py", ("b/x.py",)),
        ("z.py", ("b/x.py",)),
    ]
    assert scoped["b/*.py", ("b/x.py",)] == ("b/y.py",)
    assert scoped["a.py", ("b/x.py",)] == ("a.py",)
    assert scoped["z.py", ("b/x.py",)] == ()
    assert scope_of(checks[2]) == ("b/*.py", ("b/x.py",))


def test_scope_paths_of_an_empty_expansion_with_exclusions() -> None:
    rule = Rule("r", ("a/*.py",), exclude=("a/",))
    assert scope_paths([Check(rule, "a/*.py")], {"a/*.py": ()}) == {("a/*.py", ("a/",)): ()}
