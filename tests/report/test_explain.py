"""``report/explain.py`` called directly: the text ``cleantree explain`` prints."""

from __future__ import annotations

from pytest_cleantree.names.spellings import Explanation
from pytest_cleantree.report.explain import render_explanation


def test_a_defined_name_shows_its_target_place_and_spellings_aligned() -> None:
    explained = Explanation(
        "pkg.run",
        "pkg.core.run",
        ("pkg/core.py", 12),
        (),
        (("pkg.run", "pkg/__init__.py", 3), ("pkg.core.run", "pkg/core.py", 0)),
    )
    assert render_explanation(explained) == (
        "pkg.run -> pkg.core.run  defined at pkg/core.py:12\n"
        "  pkg.run       pkg/__init__.py:3\n"
        "  pkg.core.run  pkg/core.py"
    )


def test_the_root_prefixes_every_path() -> None:
    explained = Explanation(
        "pkg.run",
        "pkg.core.run",
        ("pkg/core.py", 12),
        (("pkg.other.run", ("pkg/other.py", 4)),),
        (("run", "pkg/core.py", 1),),
    )
    assert render_explanation(explained, root="/src") == (
        "pkg.run -> pkg.core.run  defined at /src/pkg/core.py:12\n"
        "  or -> pkg.other.run  defined at /src/pkg/other.py:4 (another binding may lead there)\n"
        "  run  /src/pkg/core.py:1"
    )


def test_a_module_is_shown_without_a_line() -> None:
    explained = Explanation("pkg.core", "pkg.core", ("pkg/core.py", 0), (), ())
    assert render_explanation(explained) == "pkg.core -> pkg.core  defined at pkg/core.py"
    assert render_explanation(explained, "r") == "pkg.core -> pkg.core  defined at r/pkg/core.py"


def test_an_undefined_name_says_how_far_it_was_followed_and_its_other_targets() -> None:
    explained = Explanation(
        "ext.run",
        "ext.lib.run",
        None,
        (("ext.a.run", None), ("ext.b.run", ("ext/b.py", 0))),
        (),
    )
    assert render_explanation(explained) == (
        "ext.run: not defined in the tree; followed as far as ext.lib.run\n"
        "  or -> ext.a.run  not defined in the tree (another binding may lead there)\n"
        "  or -> ext.b.run  defined at ext/b.py (another binding may lead there)"
    )
