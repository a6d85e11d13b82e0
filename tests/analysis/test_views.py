"""The views of a file's text (:mod:`pytest_cleantree.analysis.views`), driven directly.

Each row states, for one text, what every view answers about the needle ``sm120``: whether
two literals may be joined, what the escapes decode to and what the tokenizer makes, whether
a derived view may spell it, the lines that may spell it, and the words.  A view answering
more than it must costs only time; these rows hold the module to its exact answer both ways
(a row that says "every line" says so because the text makes a needle's character).
"""

from __future__ import annotations

import pytest

from pytest_cleantree.analysis.text import split_lines
from pytest_cleantree.analysis.views import TextViews, _all_offsets

NEEDLE = "sm120"


def views(source: str) -> TextViews:
    return TextViews(source, split_lines(source))


#: text, adjacent, decoded chars, made chars, derived_may_spell, contains, spelt across
#: breaks, lines spelling the needle, words, the text's own words, identifiers
ROWS = [
    (
        "x = sm120\n",
        False,
        "",
        "",
        False,
        True,
        False,
        {1},
        ["sm120", "x"],
        ["sm120", "x"],
        ["sm120", "x"],
    ),
    (
        'x = "sm" "120"\n',
        True,
        "",
        "",
        True,
        True,
        True,
        {1},
        ["sm", "sm120", "x"],
        ["sm", "x"],
        ["sm", "sm120", "x"],
    ),
    (
        'x = "\\x73m120"\n',
        False,
        "s",
        "",
        True,
        True,
        False,
        {1, 2},
        ["sm120", "x", "x73m120"],
        ["x", "x73m120"],
        ["sm120", "x", "x73m120"],
    ),
    (
        'x = "sm\\\n120"\n',
        False,
        "",
        "",
        True,
        True,
        True,
        {1, 2},
        ["sm", "sm120", "x"],
        ["sm", "x"],
        ["sm", "sm120", "x"],
    ),
    (
        'a = 1\nx = ("sm"\n  "120")\nb = 2\n',
        True,
        "",
        "",
        True,
        True,
        True,
        {2, 3},
        ["a", "b", "sm", "sm120", "x"],
        ["a", "b", "sm", "x"],
        ["a", "b", "sm", "sm120", "x"],
    ),
    (
        'x = "sm\\n120"\n',
        False,
        "",
        "\n",
        False,
        False,
        False,
        set(),
        ["n120", "sm", "x"],
        ["n120", "sm", "x"],
        ["n120", "sm", "x"],
    ),
    (
        'x = "sm" "12\\x30"\n',
        True,
        "0",
        "",
        True,
        True,
        True,
        {1, 2},
        ["sm", "sm12", "sm120", "x", "x30"],
        ["sm", "x", "x30"],
        ["sm", "sm12", "sm120", "x", "x30"],
    ),
    (
        'x = f"{{sm120"\n',
        False,
        "",
        "{}",
        False,
        True,
        False,
        {1},
        ["f", "sm120", "x"],
        ["f", "sm120", "x"],
        ["f", "sm120", "x"],
    ),
    (
        'x = "\uff53m120"\n',
        False,
        "",
        "",
        False,
        True,
        False,
        {1},
        ["sm120", "x", "\uff53m120"],
        ["sm120", "x", "\uff53m120"],
        ["sm120", "x", "\uff53m120"],
    ),
    # a string's value is not normalised: joined, it is \uff53m120, which no pattern sm120 matches
    (
        'x = "\uff53m" "120"\n',
        True,
        "",
        "",
        False,
        False,
        False,
        set(),
        ["sm", "x", "\uff53m", "\uff53m120"],
        ["sm", "x", "\uff53m"],
        ["sm", "sm120", "x", "\uff53m", "\uff53m120"],
    ),
    (
        'a = 1\nx = "s\\\nm\\\n120"\nb = 2\n',
        False,
        "",
        "",
        True,
        True,
        True,
        {2, 3, 4},
        ["a", "b", "m", "s", "sm120", "x"],
        ["a", "b", "m", "s", "x"],
        ["a", "b", "m", "s", "sm120", "x"],
    ),
    (
        'a = "sm"  # c\nb = 1\nx = ("s"\n "m120")\n',
        True,
        "",
        "",
        True,
        True,
        True,
        {3, 4},
        ["a", "b", "c", "m120", "s", "sm", "sm120", "x"],
        ["a", "b", "c", "m120", "s", "sm", "x"],
        ["a", "b", "c", "m120", "s", "sm", "sm120", "x"],
    ),
    (
        'x = "sm" \\\n  "120"\n',
        True,
        "",
        "",
        True,
        True,
        True,
        {1, 2},
        ["sm", "sm120", "x"],
        ["sm", "x"],
        ["sm", "sm120", "x"],
    ),
    (
        'x = "\\u0073m120"\ny = 2\n',
        False,
        "s",
        "",
        True,
        True,
        False,
        {1, 2, 3},
        ["sm120", "u0073m120", "x", "y"],
        ["u0073m120", "x", "y"],
        ["sm120", "u0073m120", "x", "y"],
    ),
    (
        'x = 1\ny = "\\x41"\nz = sm120\n',
        False,
        "A",
        "",
        False,
        True,
        False,
        {3},
        ["A", "sm120", "x", "x41", "y", "z"],
        ["sm120", "x", "x41", "y", "z"],
        ["A", "sm120", "x", "x41", "y", "z"],
    ),
    (
        'x = "sm"\\\n"120" + "sm1" "20"\n',
        True,
        "",
        "",
        True,
        True,
        True,
        {1, 2},
        ["sm", "sm1", "sm120", "x"],
        ["sm", "sm1", "x"],
        ["sm", "sm1", "sm120", "x"],
    ),
]


@pytest.mark.parametrize("row", ROWS)  # (ids row0, row1...: mutmut runs a test by its id)
def test_each_view_of_a_text(row: tuple[object, ...]) -> None:
    source, adjacent, decoded, made, derived, contains, across, lines, words, own, ids = row
    assert isinstance(source, str)
    assert views(source).adjacent is adjacent
    assert "".join(sorted(views(source).decoded_chars)) == decoded
    assert "".join(sorted(views(source).made_chars)) == made
    assert views(source).derived_may_spell(frozenset({NEEDLE})) is derived
    assert views(source).contains(NEEDLE) is contains
    assert views(source).spelt_across_breaks(NEEDLE) is across
    assert views(source).lines_spelling([NEEDLE]) == lines
    assert sorted(views(source).words()) == words
    assert sorted(views(source).words(derived=False)) == own
    assert sorted(views(source).identifiers()) == ids


def test_a_needle_as_written_is_found_on_its_line_where_the_normal_form_differs() -> None:
    source = 'a = 1\nx = "ab\u2070"\n'
    assert views(source).lines_spelling(["ab\u2070"]) == {2}
    assert views(source).lines_spelling(["ab0"]) == {2}
    assert views(source).lines_spelling(["zz"]) == set()


def test_joined_literals_over_lines_make_one_group_of_lines() -> None:
    source = 'a = 1\nx = ("s"\n"m"\n"120")\nb = ("sm"  "120")\nc = "sm" "12"\n'
    assert views(source).lines_spelling(["sm120"]) == {2, 3, 4, 5}
    source = 'x = "sm" "120"\ny = 1\nz = "sm" "120"\n'
    assert views(source).lines_spelling(["sm120"]) == {1, 3}


def test_a_run_of_continued_lines_is_decoded_as_one() -> None:
    # a backslash-newline inside a string is no character: "s" "m" "120" make sm120
    source = 'a = 1\nx = "\\x73\\\nm\\\n120"\nb = "\\x73m"\nc = 2\n'
    assert views(source).lines_spelling(["sm120"]) == set(range(1, 8))  # an escape spells s
    source = 'a = 1\nx = "s\\\nm\\\n120" + \\\n  1\nb = "s\\\nm12"\n'
    assert views(source).lines_spelling(["sm120"]) == {2, 3, 4, 5}  # 4 continues onto 5
    source = 'a = "q\\\\"\nx = "s\\\nm120"\n'  # the run starts at the line it continues
    assert views(source).lines_spelling(["sm120"]) == {2, 3}


def test_a_spelling_across_breaks_is_found_on_every_line_it_spans() -> None:
    source = 'a = 1\nx = ("sm"\n  # c\n  "120")\nb = "sm" "120" + "sm" \'120\'\n'
    assert views(source).lines_spelling(["sm120"]) == {2, 3, 4, 5}
    assert views(source).spelt_across_breaks("sm120")
    assert not views(source).spelt_across_breaks("sm121")
    assert not views(source).spelt_across_breaks("s")  # one character: nothing to break


def test_derived_views_are_asked_for_quotes_backslashes_and_decoded_characters() -> None:
    text = views('x = "sm\\x41"\n')
    assert text.derived_may_spell(frozenset({'a"b'}))
    assert text.derived_may_spell(frozenset({"a\\b"}))
    assert text.derived_may_spell(frozenset({"smA"}))  # \x41 decodes to A
    assert not text.derived_may_spell(frozenset({"sm4"}))
    assert not text.derived_may_spell(frozenset())


def test_a_needle_proven_unbroken_is_not_searched_again() -> None:
    text = views("x = sm + 1\n")
    assert not text.derived_may_spell(frozenset({"sm1"}))
    assert text.unbroken == frozenset({"sm1"})
    shared = views('x = "sm" "1"\n')
    assert shared.derived_may_spell(frozenset({"sm1", "zz"}), together=True)
    assert shared.unbroken == frozenset()
    assert not shared.derived_may_spell(frozenset({"zz"}))
    assert shared.unbroken == frozenset({"zz"})
    assert shared.derived_may_spell(frozenset({"zz", "sm1"}))  # one of them may be spelt


def test_made_word_characters_and_their_normal_forms() -> None:
    # a raw literal: \u2160 is the text itself there, and decoded elsewhere (NFKC: I)
    assert views('x = r"\\u2160"\n').made_word_chars == frozenset({"\u2160", "I"})
    assert views('x = "\\x41"\n').made_word_chars == frozenset()
    assert views('x = "\\n"\n').made_word_chars == frozenset()  # a newline is no word char
    assert views('x = "\\n"\n').makes("a\nb")
    assert not views('x = "\\n"\n').makes("ab")
    assert not views("x = 1\n").makes("a\nb")


def test_identifiers_are_read_in_every_view_normalised() -> None:
    # joined, the value is \uff53m120: as a name (NFKC) Python would read it sm120, and the
    # identifiers are what a view spells, read as a name is read
    source = 'x = "\uff53m" "120"\n'
    assert "sm120" in views(source).identifiers()
    assert "sm120" not in views(source).words()
    source = 'x = "s\\x6d" "120" + "\uff41"\n'
    assert views(source).identifiers() >= {"sm120", "a", "\uff41"}


def test_all_offsets_are_every_start_of_every_needle() -> None:
    assert _all_offsets("abab a", ["ab", "a"]) == [0, 2, 0, 2, 5]
    assert _all_offsets("aaa", ["aa"]) == [0, 1]
    assert _all_offsets("", ["a"]) == []


#: a needle spelt across breaks elsewhere (joined literals), so that the derived views are asked
JOINED = 's = "sm" "120"\n'


@pytest.mark.parametrize(
    ("source", "lines"),
    [
        pytest.param('x = "sm120 \\\nabc"\n' + JOINED, {1, 2, 3}, id="a-run-at-line-1"),
        pytest.param('x = "abc \\\nsm120"\n' + JOINED, {1, 2, 3}, id="the-needle-on-its-last-line"),
        pytest.param(
            'a = "q \\\n\\x41"\nb = 1\nx = "sm120 \\\nabc"\n' + JOINED,
            {4, 5, 6},
            id="a-backslash-inside-a-run-decoded-then-a-later-run",
        ),
        pytest.param(
            'x = "sm120 \\\nabc"\ns = "sm" "120" \\', {1, 2, 3}, id="the-last-line-continued"
        ),
        pytest.param(JOINED + 'x = "sm120 \\\nabc"', {1, 2, 3}, id="no-final-newline"),
        pytest.param(
            JOINED + 'a = "q \\\nsm120"\nb = "\\x41"\n', {1, 2, 3}, id="an-escape-after-a-run"
        ),
    ],
)
def test_a_run_of_continued_lines_that_spells_a_needle_is_every_line_of_the_run(
    source: str, lines: set[int]
) -> None:
    """A line decoded alone would not spell what its run spells: the run is decoded whole,
    from its first line to the first that does not end with a backslash."""
    assert views(source).lines_spelling([NEEDLE]) == lines


@pytest.mark.parametrize(
    ("source", "lines"),
    [
        pytest.param('a = 1\nx = ("f"\n  "lashinfer")\nb = 2\n', {2, 3}, id="over-two-lines"),
        pytest.param(
            'x = "f" "lashinfer"\ny = 1\nz = "f" "lashinfer"\n', {1, 3}, id="each-occurrence"
        ),
        pytest.param('f" "lashinfer"\n', {1}, id="at-the-texts-start"),
        pytest.param('f" "lashinfer\nb = 1\n', {1}, id="ending-at-a-lines-end"),
        pytest.param('x = "flashinfe\\\nr"\n', {1, 2}, id="its-last-character-alone-on-a-line"),
    ],
)
def test_the_lines_a_spelling_across_breaks_spans(source: str, lines: set[int]) -> None:
    # "f" "lashinfer": the joined views read "f" as a literal's end, a prefix and a start,
    # and miss it; the break search pairs no quotes
    assert views(source)._broken_lines({"flashinfer"}) == lines
    assert views(source)._broken_lines({"f"}) == set()  # one character: no break in it


@pytest.mark.parametrize(
    ("source", "lines"),
    [
        pytest.param('a = 1\nx = ("sm"\n  "120")\nb = 2\n', {2, 3}, id="over-two-lines"),
        pytest.param('x = ("s"\n "m"\n "120")\n', {1, 2, 3}, id="touching-joins-one-group"),
        pytest.param('x = ("\\x73m"\n "120")\n', {1, 2}, id="decoded-then-joined"),
        pytest.param('x = ("sm"\n "12")\ny = "sm" "120"\n', {3}, id="only-the-group-that-spells"),
    ],
)
def test_the_lines_of_adjacent_literals_whose_joined_value_spells_a_needle(
    source: str, lines: set[int]
) -> None:
    assert views(source)._joined_lines({NEEDLE}) == lines


def test_ascii_is_whether_the_text_is_ascii() -> None:
    assert views("x = sm120\n").ascii is True
    assert views("x = \uff53m120\n").ascii is False


def test_every_occurrence_in_the_text_is_on_its_line() -> None:
    assert views("sm120\nsm120\nsm120\n").lines_spelling([NEEDLE]) == {1, 2, 3}
    # overlapping occurrences, one character apart, each on its own line
    assert views("x\n\n\ny\n").lines_spelling(["\n\n"]) == {1, 2}


def test_a_direct_occurrence_is_kept_beside_a_decoded_run() -> None:
    # line 1 spells sm120 only in its normal form; lines 2-3 only decoded (a continued string)
    assert views('x = \uff53m120\ny = "s\\\nm120"\n').lines_spelling([NEEDLE]) == {1, 2, 3}


def test_a_needle_with_a_single_quote_is_left_to_the_views() -> None:
    assert views("x = 1\n").derived_may_spell(frozenset({"a'b"}))


def test_overlapping_spellings_across_breaks_are_each_found() -> None:
    # "aa" at the first a (line 1), and again from the second a across the break (lines 1-2)
    source = 'x = "aa" \\\n "a"\n'
    assert views(source)._broken_lines(["aa"]) == {1, 2}
    # a needle of one character holds no break, and the needles after it are still searched
    assert views(source)._broken_lines(["f", "aa"]) == {1, 2}


def test_identifiers_spelt_only_with_the_breaks_taken_out() -> None:
    # ``{`` of a self-documenting f-string expression is a break: the value holds "sm120="
    assert "sm120" in views('x = f"sm{120=}"\n').identifiers()
    assert "sm120" not in views('x = f"sm{120=}"\n').words()
    # the same through an escape: only the decoded text, its breaks taken out, spells it
    assert "sm120" in views('x = f"\\x73m{120=}"\n').identifiers()


def test_the_lines_of_a_join_end_at_the_next_literals_quote() -> None:
    assert views('x = ("sm"\n"120")\n')._joined_lines({NEEDLE}) == {1, 2}
