"""Every binding construct times every way source text can spell a name: the fast path
against the reference, finding for finding (issue 42).

A generated module binds ``os.path.join`` (or holds the word ``join`` in a string) through
one construct the engine knows: ``import`` in each form (dotted, aliased, ``from`` with and
without ``as``, parenthesised, a star import), an assignment (plain, annotated, unpacked,
walrus), a default, a class attribute; then uses it.  Each name is spelt as source text can
spell it: NFKC letters (fullwidth), spaces or a backslash-newline around a dot; each string
with an escape (``"\\x6aoin"``, ``\\u``, ``\\N{...}``, octal), cut into implicitly joined
literals within a line and across lines (in brackets, after a backslash), with prefixes and
any quotes; the file with LF, CRLF or lone CR line ends; the construct at top level, in a
function or in a class, between filler functions the partial parse can leave out.  The
fast path's shortcuts (prefilter, candidate lines, partial parse, ``needs_resolution``)
must find exactly what the reference finds: pattern, line, column and kind.

A few examples run in the default suite, many more in the slow tier (``-m slow``).
"""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from test_differential import placed

from pytest_cleantree.analysis import analyze_fast, analyze_reference
from pytest_cleantree.core.patterns import parse_pattern

QUICK, WIDE = 60, 600
PATTERNS = [parse_pattern(p) for p in ("os.path.join", "join", "=join", "re:jo+in", "os.path.sep")]
STARS = {"os.path": frozenset({"join", "sep"})}

#: a binding construct and its use: ``{os}``, ``{path}``, ``{join}`` are spelt names,
#: ``{dot}`` a dot, ``{s}`` a string that spells ``join``
CONSTRUCTS = [
    "import {os}{dot}{path}\nv = {os}{dot}{path}{dot}{join}(1)",
    "import {os}{dot}{path} as p\nv = p{dot}{join}(1)",
    "from {os}{dot}{path} import {join}\nv = {join}(1)",
    "from {os}{dot}{path} import ({join} as j,\n    sep)\nv = j(1)",
    "from {os}{dot}{path} \\\n    import {join} as j\nv = j(1)",
    "from {os} import {path}\nv = {path}{dot}{join}(1)",
    "from {os} import {path} as p\nv = p{dot}{join}(1)",
    "import {os}\nj = {os}{dot}{path}{dot}{join}\nv = j(1)",
    "import {os}\ndef f(j={os}{dot}{path}{dot}{join}):\n    return j(1)",
    "from {os}{dot}{path} import *\nv = {join}(1)",
    "import {os}\nclass C:\n    j = {os}{dot}{path}{dot}{join}\n    v = j(1)",
    "import {os}\nj: object = {os}{dot}{path}{dot}{join}\nv = j(1)",
    "import {os}\na, j = 1, {os}{dot}{path}{dot}{join}\nv = j(1)",
    "import {os}\nif (j := {os}{dot}{path}{dot}{join}):\n    v = j(1)",
    "import {os}\nv = getattr({os}{dot}{path}, ({s}))",
    "import {os}\ndef f():\n    global g\n    g = getattr({os}{dot}{path}, {s}, None)\nv = g(1)",
    "v = ({s})",
    "def f(a=({s})):\n    return a",
    "class C:\n    a = ({s})",
    "__all__ = [({s})]",
]
FILLER = "def filler_{n}():\n    return {n}\n"
WRAPPERS = ["{}", "def outer():\n{}", "class Outer:\n{}"]
ENDINGS = ["\n", "\r\n", "\r"]
DOTS = [".", " . ", ".\\\n    "]


def fullwidth(char: str) -> str:
    return chr(ord(char) - ord("a") + 0xFF41) if "a" <= char <= "z" else char


@st.composite
def names(draw: st.DrawFn, word: str) -> str:
    """``word`` as an identifier: as written, or with letters in fullwidth (NFKC: the same)."""
    picked = draw(st.lists(st.booleans(), min_size=len(word), max_size=len(word)))
    spelt = "".join(fullwidth(c) if wide else c for c, wide in zip(word, picked, strict=True))
    assert unicodedata.normalize("NFKC", spelt) == word
    return spelt


ESCAPES = [
    lambda c: f"\\x{ord(c):02x}",
    lambda c: f"\\u{ord(c):04x}",
    lambda c: f"\\{ord(c):o}",
    lambda c: "\\N{LATIN SMALL LETTER " + c.upper() + "}",
]
JOINS = ["", " ", "\n    ", " \\\n    ", "  # c\n    "]


@st.composite
def strings(draw: st.DrawFn, word: str = "join") -> str:
    """Literals whose joined value is ``word``: cut, escaped, prefixed, any quotes."""
    cuts = sorted(set(draw(st.lists(st.integers(1, len(word) - 1), max_size=3))))
    pieces = [word[a:b] for a, b in zip([0, *cuts], [*cuts, len(word)], strict=True)]
    out = []
    for index, piece in enumerate(pieces):
        quote = draw(st.sampled_from(['"', "'", '"""', "'''"]))
        escape = draw(st.none() | st.sampled_from(ESCAPES))
        if escape is not None:
            at = draw(st.integers(0, len(piece) - 1))
            piece = piece[:at] + escape(piece[at]) + piece[at + 1 :]
            prefix = draw(st.sampled_from(["", "u", "f"]))
        else:
            prefix = draw(st.sampled_from(["", "r", "u", "f", "R", "rf"]))
        if index:
            out.append(draw(st.sampled_from(JOINS)))
        out.append(f"{prefix}{quote}{piece}{quote}")
    return "".join(out)


@st.composite
def modules(draw: st.DrawFn) -> str:
    construct = draw(st.sampled_from(CONSTRUCTS))
    dot = draw(st.sampled_from(DOTS))
    body = construct.format(
        os=draw(names("os")),
        path=draw(names("path")),
        join=draw(names("join")),
        dot=dot,
        s=draw(strings()),
    )
    wrapper = draw(st.sampled_from(WRAPPERS))
    if wrapper != "{}":
        body = "\n".join("    " + line for line in body.split("\n"))
    fillers = draw(st.integers(0, 2))
    before = "".join(FILLER.format(n=n) for n in range(fillers))
    after = "".join(FILLER.format(n=n) for n in range(fillers, fillers + draw(st.integers(0, 2))))
    source = before + wrapper.format(body) + "\n" + after
    return source.replace("\n", draw(st.sampled_from(ENDINGS)))


def check(source: str) -> None:
    data = source.encode()
    fast = analyze_fast("pkg/mod.py", data, PATTERNS, stars=STARS)
    reference = analyze_reference("pkg/mod.py", data, PATTERNS, stars=STARS)
    assert (fast.problem is None) == (reference.problem is None), (fast.problem, reference.problem)
    assert placed(fast.findings) == placed(reference.findings)
    assert reference.problem is not None or {f.pattern for f in reference.findings} >= {
        "join",
        "re:jo+in",
    }, "every module spells join where the reference sees it (the premise)"


def both_tiers() -> tuple[object, object]:
    def build(count: int) -> object:
        def test(source: str) -> None:
            check(source)

        for one in (
            "import os\nv = getattr(os.path, 'jo' 'in')\n",
            'import os\nv = getattr(os.path, "\\x6aoin")\n',
            "from os.path import (\n    join as j,\n)\r\nv = j(1)\r\n",
            "import o\uff53.path\rv = os.path.j\uff4fin(1)\r",
        ):
            test = example(one)(test)
        health = [HealthCheck.too_slow]
        return settings(max_examples=count, deadline=None, suppress_health_check=health)(
            given(modules())(test)
        )

    return build(QUICK), pytest.mark.slow(build(WIDE))


(
    test_each_construct_in_each_spelling_is_found_as_the_reference_finds_it,
    test_each_construct_in_each_spelling_is_found_as_the_reference_finds_it_wide,
) = both_tiers()
