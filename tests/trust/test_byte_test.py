"""The byte test before the words: findings with it are the findings without it.

The fast path asks the agent's :func:`~pytest_cleantree.agent.could_spell` (the servers'
test: one model) before it decodes a Python file and splits it into words; "no" lets the file
go untouched.  It must be a proof, so the fast path with the test
(:func:`~pytest_cleantree.analysis.analyze_fast`) and without it
(:func:`~pytest_cleantree.analysis.analyze_words`, ``CLEANTREE_ENGINE=words``) must give the
same analysis, finding for finding, problem for problem, on text the tokenizer reads in every
way the test must model or step aside for: PEP 263 codings, UTF-16/32 with a byte-order mark,
NFKC spellings of names, ``\\N{...}``, ``\\x..`` and octal escapes, backslash-newlines,
adjacent literals, CRLF and lone CR.
"""

from __future__ import annotations

import re
import sysconfig
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pytest_cleantree import agent
from pytest_cleantree.agent import needle as agent_needle
from pytest_cleantree.analysis import analyze, analyze_fast, analyze_words, fast, text
from pytest_cleantree.analysis.decoding import DECODE_ERRORS, decode_python
from pytest_cleantree.core.model import Pattern
from pytest_cleantree.core.patterns import IDENTIFIER, parse_pattern

PATTERNS = ("sm120", "=is_sm120", "is_sm*", "café", "pkg.mod.is_sm120", "s\\m", "a\nb", "x{")
#: pieces of code that spell (or nearly spell) the needles in every way the tokenizer reads
PIECES = (
    "is_sm120()",
    "\uff49\uff53_\uff53\uff4d\uff11\uff12\uff10()",  # NFKC: is_sm120
    "is_sm\u2170\u2171",  # small roman numerals fold to letters
    "x = 'is_\\x73m120'",
    "x = '\\N{LATIN SMALL LETTER S}m120'",
    "x = '\\163m120'",
    "x = 'is_sm\\\n120'",
    "x = 'is_sm' '120'",
    "x = ('is_s'\n     'm120')",
    "x = r'is_\\x73m'",
    "x = b'\\u0073m120'",
    "x = f'{{x'",
    "x = 'caf\\xe9'",
    "x = 'café'",
    "x = 's\\\\m'",
    "x = 'a\\nb'",
    "# a comment: sm120",
    "def is_sm12(): pass",
    "import pkg.mod as m; m.is_sm120",
    "from pkg.mod import *",
    "y = 1",
    "if y:\n    pass",
    "",
)
CODINGS = ("", "# -*- coding: latin-1 -*-", "# coding: utf-8", "# vim: set fileencoding=cp1252 :")
ENCODINGS = ("utf-8", "utf-8-sig", "utf-16", "utf-32", "latin-1")


@st.composite
def python_files(draw: st.DrawFn) -> bytes:
    """A Python file's bytes: pieces of code, a newline style, a coding line, an encoding."""
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    body = newline.join(draw(st.lists(st.sampled_from(PIECES), max_size=6)))
    coding = draw(st.sampled_from(CODINGS))
    source = coding + newline + body if coding else body
    encoding = draw(st.sampled_from(ENCODINGS))
    try:
        return source.encode(encoding)
    except UnicodeEncodeError:
        return source.encode("utf-8")


def same(path: str, data: bytes, patterns: list[Pattern]) -> None:
    assert analyze_fast(path, data, patterns) == analyze_words(path, data, patterns), data


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(python_files(), st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=3, unique=True))
@example(b"x = '\\N{LATIN SMALL LETTER S}m120'\n", ["sm120"])
@example(PIECES[1].encode() + b"\n", ["=is_sm120"])
@example(b"# -*- coding: latin-1 -*-\nx = 'caf\xe9'\n", ["café"])
@example("x = 'is_sm120'\n".encode("utf-16"), ["=is_sm120"])
@example(b"x = 'is_sm\\\r\n120'\r\n", ["sm120"])
@example(b"x = 'a\\nb'\r\n", ["a\nb"])
# Python 3.13's tokenizer raised UnicodeDecodeError on a lone CR before a fullwidth name
@example(
    b"# coding: utf-8\r\xef\xbd\x89\xef\xbd\x93_\xef\xbd\x93\xef\xbd\x8d"
    b"\xef\xbc\x91\xef\xbc\x92\xef\xbc\x90()",
    ["a\nb"],
)
def test_the_byte_test_changes_no_analysis(data: bytes, patterns: list[str]) -> None:
    same("gen.py", data, [parse_pattern(p) for p in patterns])


def test_a_file_that_cannot_spell_a_needle_is_not_split_into_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What the byte test is for: no decoding, no word split where no needle can stand."""
    calls: list[str] = []
    words = text.TextViews.words

    def counted(self: text.TextViews, *, derived: bool = True) -> set[str]:
        calls.append(self.text)
        return words(self, derived=derived)

    monkeypatch.setattr(text.TextViews, "words", counted)
    patterns = [parse_pattern("=is_directed")]
    untouched = analyze_fast("a.py", b"def f(g):\n    return g.nodes\n", patterns)
    assert (untouched.findings, untouched.lines) == ((), ("def f(g):", "    return g.nodes", ""))
    assert calls == []
    found = analyze_fast("b.py", b"g.is_directed()\n", patterns)
    assert [f.occurrence.line for f in found.findings] == [1]
    assert calls == ["g.is_directed()\n"]


def test_utf8_that_is_not_ascii_is_tested_through_nfkc(monkeypatch: pytest.MonkeyPatch) -> None:
    """Locally (this Python's NFKC is the analysis' own) a UTF-8 file that is not ASCII is
    tested too: its NFKC form must not spell a needle.  A server (another Python, maybe
    another Unicode table) still sends it."""
    pairs = [(b"is_sm120", "is_sm120")]
    plain = "# caf\u00e9\nx = 1\n".encode()
    assert not agent.could_spell(plain, pairs, nfkc=True)
    assert agent.could_spell(plain, pairs)  # the agent's default: not modelled, sent
    fullwidth = (PIECES[1] + "\n").encode()
    assert agent.could_spell(fullwidth, pairs, nfkc=True)
    bom = "\ufeffx = 'caf\u00e9'\r\ny = 2\r\n".encode()
    assert not agent.could_spell(bom, pairs, nfkc=True)
    patterns = [parse_pattern("=is_sm120")]
    analysis = analyze_fast("a.py", bom, patterns)
    assert analysis == analyze_words("a.py", bom, patterns)
    assert analysis.lines == ("x = 'caf\u00e9'", "y = 2", "")
    assert [f.occurrence.line for f in analyze_fast("b.py", fullwidth, patterns).findings] == [1]


def test_words_is_the_engine_without_the_byte_test(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(fast, "could_spell", lambda *_: pytest.fail("the byte test ran"))
    monkeypatch.setenv("CLEANTREE_ENGINE", "words")
    assert analyze("a.py", b"x = 1\n", [parse_pattern("=is_directed")]).findings == ()


def test_many_needles_skip_the_byte_test() -> None:
    """Past :data:`fast.BYTE_TEST_MAX_NEEDLES` a search per needle costs more than the words."""
    many = tuple(parse_pattern(f"=name{i}") for i in range(fast.BYTE_TEST_MAX_NEEDLES + 1))
    assert fast._byte_needles(text.compile_patterns(many)) is None
    few = (parse_pattern("=name"), parse_pattern("café"))
    assert fast._byte_needles(text.compile_patterns(few)) == (
        (b"caf\xc3\xa9", "café"),
        (b"name", "name"),
    )


# --------------------------------------------------------------------------- the head search


def alternation(needle: str) -> re.Pattern[str]:
    """The head search as it was written before it was nested: one branch per cut."""
    step = agent_needle._EDGE + agent_needle._JUNK
    cuts = range(1, len(needle))
    return re.compile("|".join(re.escape(needle[:k]) + step + re.escape(needle[k]) for k in cuts))


BREAK_TEXT = st.text(st.sampled_from("ab\"'{} \t\r\n\\#rf"), max_size=40)


@settings(max_examples=400, deadline=None)
@given(st.text(st.sampled_from("ab\"'{\\.\n"), min_size=2, max_size=8), BREAK_TEXT)
@example("ab", "a'  'b")
@example("aab", "aa'\\\n'b")
def test_the_nested_head_search_is_the_alternation(needle: str, between: str) -> None:
    """Nested as a trie, the head search reads the same language as the cuts' alternation."""
    nested = re.compile(agent_needle._heads(needle))
    for haystack in (between, needle[:1] + between + needle[1:], needle[:-1] + between + needle):
        assert (nested.search(haystack) is None) == (alternation(needle).search(haystack) is None)


def test_a_long_needle_keeps_the_alternation() -> None:
    needle = "a" * (agent.NESTED_HEAD_MAX + 1)
    assert agent_needle._heads(needle) == alternation(needle).pattern
    assert agent.spelt_across_breaks("a" * 40 + "' '" + "a" * 25, needle)


# --------------------------------------------------------------------------- real code

STDLIB = Path(sysconfig.get_paths()["stdlib"])
STDLIB_FILES = sorted(p for p in STDLIB.rglob("*.py") if "site-packages" not in p.parts)
CHUNKS = 4


def drawn(text_: str, step: int) -> list[Pattern]:
    """Some of a file's own words (as exact names and substrings): needles it spells."""
    names = sorted(set(IDENTIFIER.findall(text_)))[::step][:3]
    return [parse_pattern(f"={n}") for n in names] + [parse_pattern(n[1:]) for n in names if n[1:]]


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_the_byte_test_changes_nothing_on_the_standard_library(chunk: int) -> None:
    """Each file with its own needles (the test must say "may") and its neighbour's (mostly
    "no"): every analysis the same with the test and without."""
    wrong: list[str] = []
    previous: list[Pattern] = []
    for path in STDLIB_FILES[chunk::CHUNKS]:
        data = path.read_bytes()
        try:
            own = drawn(decode_python(data), 7)
        except DECODE_ERRORS:
            own = []
        rel = path.relative_to(STDLIB).as_posix()
        for patterns in (own, previous, own[:2] + previous[:2]):
            if patterns and analyze_fast(rel, data, patterns) != analyze_words(rel, data, patterns):
                wrong.append(f"{rel}: {[p.text for p in patterns]}")
        previous = own or previous
    assert wrong == []


ESCAPE_TEXT = st.lists(
    st.sampled_from(["x", "s", "'", '"', "\\", "\\x73", "\\163", "\\\\", "r'", "b'", "\\u00e9",
                     "\\n", "\r\n", "{{", " ", "\\N{LATIN SMALL LETTER S}", "é"]),
    max_size=12,
).map("".join)  # fmt: skip


@settings(max_examples=400, deadline=None)
@given(ESCAPE_TEXT, st.sets(st.sampled_from("sxé\n{'\\"), max_size=3))
def test_made_chars_lists_every_wanted_character(text_: str, wanted: set[str]) -> None:
    """The byte test asks :func:`agent.made_chars` about the needles' characters only."""
    assert agent.made_chars(text_, wanted=wanted) & wanted == agent.made_chars(text_) & wanted
