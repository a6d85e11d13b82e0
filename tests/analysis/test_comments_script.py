"""Ruby and Perl comments (:mod:`pytest_cleantree.analysis.comments_script`), stated directly:
where a ``#`` is a comment, and where the language reads data (``# allow`` stands where an
allow in data would).  The shared cases of every grammar are ``test_comments.py``."""

from __future__ import annotations

import pytest

from pytest_cleantree.analysis.comments import comments_of

CASES = [
    # Ruby's interpolation ``#{...}`` is code: its strings may hold the quote and braces
    ("ruby", "a name in an interpolation", 'x = "#{X + 1}" # c', ((1, "# c"),)),
    ("ruby", "a single-quoted string in an interpolation", "x = \"#{'#{'}\" # c", ((1, "# c"),)),
    ("ruby", "an empty single-quoted string in one", "x = \"#{''}\" # c", ((1, "# c"),)),
    ("ruby", "an escaped quote first in an inner string", 'x = "#{"\\"}"}" # c', ((1, "# c"),)),
    ("ruby", "a brace first in an inner string", 'x = "#{"}"}" # c', ((1, "# c"),)),
    ("ruby", "braces nested in an interpolation", 'x = "#{ {a: 1}["#"] }" # c', ((1, "# c"),)),
    ("ruby", "an interpolation left open", 'x = "#{a\n# allow', ()),
    ("ruby", "a string left open", 'x = "abc\n# allow', ()),
    ("ruby", "an escaped quote", 'x = "a\\"b # allow"  # c', ((1, "# c"),)),
    ("ruby", "an escaped backslash before the quote", 'x = "a\\\\" # c', ((1, "# c"),)),
    ("ruby", "a single-quoted string does not interpolate", "x = '#{' # c", ((1, "# c"),)),
    # ``=begin`` blocks and here-documents
    (
        "ruby",
        "two =begin blocks",
        "=begin\n# allow\n=end\n=begin\n# allow\n=end\n# c",
        ((7, "# c"),),
    ),
    ("ruby", "an =begin block left open", "=begin\n# allow", ()),
    (
        "ruby",
        "a squiggly here-document's end is its word after blanks only",
        "x = <<~EOS\n  # allow\nXEOS\n# allow\n  EOS\n# c",
        ((6, "# c"),),
    ),
    (
        "ruby",
        "a plain here-document's end is its word at the line's start",
        "x = <<EOS\n  EOS\n# allow\nEOS\n# c",
        ((5, "# c"),),
    ),
    (
        "ruby",
        "a comment after a here-document's opening",
        "x = <<~EOS # c\n  # allow\n  EOS\n# d",
        ((1, "# c"), (4, "# d")),
    ),
    ("ruby", "a quoted word holding a hash", 'x = <<"E#"\nbody\nE#\n# c', ((4, "# c"),)),
    (
        "ruby",
        "two here-documents one after the other",
        "a = <<A\n# allow\nA\nb = <<B\n# allow\nB\n# c",
        ((7, "# c"),),
    ),
    ("ruby", "a quoted here-document word", 'x = <<"EOS"\n# allow\nEOS\n# c', ((4, "# c"),)),
    # a ``/``: a division after a value (spaced both sides or neither), else a regex
    ("ruby", "a division at a line's end", "x = a /\n  2 # c", ((2, "# c"),)),
    ("ruby", "a regex at a line's start", "x = a\n/ 2 # allow /\n# c", ((3, "# c"),)),
    ("ruby", "a regex after a blank, none after it", "x = a /b # allow/", ()),
    ("ruby", "a regex after an operator", "x =/ # allow/", ()),
    # Perl
    ("perl", "a double-quoted string does not interpolate", '$x = "#{"; # c', ((1, "# c"),)),
    (
        "perl",
        "a here-document word after blanks",
        'print << "EOF";\n# allow\nEOF\n# c',
        ((4, "# c"),),
    ),
    ("perl", "y's second part", "$x =~ y/a/\n# allow/;\n# c", ((3, "# c"),)),
    ("perl", "POD left open", "=pod\n# allow", ()),
]


@pytest.mark.parametrize(
    ("language", "text", "comments"),
    [pytest.param(language, text, comments, id=name) for language, name, text, comments in CASES],
)
def test_ruby_and_perl_comments(
    language: str, text: str, comments: tuple[tuple[int, str], ...]
) -> None:
    assert comments_of(language, text.split("\n")) == comments
