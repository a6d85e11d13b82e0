"""The break search against the views it lets the prefilter skip.

:meth:`TextViews.derived_may_spell` answers "can a string's value spell this
needle where the text does not?" with one RE2 search instead of building the
decoded and joined views.  Its ``False`` must be a proof: wherever it says
so, the views (the obviously correct, slow path, forced here by
:class:`AlwaysDerived`) add no occurrence and no line.  Held on every file of
the standard library, with needles each file spells only across a break (the
search must see them) and needles it spells plainly, and on generated text.
"""

from __future__ import annotations

import bisect
import functools
import re
import sys
import sysconfig
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from runs import check_tree
from test_differential import placed

from pytest_cleantree.agent import unescape as _unescape
from pytest_cleantree.analysis import analyze_fast, analyze_reference, breaks
from pytest_cleantree.analysis.decoding import DECODE_ERRORS, decode_python
from pytest_cleantree.analysis.text import split_lines
from pytest_cleantree.analysis.views import _ADJACENT, _ESCAPE, IDENTIFIER, TextViews
from pytest_cleantree.core.patterns import parse_pattern

STDLIB = Path(sysconfig.get_paths()["stdlib"])
FILES = sorted(p for p in STDLIB.rglob("*.py") if "site-packages" not in p.parts)
CHUNKS = 4


class AlwaysDerived(TextViews):
    """The views with the break search switched off: every derived view is built and asked."""

    def derived_may_spell(self, needles: frozenset[str], *, together: bool = False) -> bool:
        return True


def views_of(text: str) -> tuple[TextViews, TextViews]:
    lines = split_lines(text)
    return TextViews(text, lines), AlwaysDerived(text, lines)


Segments = list[tuple[int, int, int]]  # (offset in the view, offset in its source, length)


def substituted(
    text: str, pattern: re.Pattern[str], replace: Callable[[re.Match[str]], str]
) -> tuple[str, Segments]:
    """``pattern.sub(replace, text)``, with the runs of it that are ``text``'s own characters."""
    out: list[str] = []
    kept: Segments = []
    size = last = 0
    for match in [*pattern.finditer(text), None]:
        end = match.start() if match else len(text)
        kept.append((size, last, end - last))
        out.append(text[last:end])
        size += end - last
        if match:
            made = replace(match)
            out.append(made)
            size += len(made)
            last = match.end()
    return "".join(out), kept


def own(chain: list[Segments], start: int, length: int) -> bool:
    """Do these characters of a view come, in one run, from the file (through each step)?"""
    for kept in reversed(chain):
        index = bisect.bisect_right(kept, (start, sys.maxsize, 0)) - 1
        view, source, size = kept[index]
        if index < 0 or start + length > view + size:
            return False
        start = source + start - view
    return True


@functools.lru_cache(maxsize=4)
def derived_views(text: str) -> list[tuple[str, list[Segments]]]:
    """The views :class:`TextViews` derives, with where their characters come from."""
    decoded, decoding = substituted(text, _ESCAPE, _unescape)
    joined, joining = substituted(text, _ADJACENT, lambda _: "")
    both, joining_decoded = substituted(decoded, _ADJACENT, lambda _: "")
    return [(decoded, [decoding]), (joined, [joining]), (both, [decoding, joining_decoded])]


def new_occurrences(text: str, needle: str) -> list[str]:
    """The derived views' occurrences of ``needle`` that are not the file's own characters."""
    found = []
    for view, chain in derived_views(text):
        index = view.find(needle)
        while index != -1:
            if not own(chain, index, len(needle)):
                found.append(view[max(0, index - 10) : index + len(needle) + 10])
            index = view.find(needle, index + 1)
    return found


#: what breaks are made of: an escape decoded to one of these makes the views (which decode
#: escapes everywhere, then join) break where Python does not, and spell what no value holds
BREAK_MATERIAL = frozenset("\"'#\\ \t\f\r\nrRbBuUfF")


def overreaching(views: TextViews) -> bool:
    return any(material in char for char in views.decoded_chars for material in BREAK_MATERIAL)


def check(text: str, needles: set[str]) -> list[str]:
    """Where the search's "none" is wrong: a derived view spells a needle anew.

    Where an escape decodes to break material the views over-approximate Python
    itself; there only the findings are compared (:func:`differences`).
    """
    fast, full = views_of(text)
    wrong: list[str] = []
    if overreaching(fast):
        return wrong
    for needle in sorted(needles):
        if fast.derived_may_spell(frozenset({needle})):
            continue
        if full.contains(needle) != fast.spells(needle):
            wrong.append(f"{needle!r}: a view spells it, the search said none can")
        elif new_occurrences(text, needle):
            wrong.append(f"{needle!r}: spelt anew at {new_occurrences(text, needle)[:2]}")
    together, _ = views_of(text)
    if needles and not together.derived_may_spell(frozenset(needles), together=True):
        missed = [n for n in needles if fast.derived_may_spell(frozenset({n}))]
        if missed:
            wrong.append(f"all at once says none, one by one says {missed}")
    return wrong


def differences(path: str, data: bytes, needles: set[str]) -> list[str]:
    """The fast path against the reference on these needles as patterns (the end result)."""
    patterns = [parse_pattern(needle) for needle in sorted(needles)]
    reference = analyze_reference(path, data, patterns)
    if reference.problem:
        return []
    fast = analyze_fast(path, data, patterns)
    if placed(fast.findings) != placed(reference.findings):
        return [f"{path}: the fast path and the reference disagree on {sorted(needles)}"]
    return []


def spelt_only_across_breaks(text: str) -> set[str]:
    """Words some derived view spells that the text does not: what the search must find."""
    _, full = views_of(text)
    found = full.words() - full.words(derived=False)
    return {word for word in found if not full.spells(word) and len(word) > 1}


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_the_search_speaks_for_the_views_on_the_standard_library(chunk: int) -> None:
    wrong: list[str] = []
    across = 0
    for path in FILES[chunk::CHUNKS]:
        try:
            text = decode_python(path.read_bytes())
        except DECODE_ERRORS:
            continue
        fast, _ = views_of(text)
        hard = set() if overreaching(fast) else spelt_only_across_breaks(text)
        across += len(hard)
        for needle in hard:  # the search must not rule out what a view does spell
            if not fast.derived_may_spell(frozenset({needle})):
                wrong.append(f"{path}: {needle!r} is spelt across a break, the search missed it")
        plain = set(IDENTIFIER.findall(text)[:: max(1, len(text) // 4000)][:30])
        wrong += [f"{path}: {w}" for w in check(text, plain | set(list(hard)[:10]))]
        if hard:  # and what the engine reports for them, against the reference
            wrong += differences(str(path), path.read_bytes(), set(sorted(hard)[:10]))
    assert across > 0, "the standard library joins literals: some words must be spelt across"
    assert wrong == []


LITERAL_PIECES = st.sampled_from(["sm", "120", "s", "m1", "20", "x", "\\x73", "\\163", "\\n"])
BREAKS = st.sampled_from(
    ['" "', '"\n"', '" \\\n "', '"  # c\n  "', '" f"', '"rb"', '""', '" \r\n "', "\\\n", "\\\r\n"]
)


@st.composite
def joined_literals(draw: st.DrawFn) -> str:
    """A file of adjacent string literals cut anywhere, with escapes, prefixes and comments."""
    parts = ['x = ("']
    for _ in range(draw(st.integers(1, 6))):
        parts.append(draw(LITERAL_PIECES))
        if draw(st.booleans()):
            parts.append(draw(BREAKS))
    parts.append('")\n# sm120 is not here: ' + draw(st.sampled_from(["", "sm12", "m120"])) + "\n")
    return "".join(parts)


@pytest.mark.slow
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(joined_literals())
@example('x = ("sm" "120")\n')
@example('x = ("s" "m" "120")\n')
@example('x = ("sm\\\n120")\n')
@example('x = ("sm"  # c\n "120")\n')
@example('x = ("sm" f"120")\n')
@example('x = ("sm" \\\r\n "120")\n')
@example('x = ("\\x73m120")\n')
def test_the_search_speaks_for_the_views_on_generated_literals(text: str) -> None:
    assert check(text, {"sm120", "m12", "sm", "120"}) == []
    assert differences("generated.py", text.encode(), {"sm120", "m12"}) == []


@pytest.mark.parametrize(
    "text",
    [
        'x = ("sm" "120")\n',
        'x = ("s" "m" "120")\n',
        'x = ("sm\\\n120")\n',
        'x = ("sm"  # a comment\n     "120")\n',
        'x = ("sm" f"120")\n',
        'x = ("sm" \\\r\n "120")\n',
        "x = ('sm''120')\n",
        'x = ("""sm""" """120""")\n',
    ],
)
def test_the_search_finds_a_name_spelt_across_each_kind_of_break(text: str) -> None:
    fast, full = views_of(text)
    assert full.contains("sm120"), "the views spell it (test premise)"
    assert fast.derived_may_spell(frozenset({"sm120"}))
    assert fast.derived_may_spell(frozenset({"sm120", "other"}), together=True)


def test_an_escape_that_decodes_to_a_needle_character_leaves_the_answer_to_the_views() -> None:
    fast, _ = views_of('x = "\\x73m120"\n')
    assert fast.derived_may_spell(frozenset({"sm120"}))
    assert not fast.derived_may_spell(frozenset({"zzz"}))


def many_names(count: int, length: int = 24) -> list[str]:
    """``count`` distinct lowercase names of ``length`` characters, the same on every run."""
    alphabet = "abcdefghijklmnopqrstuvwxyz"
    return [
        "".join(
            alphabet[(index * 7 + position * (index % 5 + 1)) % 26] for position in range(length)
        )
        + f"_{index}"
        for index in range(count)
    ]


def test_a_union_too_large_for_one_program_is_searched_in_parts() -> None:
    """400 names of 24 characters make about 4 MB of expression, past what RE2 compiles as one
    program ("pattern too large"): the search is cut in parts and finds what one would."""
    names = many_names(400)
    search = breaks.breaks_search(frozenset(names))
    assert isinstance(search, breaks._Union)  # more than one part: what this test is about

    def broken(name: str) -> str:
        return f'"{name[:9]}" "{name[9:]}"'

    for name in (names[0], names[199], names[-1]):
        assert search.search(f"x = {broken(name)}\n".encode()) is not None, name
        assert search.search(f'x = "{name}"\n'.encode()) is None  # unbroken: no break to find
    for first, second in ((names[0], names[-1]), (names[-1], names[0])):
        text = f"x = {broken(first)}\ny = {broken(second)}\n".encode()
        found = search.search(text)
        assert found is not None
        assert found.span()[0] == text.index(first[:9].encode())  # the earliest, of any part
    assert search.search(b'x = "sm" "120"\n') is None


def test_four_hundred_forbidden_names_are_checked_not_refused(tmp_path: Path) -> None:
    """A manifest listing 400 names, one spelt across two string literals in the file: the
    line is found (the check stopped with an internal error and 277 lines of RE2's log)."""
    names = many_names(400)
    forbid = ", ".join(f'"{name}"' for name in names)
    manifest = f'root = "."\n[[rule]]\nid = "gone"\nfiles = ["m.py"]\nforbid = [{forbid}]\n'
    name = names[200]
    source = f'x = 1\ny = "{name[:7]}" "{name[7:]}"\n'.encode()
    for engine in ("fast", "reference"):
        completed = check_tree(tmp_path, manifest, {"m.py": source}, engine=engine)
        assert completed.returncode == 1, completed.stdout + completed.stderr
        # the column of the name's first character, in its first piece (not the quote)
        assert "m.py:2:6  string" in completed.stdout, engine
        assert completed.stderr == "", completed.stderr[:500]
