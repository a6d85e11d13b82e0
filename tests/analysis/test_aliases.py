"""Aliases made by assignment are occurrences of what they alias (issue 12, cause 6).

``join = os.path.join``, ``p = os.path``, ``TestCase = unittest.TestCase``:
the later uses of the alias, in its scope and the functions that see it, are
found on both engines, finding for finding, whatever the partial parse leaves out.
"""

from __future__ import annotations

import ast

import pytest

from pytest_cleantree.analysis import Finding, analyze, analyze_reference
from pytest_cleantree.analysis.aliases import AliasBinders, with_aliases
from pytest_cleantree.analysis.pieces import Followed
from pytest_cleantree.analysis.reader import Key, key_of
from pytest_cleantree.analysis.resolve import resolve_qualified
from pytest_cleantree.analysis.text import PatternSet
from pytest_cleantree.core.patterns import parse_pattern

FILLER = "".join(f"\n\ndef filler_{n}():\n    return {n}\n" for n in range(5))

CASES = [
    (
        "a-function-alias-used-in-a-function",
        "import os\n\njoin = os.path.join\n" + FILLER + "\n\ndef f(a):\n    return join(a)\n",
        "os.path.join",
        {3: {"reference"}, 27: {"call"}},
    ),
    (
        "a-module-alias-then-its-attribute",
        "import os\n\np = os.path\n" + FILLER + "\nz = p.join('a')\n",
        "os.path.join",
        {25: {"call"}},
    ),
    (
        "an-alias-of-an-alias-in-a-nested-function-no-line-spells-the-pattern",
        "import os as o\n\nj = o.path.join\n"
        + FILLER
        + "\n\ndef k():\n    q = j\n    return q('x')\n",
        "os.path.join",
        {3: {"reference"}, 27: {"reference"}, 28: {"call"}},
    ),
    (
        "a-class-alias-as-a-base",
        "import unittest\n\nTestCase = unittest.TestCase\n" + FILLER + "\n\nclass T(TestCase):\n"
        "    pass\n",
        "unittest.TestCase",
        {3: {"reference"}, 26: {"reference"}},
    ),
    (
        "a-function-scope-alias-seen-in-its-function-only",
        "import os\n\n\ndef f():\n    join = os.path.join\n    return join('a')\n\n\n"
        "def g():\n    return join('b')\n",
        "os.path.join",
        {5: {"reference"}, 6: {"call"}},
    ),
    (
        "a-function-rebinding-the-name-shadows-the-alias",
        "import os\n\njoin = os.path.join\n\n\ndef h(join):\n    return join('a')\n",
        "os.path.join",
        {3: {"reference"}},
    ),
    (
        "a-name-bound-twice-keeps-the-alias-flow-insensitively",
        "import os\n\nif os.name:\n    join = str\nelse:\n    join = os.path.join\nx = join('a')\n",
        "os.path.join",
        {6: {"reference"}, 7: {"call"}},
    ),
    (
        "an-aliased-import-then-an-alias-in-a-condition",
        "from os.path import join as pj\n\nok = pj\n" + FILLER + "\nif ok('a'):\n    pass\n",
        "os.path.join",
        {1: {"import"}, 3: {"reference"}, 25: {"condition"}},
    ),
    # a parameter's default is an alias inside its function (issue 37: ``_defaults``)
    (
        "a-parameter-default-alias-used-in-its-function",
        "import warnings\n" + FILLER + "\n\ndef f(x, _warn=warnings.warn):\n    _warn(x)\n",
        "warnings.warn",
        {24: {"reference"}, 25: {"call"}},
    ),
    (
        "defaults-belong-to-the-last-positional-parameters-positional-only-too",
        "import warnings\n\n\ndef f(a, b=warnings.warn, /, c=0, d=warnings.warn):\n"
        "    a()\n    b()\n    c()\n    d()\n",
        "warnings.warn",
        {4: {"reference"}, 6: {"call"}, 8: {"call"}},
    ),
    (
        "keyword-only-defaults-and-one-without-a-default",
        "import warnings\n\n\nasync def f(*, m, w=warnings.warn, n=None):\n"
        "    m()\n    w()\n    n()\n",
        "warnings.warn",
        {4: {"reference"}, 6: {"call"}},
    ),
    (
        "a-default-alias-is-not-seen-outside-its-function",
        "import warnings\n\n\ndef f(_warn=warnings.warn):\n    pass\n\n\n_warn('x')\n",
        "warnings.warn",
        {4: {"reference"}},
    ),
]


def kinds_by_line(findings: tuple[Finding, ...]) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for finding in findings:
        out.setdefault(finding.occurrence.line, set()).add(finding.occurrence.kind.value)
    return out


def placed(findings: tuple[Finding, ...]) -> list[tuple[object, ...]]:
    return sorted(
        (f.pattern, f.occurrence.line, f.occurrence.col, f.occurrence.kind.value) for f in findings
    )


@pytest.mark.parametrize(
    ("source", "pattern", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_the_uses_of_an_assignment_alias_are_found_by_both_engines(
    source: str, pattern: str, expected: dict[int, set[str]]
) -> None:
    patterns = [parse_pattern(pattern)]
    fast = analyze("pkg/mod.py", source.encode(), patterns)
    reference = analyze_reference("pkg/mod.py", source.encode(), patterns)

    assert (fast.problem, reference.problem) == (None, None)
    assert kinds_by_line(reference.findings) == expected
    assert placed(fast.findings) == placed(reference.findings)


# ---------------------------------------------------------------- with_aliases, directly
#
# The input is what import resolution makes of the file (``resolve_qualified``); the
# expectations below are what the aliases add to it, by (line, column, node kind).

Added = dict[tuple[int, int, str], tuple[str, ...]]


def aliased(
    source: str,
    *patterns: str,
    text: bool = True,
    wanted: bool = True,
    known: Added | None = None,
    module: str = "pkg.mod",
) -> Added:
    """What :func:`with_aliases` adds to the import resolution of ``source``.

    ``text``: whether it is given the source; ``wanted``: whether the qualified patterns;
    ``known``: uses resolved beforehand (as if by imports) besides the resolution's.
    """
    tree = ast.parse(source)
    compiled = PatternSet.of([parse_pattern(p) for p in patterns])
    resolved = resolve_qualified(source, tree, module, compiled, is_package=False)
    for (line, col, kind), targets in (known or {}).items():
        node = _node_at(tree, line, col, kind)
        resolved[key_of(node)] = targets
    before = dict(resolved)
    out = with_aliases(
        tree, resolved, source if text else None, compiled.qualified_bodies if wanted else None
    )
    assert resolved == before  # the input is left as it was
    return {(k[1], k[2], k[0]): v for k, v in out.items() if before.get(k) != v}


def _node_at(tree: ast.AST, line: int, col: int, kind: str) -> ast.Name | ast.Attribute:
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Name | ast.Attribute)
            and type(node).__name__ == kind
            and (node.lineno, node.col_offset) == (line, col)
        ):
            return node
    raise AssertionError(f"no {kind} at {line}:{col}")


BOTH = pytest.mark.parametrize("text", [True, False], ids=["with-text", "without-text"])


@BOTH
def test_an_alias_of_an_alias_of_an_alias_is_followed_to_the_end(text: bool) -> None:
    # each use of ``p`` is found in the first round, ``q`` in the second, ``r`` in the third:
    # the last use of each round adds nothing new, and the rounds must go on all the same
    source = "import os\np = os.path\nq = p\nr = q\nr.join('x')\np.join('y')\n"

    assert aliased(source, "os.path.join", text=text) == {
        (3, 4, "Name"): ("os.path",),
        (4, 4, "Name"): ("os.path",),
        (5, 0, "Name"): ("os.path",),
        (5, 0, "Attribute"): ("os.path.join",),
        (6, 0, "Name"): ("os.path",),
        (6, 0, "Attribute"): ("os.path.join",),
    }


@BOTH
def test_a_chain_of_plain_name_aliases_is_followed_to_the_end(text: bool) -> None:
    source = "import os\nj = os.path.join\nq = j\nr = q\nr('x')\nj('y')\n"

    assert aliased(source, "os.path.join", text=text) == {
        (3, 4, "Name"): ("os.path.join",),
        (4, 4, "Name"): ("os.path.join",),
        (5, 0, "Name"): ("os.path.join",),
        (6, 0, "Name"): ("os.path.join",),
    }


@BOTH
def test_an_alias_assigned_from_an_attribute_of_an_alias(text: bool) -> None:
    source = "import os\np = os.path\nj = p.join\nj('x')\n"

    assert aliased(source, "os.path.join", text=text) == {
        (3, 4, "Name"): ("os.path",),
        (3, 4, "Attribute"): ("os.path.join",),
        (4, 0, "Name"): ("os.path.join",),
    }


@BOTH
def test_an_annotated_assignment_makes_an_alias(text: bool) -> None:
    source = "import os\nfrom typing import Any\nj: Any = os.path.join\nj('x')\n"

    assert aliased(source, "os.path.join", text=text) == {(4, 0, "Name"): ("os.path.join",)}


@BOTH
def test_other_assignments_in_the_file_hide_no_use(text: bool) -> None:
    source = "import os\na = 1\nb = 2\nc = 3\nj = os.path.join\nj('x')\n"

    assert aliased(source, "os.path.join", text=text) == {(6, 0, "Name"): ("os.path.join",)}


def test_a_file_whose_every_spelling_of_an_alias_is_an_assignment_is_returned_as_is() -> None:
    source = "import os\nj = os.path.join\nj = os.path.join\nprint(os.sep)\n"
    tree = ast.parse(source)
    compiled = PatternSet.of([parse_pattern("os.path.join")])
    resolved = resolve_qualified(source, tree, "pkg.mod", compiled, is_package=False)

    assert with_aliases(tree, resolved, source, compiled.qualified_bodies) is resolved


def test_with_no_resolved_name_there_is_no_alias() -> None:
    tree = ast.parse("j = os.path.join\nj('x')\n")
    resolved: dict[Key, tuple[str, ...]] = {}

    assert with_aliases(tree, resolved, None, None) is resolved


@BOTH
def test_a_use_resolved_already_keeps_its_target_and_gains_the_alias(text: bool) -> None:
    source = "import os\nj = os.path.join\nj('x')\n"

    assert aliased(source, "os.path.join", text=text, known={(3, 0, "Name"): ("json.dumps",)}) == {
        (3, 0, "Name"): ("json.dumps", "os.path.join")
    }


@BOTH
def test_a_shadowed_use_before_the_alias_hides_none_after_it(text: bool) -> None:
    source = (
        "import os\n\n\ndef h(join):\n    return join('a')\n\n\njoin = os.path.join\njoin('b')\n"
    )

    assert aliased(source, "os.path.join", text=text) == {(9, 0, "Name"): ("os.path.join",)}


@BOTH
def test_an_alias_of_something_inside_a_pattern_is_no_use_of_the_pattern(text: bool) -> None:
    # ``mode`` is a value of the class, not the class: its uses are not ``ForwardMode``
    source = "from pkg.modes import ForwardMode\nmode = ForwardMode.EXTEND\nprint(mode)\n"

    assert aliased(source, "pkg.modes.ForwardMode", text=text) == {}
    # without the patterns, every alias is followed
    assert aliased(source, "pkg.modes.ForwardMode", text=text, wanted=False) == {
        (3, 6, "Name"): ("pkg.modes.ForwardMode.EXTEND",)
    }


@BOTH
def test_an_alias_of_something_on_the_way_to_a_pattern_is_followed(text: bool) -> None:
    source = "import os\np = os.path\np.join('x')\ns = os.sep\nprint(s)\n"

    assert aliased(source, "os.path.join", text=text) == {
        (3, 0, "Name"): ("os.path",),
        (3, 0, "Attribute"): ("os.path.join",),
    }


@pytest.mark.parametrize("wanted", [True, False], ids=["patterns", "no-patterns"])
def test_an_alias_of_a_relative_import_is_followed(wanted: bool) -> None:
    # relative: the root's package is unknown, so the target is known only in part
    source = "from . import sub\nf = sub.func\nf()\n"

    assert aliased(source, "pkg.sub.func", wanted=wanted) == {(3, 0, "Name"): (".pkg.sub.func",)}


def test_an_alias_spelt_in_another_unicode_form_is_found() -> None:
    # Python reads identifiers NFKC-normalised: the fullwidth j (U+FF4A) is ``j``
    source = "import os\nj = os.path.join\n\uff4a('x')\n"

    assert aliased(source, "os.path.join") == {(3, 0, "Name"): ("os.path.join",)}


@BOTH
def test_an_alias_assigned_under_global_is_the_modules(text: bool) -> None:
    source = "import os\n\n\ndef setup():\n    global j\n    j = os.path.join\n\n\nj('x')\n"

    assert aliased(source, "os.path.join", text=text) == {(9, 0, "Name"): ("os.path.join",)}


@BOTH
def test_an_alias_assigned_under_nonlocal_is_the_nearest_function_binding_it(text: bool) -> None:
    source = (
        "import os\n\n\ndef outer():\n    j = None\n\n"
        "    def middle():\n        class C:\n            def inner(self):\n"
        "                nonlocal j\n                j = os.path.join\n\n"
        "        return C\n\n    middle()\n    return j('x')\n"
    )

    assert aliased(source, "os.path.join", text=text) == {(16, 11, "Name"): ("os.path.join",)}


@BOTH
def test_a_class_body_sees_its_own_alias_and_its_methods_do_not(text: bool) -> None:
    source = (
        "import os\n\n\nclass C:\n    j = os.path.join\n    x = j('a')\n\n"
        "    def m(self):\n        return j('b')\n"
    )

    assert aliased(source, "os.path.join", text=text) == {(6, 8, "Name"): ("os.path.join",)}


@BOTH
def test_attributes_of_other_values_are_no_use(text: bool) -> None:
    source = "import os\nj = os.path.join\nstr(j).upper()\nj('x').strip()\n"

    assert aliased(source, "os.path.join", text=text) == {
        (3, 4, "Name"): ("os.path.join",),
        (4, 0, "Name"): ("os.path.join",),
    }


# ---------------------------------------------------------------- AliasBinders, directly


def followed(
    source: str, pattern: str, module: str = "pkg.mod", *, is_package: bool = False
) -> Followed:
    compiled = PatternSet.of([parse_pattern(pattern)])
    return AliasBinders(compiled, module, is_package=is_package)(ast.parse(source))


def test_the_partial_parse_follows_imports_and_chains_of_aliases_on_the_way() -> None:
    # assignments are read bottom up: each alias of an alias takes one more round
    source = "import os\nimport subprocess\np = os.path\nq = p\nj = q.join\nx = subprocess.PIPE\n"

    assert followed(source, "os.path.join") == Followed({"j"}, {"os", "p", "q"})


def test_an_assignment_from_no_name_stops_no_other() -> None:
    source = "import os\nk = 1\np = os.path\nm = f()\nn = 'a'\n"

    assert followed(source, "os.path.join") == Followed(set(), {"os", "p"})


def test_a_value_off_every_pattern_is_not_followed() -> None:
    source = "import subprocess\nx = subprocess.PIPE\np = subprocess.Popen\n"

    assert followed(source, "subprocess.Popen") == Followed({"p"}, {"subprocess"})


@pytest.mark.parametrize(
    ("module", "is_package", "inside"),
    [("pkg", True, False), ("pkg.mod", False, False), ("pkg", False, True), ("top", False, True)],
    ids=["in-package-pkg", "in-module-pkg.mod", "in-module-pkg", "in-module-top"],
)
def test_a_relative_import_is_read_from_the_modules_package(
    module: str, is_package: bool, inside: bool
) -> None:
    # in package ``pkg``, ``.sub.helper`` is ``pkg.sub.helper``: not ``other.sub.helper``; at the
    # top, its package is unknown: it may be ``other.sub.helper``
    source = "from .sub import helper\n"

    assert followed(source, "pkg.sub.helper", module, is_package=is_package).everywhere == {
        "helper"
    }
    got = followed(source, "other.sub.helper", module, is_package=is_package)
    assert ("helper" in got.everywhere, "helper" in got.assigned_from) == (inside, not inside)


def test_imported_names_answer_for_the_tree_followed_last_only() -> None:
    binders = AliasBinders(PatternSet.of([parse_pattern("os.path.join")]), "m", is_package=False)
    tree, other = ast.parse("import os\nimport sys\np = os.path\n"), ast.parse("import os\n")

    assert binders.imported_names(tree) is None
    binders(tree)
    assert binders.imported_names(tree) == {"os"}
    assert binders.imported_names(other) is None
