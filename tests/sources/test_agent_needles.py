"""The remote helper's needle test is an over-approximation of the local prefilter.

The helper (:mod:`pytest_cleantree.agent`) runs on the server (its source is shipped over
SSH); here its functions are run in this process on the same texts as the client's
``TextViews``: wherever the local prefilter says a file can spell a needle,
the helper must send the file.  Texts: the standard library, and files that
spell a needle only through escapes, continuations, joined strings or NFKC.
"""

from __future__ import annotations

import random
import re
import sysconfig
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from pytest_cleantree import agent
from pytest_cleantree.agent import STRING_ESCAPE
from pytest_cleantree.analysis.decoding import decode_python
from pytest_cleantree.analysis.text import split_lines
from pytest_cleantree.analysis.views import _ADJACENT, IDENTIFIER, TextViews

Spell = Callable[[bytes, list[str]], bool]


@pytest.fixture(scope="module")
def could_spell() -> Spell:
    """The agent's ``could_spell``, the very module sent to servers."""
    escape = re.compile(STRING_ESCAPE.pattern)

    def spell(data: bytes, needles: list[str]) -> bool:
        pairs = [(needle.encode("utf-8"), needle) for needle in needles]
        return agent.could_spell(data, pairs, escape)

    return spell


def local_views(data: bytes) -> TextViews | None:
    """The client's prefilter views of a Python file (decoded by PEP 263); ``None``: the
    client analyses such a file whatever it holds."""
    try:
        text = decode_python(data)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return None
    return TextViews(text, split_lines(text))


def local_contains(data: bytes, needle: str) -> bool:
    views = local_views(data)
    return views is None or views.contains(needle)


#: each spells ``sm120`` only the way its name says (the raw bytes never hold it)
TRICKY = {
    "hex escape": b'x = "\\x73m120"\n',
    "octal escape": b'x = "\\163m120"\n',
    "unicode escape": b'x = "\\u0073m120"\n',
    "long unicode escape": b'x = "\\U00000073m120"\n',
    "named escape": b'x = "\\N{LATIN SMALL LETTER S}m120"\n',
    "backslash-newline": b'x = "sm\\\n120"\n',
    "joined strings": b'x = "sm" "120"\n',
    "joined over lines": b"x = (\"sm\"\n     # why\n     '120')\n",
    "joined with prefix": b'x = "sm" rb"120"\n',
    "joined and escaped": b'x = "s" "\\x6d120"\n',
    "fullwidth name": "is_\uff53\uff4d120 = 1\n".encode(),
    "latin-1 cookie": b"# -*- coding: latin-1 -*-\nx = 'sm\xb9'\n",
}


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_spelt_only_through_the_tokenizer_is_sent(could_spell: Spell, name: str) -> None:
    data = TRICKY[name]
    assert b"sm120" not in data
    if name != "latin-1 cookie":
        assert local_contains(data, "sm120"), "the local prefilter must see it (test premise)"
    assert could_spell(data, ["sm120"])


def test_a_coding_cookie_is_sent_whatever_it_holds(could_spell: Spell) -> None:
    # rot13 is not a text encoding: the client reports the file, so it must arrive
    assert could_spell(b"# coding: rot13\nx = 1\n", ["sm120"])
    assert could_spell(b"#!/usr/bin/python\n# vim: set fileencoding=ascii :\n", ["sm120"])


def test_what_cannot_spell_a_needle_stays(could_spell: Spell) -> None:
    assert not could_spell(b'"""Doc."""\nx = "a" "b"  # sm12\ny = "\\n"\n', ["sm120"])
    assert not could_spell(b"", ["sm120"])
    assert could_spell(b"x = 1\n", ["sm120", ""])  # an empty needle is in every file


def _stdlib_files() -> Iterator[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    chosen = ("json", "email", "importlib", "encodings/idna.py", "encodings/cp1252.py")
    for folder in (*chosen, "test/test_tokenize.py", "test/test_fstring.py"):
        path = root / folder
        yield from [path] if path.is_file() else sorted(path.rglob("*.py"))


@pytest.mark.slow
def test_over_approximates_the_local_prefilter_on_the_standard_library(
    could_spell: Spell,
) -> None:
    """For every file and needle the local prefilter keeps, the helper sends the file.

    Needles: words of each file's views (so escapes and joined strings count),
    fragments of them, and words of other files (mostly absent: the helper
    must also leave files on the server, or it filters nothing).
    """
    files = [path.read_bytes() for path in _stdlib_files()]
    assert len(files) > 50
    rng = random.Random(120)
    vocabulary = sorted({word for data in files for word in IDENTIFIER.findall(data.decode())})
    kept = left = 0
    for data in files:
        views = local_views(data)
        own = sorted(views.words()) if views else []
        needles = rng.sample(own, min(5, len(own))) + rng.sample(vocabulary, 10)
        needles += [word[1:-1] for word in needles if len(word) > 3][:5]
        needles.append(rng.choice(vocabulary) + "_" + rng.choice(vocabulary))
        for needle in needles:
            if views is None or views.contains(needle):
                assert could_spell(data, [needle]), (needle, data[:80])
                kept += 1
            elif not could_spell(data, [needle]):
                left += 1
    assert kept > 300
    assert left > 300, "the helper must leave files that cannot matter on the server"


@pytest.mark.slow
def test_the_helper_sends_every_file_a_join_may_spell_the_needle_in(
    could_spell: Spell,
) -> None:
    """The helper joins nothing: where a join may spell the needle it sends the file.  On
    the standard library, with needles made of the text on both sides of each join, the
    words joining spells and words of other files, it sends every file the client's
    prefilter keeps, and leaves most others."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = [path.read_bytes() for path in sorted(stdlib.glob("*.py"))]
    assert len(files) > 100
    rng = random.Random(121)
    vocabulary = sorted({word for data in files for word in IDENTIFIER.findall(data.decode())})
    straddling = left = 0
    for data in files:
        text = data.decode()
        joins = list(_ADJACENT.finditer(text))
        needles = [
            text[join.start() - rng.randint(1, 4) : join.start()]
            + text[join.end() : join.end() + rng.randint(1, 4)]
            for join in rng.sample(joins, min(6, len(joins)))
            if join.start() >= 4
        ]
        words = set(IDENTIFIER.findall(_ADJACENT.sub("", text)))
        needles += sorted(words - set(IDENTIFIER.findall(text)))[:4]
        needles += rng.sample(vocabulary, 4)
        for needle in needles:
            if local_contains(data, needle):
                assert could_spell(data, [needle]), (needle, data[:80])
                straddling += needle.encode() not in data
            elif not could_spell(data, [needle]):
                left += 1
    assert straddling > 100, "the texts must hold needles only a join spells (test premise)"
    assert left > 300, "the helper must leave files that cannot matter on the server"


@pytest.mark.parametrize("seed", range(40))
def test_a_needle_cut_into_joined_literals_is_sent(could_spell: Spell, seed: int) -> None:
    """A needle cut anywhere into pieces joined by any separators Python allows."""
    rng = random.Random(seed)
    needle = rng.choice(["sm120", "is_sm120_supported", "flashinfer", "ab"])
    cuts = sorted(rng.sample(range(1, len(needle)), rng.randint(1, min(3, len(needle) - 1))))
    pieces = [needle[a:b] for a, b in zip([0, *cuts], [*cuts, len(needle)], strict=True)]
    separators = [" ", "\n    ", " \\\n ", "  # a comment\n  ", "\t"]
    prefixes = ["", "", "r", "b", "f", "Rb", "u"]
    quotes = ['"', "'", '"""', "'''"]
    literal = []
    for index, piece in enumerate(pieces):
        quote = rng.choice(quotes)
        start = rng.choice(prefixes) if index else ""
        glue = rng.choice(separators) if index else ""
        literal.append(f"{glue}{start}{quote}{piece}{quote}")
    data = f"x = ({''.join(literal)})\n".encode()
    assert needle.encode() not in data
    assert local_contains(data, needle), "the local prefilter must see it (test premise)"
    assert could_spell(data, [needle]), data


def test_a_read_records_content_or_spared_by_the_needle_test() -> None:
    """``with_needles``: the one decision a read's record takes (the agent's read, and the SSH
    source for content it holds): no needles, the content; else spared when the needle test
    says the content cannot spell one."""
    data = b"x = 'sm' '120'\n"
    assert agent.with_needles(data, None) == agent.wire.Content(data)
    assert agent.with_needles(data, agent.needle_pairs(["sm120"])) == agent.wire.Content(data)
    assert agent.with_needles(data, agent.needle_pairs(["cuda"])) == agent.wire.Spared()
    assert agent.with_needles(data, []) == agent.wire.Spared()
    assert agent.needle_pairs(["a\udcff"]) == [(b"a\xff", "a\udcff")]
