"""``names/existence.py`` stated directly: what a qualified pattern's module part names."""

from __future__ import annotations

import pytest

from pytest_cleantree.names.existence import Standing, pattern_standing, standings, tree_packages
from pytest_cleantree.names.exports import parse_module_exports
from pytest_cleantree.names.symbol_graph import ExportMap

SOURCES = {
    "pkg": ("from .lazy import *\n", True),
    "pkg.srt": ("from . import utils as util_alias\nclass Kept:\n    pass\n", True),
    "pkg.srt.utils": ("", True),
    "pkg.srt.utils.common": ("def f():\n    pass\n", False),
    "pkg.dyn": ("def __getattr__(name):\n    return name\n", True),
    "pkg.lazy": ("from somewhere_else import *\n", False),
}
MODULES = [*SOURCES, "pkg.ns.deep.mod"]  # pkg/ns/ and pkg/ns/deep/ hold no __init__.py


def emap() -> ExportMap:
    parsed = {
        name: parse_module_exports(name, text, is_package=package)
        for name, (text, package) in SOURCES.items()
    }
    return ExportMap(parsed, namespace_packages=["pkg.ns", "pkg.ns.deep"])


@pytest.mark.parametrize(
    ("pattern", "missing"),
    [
        # the module part names no module: the part after the deepest package is unbound
        ("pkg.srt.util.common.f", "pkg.srt.util"),
        ("pkg.srt.utils.comon.f", "pkg.srt.utils.comon"),
        ("pkg.ns.gone.f", "pkg.ns.gone"),  # a namespace package binds only its sub-modules
        # a name the package binds, a module's attribute, a removed last name: no error
        ("pkg.srt.util_alias.common.f", ""),
        ("pkg.srt.Kept.method", ""),
        ("pkg.srt.utils.common.gone", ""),
        ("pkg.srt.utils.common.Gone.method", ""),
        ("pkg.srt.gone", ""),
        ("pkg.ns.deep.mod.f", ""),
        # a package that may bind anything: __getattr__, a star import not followed
        ("pkg.dyn.anything.f", ""),
        ("pkg.anything.f", ""),
    ],
)
def test_a_module_part_names_a_module_or_is_missing(pattern: str, missing: str) -> None:
    found = standings([pattern], MODULES, emap())[pattern]
    assert (found.where, found.missing) == ("tree", missing)


def test_the_nearest_modules_are_offered() -> None:
    found = standings(["pkg.srt.util.common.f"], MODULES, emap())["pkg.srt.util.common.f"]
    assert found.near == ("pkg.srt.utils.common", "pkg.srt.utils")
    assert found.message("p.x") == (
        "'p.x' names no module: there is no module pkg.srt.util in the tree "
        "(did you mean pkg.srt.utils.common, pkg.srt.utils?); set missing_ok = true to allow"
    )
    assert found.note("p.x") == found.message("p.x")


def test_a_module_of_the_tree_not_read_binds_what_it_may() -> None:
    known = tree_packages(["pkg.unread", "pkg.unread.sub"])
    files = frozenset({"pkg.unread"})
    assert pattern_standing("pkg.unread.x.y", known, files, ExportMap({})).missing == ""


def test_tree_packages_are_every_module_and_package_above_one() -> None:
    assert tree_packages(["a.b.c", "d"]) == {"a", "a.b", "a.b.c", "d"}


def test_an_installed_package_is_walked_on_disk_without_importing_it() -> None:
    assert standings(["xml.etre.ElementTree.parse"], [], ExportMap({}))[
        "xml.etre.ElementTree.parse"
    ] == Standing("environment", "xml.etre", ("xml.etree",))
    # a package's __init__ that binds nothing of the name: read, not run
    assert standings(["json.x.y"], [], ExportMap({}))["json.x.y"].missing == "json.x"
    fines = ("xml.etree.ElementTree.parse", "xml.etree.gone", "os.path.joinn.x", "json.decoder.x.y")
    for fine in fines:
        assert standings([fine], [], ExportMap({}))[fine].missing == "", fine


def test_a_package_neither_in_the_tree_nor_installed_is_matched_as_spelt() -> None:
    found = standings(["cleantree_no_such_lib.ops.f"], [], ExportMap({}))
    assert found["cleantree_no_such_lib.ops.f"] == Standing("outside")
    assert found["cleantree_no_such_lib.ops.f"].note("cleantree_no_such_lib.ops.f") == (
        "cleantree_no_such_lib is neither in the tree nor installed: "
        "cleantree_no_such_lib.ops.f is matched as spelt"
    )
    assert Standing("tree").note("pkg.x") == ""
