"""Comments reported at the lines Python gives them, and none passed over when the
tokenizer stops short of a file ``ast`` parsed."""

from __future__ import annotations

import tokenize
from collections.abc import Iterator

import pytest

from pytest_cleantree.analysis import analyze, split_lines
from pytest_cleantree.analysis import strings as strings_module
from pytest_cleantree.analysis.strings import comment_findings
from pytest_cleantree.core.model import Kind
from pytest_cleantree.core.nameindex import TextIndex
from pytest_cleantree.core.patterns import parse_pattern

PATTERN = parse_pattern("sm120")


def lines_of(source: str) -> list[int]:
    found = analyze("m.py", source.encode(), [PATTERN])
    return [f.occurrence.line for f in found.findings if f.occurrence.kind is Kind.COMMENT]


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_a_comment_is_on_the_line_python_counts(newline: str) -> None:
    source = newline.join(["x = 1", "# sm120 here", "y = 2", "", "z = 3  # sm120 again", ""])

    assert lines_of(source) == [2, 5]


def test_comments_after_where_the_tokenizer_stopped_are_all_reported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A tokenizer that gives up on line 3 (as 3.13's did on a file ``ast`` parses): the
    comments from there on are read from each ``#``, over-approximating."""
    real = tokenize.generate_tokens

    def stopping(readline: object) -> Iterator[tokenize.TokenInfo]:
        for token in real(readline):  # type: ignore[arg-type]
            if token.start[0] >= 3:
                raise tokenize.TokenError("stopped", token.start)
            yield token

    monkeypatch.setattr(strings_module.tokenize, "generate_tokens", stopping)
    source = "a = 1  # sm120\nb = 2\nc = 3  # sm120 too\nd = 's # sm120 in a string'\n"

    found = list(comment_findings(source, split_lines(source), None, TextIndex([PATTERN])))

    assert [(f.occurrence.line, f.occurrence.col) for f in found] == [(1, 7), (3, 7), (4, 7)]
