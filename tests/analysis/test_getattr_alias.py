"""The ``getattr`` alias (issue 47): ``g = getattr(mod, "func")`` makes ``g`` an alias of
``mod.func``, and the call itself reads ``mod.func``.

The construct is one function of the one reader (:func:`.reader.getattr_target`), one text
test (:data:`.constructs.GETATTR`) and one report site (``Scanner.visit_Call``).  Here: its
findings, exact, on both engines; what is not guessed (a name that is no literal, keywords,
a starred argument, a literal that is no identifier as written); and the fast engine held to
the reference over every way a literal can spell the attribute (escapes, implicit
concatenation over lines, prefixes), placed where the partial parse must keep it.
"""

from __future__ import annotations

import ast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_cleantree.analysis import analyze_fast, analyze_reference
from pytest_cleantree.analysis.pieces import assigned_from_offsets
from pytest_cleantree.analysis.reader import getattr_target, refers_to, value_chain
from pytest_cleantree.core.model import Kind
from pytest_cleantree.core.patterns import parse_pattern

PATTERNS = [parse_pattern("os.path.join")]

Found = list[tuple[int, int, Kind, str]]


def both(source: str, path: str = "m.py") -> Found:
    """The findings of both engines, which must agree: (line, column, kind, name)."""
    data = source.encode()
    engines = [engine(path, data, PATTERNS) for engine in (analyze_fast, analyze_reference)]
    fast, reference = (
        sorted(
            (f.occurrence.line, f.occurrence.col, f.occurrence.kind, f.occurrence.name)
            for f in a.findings
        )
        for a in engines
    )
    assert fast == reference
    return reference


# ---------------------------------------------------------------- the reading


def _value(source: str) -> ast.expr:
    stmt = ast.parse(source).body[0]
    assert isinstance(stmt, ast.Expr)
    return stmt.value


@pytest.mark.parametrize(
    ("source", "attr"),
    [
        ('getattr(m, "f")', ".f"),
        ('getattr(m, "f\\x75nc")', ".func"),  # escapes are the parser's
        ('getattr(m, "fu" "nc")', ".func"),  # and so is implicit concatenation
        ('getattr(m, "func", None)', ".func"),  # a default keeps the alias (documented)
        ('getattr(m.a, "f")', ".f"),
    ],
)
def test_a_literal_name_is_read(source: str, attr: str) -> None:
    found = getattr_target(_value(source))
    assert found is not None
    assert found[1] == attr


@pytest.mark.parametrize(
    "source",
    [
        "getattr(m, name)",  # not a literal: never guessed
        'getattr(m, "f" + "g")',
        'getattr(m, name="f")',
        'getattr(m, "f", default=None)',
        'getattr(*args, "f")',
        "getattr(m, *names)",
        'getattr(m, "f", None, 1)',
        "getattr(m)",
        'getattr(m, b"f")',
        'getattr(m, "not an identifier")',
        'getattr(m, "")',
        'getattr(m, "\\uff46unc")',  # getattr does not normalise: a fullwidth f is no f
        'builtins.getattr(m, "f")',
        'hasattr(m, "f")',
        'm.getattr(m, "f")',
    ],
)
def test_anything_else_is_no_alias(source: str) -> None:
    assert getattr_target(_value(source)) is None


def test_value_chain_and_refers_to_follow_getattr_on_a_name_a_chain_or_another_getattr() -> None:
    value = _value('getattr(getattr(os, "path"), "join")')
    chain = value_chain(value)
    assert chain is not None
    assert (chain[0].id, chain[1]) == ("os", ".path.join")
    os_name = next(n for n in ast.walk(value) if isinstance(n, ast.Name) and n.id == "os")
    key = ("Name", os_name.lineno, os_name.col_offset, os_name.end_lineno, os_name.end_col_offset)
    assert refers_to(value, {key: ("os", "nt")}) == ("os.path.join", "nt.path.join")
    assert refers_to(value, {}) == ()
    assert value_chain(_value('getattr(f(), "x")')) is None  # on no name: no alias
    assert refers_to(_value('getattr(f(), "x")'), {key: ("os",)}) == ()
    assert value_chain(_value('getattr(os, "path").join')) is None  # a chain on a call: none


def test_nested_getattr_is_read_by_a_loop_not_by_the_stack() -> None:
    """Finite by construction: a nesting far past the recursion limit (built by hand: the
    parser refuses such depth) is read, and its depth does not decide the stack's."""
    value: ast.expr = ast.Name(
        "os", ast.Load(), lineno=1, col_offset=0, end_lineno=1, end_col_offset=2
    )
    key = ("Name", 1, 0, 1, 2)
    for _ in range(5000):
        value = ast.Call(ast.Name("getattr", ast.Load()), [value, ast.Constant("a")], [])
    chain = value_chain(value)
    assert chain is not None
    assert chain[1] == ".a" * 5000
    assert refers_to(value, {key: ("os",)}) == ("os" + ".a" * 5000,)


def test_the_partial_parse_keeps_a_piece_assigning_getattr_of_a_followed_name() -> None:
    text = (
        'a = getattr(os, "p")\nb = getattr( getattr(os, "q"), "r")\nc = get(os)\nd = getattrs(os)'
    )
    starts = sorted(assigned_from_offsets(text, {"os"}))
    assert [text[offset : offset + 2] for offset in starts] == ["os", "os"]
    assert [text.count("\n", 0, offset) + 1 for offset in starts] == [1, 2]


# ---------------------------------------------------------------- the findings


def test_an_alias_and_its_use() -> None:
    source = 'import os\ng = getattr(os.path, "join")\ng(1)\n'
    assert both(source) == [(2, 21, Kind.REFERENCE, "join"), (3, 0, Kind.CALL, "g")]


def test_an_escaped_literal_is_the_same_alias() -> None:
    source = 'import os\ng = getattr(os.path, "j\\x6fin")\ng(1)\n'
    assert both(source) == [(2, 21, Kind.REFERENCE, "join"), (3, 0, Kind.CALL, "g")]


def test_a_default_keeps_the_alias() -> None:
    source = 'import os\ng = getattr(os.path, "join", None)\nif g:\n    g(1)\n'
    assert both(source) == [
        (2, 21, Kind.REFERENCE, "join"),
        (3, 3, Kind.CONDITION, "g"),
        (4, 4, Kind.CALL, "g"),
    ]


def test_the_call_itself_reads_the_attribute() -> None:
    source = 'import os\ndef f():\n    pass\ndef h():\n    return getattr(os.path, "j\\x6fin")(1)\n'
    assert both(source) == [(5, 28, Kind.REFERENCE, "join")]


def test_getattr_of_getattr_and_of_an_alias() -> None:
    source = (
        "from os import path as p\n"
        'q = getattr(getattr(__import__("os"), "path"), "join")\n'  # on no resolved name
        'g = getattr(getattr(p, "sep").__class__, "x")\n'  # an attribute on a call: none
        'r = getattr(p, "j" "oin")\n'
        "s = r\n"
        "s(1)\n"
    )
    assert both(source) == [
        (4, 15, Kind.REFERENCE, "join"),
        (5, 4, Kind.REFERENCE, "r"),
        (6, 0, Kind.CALL, "s"),
    ]


def test_a_module_bound_by_getattr_in_one_function_and_used_in_another() -> None:
    """The piece that assigns is kept though it spells nothing of the pattern (was a fast
    false clean: the partial parse kept ``= os`` and not ``= getattr(os``)."""
    source = (
        "import os\ndef f():\n    pass\ndef h():\n    global p\n"
        '    p = getattr(os, "pa\\x74h")\ndef k():\n    p.join(1)\n'
    )
    assert both(source) == [(8, 6, Kind.CALL, "join")]


@pytest.mark.parametrize(
    "value",
    [
        "getattr(os.path, name)",
        'getattr(os.path, "jo" + "in")',
        'getattr(os.path, name="join")',
        'getattr(os.path, "\\uff4aoin")',
        'getattr(os.path, "join ")',
    ],
)
def test_what_is_not_read_gives_no_finding_on_either_engine(value: str) -> None:
    assert both(f"import os\nname = 1\ng = {value}\ng(1)\n") == []


def test_a_relative_import_in_a_package() -> None:
    source = (
        'from . import path as p\ndef f():\n    pass\ndef h():\n    getattr(p, "j\\x6fin")(1)\n'
    )
    assert both(source, "os/__init__.py") == [(5, 15, Kind.REFERENCE, "join")]


# ---------------------------------------------------------------- every literal, generated

#: how one character of the attribute's name may be spelt in a literal
_ESCAPES = [
    lambda c: c,
    lambda c: f"\\x{ord(c):02x}",
    lambda c: f"\\u{ord(c):04x}",
    lambda c: f"\\U{ord(c):08x}",
    lambda c: f"\\{ord(c):03o}",
    lambda c: f"\\N{{LATIN SMALL LETTER {c.upper()}}}",
]


@st.composite
def literals(draw: st.DrawFn, name: str) -> str:
    """``name`` as one literal or several concatenated, each character maybe escaped."""
    chars = [draw(st.sampled_from(_ESCAPES))(c) for c in name]
    cuts = sorted(draw(st.sets(st.integers(1, len(name) - 1), max_size=2)))
    parts = ["".join(chars[a:b]) for a, b in zip([0, *cuts], [*cuts, len(name)], strict=True)]
    quote = draw(st.sampled_from(['"', "'", '"""']))
    prefix = draw(st.sampled_from(["", "u"]))
    glue = draw(st.sampled_from([" ", "", "\n    ", " \\\n "]))
    return glue.join(f"{prefix}{quote}{part}{quote}" for part in parts)


#: where the getattr stands: {imp} the import, {lit} the literal, {use} a use of the alias
PLACES = [
    "{imp}\ng = getattr(p, {lit})\n{use}\n",
    "{imp}\ndef f():\n    pass\ndef h():\n    g = getattr(p, {lit})\n    return {use}\n",
    "{imp}\ndef f():\n    pass\ndef h(g=getattr(p, {lit})):\n    return {use}\n",
    "{imp}\ndef f():\n    pass\ndef h():\n    global g\n    g = getattr(p, {lit})\n"
    "def k():\n    return {use}\n",
]
#: the direct call: the literal alone must be read
CALLED = (
    "{imp}\nclass C:\n    def a(self):\n        pass\n    def b(self):\n"
    "        return (getattr(p, {lit}))(1)\n"
)
#: (the import binding ``p``, the file's path, the attribute the literal names, the use):
#: ``p`` is ``os.path`` and the literal ``join``, or ``p`` is ``os`` and the literal ``path``
#: (then the use spells ``join`` where the assignment spells nothing of the pattern)
BINDINGS = [
    ("import os.path as p", "m.py", "join", "g(1)"),
    ("from os import path as p", "m.py", "join", "g(1)"),
    ("from . import path as p", "os/__init__.py", "join", "g(1)"),
    ("import os as p", "m.py", "path", "g.join(1)"),
]


@st.composite
def getattr_modules(draw: st.DrawFn) -> tuple[str, str]:
    imp, path, attr, use = draw(st.sampled_from(BINDINGS))
    place = draw(st.sampled_from(PLACES + ([CALLED] if attr == "join" else [])))
    return place.format(imp=imp, lit=draw(literals(attr)), use=use), path


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(getattr_modules())
def test_fast_equals_reference_for_every_spelling_of_the_literal(module: tuple[str, str]) -> None:
    source, path = module
    assert both(source, path), "every spelling of the literal is the attribute (the premise)"


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(getattr_modules())
def test_fast_equals_reference_for_every_spelling_of_the_literal_wide(
    module: tuple[str, str],
) -> None:
    source, path = module
    assert both(source, path)


# ---------------------------------------------------------------- astroid, the outside oracle


def _astroid_reads(value: str) -> set[str]:
    """What astroid's own inference makes of ``g = <value>`` (``os`` imported): qualified
    names of what it infers; empty when it cannot tell."""
    import astroid

    node = astroid.extract_node(f"import os\ng = {value}\ng")
    try:
        return {x.qname() for x in node.inferred() if hasattr(x, "qname")}
    except astroid.InferenceError:
        return set()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(literals("join"))
def test_astroid_infers_the_attribute_every_read_literal_names(literal: str) -> None:
    """Independent of the reader: astroid's inference of the same call lands on ``join``."""
    value = f"getattr(os.path, {literal})"
    found = getattr_target(_value(value))
    assert found is not None
    assert found[1] == ".join"
    assert {name.rsplit(".", 1)[-1] for name in _astroid_reads(value)} == {"join"}


def test_astroid_agrees_a_fullwidth_literal_names_no_attribute() -> None:
    value = 'getattr(os.path, "\\uff4aoin")'
    assert getattr_target(_value(value)) is None
    assert not {name for name in _astroid_reads(value) if name.endswith(".join")}


def test_the_literal_is_a_name_only_for_a_qualified_pattern() -> None:
    """``getattr(sys.stdout, "encoding")`` reaches ``sys.stdout.encoding``: a qualified
    pattern's occurrence at the literal; for a substring (or exact, or glob) pattern the
    literal is a string, in both engines, whether or not resolution runs (the reference ran
    it whenever a qualified pattern's first part was imported, and the fast path when the
    text spelt its last part: ``encod`` was a reference of one and not of the other)."""
    source = b'import sys\nd = {}\nd["io"] = getattr(sys.stdout, "encoding", None)\n'
    patterns = [parse_pattern(p) for p in ("encod", "=encoding", "sys.exc_info", "sys.stdout")]

    found = {
        engine.__name__: sorted(
            (f.pattern, f.occurrence.line, f.occurrence.col, f.occurrence.kind.value)
            for f in engine("m.py", source, patterns).findings
        )
        for engine in (analyze_fast, analyze_reference)
    }

    assert found["analyze_fast"] == found["analyze_reference"]
    assert [f for f in found["analyze_fast"] if f[0] in ("encod", "=encoding")] == [
        ("=encoding", 3, 31, "string"),
        ("encod", 3, 31, "string"),
    ]
