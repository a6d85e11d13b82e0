"""Qualified names through imports, on source strings: every key the ``ast`` resolution gives.

:mod:`.test_resolution` holds the ``ast`` resolution to astroid's on real code; here each
rule of the scopes (who sees an import, from which line, in which loop) is stated on its own.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from pytest_cleantree.analysis.reader import Key
from pytest_cleantree.analysis.resolve import (
    _NameBindings,
    covering_of,
    covers_any,
    import_bound_names,
    import_bound_targets,
    module_name_for,
    on_path,
    resolve_qualified,
    resolve_reference,
)
from pytest_cleantree.analysis.text import PatternSet
from pytest_cleantree.core.patterns import parse_pattern


def _patterns(*patterns: str) -> PatternSet:
    return PatternSet.of([parse_pattern(p) for p in patterns])


def resolved(
    source: str,
    *patterns: str,
    module: str = "pkg.mod",
    is_package: bool = False,
    norm: str | None = None,
    names: set[str] | None = None,
) -> list[tuple[Key, tuple[str, ...]]]:
    text = textwrap.dedent(source)
    found = resolve_qualified(
        text,
        ast.parse(text),
        module,
        _patterns(*patterns),
        is_package=is_package,
        norm=norm,
        names=names,
    )
    return sorted(found.items())


@pytest.mark.parametrize(
    ("path", "module"),
    [
        ("a/b/__init__.py", "a.b"),
        ("a//b/c.py", "a.b.c"),
        ("a/b/c.pyi", "a.b.c"),
        ("a.b/c.py", "a.b.c"),
        ("a/b.c.py", "a.b.c"),
        ("a/__init__/b.py", "a.__init__.b"),
        ("__init__.py", ""),
        ("README", "README"),
        ("notes.txt", "notes.txt"),
    ],
)
def test_module_name_for(path: str, module: str) -> None:
    assert module_name_for(path) == module


def test_a_use_on_the_import_s_own_line_sees_it_and_attributes_follow_their_base() -> None:
    assert resolved("import os; os.getcwd()\n", "os.getcwd") == [
        (("Attribute", 1, 11, 1, 20), ("os.getcwd",)),
        (("Name", 1, 11, 1, 13), ("os",)),
    ]
    assert resolved("import os\nos.path.sep[0].x\n", "os.path.sep") == [
        (("Attribute", 2, 0, 2, 7), ("os.path",)),
        (("Attribute", 2, 0, 2, 11), ("os.path.sep",)),
        (("Name", 2, 0, 2, 2), ("os",)),
    ]


def test_two_imports_of_one_target_are_one_target() -> None:
    assert resolved("import os\nimport os.path\nos.sep\n", "os.sep") == [
        (("Attribute", 3, 0, 3, 6), ("os.sep",)),
        (("Name", 3, 0, 3, 2), ("os",)),
    ]


def test_relative_imports_resolve_from_the_module_or_the_package() -> None:
    source = "from . import sm\nsm.k()\n"
    assert resolved(source, "pkg.sm.k") == [
        (("Attribute", 2, 0, 2, 4), (".pkg.sm.k",)),
        (("Name", 2, 0, 2, 2), (".pkg.sm",)),
    ]
    assert resolved(source, "pkg.sm.k", module="pkg", is_package=True) == [
        (("Attribute", 2, 0, 2, 4), (".pkg.sm.k",)),
        (("Name", 2, 0, 2, 2), (".pkg.sm",)),
    ]


def test_a_loop_from_its_first_to_its_last_line_lets_a_use_see_a_later_import() -> None:
    source = """\
        def f():
            while warn():
                from warnings import warn
            warn()
        """
    assert resolved(source, "warnings.warn") == [
        (("Name", 2, 10, 2, 14), ("warnings.warn",)),
        (("Name", 4, 4, 4, 8), ("warnings.warn",)),
    ]


def test_a_loop_that_holds_the_use_but_not_the_import_does_not() -> None:
    source = """\
        def f():
            x = 1
            while x:
                os.sep
                break
            import os
        def g():
            for _ in ():
                pass
            os.sep
            import os
        """
    assert resolved(source, "os.sep") == []


def test_a_comprehension_is_in_the_loops_of_its_function() -> None:
    source = """\
        def f():
            for x in [warn for _ in ()]:
                from warnings import warn
        def g():
            [warn for _ in ()]
            from warnings import warn
        """
    assert resolved(source, "warnings.warn") == [(("Name", 2, 14, 2, 18), ("warnings.warn",))]


def test_a_nested_function_sees_its_function_s_import_whatever_the_lines() -> None:
    source = """\
        def f():
            while 1:
                import os
            def g():
                os.sep
        """
    assert resolved(source, "os.sep") == [
        (("Attribute", 5, 8, 5, 14), ("os.sep",)),
        (("Name", 5, 8, 5, 10), ("os",)),
    ]


def test_a_class_body_sees_its_function_s_import_and_its_methods_do_too() -> None:
    source = """\
        def f():
            import os
            class C:
                x = os.sep
                def m(self):
                    return os.sep
        """
    assert resolved(source, "os.sep") == [
        (("Attribute", 4, 12, 4, 18), ("os.sep",)),
        (("Attribute", 6, 19, 6, 25), ("os.sep",)),
        (("Name", 4, 12, 4, 14), ("os",)),
        (("Name", 6, 19, 6, 21), ("os",)),
    ]


def test_an_import_in_a_class_body_and_in_a_method_is_astroid_s() -> None:
    source = """\
        class C:
            import os
            def m(self):
                import os
                return os.getcwd()
        """
    assert resolved(source, "os.getcwd") == [
        (("Attribute", 5, 15, 5, 24), ("os.getcwd",)),
        (("Name", 5, 15, 5, 17), ("os",)),
    ]


def test_a_rebinding_is_followed() -> None:
    assert resolved("import os\nos = 1\nos.getcwd()\n", "os.getcwd") == []


def test_only_the_lines_that_spell_a_name_are_walked() -> None:
    source = "import os\nprint(1)\n\n\nos.sep\n"
    assert resolved(source, "os.sep") == [
        (("Attribute", 5, 0, 5, 6), ("os.sep",)),
        (("Name", 5, 0, 5, 2), ("os",)),
    ]
    # the lines are the normalised text's when it is given (the use's line spells nothing)
    assert resolved(source, "os.sep", norm="import os\n\n\n\n\n") == []


def test_names_given_are_the_names_resolved() -> None:
    source = "import os\nos.getcwd()\nimport re\nre.x\n"
    assert resolved(source, "os.getcwd", names={"re"}) == [
        (("Attribute", 4, 0, 4, 4), ("re.x",)),
        (("Name", 4, 0, 4, 2), ("re",)),
    ]
    assert resolved(source, "os.getcwd", names=set()) == []
    assert resolved(source, "sys.exit") == []


def test_the_reference_resolves_with_astroid_alone() -> None:
    text = "import os\nos.getcwd()\n"
    tree = ast.parse(text)
    found = resolve_reference(text, tree, "pkg.mod", _patterns("os.getcwd"), is_package=False)
    assert sorted(found.items()) == [
        (("Attribute", 2, 0, 2, 9), ("os.getcwd",)),
        (("Name", 2, 0, 2, 2), ("os",)),
    ]
    assert resolve_reference(text, tree, "pkg.mod", _patterns("sys.exit"), is_package=False) == {}


IMPORTS = ast.parse(
    "import os.path\nfrom . import sm\nfrom .x import y as z\nimport json\n"
    "if a:\n    import re\ndef f():\n    import sys\n"
)


def test_import_bound_targets_on_a_wanted_name_s_path() -> None:
    wanted = ("os.path.join", "pkg.x.y", "re.compile", "sys")
    bound = import_bound_targets(IMPORTS, module="pkg.mod", is_package=False, wanted=wanted)
    assert bound == {
        "os": {"os"},
        "sm": {".pkg.sm"},
        "z": {".pkg.x.y"},
        "re": {"re"},
        "sys": {"sys"},
    }
    names = import_bound_names(IMPORTS, module="pkg.mod", is_package=False, wanted=wanted)
    assert names == {"os", "sm", "z", "re", "sys"}


def test_import_bound_targets_covering_a_wanted_name() -> None:
    wanted = ("os.path.join", "pkg.x", "os")
    kwargs = {"module": "pkg.mod", "is_package": False, "wanted": wanted}
    assert import_bound_targets(IMPORTS, covering=True, **kwargs) == {  # type: ignore[arg-type]
        "os": {"os"},
        "z": {".pkg.x.y"},
    }
    assert import_bound_names(IMPORTS, covering=True, **kwargs) == {"os", "z"}  # type: ignore[arg-type]
    # a relative target (known in part) is on the path when it shares a part with one
    assert import_bound_targets(IMPORTS, module="pkg", is_package=True, wanted=("pkg.x.y",)) == {
        "sm": {".pkg.sm"},
        "z": {".pkg.x.y"},
    }
    assert import_bound_targets(IMPORTS, module="q", is_package=True, wanted=("pkg.x.y",)) == {
        "z": {".q.x.y"},
    }


def test_covers_any_and_on_path() -> None:
    wanted = ("os.path.join", "pkg.x")
    assert [
        covers_any(name, wanted)
        for name in ("os.path.join", "os.path.join.x", "os.path", "pkg.x.y", ".pkg.x", "pkg.xy")
    ] == [True, True, False, True, True, False]
    assert [
        on_path(name, wanted) for name in ("os.path", "os", "pkg.x.y", "osx", "sys", ".pkg")
    ] == [True, True, True, False, False, True]


def test_covering_of_tables_a_tuple_once_and_answers_for_each() -> None:
    wanted = ("os.path.join",)
    assert covering_of(wanted) is covering_of(wanted)
    other = tuple(["os.path.join"])
    assert covering_of(other) is not covering_of(wanted) or other is wanted
    many = [(f"m{i}.f",) for i in range(40)]
    tables = [covering_of(w) for w in many]
    assert [t.covers_any(f"m{i}.f") for i, t in enumerate(tables)] == [True] * 40
    assert [covering_of(w).covers_any("m0.f") for w in many[:2]] == [True, False]


def test_which_names_are_resolved_depends_on_the_module_and_whether_it_is_a_package() -> None:
    # ``from . import x`` is ``.pkg.x`` in the module pkg.mod, ``.pkg.mod.x`` in the package
    source = "from . import x\nx.y()\n"
    assert resolved(source, "pkg.y") == [
        (("Attribute", 2, 0, 2, 3), (".pkg.x.y",)),
        (("Name", 2, 0, 2, 1), (".pkg.x",)),
    ]
    assert resolved(source, "mod.y", is_package=True) == [
        (("Attribute", 2, 0, 2, 3), (".pkg.mod.x.y",)),
        (("Name", 2, 0, 2, 1), (".pkg.mod.x",)),
    ]
    assert resolved(source, "mod.y") == []
    tree = ast.parse(source)
    assert sorted(
        resolve_reference(source, tree, "pkg.mod", _patterns("mod.y"), is_package=True).items()
    ) == [
        (("Attribute", 2, 0, 2, 3), (".pkg.mod.x.y",)),
        (("Name", 2, 0, 2, 1), (".pkg.mod.x",)),
    ]
    assert resolve_reference(source, tree, "pkg.mod", _patterns("mod.y"), is_package=False) == {}
    assert sorted(
        resolve_reference(source, tree, "pkg.mod", _patterns("pkg.y"), is_package=False).items()
    ) == [
        (("Attribute", 2, 0, 2, 3), (".pkg.x.y",)),
        (("Name", 2, 0, 2, 1), (".pkg.x",)),
    ]


def test_a_rebound_name_is_resolved_by_astroid_from_the_module_and_the_package() -> None:
    source = "from . import x\nx()\nx = 1\n"
    assert resolved(source, "pkg.x") == [(("Name", 2, 0, 2, 1), (".pkg.x",))]
    assert resolved(source, "mod.x", is_package=True) == [(("Name", 2, 0, 2, 1), (".pkg.mod.x",))]


@pytest.mark.parametrize(
    ("source", "names", "simple"),
    [
        ("import a\na = 1\nimport os\n", {"a", "os"}, {"os"}),  # each binding is noted
        ("class C:\n    import os\n", {"os"}, set()),  # a class body's import: astroid's
        ("def f():\n    import os\n", {"os"}, {"os"}),
    ],
)
def test_the_simple_names_are_those_only_imports_bind_outside_classes(
    source: str, names: set[str], simple: set[str]
) -> None:
    bindings = _NameBindings(names, "m", list(range(1, 10)), is_package=False)
    bindings.visit(ast.parse(source))
    assert bindings.simple == simple


def test_import_bound_names_of_a_package_s_relative_import() -> None:
    tree = ast.parse("from .x import y as z\n")
    wanted = ("p.q.x.y",)
    assert import_bound_names(
        tree, module="p.q", is_package=True, wanted=wanted, covering=True
    ) == {"z"}
    assert (
        import_bound_names(tree, module="p.q", is_package=False, wanted=wanted, covering=True)
        == set()
    )
