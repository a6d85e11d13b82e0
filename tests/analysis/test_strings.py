"""Strings and comments reported: a literal's value decides whether, its source decides where."""

from __future__ import annotations

import ast

from pytest_cleantree.analysis.strings import comment_findings, string_findings
from pytest_cleantree.analysis.text import compile_patterns, split_lines
from pytest_cleantree.core.model import Kind
from pytest_cleantree.core.patterns import parse_pattern

Hit = tuple[str, int, int, str, str]


def strings(source: str, *patterns: str, kind: Kind = Kind.STRING) -> list[Hit]:
    lines = split_lines(source)
    index = compile_patterns([parse_pattern(p) for p in patterns]).index.text
    return [
        (f.pattern, f.occurrence.line, f.occurrence.col, f.occurrence.kind.value, f.occurrence.name)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant)
        for f in string_findings(lines, node, kind, index)
    ]


def comments(source: str, candidates: list[int] | None, *patterns: str) -> list[Hit]:
    lines = split_lines(source)
    index = compile_patterns([parse_pattern(p) for p in patterns]).index.text
    return [
        (f.pattern, f.occurrence.line, f.occurrence.col, f.occurrence.kind.value, f.occurrence.name)
        for f in comment_findings(source, lines, candidates, index)
    ]


def test_a_string_is_reported_where_its_source_shows_the_match() -> None:
    source = 'é = "sm120"; y = """a\nb sm120\nsm120"""\n'
    assert strings(source, "sm120") == [
        ("sm120", 1, 5, "string", "sm120"),  # characters, not bytes, before it
        ("sm120", 2, 2, "string", "a\nb sm120\nsm120"),
        ("sm120", 3, 0, "string", "a\nb sm120\nsm120"),
    ]
    assert strings('x = "sm120"\n', "sm120", kind=Kind.DOCSTRING) == [
        ("sm120", 1, 5, "docstring", "sm120")
    ]


def test_bytes_are_read_as_latin_1() -> None:
    source = 'x = b"ab\\xe9 sm120"\n'
    assert strings(source, "sm120", "abé") == [
        ("sm120", 1, 13, "string", "abé sm120"),
        ("abé", 1, 6, "string", "abé sm120"),
    ]


def test_a_match_across_joined_pieces_stands_on_the_first_line() -> None:
    assert strings('x = "sm" \\\n    "120"\n', "sm120") == [("sm120", 1, 4, "string", "sm120")]


def test_constants_that_are_not_text_are_no_strings() -> None:
    assert strings("x = 5; y = None; z = 1.5\n", "5", "None") == []


def test_comments_are_tokens_of_the_source() -> None:
    source = 'x = 1 # sm120\n# other sm120 a\ns = "# sm120 in a string"\n'
    assert comments(source, None, "sm120", "other") == [
        ("sm120", 1, 6, "comment", "# sm120"),
        ("sm120", 2, 0, "comment", "# other sm120 a"),
        ("other", 2, 0, "comment", "# other sm120 a"),
    ]


def test_comments_are_read_only_when_a_candidate_line_holds_a_hash() -> None:
    source = "x = 1 # sm120\ny = 2 # sm120\nz = 3\n"
    both = [("sm120", 1, 6, "comment", "# sm120"), ("sm120", 2, 6, "comment", "# sm120")]
    assert comments(source, [3, 9], "sm120") == []
    assert comments(source, [2], "sm120") == both  # the whole text is read once one may hold
    assert comments(source, [1, 9], "sm120") == both
    assert comments("x = 1\n", None, "sm120") == []
    assert comments("x = 1\ny = 2 # sm120\n", [2], "sm120") == [
        ("sm120", 2, 6, "comment", "# sm120")
    ]
    # the last line of a text without a final newline is a candidate too
    assert comments("x = 1\ny = 2 # sm120", [2], "sm120") == [("sm120", 2, 6, "comment", "# sm120")]


def test_a_source_the_tokenizer_gives_up_on_keeps_the_comments_before() -> None:
    assert comments("x = (\n# sm120\n", None, "sm120") == [("sm120", 2, 0, "comment", "# sm120")]
    assert comments('x = "#"\n"""\n', None, "sm120") == []


def test_where_the_tokenizer_stops_every_later_hash_starts_a_comment() -> None:
    """Past the line the tokenizer reached, each line's first ``#`` starts a comment (more
    findings, never one passed over); lines it tokenized keep their own comments and strings."""
    source = (
        "a = 1  # sm120 one\n"
        'b = "# sm120 two"\n'
        "c = 3  # sm120 three\n"
        'd = """never # closed sm120 # four\n'
        "# sm120 five\n"
    )
    assert comments(source, None, "sm120") == [
        ("sm120", 1, 7, "comment", "# sm120 one"),
        ("sm120", 3, 7, "comment", "# sm120 three"),
        ("sm120", 4, 13, "comment", "# closed sm120 # four"),
        ("sm120", 5, 0, "comment", "# sm120 five"),
    ]


def test_a_file_the_tokenizer_stops_on_at_once_is_read_from_its_first_line() -> None:
    assert comments('"""# sm120\n# sm120\n', None, "sm120") == [
        ("sm120", 1, 3, "comment", "# sm120"),
        ("sm120", 2, 0, "comment", "# sm120"),
    ]
