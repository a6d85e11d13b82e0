"""``report/explain.py`` called directly: the text ``cleantree explain`` prints."""

from __future__ import annotations

from pytest_cleantree.names.existence import Standing
from pytest_cleantree.names.explanation import Explanation
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


def test_the_module_its_standing_and_what_was_read_from_the_environment() -> None:
    explained = Explanation(
        "pkg.core.run",
        "pkg.core.run",
        ("pkg/core.py", 3),
        (),
        (),
        standing=Standing("outside"),
        module=("pkg.core", "pkg/core.py", ("src.pkg.core", "pkg.core2")),
        outside=(("os", "/usr/lib/os.py"), ("posixpath", "/usr/lib/posixpath.py")),
    )
    assert render_explanation(explained, root="r") == (
        "pkg.core.run -> pkg.core.run  defined at r/pkg/core.py:3\n"
        "  module pkg.core is r/pkg/core.py (also src.pkg.core, pkg.core2)\n"
        "  pkg is neither in the tree nor installed: pkg.core.run is matched as spelt\n"
        "  from the environment (not the tree): os, posixpath"
    )


def test_a_module_with_no_other_name_and_an_absolute_path() -> None:
    explained = Explanation(
        "pkg.run", "pkg.run", ("/abs/pkg/__init__.py", 0), (), (), module=("pkg", "/abs/x.py", ())
    )
    assert render_explanation(explained, root="r") == (
        "pkg.run -> pkg.run  defined at /abs/pkg/__init__.py\n  module pkg is /abs/x.py"
    )
