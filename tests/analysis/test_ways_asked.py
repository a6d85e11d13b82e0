"""A way is asked of a file only when a name of the file may resolve inside it (issue 44).

A way (a name through a module alias, ``Pattern.needles`` set) finds a use only through the
file's own resolution: its imports, aliases, strings, star imports, top-level bindings and
relative imports.  ``analysis.asking.present_asked`` asks one only when the file may spell its
parts (or, relatively, its last parts with the module's first); the oracle
(``CLEANTREE_ENGINE=every-spelling``, ``present_patterns``) asks every one.  Generated files
that import and use generated names, absolutely and relatively, under generated module
names: every finding that resolves (a way's text findings count for no pattern, see
``run.rewrite._Through``) and every other pattern's finding is the oracle's.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pytest_cleantree.analysis import analyze_fast, asking
from pytest_cleantree.core.findings import FileAnalysis
from pytest_cleantree.core.model import Pattern, PatternTier
from pytest_cleantree.core.patterns import parse_pattern

PARTS = ("pkg", "m0", "m1", "np", "os", "path", "sub", "fn", "\uff4e\uff50")
STATEMENTS = (
    "import {a}.{b}\n",
    "import {a}.{b} as z\n",
    "from {a} import {b}\n",
    "from {a}.{b} import {c} as z\n",
    "from . import {a}\n",
    "from .. import {a}\n",
    "from ... import {a}\n",
    "from .{a} import {b}\n",
    "from .{a} import *\n",
    "from {a} import *\n",
    "def {a}():\n    pass\n",
    "{a} = {b}\n",
    "v = {a}.{b}.join(1)\n",
    "v = {a}.{b}.{c}.join(1)\n",
    "v = z.{c}.join(1)\n",
    "v = {a}.join(1)\n",
    "v = join(1)\n",
    "v = getattr({a}, '{b}').join(1)\n",
    "v = '{a}.{b}.{c}.join'\n",
    "# {a}.{b}.join\n",
    "v = '{a}' '{b}'\n",
    "v = getattr({a}, '\\N{{LATIN SMALL LETTER O}}s').join(1)\n",
    "import {a}.\\\n{b}\n",
    "g = getattr({a}, 'p' 'ath')\ng.join(1)\n",  # a name only a joined literal spells
    "g = getattr({a}, 'f' 'n')\ng.join(1)\n",  # a piece that reads as a string prefix
    "g = getattr({a}.{b}, 'jo' \"in\")\ng(1)\n",
)
MODULES = ("pkg.m0", "pkg", "m0", "np.sub.x", "sub", "os.path")
PATHS = ("m.py", "pkg/__init__.py")


@st.composite
def ways(draw: st.DrawFn) -> list[Pattern]:
    names = draw(
        st.lists(
            st.lists(st.sampled_from(PARTS[:-1]), min_size=1, max_size=4).map(".".join),
            min_size=1,
            max_size=12,
            unique=True,
        )
    )
    return [Pattern(n, PatternTier.QUALIFIED, n, needles=("join",)) for n in names]


@st.composite
def sources(draw: st.DrawFn) -> str:
    lines = draw(st.lists(st.sampled_from(STATEMENTS), min_size=1, max_size=6))
    part = st.sampled_from(PARTS)
    return "".join(s.format(a=draw(part), b=draw(part), c=draw(part)) for s in lines)


def kept(analysis: FileAnalysis, way_texts: set[str]) -> tuple[object, ...]:
    """What counts of an analysis: every finding but a way's that resolves to nothing."""
    findings = tuple(
        f for f in analysis.findings if f.pattern not in way_texts or f.occurrence.qualified
    )
    return analysis.path, analysis.lines, findings, analysis.problem, analysis.problem_line


def both(
    monkeypatch: pytest.MonkeyPatch,
    source: str,
    patterns: list[Pattern],
    path: str,
    module: str | None,
    stars: dict[str, frozenset[str]] | None,
) -> tuple[tuple[object, ...], tuple[object, ...]]:
    data = source.encode()
    texts = {p.text for p in patterns if p.needles}
    monkeypatch.setattr(asking, "FEW_WAYS", 0)  # narrow however few
    monkeypatch.delenv("CLEANTREE_ENGINE", raising=False)
    narrowed = analyze_fast(path, data, patterns, module=module, stars=stars)
    monkeypatch.setenv("CLEANTREE_ENGINE", "every-spelling")
    every = analyze_fast(path, data, patterns, module=module, stars=stars)
    return kept(narrowed, texts), kept(every, texts)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    source=sources(),
    ways=ways(),
    path=st.sampled_from(PATHS),
    module=st.sampled_from((*MODULES, None)),
    stars=st.sampled_from((None, {"pkg": frozenset({"np", "join"})})),
)
@example(  # a relative import names the way's last parts; its first is the module's
    source="from . import m0\nv = m0.os.join(1)\n",
    ways=[Pattern("x.pkg.m0.os", PatternTier.QUALIFIED, "x.pkg.m0.os", needles=("join",))],
    path="m.py",
    module="pkg.m1",
    stars=None,
)
@example(  # a definition in the module the way names: nothing in the text spells it
    source="def os():\n    pass\nv = os.join(1)\n",
    ways=[Pattern("pkg.m0", PatternTier.QUALIFIED, "pkg.m0", needles=("join",))],
    path="m.py",
    module="pkg.m0",
    stars=None,
)
@example(  # a way's name only a joined literal spells, one piece read like a string prefix
    source="import pkg\ng = getattr(pkg, 'f' 'n')\ng.join(1)\n",
    ways=[Pattern("pkg.fn", PatternTier.QUALIFIED, "pkg.fn", needles=("join",))],
    path="m.py",
    module=None,
    stars=None,
)
def test_every_finding_that_counts_is_the_oracles(
    monkeypatch: pytest.MonkeyPatch,
    source: str,
    ways: list[Pattern],
    path: str,
    module: str | None,
    stars: dict[str, frozenset[str]] | None,
) -> None:
    patterns = [parse_pattern("os.path.join"), parse_pattern("pkg.m0.join"), *ways]
    narrowed, every = both(monkeypatch, source, patterns, path, module, stars)
    assert narrowed == every


#: a way's needles (the last names its uses spell): shared, apart, NFKC-spelt (fullwidth
#: ``np`` reads ``np``), and one no source spells
NEEDLES = ("join", "path", "np", "\uff4e\uff50", "os", "absent")


@st.composite
def ways_by_needle(draw: st.DrawFn) -> list[Pattern]:
    names = draw(
        st.lists(
            st.lists(st.sampled_from(PARTS[:-1]), min_size=1, max_size=4).map(".".join),
            min_size=1,
            max_size=12,
            unique=True,
        )
    )
    needles = st.lists(st.sampled_from(NEEDLES), min_size=1, max_size=3, unique=True)
    return [Pattern(n, PatternTier.QUALIFIED, n, needles=tuple(draw(needles))) for n in names]


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    source=sources(),
    ways=ways_by_needle(),
    extra=st.lists(st.sampled_from(["=np", "path", "os.path", "=\uff4e\uff50", "j*n"]), max_size=3),
    path=st.sampled_from(PATHS),
    module=st.sampled_from((*MODULES, None)),
    stars=st.sampled_from((None, {"pkg": frozenset({"np", "join"})})),
)
def test_the_ways_looked_up_by_needle_are_the_oracles(
    monkeypatch: pytest.MonkeyPatch,
    source: str,
    ways: list[Pattern],
    extra: list[str],
    path: str,
    module: str | None,
    stars: dict[str, frozenset[str]] | None,
) -> None:
    """Each needle asked once, the ways it stands for looked up by it (issue 44): with every
    way asked (not narrowed), the analysis is the oracle's finding for finding, ways with
    several needles, needles shared or spelt in NFKC, beside exact, substring and glob
    patterns whose needles the ways share."""
    patterns = [parse_pattern("os.path.join"), *dict.fromkeys(map(parse_pattern, extra)), *ways]
    data = source.encode()
    monkeypatch.delenv("CLEANTREE_ENGINE", raising=False)
    indexed = analyze_fast(path, data, patterns, module=module, stars=stars)
    monkeypatch.setenv("CLEANTREE_ENGINE", "every-spelling")
    every = analyze_fast(path, data, patterns, module=module, stars=stars)
    assert indexed == every
