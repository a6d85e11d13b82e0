"""``core/errors.py`` called directly: a manifest error names its source and every problem."""

from __future__ import annotations

from pytest_cleantree.core.errors import CleanTreeError, ManifestError, SourceError


def test_one_problem_is_one_line_after_the_source() -> None:
    error = ManifestError("cleantree.toml", ["rule 1 (line 1): files: must be an array"])
    assert str(error) == "cleantree.toml: rule 1 (line 1): files: must be an array"
    assert error.render() == str(error)
    assert error.source == "cleantree.toml"
    assert error.problems == ("rule 1 (line 1): files: must be an array",)


def test_several_problems_are_counted_then_listed_each_on_its_line() -> None:
    error = ManifestError("m.toml", (problem for problem in ["first", "second", "third"]))
    assert error.problems == ("first", "second", "third")
    assert str(error) == "m.toml: 3 problems\n  - first\n  - second\n  - third"


def test_the_two_families_are_apart_under_one_base() -> None:
    assert isinstance(ManifestError("m", ["x"]), CleanTreeError)
    assert isinstance(SourceError("a.py: gone"), CleanTreeError)
    assert not isinstance(SourceError("a.py: gone"), ManifestError)
    assert not isinstance(ManifestError("m", ["x"]), SourceError)
    assert str(SourceError("a.py: gone")) == "a.py: gone"
