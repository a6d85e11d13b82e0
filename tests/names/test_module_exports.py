"""One module's top-level records (``names/exports.py``) read from source strings: the star
binding, ``__all__`` spliced from several modules, the module's own name and kind."""

from __future__ import annotations

from pytest_cleantree.names.exports import (
    Binding,
    BindingKind,
    parse_module_exports,
)


def test_a_star_import_binds_the_star_from_its_module() -> None:
    exports = parse_module_exports("pkg.m", "x = 1\nfrom .other import *\n", is_package=False)
    star = Binding("*", BindingKind.STAR, 2, "pkg.other")
    assert exports.bindings == (Binding("x", BindingKind.DEFINITION, 1), star)
    assert exports.bound("*") == [star]
    assert exports.may_bind("y") == [star]


def test_the_module_keeps_its_name_and_kind() -> None:
    exports = parse_module_exports("pkg", "", is_package=True)
    assert (exports.name, exports.is_package) == ("pkg", True)
    exports = parse_module_exports("pkg.m", "", is_package=False)
    assert (exports.name, exports.is_package) == ("pkg.m", False)


def test_all_spliced_from_several_modules() -> None:
    text = (
        "from . import first, second\n"
        "__all__ = first.__all__ + ['own']\n"
        "__all__ += second.__all__\n"
    )
    exports = parse_module_exports("pkg", text, is_package=True)
    assert exports.all_from == ("first", "second")
    assert exports.all_names == ("own",)
