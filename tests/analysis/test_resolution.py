"""Resolving names through imports: the ``ast`` fast path against astroid's lookup.

Most imported names are bound once, by imports of one target, and by nothing
else; :func:`resolve_qualified` resolves those from the ``ast`` and leaves
every other name to astroid.  astroid is the reference: on real code, every
use it resolves is resolved to the same names by the fast path.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path
from typing import Any

import pytest

from pytest_cleantree.analysis import analyze, decode_python, module_name_for
from pytest_cleantree.analysis.astroid_names import astroid_resolve
from pytest_cleantree.analysis.resolve import (
    _NameBindings,
    import_bound_names,
    resolve_qualified,
)
from pytest_cleantree.analysis.text import PatternSet
from pytest_cleantree.core.patterns import parse_pattern

STDLIB = Path(ast.__file__).parent
#: real code nobody here wrote: a third of the standard library's top-level modules, and packages
REAL_FILES = sorted(STDLIB.glob("[a-h]*.py")) + sorted((STDLIB / "email").glob("*.py"))
QUALIFIED = (
    "os.path.join",
    "sys.exit",
    "sys.stderr",
    "warnings.warn",
    "re.compile",
    "subprocess.Popen",
    "typing.Any",
    "collections.abc.Mapping",
    "functools.partial",
    "email.utils",
    "io.StringIO",
)


Resolved = dict[Any, tuple[str, ...]]


def resolve_both(text: str, path: str) -> tuple[Resolved, Resolved]:
    tree = ast.parse(text)
    module, is_package = module_name_for(path), path.endswith("__init__.py")
    patterns = PatternSet.of([parse_pattern(q) for q in QUALIFIED])
    fast = resolve_qualified(text, tree, module, patterns, is_package=is_package)
    names = import_bound_names(tree, module=module, is_package=is_package, wanted=QUALIFIED)
    reference = astroid_resolve(text, tree, module, names, is_package=is_package)
    return dict(fast), dict(reference)


def stored_attributes(text: str) -> set[tuple[object, ...]]:
    """Keys of attributes that are assigned or deleted (``sys.stderr = x``)."""
    return {
        ("Attribute", n.lineno, n.col_offset, n.end_lineno, n.end_col_offset)
        for n in ast.walk(ast.parse(text))
        if isinstance(n, ast.Attribute) and not isinstance(n.ctx, ast.Load)
    }


@pytest.mark.slow
@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: str(p.relative_to(STDLIB)))
def test_fast_path_agrees_with_astroid_on_real_code(path: Path) -> None:
    text = decode_python(path.read_bytes())
    rel = str(path.relative_to(STDLIB))
    fast, reference = resolve_both(text, rel)
    for key, names in reference.items():
        assert set(fast.get(key, ())) == set(names), (rel, key)
    # astroid's lookup stops at assignment targets; the fast path also resolves
    # ``sys.stderr = x`` (an assignment to the qualified name), and nothing else
    assert set(fast) - set(reference) <= stored_attributes(text)


def resolved_lines(source: str, pattern: str) -> dict[int, tuple[str, ...]]:
    text = textwrap.dedent(source)
    resolved = resolve_qualified(
        text, ast.parse(text), "pkg.mod", PatternSet.of([parse_pattern(pattern)]), is_package=False
    )
    return {line: names for (kind, line, *_), names in resolved.items() if kind == "Name"}


def test_module_import_is_seen_everywhere_after_it_and_in_every_function() -> None:
    source = """\
        before = Popen
        from subprocess import Popen
        def f():
            return Popen
        class C:
            attr = Popen
        after = [Popen for _ in ()]
        """
    assert resolved_lines(source, "subprocess.Popen") == {
        4: ("subprocess.Popen",),
        6: ("subprocess.Popen",),
        7: ("subprocess.Popen",),
    }


def test_function_import_is_seen_in_its_function_and_nested_ones_only() -> None:
    source = """\
        def f():
            early = warn
            from warnings import warn
            def inner():
                return warn
            return warn
        def g():
            return warn
        """
    assert resolved_lines(source, "warnings.warn") == {
        5: ("warnings.warn",),
        6: ("warnings.warn",),
    }


LOOPS = """\
    def f():
        for _ in range(2):
            early = warn
            from warnings import warn
        outside = warn
    while True:
        top = w()
        if ready:
            from warnings import warn as w
        break
    def g():
        first = warn
        for _ in range(2):
            from warnings import warn
    """


@pytest.mark.parametrize("rebound", ["", "warn = None\n"], ids=["fast", "astroid"])
def test_an_import_after_its_use_in_a_loop_is_seen_by_the_use(rebound: str) -> None:
    """The loop's next turn runs the use after the import (issue 48); outside a loop it does not."""
    expected = {3: ("warnings.warn",), 5: ("warnings.warn",), 7: ("warnings.warn",)}
    shift = rebound.count("\n")
    found = resolved_lines(rebound + textwrap.dedent(LOOPS), "warnings.warn")
    assert found == {line + shift: names for line, names in expected.items()}


def test_an_import_into_a_nonlocal_name_binds_it_in_the_function_that_owns_it() -> None:
    source = """\
        def outer():
            m = None
            def inner():
                nonlocal m
                import os.path as m
            inner()
            return m.join
        """
    assert resolved_lines(source, "os.path.join") == {7: ("os.path",)}


def test_rebound_names_are_left_to_astroid_which_follows_the_rebinding() -> None:
    source = """\
        from subprocess import Popen
        Popen()
        Popen = None
        Popen()
        """
    assert resolved_lines(source, "subprocess.Popen") == {2: ("subprocess.Popen",)}


def test_two_targets_for_one_name_are_left_to_astroid() -> None:
    source = """\
        try:
            from json import loads
        except ImportError:
            from simplejson import loads
        loads("")
        """
    assert resolved_lines(source, "json.loads") == {5: ("json.loads", "simplejson.loads")}


def test_a_class_body_import_is_left_to_astroid() -> None:
    source = """\
        class C:
            from os import path
            here = path
            def m(self):
                return path
        """
    assert resolved_lines(source, "os.path") == {3: ("os.path",)}


def test_import_of_a_submodule_binds_the_package_for_the_package_names() -> None:
    source = """\
        import os.path
        os.getcwd()
        """
    assert resolved_lines(source, "os.getcwd") == {2: ("os",)}


def test_an_assignment_to_a_qualified_attribute_is_an_occurrence() -> None:
    data = b"import sys\nsys.stderr = None\nprint(sys.stderr)\n"
    analysis = analyze("m.py", data, [parse_pattern("sys.stderr")])
    assert {(f.occurrence.line, f.occurrence.kind.value) for f in analysis.findings} == {
        (2, "assignment"),
        (3, "reference"),
    }


@pytest.mark.parametrize(
    "binding",
    [
        "try:\n    pass\nexcept ValueError as Popen:\n    pass",
        "match x:\n    case [*Popen]:\n        pass",
        "match x:\n    case {**Popen}:\n        pass",
        "match x:\n    case Popen:\n        pass",
        "def f(Popen):\n    pass",
        "for Popen in ():\n    pass",
        "del Popen",
    ],
)
def test_any_other_binding_leaves_the_name_to_astroid(binding: str) -> None:
    source = f"from subprocess import Popen\n{binding}\ndef g():\n    return Popen\n"
    tree = ast.parse(source)
    patterns = PatternSet.of([parse_pattern("subprocess.Popen")])
    bindings = _NameBindings(
        {"Popen"}, "m", list(range(1, source.count("\n") + 2)), is_package=False
    )
    bindings.visit(tree)
    assert bindings.simple == set()
    # and the answer is astroid's, which follows the rebinding
    resolved = resolve_qualified(source, tree, "m", patterns, is_package=False)
    assert resolved == astroid_resolve(source, tree, "m", {"Popen"}, is_package=False)
