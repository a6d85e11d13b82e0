"""A needle spelt only by what Python's tokenizer builds: the fast path against the reference.

Each case cuts a needle into pieces, writes each piece as a literal (any prefix, any
quotes, a character sometimes as an escape), joins them with what the tokenizer allows
between adjacent literals (spaces, comments, newlines in brackets, backslash-newlines,
nothing), and puts the result in one of many places of a module (an argument, a default,
a decorator, a class body, an f-string's replacement field...).  The fast path's shortcuts
(prefilter, lines, cut) must find exactly what the reference finds on the whole parse.
Pieces that are prefix letters (``"f" "lashinfer"``) once made the joined views drop a
literal: a false clean.
"""

from __future__ import annotations

import random

import pytest

from pytest_cleantree.analysis import Finding, analyze, analyze_reference
from pytest_cleantree.core.patterns import parse_pattern

NEEDLES = ["sm120", "is_sm120_supported", "flashinfer", "rb", "fur", "bu", "x41b"]
SEPARATORS = ["", " ", "\n    ", " \\\n ", "  # c 'q' \"\n  ", "\t", "\n\n  "]
PREFIXES = ["", "", "", "r", "u", "f", "R", "F", "rf", "fR"]
QUOTES = ['"', "'", '"""', "'''"]
#: where the joined literal goes (``{}``); the last is an f-string's replacement field
CONTEXTS = [
    "X = ({})\n",
    "def f(a={}):\n    pass\n",
    "class C:\n    name = ({})\n",
    "print({}, end='')\n",
    "x = [1,\n     {},\n     2]\n",
    "if v == ({}):\n    pass\n",
    "@deco({})\ndef g():\n    pass\n",
    "d = {{'k': ({})}}\n",
    "lam = lambda: ({})\n",
    "def h():\n    '''doc'''\n    return ({})\n",
    's = f"{{({})}}"\n',
]
IN_F_STRING = CONTEXTS[-1]


def literal(rng: random.Random, piece: str, *, in_field: bool) -> str:
    """``piece`` as one literal; in an f-string's field (before 3.12): single quotes, no
    backslash."""
    if in_field:
        return f"'{piece}'"
    for _ in range(20):
        quote, prefix = rng.choice(QUOTES), rng.choice(PREFIXES)
        body = piece
        if "r" not in prefix.lower() and piece and rng.random() < 0.3:
            at = rng.randrange(len(piece))
            code = ord(piece[at])
            escape = rng.choice([f"\\x{code:02x}", f"\\{code:o}", f"\\u{code:04x}"])
            body = piece[:at] + escape + piece[at + 1 :]
        if body.endswith(quote[0]):
            continue
        return f"{prefix}{quote}{body}{quote}"
    return f'"{piece}"'


def joined_source(seed: int) -> tuple[str, str]:
    """(module source, needle) for one seed."""
    rng = random.Random(seed)
    needle, context = rng.choice(NEEDLES), rng.choice(CONTEXTS)
    in_field = context == IN_F_STRING
    cuts = sorted(rng.sample(range(1, len(needle)), rng.randint(1, min(4, len(needle) - 1))))
    pieces = [needle[a:b] for a, b in zip([0, *cuts], [*cuts, len(needle)], strict=True)]
    if rng.random() < 0.3:
        pieces.insert(rng.randrange(len(pieces) + 1), "")
    text = "".join(
        (" " if in_field else rng.choice(SEPARATORS) if index else "")
        + literal(rng, piece, in_field=in_field)
        for index, piece in enumerate(pieces)
    )
    before = rng.choice(["", "import os\n", "x = 1  # sm12\n", "'''module doc'''\n"])
    return f"{before}\n{context.format(text)}", needle


def placed(findings: tuple[Finding, ...]) -> list[tuple[object, ...]]:
    return sorted(
        (f.pattern, f.occurrence.line, f.occurrence.col, f.occurrence.kind.value) for f in findings
    )


@pytest.mark.parametrize("block", range(8))
def test_a_needle_spelt_by_the_tokenizer_is_found_as_the_reference_finds_it(block: int) -> None:
    found = 0
    for seed in range(block * 100, (block + 1) * 100):
        source, needle = joined_source(seed)
        try:
            compile(source, "<case>", "exec")
        except SyntaxError:
            continue  # an escape that made a piece invalid: nothing to compare
        patterns = [parse_pattern(needle)]
        fast = analyze("pkg/mod.py", source.encode(), patterns)
        reference = analyze_reference("pkg/mod.py", source.encode(), patterns)
        assert reference.problem is None, (reference.problem, source)
        assert placed(fast.findings) == placed(reference.findings), source
        assert fast.problem is None, (fast.problem, source)
        found += bool(reference.findings)
    assert found > 80, "most cases spell the needle where the reference sees it (premise)"
