"""JavaScript and TypeScript comments (:mod:`pytest_cleantree.analysis.comments_js`), stated
directly: where ``//`` and ``/* */`` are comments, and where the scan reads data (``// allow``
stands where an allow in data would, and counts for nothing).  The shared cases of every
grammar are ``test_comments.py``; the differential against node is in ``tests/trust``."""

from __future__ import annotations

import pytest

from pytest_cleantree.analysis.comments import comments_of

JS, TS = "javascript", "typescript"

CASES = [
    (JS, "a shebang line is data", "#!/usr/bin/env node // allow\n// c", ((2, "// c"),)),
    (JS, "a block comment", "/* c */ x // d", ((1, "/* c */"), (1, "// d"))),
    (JS, "a block comment left open", "/* c\n// allow", ()),
    # a comment is no token: the word and the dot before it still count
    (
        JS,
        "if, a block comment, its condition",
        "if /* c */ (a) /[//]/.test(s); // d",
        ((1, "/* c */"), (1, "// d")),
    ),
    (
        JS,
        "if, a line comment, its condition",
        "if // c\n(a) /[//]/.test(s); // d",
        ((1, "// c"), (2, "// d")),
    ),
    (JS, "a dot, a comment, a name", "x. // c\nif(a) / 2; // d", ((1, "// c"), (2, "// d"))),
    # strings and templates
    (JS, "a double-quoted string", '"a // b" // c', ((1, "// c"),)),
    (JS, "a single-quoted string", "'a // b' // c", ((1, "// c"),)),
    (JS, "a string continued by a backslash", '"a\\\n// b" // c', ((2, "// c"),)),
    (JS, "a string left open at its line's end", '"abc\n// allow', ()),
    (JS, "a template over lines", "`a\n// b` // c", ((2, "// c"),)),
    (JS, "a template in a substitution", "`${ `a//b` } // x` // c", ((1, "// c"),)),
    (JS, "braces in a substitution", "`${ {a: 1} } // x` // c", ((1, "// c"),)),
    (JS, "a template left open", "`a\n// allow", ()),
    (JS, "a regex starts a substitution", "`${/[//]/}` // c", ((1, "// c"),)),
    (JS, "a division after a template", "`a` / 2 // c", ((1, "// c"),)),
    (JS, "a division after a string", '"a" / 2 // c', ((1, "// c"),)),
    # a / after a word
    (JS, "a regex after return", "return /[//]/; // c", ((1, "// c"),)),
    (JS, "a regex after default", "default /[//]/; // c", ((1, "// c"),)),
    (JS, "a regex after typeof", "typeof /[//]/; // c", ((1, "// c"),)),
    (JS, "a regex after do", "do /[//]/ // c", ((1, "// c"),)),
    (JS, "a regex after else", "else /[//]/ // c", ((1, "// c"),)),
    (JS, "a regex after in", "in /[//]/ // c", ((1, "// c"),)),
    (JS, "a property named return", "x.return / 2 // c", ((1, "// c"),)),
    (JS, "an optional property named return", "a?.return / 2 // c", ((1, "// c"),)),
    (JS, "after yield, either: data", "yield /a/ // allow", ()),
    (JS, "after await, either: data", "await / 2 // allow", ()),
    (JS, "after of, either: data", "x of / 2 // allow", ()),
    (JS, "a private name", "#x / 2 // c", ((1, "// c"),)),
    (JS, "a dollar name", "$x / 2 // c", ((1, "// c"),)),
    (JS, "a no-break space is a blank", "x\u00a0/ 2 // c", ((1, "// c"),)),
    (JS, "a byte order mark is a blank", "\ufeff/[//]/ // c", ((1, "// c"),)),
    # a / after a bracket
    (JS, "a regex after while's condition", "while (a) /[//]/.test(s); // c", ((1, "// c"),)),
    (JS, "a regex after for's condition", "for (a) /[//]/.test(s); // c", ((1, "// c"),)),
    (JS, "a regex after with's condition", "with (a) /[//]/.test(s); // c", ((1, "// c"),)),
    (JS, "a division after a call", "f(a) / 2; // c", ((1, "// c"),)),
    (JS, "after await's parentheses, either: data", "await (x) / 2 // allow", ()),
    (JS, "a division after an index", "a[0] / 2 // c", ((1, "// c"),)),
    (JS, "a regex in a block", "{ /[//]/ } // c", ((1, "// c"),)),
    (JS, "a close with nothing open: data", ") // allow", ()),
    (JS, "a close that does not match: data", "(] // allow", ()),
    (JS, "a division on the next line", "a = b\n/[//]/g // c", ((2, "//]/g // c"),)),
    # numbers, operators
    (JS, "a division after a number", "1 / 2 // c", ((1, "// c"),)),
    (JS, "a number starting with a dot", ".5 / 2 // c", ((1, "// c"),)),
    (JS, "a number with an exponent", "1e+5 / 2 // c", ((1, "// c"),)),
    (JS, "a number after a question mark", "x = a ? .5 / 2 : 1 // c", ((1, "// c"),)),
    (JS, "after ++, either: data", "x++ / 2 / 1 // allow", ()),
    (JS, "after --, either: data", "x-- / 2 / 1 // allow", ()),
    (JS, "a regex after a bang", "!/[//]/.test(s) // c", ((1, "// c"),)),
    (TS, "after a TypeScript bang, either: data", "!/[//]/.test(s) // allow", ()),
    (JS, "an HTML-like comment opening: data", "x = 1 <!-- // allow", ()),
    (JS, "an HTML-like comment closing: data", "x-->0 // allow", ()),
    (JS, "a less-than after a value", "a < b // c", ((1, "// c"),)),
    (TS, "a type assertion is no JSX", "x = <T>y // c", ((1, "// c"),)),
    # JSX where an expression starts: data to the end
    (JS, "JSX at the text's start", "<p>// allow</p>", ()),
    (JS, "JSX after an opening parenthesis", "x = (<p>// allow</p>)", ()),
    (JS, "JSX after a division", "x = a / <p>// allow</p>", ()),
    (JS, "JSX in a substitution", "`${<p>// allow</p>}`", ()),
    (JS, "a division after await's brackets", "await [x] / 2 // c", ((1, "// c"),)),
    # regular expressions
    (JS, "a regex left open at its line's end", "x = /a\n// allow/", ()),
    (JS, "a regex with a class and an escaped slash", "x = /[/]\\// // c", ((1, "// c"),)),
    (JS, "a regex's flags, then a division", "x = /a/gi / 2 // c", ((1, "// c"),)),
]


@pytest.mark.parametrize(
    ("language", "text", "comments"),
    [pytest.param(language, text, comments, id=name) for language, name, text, comments in CASES],
)
def test_javascript_comments(
    language: str, text: str, comments: tuple[tuple[int, str], ...]
) -> None:
    assert comments_of(language, text.split("\n")) == comments
