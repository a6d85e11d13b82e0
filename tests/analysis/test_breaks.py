"""The break search: a needle spelt with breaks between its characters, and only so.

A *break* is what Python's tokenizer removes between two pieces of one string value:
a backslash-newline inside a literal, or the end of one literal, separators and the
start of the next (``"sm" "120"``), or the brace before an f-string's ``{x=}``.
"""

from __future__ import annotations

import pytest

from pytest_cleantree.analysis import breaks
from pytest_cleantree.analysis.breaks import breaks_search


def uncached(needles: frozenset[str]) -> breaks._BreakSearch | None:
    """The search built afresh: the part bound is read when it is built, not when cached.

    Not ``inspect.unwrap``: under the mutation runner (no cache) that would skip the mutants'
    trampoline and call the original."""
    clear = getattr(breaks.breaks_search, "cache_clear", None)
    if clear is not None:
        clear()
    return breaks.breaks_search(needles)


def found(needles: set[str], text: str) -> bool:
    search = breaks_search(frozenset(needles))
    assert search is not None
    return search.search(text.encode("utf-8")) is not None


@pytest.mark.parametrize(
    "text",
    [
        '"sm" "120"',
        "'sm''120'",
        '"sm"\t"120"',
        '"sm"\f"120"',
        '("sm"\n "120")',
        '("sm"\r\n "120")',
        '"sm" \\\n"120"',
        '"sm" \\\r\n"120"',
        '("sm"  # the first half\n "120")',
        '("sm"  # the first half\r\n "120")',
        '"""sm""" """120"""',
        '"sm" r"120"',
        '"sm" f"120"',
        '"sm" Rb"120"',
        'b"sm" bR"120"',
        '"sm\\\n120"',
        '"sm\\\r\n120"',
        '"sm\\\r120"',
        'f"sm{120=}"',
    ],
)
def test_a_needle_spelt_across_one_break_is_found(text: str) -> None:
    assert found({"sm120"}, text)


@pytest.mark.parametrize("at", range(1, 5))
def test_a_break_between_any_two_characters_counts(at: int) -> None:
    needle = "sm120"

    assert found({needle}, f'x = "{needle[:at]}" "{needle[at:]}"')


def test_several_breaks_count() -> None:
    assert found({"sm120"}, '"s" "m" \'1\'"2" "0"')
    assert found({"sm120"}, '"s\\\nm\\\n120"')


@pytest.mark.parametrize(
    "text",
    [
        '"sm120"',
        "sm120 = 1",
        '"sm" + "120"',
        '"sm"; "120"',
        '"sm" x "120"',
        '"sm" rbu"120"',
        '"sm" "12"',
        '"s" "x" "m120"',
        '"sm\\n120"',
        '"sm120XXXX"',
        "",
    ],
)
def test_a_plain_spelling_or_anything_else_is_not_found(text: str) -> None:
    assert not found({"sm120"}, text)


def test_any_of_several_needles_is_found() -> None:
    needles = {"sm120", "hopper"}

    assert found(needles, '"hop" "per"')
    assert found(needles, '"sm" "120"')
    assert not found(needles, '"hopper" "sm120"')


def test_a_needle_of_one_character_holds_no_break() -> None:
    assert breaks_search(frozenset({"x"})) is None
    assert breaks_search(frozenset()) is None
    assert not found({"x", "sm120"}, 'x = "x"')


def test_a_needle_is_matched_character_by_character_on_utf8_bytes() -> None:
    assert found({"caf\u00e9"}, '"caf" "\u00e9"')
    assert found({"\u00e9t\u00e9"}, '"\u00e9" "t\u00e9"')
    assert not found({"caf\u00e9"}, '"caf\u00e9"')
    # the byte 0xe9 alone (Latin-1 é) is no é in UTF-8
    search = breaks_search(frozenset({"caf\u00e9"}))
    assert search is not None
    assert search.search(b'"caf" "\xe9"') is None


LONG = "abcdefghijklmnopqrstuvwxyz"  # longer than one window (10 characters)


@pytest.mark.parametrize("at", range(1, len(LONG)))
def test_a_long_needle_with_a_break_anywhere_is_found(at: int) -> None:
    assert found({LONG}, f'"{LONG[:at]}" "{LONG[at:]}"')


def test_a_long_needle_spelt_plain_is_not_found() -> None:
    assert not found({LONG}, f'"{LONG}"')


def test_in_a_long_needle_one_window_across_a_break_is_needed() -> None:
    # windows of ten characters, each from the last character of the one before: here
    # ``abcdefghij``, ``jklmnopqrs`` and the rest, ``stuvwxyz``
    assert found({LONG}, '"jk" "lmnopqrs"')
    assert found({LONG}, '"st" "uvwxyz"')
    # nine characters are no window, nor ten that start elsewhere
    assert not found({LONG}, '"jk" "lmnopqr"')
    assert not found({LONG}, '"ij" "klmnopqr"')


def test_an_eleven_character_needle_broken_before_its_last() -> None:
    needle = "abcdefghijk"

    assert found({needle}, '"abcdefghij" "k"')
    assert not found({needle}, f'"{needle}"')


def test_the_search_says_where_the_spelling_is() -> None:
    search = breaks_search(frozenset({"sm120"}))
    assert search is not None
    match = search.search(b'x = "sm" "120"')
    assert match is not None
    assert match.span() == (5, 13)


def test_a_needle_of_two_characters_is_searched() -> None:
    assert found({"ab"}, '"a" "b"')
    assert not found({"ab"}, '"ab"')


@pytest.mark.parametrize("length", range(11, 30))
def test_a_long_needle_spelt_plain_is_not_found_whatever_its_length(length: int) -> None:
    needle = LONG[:length] if length <= len(LONG) else LONG + LONG[: length - len(LONG)]

    assert not found({needle}, f'x = "{needle}"')
    assert found({needle}, f'x = "{needle[:-1]}" "{needle[-1]}"')


def test_a_needle_holding_a_kept_byte_is_matched_on_its_bytes() -> None:
    # a byte no codec read (``\udce9``, as surrogateescape keeps it) is a character of a
    # pattern too (``forbid_lines_escaped``)
    needle = "caf\udce9"
    search = breaks_search(frozenset({needle}))
    assert search is not None

    assert search.search('"caf" "\udce9"'.encode("utf-8", "surrogatepass")) is not None
    assert search.search('"caf\udce9"'.encode("utf-8", "surrogatepass")) is None


def test_alternatives_are_cut_in_parts_at_the_byte_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    """A part's text (its alternatives joined by ``|``) reaches the bound but never passes it;
    an alternative longer than the bound stands alone; nothing is lost or reordered."""
    monkeypatch.setattr(breaks, "_PART_BYTES", 9)
    assert breaks._parts([b"aaaa", b"bbbb"]) == [[b"aaaa", b"bbbb"]]  # "aaaa|bbbb": 9 bytes
    assert breaks._parts([b"aaaa", b"bbbbb"]) == [[b"aaaa"], [b"bbbbb"]]  # 10 would pass it
    assert breaks._parts([b"aaaa", b"bbbb", b"c"]) == [[b"aaaa", b"bbbb"], [b"c"]]
    assert breaks._parts([b"aaaa", b"bbbb", b"cccc", b"dddd"]) == [  # a new part starts empty
        [b"aaaa", b"bbbb"],
        [b"cccc", b"dddd"],
    ]
    assert breaks._parts([b"a" * 20, b"b", b"c"]) == [[b"a" * 20], [b"b", b"c"]]
    assert breaks._parts([b"x"]) == [[b"x"]]


def test_a_search_in_parts_answers_as_one_program_would(monkeypatch: pytest.MonkeyPatch) -> None:
    """With parts of a few alternatives, each needle is still found, only broken, and the
    span is the earliest in the text whichever part holds it; ``pos`` is honoured."""
    needles = frozenset({"sm120", "flashinfer", "fused_moe"})
    whole = uncached(needles)
    monkeypatch.setattr(breaks, "_PART_BYTES", 64)  # each alternative (some KB) a part alone
    union = uncached(needles)
    assert isinstance(union, breaks._Union)  # more than one part: what this test is about
    assert whole is not None
    assert not isinstance(whole, breaks._Union)
    texts = [
        b'a = "fused" "_moe"; b = "sm" "120"',
        b'a = "sm" "120"; b = "flash" "infer"',
        b'a = "flashinfer"; b = "fused_moe"',
        b'a = "sm12" "0"',
    ]
    for text in texts:
        for pos in (0, 6, 20):
            mine, theirs = union.search(text, pos), whole.search(text, pos)
            assert (mine and mine.span()) == (theirs and theirs.span()), (text, pos)
    assert union.search(texts[0]).span() == whole.search(texts[0]).span()  # type: ignore[union-attr]
    at_start = b'sm" "120"'  # a text whose first byte starts the match: pos 0 by default
    assert union.search(at_start).span() == (0, 8)  # type: ignore[union-attr]
    assert union.search(texts[1], 0).span()[0] == 5  # type: ignore[union-attr]  # "sm", not "flash"


def test_a_part_of_the_largest_size_compiles() -> None:
    """Parts are cut at :data:`breaks._PART_BYTES`; RE2 compiles one of that size within the
    memory the search gives it (a smaller budget refuses it: "pattern too large")."""
    names = [f"module_{index:04d}_feature_flag_x" for index in range(150)]
    alternatives = [a for name in names for a in breaks._broken(name)]
    assert sum(len(a) + 1 for a in alternatives) > breaks._PART_BYTES  # at least two parts
    search = uncached(frozenset(names))
    assert isinstance(search, breaks._Union)
    assert search.search(f'"{names[-1][:5]}" "{names[-1][5:]}"'.encode()) is not None
