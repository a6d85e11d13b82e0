"""Comments by each language's grammar (analysis/comments.py), stated directly: where a
``#`` is a comment, and where the language reads data (``# allow`` stands where an allow in
data would).  The generated differential against each language's own reader is
``tests/trust/test_comment_grammar.py``."""

from __future__ import annotations

import pytest

from pytest_cleantree.analysis.comments import LANGUAGES, comments_of

CASES = [
    (
        "toml",
        "data in a basic multi-line string",
        'a = """\nrun # allow\n"""\nb = 1 # c',
        ((4, "# c"),),
    ),
    ("toml", "data in a literal multi-line string", "a = '''\nrun # allow\n'''", ()),
    ("toml", "quotes before the closing three", 'a = """x""""  # c', ((1, "# c"),)),
    ("toml", "a hash in a literal string", "a = 'x#y' # c", ((1, "# c"),)),
    ("toml", "an escaped quote in a basic string", 'a = "x\\"#" # c', ((1, "# c"),)),
    ("toml", "a comment needs no blank before it", "a = 1# c", ((1, "# c"),)),
    ("shell", "single quotes over lines", "echo 'a\nsm120 # allow'", ()),
    ("shell", "double quotes over lines", 'echo "a\nsm120 # allow"\n# c', ((3, "# c"),)),
    ("shell", "ansi-c quotes with an escaped quote", "echo $'a\\'\n# allow'\n# c", ((3, "# c"),)),
    ("shell", "a here-document", "cat <<EOF\n# allow\nEOF\necho # c", ((4, "# c"),)),
    ("shell", "a here-document, tabs stripped", "cat <<-EOF\n\t# allow\n\tEOF\n# c", ((4, "# c"),)),
    ("shell", "a here-document, quoted word", "cat <<'E F'\n# allow\nE F\n# c", ((4, "# c"),)),
    (
        "shell",
        "two here-documents on one line",
        "cat <<A; cat <<B\nA\n# allow\nB\n# c",
        ((5, "# c"),),
    ),
    (
        "shell",
        "a here-document after a string over lines",
        'cat <<EOF; echo "a\nb # allow"\nbody # allow\nEOF\n# c',
        ((5, "# c"),),
    ),
    ("shell", "parameters and arithmetic", "echo ${#x} ${x#y} $((1<<2)) # c", ((1, "# c"),)),
    ("shell", "an escaped blank", "echo a\\ #b", ()),
    ("shell", "after a metacharacter", "x=1;# c", ((1, "# c"),)),
    ("shell", "backticks over lines", "echo `a\n# b` # c", ((2, "# c"),)),
    ("yaml", "a literal block scalar", "a: |\n  x # allow\nb: 1 # c", ((3, "# c"),)),
    (
        "yaml",
        "a line less indented than the block's first ends it",
        "a: |\n  x # allow\n # c\nb: 1",
        ((3, "# c"),),
    ),
    ("yaml", "an indentation indicator", "a: |2\n    x\n   # allow\nb: 1", ()),
    (
        "yaml",
        "a block scalar in a sequence entry",
        "- a: |\n   x # allow\n  b: 1 # c",
        ((3, "# c"),),
    ),
    ("yaml", "a double-quoted scalar over lines", 'a: "x\n  # allow"\nb: 1 # c', ((3, "# c"),)),
    ("yaml", "a single-quoted scalar over lines", "a: 'it''s\n  # allow' # c", ((2, "# c"),)),
    ("yaml", "a hash inside a word", "a: b#c # d", ((1, "# d"),)),
    ("yaml", "a quote inside a plain scalar", "a: it's # c", ((1, "# c"),)),
    ("yaml", "a top-level block scalar", "--- |\nx # allow\n--- # c", ((3, "# c"),)),
    (
        "ini",
        "whole lines only, as configparser",
        "[s]\nk = v # x\n  # c\n; d",
        ((3, "# c"), (4, "; d")),
    ),
    ("conf", "whole lines only", "k v # x\n  # c\n; d", ((2, "# c"),)),
    ("make", "a hash inside a function call", "X = $(shell echo '#') # c", ((1, "# c"),)),
    ("make", "a define block", "define X\n# allow\nendef\n# c", ((4, "# c"),)),
    (
        "make",
        "a recipe, read by the shell",
        "all:\n\techo 'a # b' \\\n  'c # d' # e",
        ((3, "# e"),),
    ),
    ("make", "a backslash continues a comment", "# c \\\n  more", ((1, "# c \\"), (2, "  more"))),
    ("make", "a reference in a recipe", "\techo $(x # y) # c", ((1, "# c"),)),
    ("make", "make has no quotes", 'X = "a # b"', ((1, '# b"'),)),
    ("dockerfile", "a here-document", "RUN <<EOF\n# allow\nEOF\n# c", ((4, "# c"),)),
    ("dockerfile", "exec form", 'RUN ["sh", "-c", "a # b"] # c', ((1, "# c"),)),
    ("r", "a string over lines", 'x <- "a\n# allow"\n# c', ((3, "# c"),)),
    ("r", "a raw string", 'x <- r"-(\n)" # allow)-"\n# c', ((3, "# c"),)),
    ("r", "a quoted name", "`a\n# allow` <- 1 # c", ((2, "# c"),)),
    ("cmake", "a quoted argument over lines", 'set(X "a\n# allow")\n# c', ((3, "# c"),)),
    ("cmake", "a bracket argument", "set(X [=[\n]] # allow]=])\n# c", ((3, "# c"),)),
    (
        "cmake",
        "a bracket comment",
        "#[[\nblock\n]] x # c",
        ((1, "#[["), (2, "block"), (3, "# c"), (3, "]]")),
    ),
    ("ruby", "a squiggly here-document", "x = <<~EOS\n  # allow\n  EOS\n# c", ((4, "# c"),)),
    ("ruby", "a percent literal, nested", "x = %q(a (\n# allow) )\n# c", ((3, "# c"),)),
    ("ruby", "an interpolation", 'x = "#{a}\n# allow"\n# c', ((3, "# c"),)),
    ("ruby", "an interpolation holding the quote", 'x = "#{x + "y # z"}" # c', ((1, "# c"),)),
    ("ruby", "a division", "x = a / 2 # c", ((1, "# c"),)),
    ("ruby", "a division without blanks", "x = a/2 # c", ((1, "# c"),)),
    ("ruby", "a regular expression over lines", "x = /a\n# allow/x\n# c", ((3, "# c"),)),
    ("ruby", "=begin, read as data", "=begin\n# allow\n=end\n# c", ((4, "# c"),)),
    ("ruby", "after __END__", "__END__\n# allow", ()),
    ("ruby", "a character literal", "x = y ?# : 1", ()),
    ("ruby", "an append is no here-document", 'a << "x # y" # c', ((1, "# c"),)),
    ("ruby", "y is a name in Ruby", "x, y = 1, 2 # c", ((1, "# c"),)),
    (
        "perl",
        "a here-document's quoted word after a blank",
        'print << "END X";\n# allow\nEND X\n# c',
        ((4, "# c"),),
    ),
    ("perl", "y before a fat comma is a word", "my %h = (y => 1); # c", ((1, "# c"),)),
    ("perl", "a quote-like operator", "my $x = q{\n# allow\n};\n# c", ((4, "# c"),)),
    ("perl", "a substitution's second part", "$x =~ s{a}\n  {\n# allow};\n# c", ((4, "# c"),)),
    ("perl", "a transliteration", "$x =~ tr/a/\n# allow/;\n# c", ((3, "# c"),)),
    ("perl", "an indented here-document", "print <<~EOF;\n  # allow\n  EOF\n# c", ((4, "# c"),)),
    ("perl", "POD", "=pod\n# allow\n=cut\n# c", ((4, "# c"),)),
    ("perl", "the last index", "my $n = $#a; # c", ((1, "# c"),)),
    ("perl", "an escaped single quote", "$x = 'it\\'s\n# allow';\n# c", ((3, "# c"),)),
    ("perl", "after __DATA__", "__DATA__\n# allow", ()),
    ("c", "a line comment", "int x; // # c", ((1, "// # c"),)),
    ("c", "a block comment over lines", "/* a\n# c */ int y;", ((1, "/* a"), (2, "# c */"))),
    ("c", "a string holding //", 'char* s = "// # allow"; // # c', ((1, "// # c"),)),
    ("c", "a raw string over lines", 'auto s = R"d(\n// # allow\n)d"; // # c', ((3, "// # c"),)),
    ("c", "a digit separator", "int n = 1'000; // # c", ((1, "// # c"),)),
    ("c", "a character literal of a quote", "char q = '\"'; // # c", ((1, "// # c"),)),
    ("c", "a preprocessor line is no comment", "# define X 1", ()),
    ("go", "a string holding //", 's := "// # allow" // # c', ((1, "// # c"),)),
    ("go", "a raw string over lines", "s := `\n// # allow\n` /* # c */", ((3, "/* # c */"),)),
    ("go", "a rune of a quote", 'r := \'"\'; s := "# allow" // # c', ((1, "// # c"),)),
    ("go", "an unterminated string is data to the end", 's := "a\n// # allow', ()),
    ("java", "a text block", 's = """\n  // # allow\n  """; // # c', ((3, "// # c"),)),
    ("java", "a character literal", "c = '\\''; // # c", ((1, "// # c"),)),
    ("java", "a unicode escape of a quote: none", 's = "\\u0022"; // # allow', ()),
    ("rust", "nested block comments", "/* a /* b */ # c */ x", ((1, "/* a /* b */ # c */"),)),
    ("rust", "a raw string with hashes", 's = r#"a "// # allow"#; // # c', ((1, "// # c"),)),
    ("rust", "a string over lines", 's = "a\n// # allow"; // # c', ((2, "// # c"),)),
    ("rust", "a lifetime is no quote", "fn f<'a>(x: &'a str) {} // # c", ((1, "// # c"),)),
    ("rust", "a char of a quote", "let q = '\"'; // # c", ((1, "// # c"),)),
    ("javascript", "a regex holding //", "r = /[//]/; // # c", ((1, "// # c"),)),
    ("javascript", "a division", "x = a / b; // # c", ((1, "// # c"),)),
    (
        "javascript",
        "a template over lines",
        "s = `\n// # allow ${ 1 /* # c */ }`",
        ((2, "/* # c */"),),
    ),
    ("javascript", "a / after } is data to the end", "{}\n/ 1 /\n// # allow", ()),
    ("javascript", "JSX is data to the end", "x = <p>// # allow</p>", ()),
    ("typescript", "a generic is no JSX", "f<T>(x); // # c", ((1, "// # c"),)),
    ("typescript", "a ! before / is data to the end", "x! / 2; // # allow", ()),
    ("tsx", "JSX is data to the end", "x = <p>// # allow</p>", ()),
    ("markdown", "no comment is read", "<!-- # allow -->", ()),
]


@pytest.mark.parametrize(
    ("language", "text", "comments"),
    [c[:1] + c[2:] for c in CASES],
    ids=[f"{c[0]}: {c[1]}" for c in CASES],
)
def test_comments_by_the_languages_grammar(
    language: str, text: str, comments: tuple[tuple[int, str], ...]
) -> None:
    assert comments_of(language, text.split("\n")) == comments


def test_every_language_is_stated() -> None:
    assert {c[0] for c in CASES} == set(LANGUAGES)


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_a_comment_line_is_a_comment_in_every_language(language: str) -> None:
    if language == "markdown":  # none is read (analysis/comments.py)
        assert comments_of(language, ("x", "<!-- # c -->", "# c")) == ()
        return
    slashes = ("c", "go", "java", "rust", "javascript", "typescript", "tsx")
    line = "// # c" if language in slashes else "# c"  # in C, ``# c`` is a directive
    assert comments_of(language, ("x", line)) == ((2, line),)


# --------------------------------------------------------------------------- the shared reader
# (analysis/comments_base.py): what every grammar above reads with, stated directly


def test_a_texts_lines_and_the_line_each_offset_is_on() -> None:
    from pytest_cleantree.analysis.comments_base import Text

    text = Text(["ab", "", "cd"])
    assert text.src == "ab\n\ncd"
    assert text.starts == [0, 3, 4]
    assert [text.eol(o) for o in (0, 2, 3, 4, 6)] == [2, 2, 3, 6, 6]
    assert Text([]).starts == [0]


def test_a_comment_is_recorded_to_its_lines_end_or_over_lines() -> None:
    from pytest_cleantree.analysis.comments_base import Text

    text = Text(["x # a", "/* b", "c */ y"])
    assert text.comment(2) == 5
    assert text.comment(6, 15) == 15
    assert text.found == [(1, "# a"), (2, "/* b"), (3, "c */")]


def test_after_a_pattern_or_the_texts_end() -> None:
    from pytest_cleantree.analysis.comments_base import DQ, SQ_RAW, Text

    text = Text(['"a\\"b" c', "d"])
    assert text.after(DQ, 1) == 6
    assert Text(['"a\\"']).after(DQ, 1) == 4  # unterminated: data to the end
    assert Text(["'a\\'b' c"]).after(SQ_RAW, 1) == 4  # no escapes: the first quote closes


def test_a_here_documents_body_ends_after_its_word() -> None:
    from pytest_cleantree.analysis.comments_base import Text

    text = Text(["cat <<EOF", "x", "\t\tEOF", "y"])
    assert text.body_end(10, "EOF", "\t") == 17
    assert text.body_end(10, "EOF", "") == len(text.src)  # the tabs are not stripped
    assert Text(["a", "EOF"]).body_end(0, "EOF", "") == 5
    assert Text(["a", " EOF"]).body_end(0, "EOF", " ") == 6


def test_balanced_and_delimited_runs() -> None:
    from pytest_cleantree.analysis.comments_base import Text, balanced, delimited

    text = Text(["(a (b) \\) c) d"])
    assert balanced(text, 1, "(", ")") == 12
    assert balanced(text, 4, "(", ")") == 6
    assert balanced(text, 4, "(", ")", depth=2) == 12
    assert balanced(Text(["(a (b"]), 1, "(", ")") == 5  # unclosed: to the end
    assert delimited(Text(["{a {b} c} d"]), 1, "{") == 9
    assert delimited(Text(["<a> d"]), 1, "<") == 3
    assert delimited(Text(["|a\\|b| d"]), 1, "|") == 6
    assert delimited(Text(["|a"]), 1, "|") == 2


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("$(a) b", "xxxx b"),
        ("${a} b", "xxxx b"),
        ("$(a $(b) c) d", "xxxxxxxxxxx d"),  # nested: to the reference's own close
        ("x $(a\nb) # c", "x xxx\nxx # c"),  # a line break inside is kept
        ("f(a) # c", "f(a) # c"),  # no $: no reference
        ("$x # y", "$x # y"),
    ],
)
def test_makes_references_are_masked_as_data(text: str, masked: str) -> None:
    from pytest_cleantree.analysis.comments import _masked

    assert _masked(text) == masked


@pytest.mark.parametrize(
    ("language", "text", "comments"),
    [
        ("r", 'x <- ")"\ny <- r"(\n# allow\n)"\n# c', ((5, "# c"),)),  # its close after it
        ("r", 'x <- r"(a)" # c\ny <- ")"', ((1, "# c"),)),  # the first close
        ("r", 'x <- r"(\n# allow', ()),  # unclosed: data to the end
        ("cmake", 'set(X "]]")\nset(Y [[\n# allow\n]])\n# c', ((5, "# c"),)),
        ("cmake", 'set(X [[a]]) # c\nset(Y "]]")', ((1, "# c"),)),
        ("cmake", "set(X [[\n# allow", ()),
        ("cmake", '#[[a]] x # c\nset(Y "]]")', ((1, "# c"), (1, "#[[a]]"))),
    ],
)
def test_a_raw_or_bracket_run_ends_at_its_first_close_after_it(
    language: str, text: str, comments: tuple[tuple[int, str], ...]
) -> None:
    assert comments_of(language, text.split("\n")) == comments


@pytest.mark.parametrize(
    ("line", "indent"),
    [
        ("a: |", 0),  # a key: its column
        ("  a: |", 2),
        ("- a: |", 2),  # a key in a sequence entry
        ("  - a: >", 4),
        ("a: |2", 0),
        ("key:|", 0),
        ("- |", 0),  # a sequence entry's value: the last entry's column
        ("  - |", 2),
        ("- - |", 2),
        ("-  |", 0),
        ("? |", 0),
        ("--- |", -1),  # no key on the line: every line to the document's end
        ("|", -1),
        ("  |", -1),
    ],
)
def test_a_block_scalars_lines_go_deeper_than_its_key_or_entry(line: str, indent: int) -> None:
    from pytest_cleantree.analysis.comments import _block_indent

    assert _block_indent(line) == indent


@pytest.mark.parametrize(
    ("line", "depth", "found"),
    [
        ("a # b", 0, (2, 0)),
        ("a \\# b # c", 0, (7, 0)),  # an escaped hash
        ("$$ # c", 0, (3, 0)),  # $$ is a dollar
        ("$x # c", 0, (3, 0)),
        ("$(a # b) # c", 0, (9, 0)),  # inside a reference: no comment
        ("${a # b} # c", 0, (9, 0)),
        ("$(a (b) # c) # d", 0, (13, 0)),  # parentheses nest inside a reference
        ("a) # c", 1, (3, 0)),  # a reference open from the line above closes
        ("a}) # c", 2, (4, 0)),
        ("(a # b", 0, (3, 0)),  # a parenthesis outside a reference is text
        ("x = $(a", 0, (None, 1)),  # the reference stays open
        ("x", 3, (None, 3)),
        ("", 0, (None, 0)),
        ("\\", 0, (None, 0)),
    ],
)
def test_a_make_lines_comment_and_the_references_left_open(
    line: str, depth: int, found: tuple[int | None, int]
) -> None:
    from pytest_cleantree.analysis.comments import _make_comment

    assert _make_comment(line, depth) == found
