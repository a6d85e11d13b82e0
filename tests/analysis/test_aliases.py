"""Aliases made by assignment are occurrences of what they alias (issue 12, cause 6).

``join = os.path.join``, ``p = os.path``, ``TestCase = unittest.TestCase``:
the later uses of the alias, in its scope and the functions that see it, are
found on both engines, finding for finding, whatever the partial parse leaves out.
"""

from __future__ import annotations

import pytest

from pytest_cleantree.analysis import Finding, analyze, analyze_reference
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
