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
from pytest_cleantree.core.model import Kind
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


@given(
    pieces=st.lists(st.sampled_from(sorted(PIECES)), min_size=1, max_size=8),
    newline=st.sampled_from(["\n", "\r\n", "\r"]),
)
def test_the_lines_found_are_the_code_lines_that_hold_the_needle(
    pieces: list[str], newline: str
) -> None:
    lines: list[str] = []
    expected: list[int] = []
    for piece in pieces:
        text, in_code = PIECES[piece]
        expected += [len(lines) + i + 1 for i, code in enumerate(in_code) if code]
        lines += text
    source = newline.join(lines) + newline

    found = analyze("m.py", source.encode(), [PATTERN])

    code_lines = [f.occurrence.line for f in found.findings if f.occurrence.kind is Kind.TEXT]
    assert code_lines == expected, source


def test_the_column_is_where_the_needle_stands_in_code() -> None:
    found = list(code_text_findings(split_lines('s = "g(a)"; t = g(a)'), [PATTERN]))

    assert [(f.occurrence.line, f.occurrence.col) for f in found] == [(1, 16)]


def test_a_file_the_tokenizer_cannot_finish_is_all_code() -> None:
    lines = split_lines('v = "g(a)"\nw = """never closed g(a)')

    found = list(code_text_findings(lines, [PATTERN]))

    assert [f.occurrence.line for f in found] == [1, 2]


def test_only_substring_patterns_no_name_holds_and_no_line_holds_are_grepped() -> None:
    patterns = [parse_pattern(p) for p in ("g(a)", "sm120", "re:g\\(", "one\ntwo", "x = 1")]

    assert [p.text for p in grep_patterns(patterns)] == ["g(a)", "x = 1"]
