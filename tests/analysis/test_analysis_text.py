"""The file as text (:mod:`pytest_cleantree.analysis.text`), driven directly: lines as the
tokenizer counts them, the compiled pattern list, which patterns a text may spell, the regex
lexer and what it says it does not model, and where a pattern stands on a line.

Each answer here is exact: a pattern kept that cannot match costs only time, but a test that
states the answer holds the module to it both ways.
"""

from __future__ import annotations

import pytest

from pytest_cleantree.analysis import text
from pytest_cleantree.analysis.text import (
    MAX_PARSE_BYTES,
    PatternSet,
    Presence,
    TextViews,
    column,
    compile_patterns,
    lex,
    present_patterns,
    spelling_lines,
    split_lines,
    too_large_to_parse,
)
from pytest_cleantree.core.patterns import parse_pattern


def views(source: str) -> TextViews:
    return TextViews(source, split_lines(source))


def patterns(*texts: str) -> PatternSet:
    return PatternSet.of([parse_pattern(t) for t in texts])


def kept(source: str, *texts: str) -> list[str]:
    return [p.text for p in present_patterns(views(source), patterns(*texts))]


# --------------------------------------------------------------------------- sizes and lines


def test_the_parse_limit_is_eight_mebibytes_and_a_file_of_that_size_is_parsed() -> None:
    assert MAX_PARSE_BYTES == 8 * 2**20
    assert not too_large_to_parse(MAX_PARSE_BYTES)
    assert too_large_to_parse(MAX_PARSE_BYTES + 1)
    assert not too_large_to_parse(0)


def test_the_parse_limit_is_read_at_call_time(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(text, "MAX_PARSE_BYTES", 10)
    assert too_large_to_parse(11)
    assert not too_large_to_parse(10)


@pytest.mark.parametrize(
    ("source", "lines"),
    [
        ("a\nb", ("a", "b")),
        ("a\nb\n", ("a", "b", "")),
        ("", ("",)),
        ("a\r\nb\rc\nd", ("a", "b", "c", "d")),
        ("a\r\rb", ("a", "", "b")),
        ("a\fb\u2028c\x0bd\ne", ("a\fb\u2028c\x0bd", "e")),  # only \r\n, \r, \n end lines
        ("a\r", ("a", "")),
    ],
)
def test_lines_are_split_as_the_tokenizer_counts_them(source: str, lines: tuple[str]) -> None:
    assert split_lines(source) == lines


# --------------------------------------------------------------------------- pattern sets


def test_a_pattern_set_holds_each_patterns_needles_and_which_must_stand_as_words() -> None:
    texts = ("=sm120", "sm90", "torch.cuda.x", "re:a+b", "=a.b", "=ab\u2070")
    listed = [parse_pattern(t) for t in texts]
    compiled = PatternSet.of(listed)
    exact, sub, qualified, regex, dotted, super_ = listed
    assert compiled.patterns == tuple(listed)
    assert compiled.needles == (
        (exact, "sm120", True),
        (sub, "sm90", False),
        (qualified, "x", False),
        (regex, None, False),
        (dotted, "a.b", False),  # an exact pattern whose body is no identifier: a substring
        (super_, "ab0", True),
        (super_, "ab\u2070", True),  # as written: free text holds it so
    )
    assert compiled.qualified == (qualified,)
    assert compiled.qualified_bodies == ("torch.cuda.x",)
    assert compiled.plain == (exact, sub, regex, dotted, super_)
    assert compiled.needle_strings == frozenset({"sm120", "sm90", "x", "a.b", "ab0", "ab\u2070"})
    assert not compiled.bounded  # the regex has no needle
    assert patterns("=sm120", "sm90").bounded
    assert patterns().bounded


def test_a_pattern_sets_index_looks_names_up_in_its_list() -> None:
    compiled = patterns("=sm120", "sm9")
    assert compiled.index is compiled.index  # built once
    assert compiled.index.patterns == compiled.patterns


def test_a_shared_list_is_compiled_once_and_an_equal_list_anew() -> None:
    listed = [parse_pattern("sm120")]
    assert compile_patterns(listed) is compile_patterns(listed)
    other = compile_patterns(list(listed))
    assert other is not compile_patterns(listed)
    assert other.patterns == compile_patterns(listed).patterns


# --------------------------------------------------------------------------- presence


def test_a_pattern_is_kept_when_its_needle_is_in_the_text() -> None:
    assert kept("x = sm120\n", "sm120", "sm90") == ["sm120"]
    assert kept("x = 1\n", "sm120") == []
    assert kept("x = 1\n", "re:sm1[0-9]+") == ["re:sm1[0-9]+"]  # no needle: always kept
    assert kept("", "sm120") == []


def test_an_exact_pattern_on_a_name_is_kept_only_where_the_name_stands_as_a_word() -> None:
    assert kept("x = sm120x\n", "=sm120") == []
    assert kept("x = sm120x\n", "sm120") == ["sm120"]
    assert kept("x = sm120 + 1\n", "=sm120") == ["=sm120"]
    assert kept("x = \uff53m120\n", "=sm120") == ["=sm120"]  # fullwidth: NFKC reads sm120


def test_a_pattern_with_two_needles_is_kept_once_and_in_the_lists_order() -> None:
    # ``ab⁰`` has the needles ``ab0`` (its NFKC body) and ``ab⁰`` (as written)
    assert kept("x = 'ab\u2070 ab0'\n", "sm120", "ab\u2070", "ab") == ["ab\u2070", "ab"]
    assert kept("x = 'ab\u2070'\n", "zz", "ab\u2070") == ["ab\u2070"]


def test_a_needle_is_kept_where_only_a_derived_view_spells_it() -> None:
    assert kept('x = "\\x73m120"\n', "sm120") == ["sm120"]  # an escape
    assert kept('x = "sm" "120"\n', "sm120") == ["sm120"]  # adjacent literals
    assert kept('x = "sm\\\n120"\n', "sm120") == ["sm120"]  # a backslash-newline
    assert kept('x = "\\x73m120"\n', "=sm120") == ["=sm120"]
    assert kept('x = "sm" "120"\n', "=sm120") == ["=sm120"]
    assert kept('x = "sm\\\n120"\n', "=sm120") == ["=sm120"]
    assert kept('x = "\\x74m120"\n', "sm120", "=sm120") == []  # decodes to tm120


def test_a_name_in_compatibility_letters_is_kept_only_where_its_normal_form_is_spelt() -> None:
    assert kept("x = \uff53m120\n", "sm120") == ["sm120"]
    assert kept("x = \uff53m90\n", "sm120") == []
    assert kept("x = \uff53m90\n", "=sm120") == []


def test_a_derived_view_keeps_only_the_needles_it_spells() -> None:
    # the escape makes the derived views worth asking: they spell sm120, not zz9
    assert kept('x = "\\x73m120"\n', "sm120", "zz9", "=zz9") == ["sm120"]
    # a one-letter escape makes a character (a newline) that no view decodes
    assert kept('x = "\\n" + "\\x73m120"\n', "sm120", "zz9") == ["sm120"]


def test_a_word_spelt_only_across_breaks_is_kept() -> None:
    # joined left to right the value is asm120; the break search, pairing nothing, sees sm1|20
    # (an over-approximation: the pattern is then looked for in the parsed file)
    assert kept('x = "a" "sm1" "20"\n', "=sm120") == ["=sm120"]
    assert kept('x = "a" "sm1" "21"\n', "=sm120") == []
    # the text spells it inside a longer word, and an escape decodes: still across breaks
    assert kept('x = "\\x41" + "a" "sm1" "20" + sm1200\n', "=sm120") == ["=sm120"]


def test_a_decoded_escape_beside_a_word_leaves_the_name_alone() -> None:
    # the text's own words hold ``x00sm120`` only; decoded, ``\x00`` is no word character
    source = 'x = "\\x00sm120"\n'
    assert kept(source, "=sm120") == ["=sm120"]
    assert kept('x = "\\x00sm120x"\n', "=sm120") == []
    assert kept("x = x00sm120\n", "=sm120") == []  # no escape: x00sm120 is one name


def test_presence_asks_each_needle_once() -> None:
    presence = Presence(views("x = sm120\n"), patterns("sm120"), together=False)
    assert presence.holds(None, False)
    assert presence.holds("sm120", False)
    assert not presence.holds("sm90", False)
    presence.views = views("x = sm90\n")  # a second asking answers from what it found
    assert presence.holds("sm120", False)
    assert not presence.holds("sm90", False)
    assert presence.holds("sm90", True)  # a whole word is looked up in the words


@pytest.mark.parametrize("together", [False, True])
def test_presence_is_the_same_whether_the_list_is_shared_or_not(together: bool) -> None:
    listed = patterns("sm120", "=sm90", "zz")
    source = 'a = "s" "m120"; b = "\\x73m90"\n'
    assert [p.text for p in present_patterns(views(source), listed, together=together)] == [
        "sm120",
        "=sm90",
    ]


# --------------------------------------------------------------------------- spelling lines


def test_the_lines_spelling_a_needle_are_listed_and_a_regex_makes_every_line_one() -> None:
    source = "a = 1\nb = sm120\nc = 2\nd = 'sm90'\n"
    assert spelling_lines(views(source), patterns("sm120", "=sm90")) == {2, 4}
    assert spelling_lines(views(source), patterns("zz")) == set()
    assert spelling_lines(views(source), patterns("sm120", "re:x")) is None


# --------------------------------------------------------------------------- lexing


def test_lex_gives_every_comment_and_string_in_order() -> None:
    source = "x = 'a' + \"b\"  # c\ny = '''d\ne''' + \"\"\"f\"\"\"\n"
    spans, unmodelled = lex(source)
    assert [source[s:e] for s, e in spans] == [
        "'a'",
        '"b"',
        "# c",
        "'''d\ne'''",
        '"""f"""',
    ]
    assert unmodelled is None


def test_lex_reads_escapes_and_continued_lines_inside_strings() -> None:
    source = "x = 'a\\'b' + \"c\\\nd\" # e\\\n"
    spans, unmodelled = lex(source)
    assert [source[s:e] for s, e in spans] == ["'a\\'b'", '"c\\\nd"', "# e\\"]
    assert unmodelled is None


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ("x = 1\f\ny = 2\n", "form feed"),
        ("x = 'abc\ny = 2\n", "unterminated string"),
        ('x = "abc\r\n', "unterminated string"),
        ("x = 'abc", "unterminated string"),
        ('x = """abc\n', "unterminated string"),
        ("x = '''abc", "unterminated string"),
        ('x = f"{a"\n', "f-string nesting"),
        ('x = f"a}"\n', "f-string nesting"),
        ('x = F"{a"\n', "f-string nesting"),
        ('x = rf"{a"\n', "f-string nesting"),
        ('x = fR"{a"\n', "f-string nesting"),
        ("x = f'''{a'''\n", "f-string nesting"),
        ('x = f"{"a"}"\n', "f-string nesting"),
        ('x = f# c\ny = f"{a"\n', "f-string nesting"),  # the comment is passed over
        ('"""d"""\nx = f"{a"\n', "f-string nesting"),  # a literal's own quotes, not the text's
    ],
)
def test_lex_says_what_it_does_not_model(source: str, why: str) -> None:
    assert lex(source)[1] == why


def test_lex_gives_its_spans_with_what_it_does_not_model() -> None:
    source = "x = 'a'\f\n"
    assert lex(source) == ([(4, 7)], "form feed")
    assert lex("x = 'a'\ny = 'b\n") == ([(4, 7), (12, 14)], "unterminated string")
    assert lex('x = "a"\ny = f"{a"\n') == ([(4, 7), (13, 17)], "f-string nesting")


@pytest.mark.parametrize(
    "source",
    [
        'x = f"{a}"\n',
        'x = f"{{a"\n',  # a doubled brace is a literal brace
        'x = f"a}}"\n',
        'x = f"{a[{b}]}"\n',
        'x = b"{a"\n',  # no f: braces mean nothing
        'x = rb"{a"\n',
        'x = u"{a"\n',
        'x = "{a"\n',
        "x = f  # {a\n",  # a comment after an f is no f-string
        "x = f# {a\n",
        'x = {rf"""{a}"""}\n',  # the braces around a literal are not its own
        'x = {f"{a}"}\n',
        'x = f""\n',
        "x = f'''{\na}'''\n",
    ],
)
def test_lex_models_these(source: str) -> None:
    assert lex(source)[1] is None


def test_the_prefix_is_read_back_to_the_start_of_the_text() -> None:
    assert lex('rf"{a"')[1] == "f-string nesting"
    assert lex('f"{a"')[1] == "f-string nesting"
    assert lex('br"{a"')[1] is None
    assert lex('brf"{a"')[1] is None  # no f-string prefix: the letters are read back to 0


# --------------------------------------------------------------------------- columns


def test_column_is_where_a_pattern_starts_in_a_line() -> None:
    assert column(parse_pattern("sm120"), "x = sm120") == 4
    assert column(parse_pattern("=sm120"), "x = sm120") == 4
    assert column(parse_pattern("sm120"), "sm120") == 0
    assert column(parse_pattern("sm120"), "x = 1") == 0  # unknown
    assert column(parse_pattern("re:sm"), "x = sm120") == 0  # a regex's start is unknown
    assert column(parse_pattern("line:y = 1"), "    y = 1") == 4


def test_column_finds_a_name_as_written_when_its_normal_form_is_not_there() -> None:
    assert column(parse_pattern("ab\u2070"), "x = 'ab\u2070'") == 5
    assert column(parse_pattern("=ab\u2070"), "x = 'ab\u2070'") == 5
    assert column(parse_pattern("ab\u2070"), "x = ab0, ab\u2070") == 4  # the body first
    assert column(parse_pattern("=ab\u2070"), "x = ab0") == 4
    assert column(parse_pattern("=ab\u2070"), "ab0 ab\u2070") == 0  # found at 0: found
    assert column(parse_pattern("ab\u2070"), "x = 'ab\u2070', 'ab\u2070'") == 5  # the first
    assert column(parse_pattern("sm120"), "sm120 = sm120") == 0


def test_the_qualified_patterns_first_and_last_parts_are_listed_once_each() -> None:
    patterns = PatternSet.of(
        [parse_pattern(p) for p in ("os.path.join", "os.join", "posixpath.join", "os.sep", "sm120")]
    )

    assert patterns.qualified_first_last == (("os", "join"), ("posixpath", "join"), ("os", "sep"))
