"""A pattern no name holds, found on the code lines grep finds it on (:mod:`.codetext`).

The property builds files from pieces whose answer is known by construction (code that holds
the needle, strings and comments that hold it, f-strings, strings over lines, continuations,
CRLF and lone CR line ends) and holds the module to that answer.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pytest_cleantree.analysis import analyze, split_lines
from pytest_cleantree.analysis.codetext import code_text_findings, grep_patterns
from pytest_cleantree.core.model import Kind, Occurrence, Pattern
from pytest_cleantree.core.patterns import parse_pattern

NEEDLE = "g(a)"
PATTERN = parse_pattern(NEEDLE)

#: (lines, which of them hold the needle in code)
PIECES: dict[str, tuple[tuple[str, ...], tuple[bool, ...]]] = {
    "code": (("v = g(a)",), (True,)),
    "no needle": (("v = g(b)",), (False,)),
    "string": (('v = "g(a)"',), (False,)),
    "single-quoted bytes": (("v = b'g(a)'",), (False,)),
    "raw string": (('v = r"g(a)"',), (False,)),
    "comment": (("v = 0  # g(a)",), (False,)),
    "string then code": (('v = "g(a)"; w = g(a)',), (True,)),
    "comment after code": (("w = g(a)  # g(a)",), (True,)),
    "f-string braces": (('v = f"{g(a)}"',), (True,)),
    "f-string text": (('v = f"g(a) {b}"',), (True,)),  # an f-string is code (over-approx)
    "triple-quoted": (('v = """', "g(a)", '"""'), (False, False, False)),
    "continued code": (("v = (", "    g(a)", ")"), (False, True, False)),
    "backslash": (("v = 1 + \\", "    g(a)"), (False, True)),
    "fullwidth": (("v = \uff47(a)",), (True,)),  # Python reads the name g
}


#: a regex whose every match is the needle: found where the substring is
REGEX_OF_NEEDLE = parse_pattern("re:g\\(a\\)")


@given(
    pieces=st.lists(st.sampled_from(sorted(PIECES)), min_size=1, max_size=8),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
    pattern=st.sampled_from([PATTERN, REGEX_OF_NEEDLE]),
)
def test_the_lines_found_are_the_code_lines_that_hold_the_needle(
    pieces: list[str], newline: str, pattern: Pattern
) -> None:
    lines: list[str] = []
    expected: list[int] = []
    for piece in pieces:
        text, in_code = PIECES[piece]
        expected += [len(lines) + i + 1 for i, code in enumerate(in_code) if code]
        lines += text
    source = newline.join(lines) + newline

    found = analyze("m.py", source.encode(), [pattern])

    code_lines = [f.occurrence.line for f in found.findings if f.occurrence.kind is Kind.TEXT]
    assert code_lines == expected, source


#: a regex some of whose matches a name holds and some not: ``lam`` in a keyword is code
#: text, in a name the scan's own finding, in a string or comment theirs.  (lines, the kind
#: each line is reported with: ``text`` on a code line, None where the scan's finding is
#: the line's, or where nothing stands)
MIXED = parse_pattern("re:g\\(a\\)|lam")
MIXED_PIECES: dict[str, tuple[tuple[str, ...], tuple[bool, ...]]] = {
    "call": (("v = g(a)",), (True,)),
    "keyword": (("v = lambda: 0",), (True,)),
    "name": (("lamp = 1",), (False,)),
    "attribute": (("v = o.lamp",), (False,)),
    "name and call": (("lamp(g(a))",), (False,)),  # the line is the scan's already
    "string": (('v = "lam"',), (False,)),
    "comment": (("v = 0  # lambda",), (False,)),
    "import": (("import lamp",), (False,)),
    "dotted import": (("import a.lamp.b",), (False,)),
    "nothing": (("v = 1",), (False,)),
    "fullwidth name": (("\uff4cambda = 0",), (False,)),  # NFKC: the name lambda, not the keyword
    "fullwidth call": (("v = \uff47(a)",), (True,)),
}


@given(
    pieces=st.lists(st.sampled_from(sorted(MIXED_PIECES)), min_size=1, max_size=8),
    newline=st.sampled_from(["\n", "\r\n"]),
)
def test_a_regex_is_code_text_where_no_name_holds_its_match(
    pieces: list[str], newline: str
) -> None:
    lines: list[str] = []
    expected: list[int] = []
    for piece in pieces:
        text, in_code = MIXED_PIECES[piece]
        expected += [len(lines) + i + 1 for i, code in enumerate(in_code) if code]
        lines += text
    source = newline.join(lines) + newline

    found = analyze("m.py", source.encode(), [MIXED])

    code_lines = [f.occurrence.line for f in found.findings if f.occurrence.kind is Kind.TEXT]
    assert code_lines == expected, source
    scanned = {f.occurrence.line for f in found.findings if f.occurrence.kind is not Kind.TEXT}
    assert not scanned & set(code_lines), source  # one report site a line


def test_a_regex_match_inside_a_name_is_the_scan_s() -> None:
    assert lines_found("lamp = 1\n", "re:am") == []
    assert lines_found("x = lambda: lamp\n", "re:am") == [(1, 5)]


def test_a_regex_match_across_a_dot_or_a_bracket_is_code() -> None:
    assert lines_found("x = obj . attr\n", "re:obj\\s*\\.") == [(1, 4)]
    assert lines_found("x = f(a)[0]\n", "re:\\)\\[") == [(1, 7)]


def test_a_regex_s_empty_match_moves_on() -> None:
    """``re:x*`` matches the empty text everywhere: the first place outside a name is code
    (as ``grep -E 'x*'`` prints every line)."""
    assert lines_found("ab = 1\n", "re:x*") == [(1, 3)]


def test_a_regex_is_matched_beside_a_lone_surrogate_s_value_without_a_crash() -> None:
    assert lines_found('s = "\\ud800"; g(a)\n', "re:g\\(") == [(1, 14)]


def test_the_column_is_where_the_needle_stands_in_code() -> None:
    found = list(code_text_findings(split_lines('s = "g(a)"; t = g(a)'), [PATTERN]))

    assert [(f.occurrence.line, f.occurrence.col) for f in found] == [(1, 16)]


def test_a_file_the_tokenizer_cannot_finish_is_all_code() -> None:
    lines = split_lines('v = "g(a)"\nw = """never closed g(a)')

    found = list(code_text_findings(lines, [PATTERN]))

    assert [f.occurrence.line for f in found] == [1, 2]


def test_substrings_no_name_holds_and_no_line_holds_and_regexes_are_grepped() -> None:
    patterns = [
        parse_pattern(p) for p in ("g(a)", "sm120", "re:g\\(", "re:sm", "one\ntwo", "x = 1", "=a")
    ]

    assert [p.text for p in grep_patterns(patterns)] == ["g(a)", "re:g\\(", "re:sm", "x = 1"]


def lines_found(source: str, pattern: str) -> list[tuple[int, int]]:
    found = code_text_findings(split_lines(source), [parse_pattern(pattern)])
    return [(f.occurrence.line, f.occurrence.col) for f in found]


def test_a_needle_at_the_start_of_a_line_is_found() -> None:
    assert lines_found("g(a)\n", NEEDLE) == [(1, 0)]


def test_the_first_occurrence_in_code_among_strings_is_found() -> None:
    assert lines_found('s = "g(a)"; g(a); t = "g(a)"\n', NEEDLE) == [(1, 12)]


def test_a_needle_that_begins_at_a_string_start_is_code() -> None:
    assert lines_found('s = "("(1)\n', '"(') == [(1, 4)]


def test_a_needle_that_straddles_a_string_end_is_code() -> None:
    assert lines_found('f("x")\n', 'x")') == [(1, 3)]


def test_a_needle_that_begins_with_the_quote_is_not_in_the_value() -> None:
    """The string's own finding matches its value, which holds no quote: grep's line."""
    assert lines_found("s = 'x'\n", "'x'") == [(1, 4)]


def test_a_string_whose_value_is_not_its_source_is_code_to_grep() -> None:
    """``"C:\\\\cuda"`` holds ``C:\\\\cuda`` in its source, ``C:\\cuda`` in its value: only
    grep's reading can find the first."""
    assert lines_found('p = "C:\\\\cuda"\n', "C:\\\\cuda") == [(1, 5)]
    assert lines_found('p = "C:\\\\cuda"\n', "C:\\cuda") == []


def test_bytes_and_comments_hold_what_their_findings_match() -> None:
    assert lines_found("b = b'g(a)'  # g(a)\n", NEEDLE) == []


def test_an_unreadable_string_token_is_code() -> None:
    """A literal ``ast`` refuses (a bytes literal with a non-ASCII character is a syntax
    error, which the tokenizer lets through): no value, so no finding stands for it."""
    assert lines_found("b = b'é g(a)'\n", NEEDLE) == [(1, 8)]


def test_a_lone_cr_file_keeps_its_strings_on_their_lines() -> None:
    assert lines_found('x = 1\rs = "g(a)"\rg(a)\r', NEEDLE) == [(3, 0)]


def test_a_line_that_holds_the_needle_only_normalised() -> None:
    """Reported at its first non-blank column, unless one string or comment holds the
    whole line (a blank before the string counts as code: an over-approximation)."""
    assert lines_found("  v = \uff47(a)\n".lstrip(), NEEDLE) == [(1, 0)]
    assert lines_found("if x:\n    v = \uff47(a)\n", NEEDLE) == [(2, 4)]
    assert lines_found('s = """\n\uff47(a)\n"""\n', NEEDLE) == []
    assert lines_found('v = (\n "\uff47(a)"\n)\n', NEEDLE) == [(2, 1)]


def test_only_python_files_are_grepped_and_findings_are_added() -> None:
    python = analyze("m.py", b"g(a)\n", [PATTERN])
    text = analyze("m.txt", b"g(a)\n", [PATTERN])

    assert [(f.occurrence.line, f.occurrence.kind) for f in python.findings] == [(1, Kind.TEXT)]
    assert [(f.occurrence.line, f.occurrence.kind) for f in text.findings] == [(1, Kind.TEXT)]
    assert analyze("m.py", b"h(b)\n", [PATTERN]).findings == ()


def test_an_f_string_of_any_case_is_code_and_a_plain_string_holding_f_is_not() -> None:
    assert lines_found('v = F"g(a)"\n', NEEDLE) == [(1, 6)]
    assert lines_found('v = rF"g(a)"\n', NEEDLE) == [(1, 7)]
    assert lines_found('s = "of g(a)"\n', NEEDLE) == []  # the f is the value's, not a prefix


def test_a_needle_that_begins_at_a_comments_start_is_the_comments() -> None:
    assert lines_found("x = 1  # g(a)\n", "# g(a)") == []


def test_a_pattern_is_grepped_whatever_its_letters() -> None:
    patterns = [parse_pattern(p) for p in ("X = 1", "a\rb")]
    assert [p.text for p in grep_patterns(patterns)] == ["X = 1"]


def test_a_line_that_is_one_string_holds_its_normalised_needle() -> None:
    """The string starts at the line's first column and ends at its last: it holds the
    whole line, so a needle only its NFKC form spells is no code (a substring, a regex)."""
    assert lines_found('"\uff47(a)"\n', NEEDLE) == []
    assert lines_found('"\uff47(a)"\n', "re:g\\(a\\)") == []
    assert lines_found('"\uff47(a)" \n', NEEDLE) == [(1, 0)]  # a blank after it is code


def test_a_regex_only_the_normalised_line_spells_stands_at_the_first_column() -> None:
    assert lines_found("if x:\n    v = \uff47(a)\n", "re:g\\(a\\)") == [(2, 4)]


def test_the_finding_names_its_pattern_and_kind() -> None:
    (found,) = code_text_findings(split_lines("v = g(a)\n"), [PATTERN])

    assert found.pattern == NEEDLE
    assert found.occurrence == Occurrence(1, 4, Kind.TEXT, NEEDLE)


def test_a_line_the_scan_reported_for_one_regex_is_still_searched_for_the_next() -> None:
    first, second = parse_pattern("re:v"), parse_pattern("re:g\\(")
    lines = split_lines("v = g(a)\n")

    found = code_text_findings(lines, [first, second], named={(first.text, 1)})

    assert [(f.pattern, f.occurrence.line) for f in found] == [(second.text, 1)]


def test_bytes_hold_their_latin_1_value_not_their_repr() -> None:
    assert lines_found('b = b"C:\\\\cuda"\n', "C:\\cuda") == []


def test_the_same_pattern_list_asked_twice_answers_alike() -> None:
    patterns = (PATTERN,)  # one list, asked again: its grep patterns are kept by identity

    first = analyze("m.py", b"v = g(a)\n", patterns)
    again = analyze("m.py", b"v = g(a)\n", patterns)

    assert first == again
    assert [f.occurrence.kind for f in again.findings] == [Kind.TEXT]


def test_a_file_read_as_text_has_its_text_findings_once() -> None:
    """A Python file that does not parse is read line by line already (every line's text
    findings): nothing is added on top of them."""
    found = analyze("m.py", b"v = g(a)\nw = (g(a)\n", [PATTERN])

    assert found.problem is not None
    assert [(f.occurrence.line, f.occurrence.kind) for f in found.findings] == [
        (1, Kind.TEXT),
        (2, Kind.TEXT),
    ]


def test_the_engine_is_asked_with_the_caller_s_options() -> None:
    without = analyze("m.py", b"v = 1  # g(a)\n", [PATTERN], comments=False)
    with_comments = analyze("m.py", b"v = 1  # g(a)\n", [PATTERN])

    assert [f.occurrence.kind for f in with_comments.findings] == [Kind.COMMENT]
    assert without.findings == ()
