"""Tree-sitter's reading of a file, the oracle of the comment grammars for Go, Rust, Java,
JavaScript and TypeScript (``test_comment_grammar_braces.py``, ``test_comment_grammar_js.py``).

Its grammars are the ones editors and GitHub parse these languages with; each is a
test-only dependency (the ``test`` extra).  Missing, the test skips, and fails under
``CI=true`` (:func:`needs.need_module`).
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Iterator
from typing import Any

from needs import need_module

from pytest_cleantree.analysis.text import split_lines
from pytest_cleantree.analysis.textfiles import text_comments

#: the model's language key: (a file name of it, the grammar's module, its function)
GRAMMARS = {
    "go": ("m.go", "tree_sitter_go", "language"),
    "rust": ("m.rs", "tree_sitter_rust", "language"),
    "java": ("M.java", "tree_sitter_java", "language"),
    "javascript": ("m.js", "tree_sitter_javascript", "language"),
    "typescript": ("m.ts", "tree_sitter_typescript", "language_typescript"),
    "tsx": ("m.tsx", "tree_sitter_typescript", "language_tsx"),
}
COMMENTS = frozenset({"comment", "line_comment", "block_comment", "html_comment"})
#: the nodes holding a literal's text (where a generated allow is data)
CONTENTS = frozenset(
    {
        "string_content",
        "string_fragment",
        "multiline_string_fragment",
        "interpreted_string_literal_content",
        "raw_string_literal_content",
        "regex_pattern",
    }
)
ALLOW = re.compile(rb"# cleantree: allow r(\d+) -- why")
ALLOW_TEXT = re.compile(r"# cleantree: allow r(\d+) -- why")


@functools.cache
def parser(language: str) -> Any:
    _, module_name, function = GRAMMARS[language]
    need_module("tree_sitter", "test")
    need_module(module_name, "test")
    import tree_sitter

    module = importlib.import_module(module_name)
    return tree_sitter.Parser(tree_sitter.Language(getattr(module, function)()))


def nodes(root: Any) -> Iterator[Any]:
    stack = [root]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(node.children))


def parse(language: str, data: bytes) -> Any:
    return parser(language).parse(data)


def comment_spans(tree: Any) -> list[tuple[int, int]]:
    """The byte ranges of tree-sitter's comment nodes."""
    return [(n.start_byte, n.end_byte) for n in nodes(tree.root_node) if n.type in COMMENTS]


def comment_allows(language: str, data: bytes) -> set[int]:
    """The numbered allows that stand inside one of tree-sitter's comments."""
    spans = comment_spans(parse(language, data))
    return {
        int(found[1])
        for found in ALLOW.finditer(data)
        if any(start <= found.start() and found.end() <= end for start, end in spans)
    }


def comment_lines(language: str, data: bytes) -> set[int]:
    """The lines (from 1) that hold part of one of tree-sitter's comments."""
    lines: set[int] = set()
    for node in nodes(parse(language, data).root_node):
        if node.type in COMMENTS:
            (first, _), (last, column) = node.start_point, node.end_point
            if column == 0 and last > first:
                last -= 1  # Rust's line comment holds its line end
            lines.update(range(first + 1, last + 2))
    return lines


def model_comments(language: str, text: str) -> tuple[tuple[int, str], ...]:
    found = text_comments(GRAMMARS[language][0], split_lines(text))
    assert found is not None, f"{language} is a language the model reads"
    return found


def model_allows(language: str, text: str) -> set[int]:
    """The numbered allows the model's comments hold (what the judge reads)."""
    return {
        int(n) for _, comment in model_comments(language, text) for n in ALLOW_TEXT.findall(comment)
    }


def seeded(language: str, data: bytes) -> tuple[bytes, int]:
    """``data`` with a numbered allow placed at the start of each of tree-sitter's comments
    (after its ``//`` or ``/*``) and of each literal's text, and how many."""
    tree = parse(language, data)
    places = sorted(
        {n.start_byte + 2 for n in nodes(tree.root_node) if n.type in COMMENTS - {"html_comment"}}
        | {n.start_byte for n in nodes(tree.root_node) if n.type in CONTENTS}
    )
    out, last = [], 0
    for number, place in enumerate(places, start=1):
        out += [data[last:place], b"# cleantree: allow r%d -- why" % number]
        last = place
    out.append(data[last:])
    return b"".join(out), len(places)
