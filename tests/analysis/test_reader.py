"""The one reader's list of constructs (issue 47): each has a text test and an ``ast`` reading,
and the fast engine, which asks both, finds what the reference engine (astroid) finds.

The list is :data:`pytest_cleantree.analysis.constructs.CONSTRUCTS`.  A construct added to it
without a text test is refused when the module is imported (:func:`_refuse_untested`, tried
here on a made-up one); a construct whose text test does not pass on its own example, or
whose example the fast engine reads otherwise than the reference, fails here.
"""

from __future__ import annotations

import ast
import re
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_cleantree.analysis import analyze_fast, analyze_reference, reader
from pytest_cleantree.analysis.bindings import VIAS
from pytest_cleantree.analysis.constructs import (
    CONSTRUCTS,
    TEXT_TESTS,
    USE_SPELLS_LAST,
    Construct,
    _refuse_untested,
    _Text,
    needs_resolution,
)
from pytest_cleantree.analysis.reader import ALIAS_VIAS, NOT_FOLLOWED, key_at, key_of
from pytest_cleantree.analysis.text import PatternSet
from pytest_cleantree.core.findings import Finding
from pytest_cleantree.core.model import Kind
from pytest_cleantree.core.patterns import parse_pattern

PATTERNS = [parse_pattern("os.path.join")]
STARS = {"os.path": frozenset({"join"})}
IDS = [construct.name for construct in CONSTRUCTS]


def path_of(construct: Construct) -> str:
    """Where the example stands: a relative import inside the package ``os``, a module's own
    binding in ``os/path.py``, anything else in a module of no package."""
    if construct.name.startswith("relative"):
        return "os/__init__.py"
    return "os/path.py" if construct.name == "module binding" else "m.py"


def placed(found: tuple[Finding, ...]) -> list[Finding]:
    def key(f: Finding) -> tuple[object, ...]:
        o = f.occurrence
        return (f.pattern, o.line, o.col, o.kind.value, o.name, o.qualified)

    return sorted(found, key=key)


def findings(source: str, path: str) -> tuple[list[Finding], list[Finding]]:
    data = source.encode()
    fast = analyze_fast(path, data, PATTERNS, stars=STARS)
    reference = analyze_reference(path, data, PATTERNS, stars=STARS)
    assert (fast.problem is None) == (reference.problem is None), (fast.problem, reference.problem)
    return placed(fast.findings), placed(reference.findings)


def test_the_list_names_every_construct_once() -> None:
    assert len(set(IDS)) == len(IDS)
    assert len({construct.example for construct in CONSTRUCTS}) == len(CONSTRUCTS)


@pytest.mark.parametrize("construct", CONSTRUCTS, ids=IDS)
def test_each_construct_has_a_text_test_and_a_reading(construct: Construct) -> None:
    assert construct.text, "a construct the fast path has no text test for is a false clean"
    assert all(test in TEXT_TESTS for test in construct.text)
    assert getattr(reader, construct.reading.__name__) is construct.reading
    # a construct resolution answers for is asked about before the parse: its test reads text
    if construct.resolves:
        assert all(test.check is not None for test in construct.text)


@pytest.mark.parametrize("construct", CONSTRUCTS, ids=IDS)
def test_each_construct_passes_its_own_text_test(construct: Construct) -> None:
    text = _Text(construct.example)
    passed = [
        re.search(r"\bjoin\b", construct.example) is not None
        if test is USE_SPELLS_LAST
        else test.check is not None and test.check(text, "os", "join")
        for test in construct.text
    ]
    assert any(passed), f"{construct.name}: its example passes none of its text tests"
    if construct.resolves:
        spelt = PatternSet.of(PATTERNS)
        assert needs_resolution(construct.example, construct.example, spelt)


@pytest.mark.parametrize("construct", CONSTRUCTS, ids=IDS)
def test_each_construct_is_read_alike_by_both_engines(construct: Construct) -> None:
    fast, reference = findings(construct.example, path_of(construct))
    assert fast == reference
    uses = [f for f in reference if f.occurrence.kind is Kind.CALL]
    assert uses, "the example's use is an occurrence of os.path.join (the premise)"


def test_every_way_the_binding_model_assigns_is_read_as_an_alias_or_listed_as_none() -> None:
    """A new kind of assignment in :mod:`.bindings` must be classified here before it counts."""
    assert set(VIAS) == ALIAS_VIAS | set(NOT_FOLLOWED)
    assert not ALIAS_VIAS & set(NOT_FOLLOWED)


def test_key_of_a_node_is_key_at_its_class_and_span() -> None:
    """The astroid reading maps its nodes with ``key_at``; the scan finds them with ``key_of``."""
    tree = ast.parse("a.b.c(d)\nx = (\n  e .f)\n")
    nodes = [n for n in ast.walk(tree) if isinstance(n, ast.Name | ast.Attribute)]
    assert len(nodes) == 7
    for node in nodes:
        span = (node.lineno, node.col_offset, node.end_lineno, node.end_col_offset)
        assert key_of(node) == key_at(type(node), *span)


def test_a_construct_without_a_text_test_is_refused() -> None:
    untested = Construct("walrus alias", reader.value_chain, (), True, "(g := os.path)")
    with pytest.raises(ImportError, match="no text test"):
        _refuse_untested([*CONSTRUCTS, untested])

    def read_walrus() -> None: ...

    unread = Construct("walrus alias", read_walrus, CONSTRUCTS[0].text, True, "")
    with pytest.raises(ImportError, match="no reading"):
        _refuse_untested([*CONSTRUCTS, unread])
    _refuse_untested(CONSTRUCTS)  # the list itself is accepted


def test_needs_resolution_is_the_union_of_the_resolving_constructs_tests() -> None:
    """Nothing but the listed text tests decides: a text that no test passes needs none."""
    spelt = PatternSet.of(PATTERNS)
    assert not needs_resolution("join = 1\n", "join = 1\n", spelt)  # spells no import of os
    assert needs_resolution("from . import join\n", "from . import join\n", spelt)  # relative
    assert needs_resolution("import os\nos.path.join\n", "import os\nos.path.join\n", spelt)
    assert not needs_resolution("import os\n", "import os\n", spelt)  # the last part unspelt


# ---------------------------------------------------------------- the differential


def fullwidth(char: str) -> str:
    return chr(ord(char) - ord("a") + 0xFF41) if "a" <= char <= "z" else char


@st.composite
def spelt(draw: st.DrawFn, word: str) -> str:
    """``word`` as written, or with letters in fullwidth (NFKC reads the same name)."""
    picked = draw(st.lists(st.booleans(), min_size=len(word), max_size=len(word)))
    out = "".join(fullwidth(c) if wide else c for c, wide in zip(word, picked, strict=True))
    assert unicodedata.normalize("NFKC", out) == word
    return out


DOTS = [".", " . ", ".\\\n    "]
WRAPPERS = ["{}", "def outer():\n{}", "if x:\n{}", "class Outer:\n{}"]
FILLER = "def filler_{n}():\n    return {n}\n"
#: what may follow the example: nothing, a rebinding of the alias (astroid's lookup then
#: decides for the name) and a use after it, or a use in a nested function
TAILS = ["", "j = None\nj(2)\n", "def inner():\n    return j(3)\n", "del j\n"]


@st.composite
def modules(draw: st.DrawFn) -> tuple[str, str]:
    construct = draw(st.sampled_from(CONSTRUCTS))
    words = {word: draw(spelt(word)) for word in ("os", "path", "join", "j", "getattr")}
    body = re.sub(r"\b(os|path|join|j|getattr)\b", lambda m: words[m.group(1)], construct.example)
    dot = draw(st.sampled_from(DOTS))
    body = re.sub(r"(?<=\w)\.(?=\w)|(?<=from )\.", lambda _: dot, body)
    body += "\n" + draw(st.sampled_from(TAILS))
    wrapper = "{}" if construct.name == "star import" else draw(st.sampled_from(WRAPPERS))
    if wrapper != "{}":
        body = "\n".join("    " + line for line in body.split("\n"))
    fillers = draw(st.integers(0, 2))
    before = "".join(FILLER.format(n=n) for n in range(fillers))
    return before + wrapper.format(body) + "\n", path_of(construct)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_fast_engine_equals_reference_over_the_construct_list(module: tuple[str, str]) -> None:
    source, path = module
    fast, reference = findings(source, path)
    assert fast == reference


@pytest.mark.slow
@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(modules())
def test_fast_engine_equals_reference_over_the_construct_list_wide(
    module: tuple[str, str],
) -> None:
    source, path = module
    fast, reference = findings(source, path)
    assert fast == reference
