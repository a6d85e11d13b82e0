"""Comments of C, Go, Java and Rust (:mod:`pytest_cleantree.analysis.comments_braces`), stated
directly: where ``//`` and ``/* */`` are comments, and where the grammar reads data (``// allow``
stands where an allow in data would).  The shared cases of every grammar are
``test_comments.py``; the differentials against each compiler's reader are in
``tests/trust``."""

from __future__ import annotations

import pytest

from pytest_cleantree.analysis.comments import comments_of

CASES = [
    # C, C++ and CUDA (as ``gcc -E`` reads them)
    (
        "c",
        "a line comment continued",
        "int x; // c \\\n continued\n// d",
        ((1, "// c \\"), (2, " continued"), (3, "// d")),
    ),
    ("c", "a block comment left open runs to the end", "/* c\n// d", ((1, "/* c"), (2, "// d"))),
    ("c", "a block comment, then a line comment", "/* a */ // c", ((1, "/* a */"), (1, "// c"))),
    ("c", "an empty block comment", "/**/ // c", ((1, "/**/"), (1, "// c"))),
    ("c", "a u8 string", 'char* s = u8"// allow"; // c', ((1, "// c"),)),
    ("c", "a wide character literal", "wchar_t c = L'\"'; // c", ((1, "// c"),)),
    ("c", "a u8 raw string over lines", 'auto s = u8R"d(\n// allow\n)d"; // c', ((3, "// c"),)),
    ("c", "a wide raw string, no delimiter", 'auto s = LR"(// allow)"; // c', ((1, "// c"),)),
    ("c", "a raw string left open", 'auto s = R"d(\n// allow', ()),
    ("c", "a raw string's delimiter with a backslash", 'auto s = R"\\(// allow', ()),
    ("c", "an R after a name is no raw prefix", 'auto s = xR"("; // c', ((1, "// c"),)),
    ("c", "digit separators in a hexadecimal", "int n = 0x1'f'00; // c", ((1, "// c"),)),
    ("c", "an escaped quote in a character literal", "char c = '\\''; // c", ((1, "// c"),)),
    ("c", "a quote after a name", "x = a'b; // c", ((1, "// c"),)),
    ("c", "an escaped quote in a string", 's = "a\\"b // allow"; // c', ((1, "// c"),)),
    ("c", "a string left open is data", 's = "abc\n// allow', ()),
    ("c", "a character literal at a line's start", "x;\n'a' // c", ((2, "// c"),)),
    # Go
    ("go", "a block comment left open is data", "/* c\n// allow", ()),
    ("go", "a block comment, then a line comment", "/* a */ // c", ((1, "/* a */"), (1, "// c"))),
    ("go", "a raw string left open", "s := `a\n// allow", ()),
    ("go", "an empty raw string", "``// c", ((1, "// c"),)),
    ("go", "a rune", "r := 'x' // c", ((1, "// c"),)),
    ("go", "a rune of an escaped quote", "r := '\\'' // c", ((1, "// c"),)),
    ("go", "an escaped quote in a string", 's := "a\\"// allow" // c', ((1, "// c"),)),
    ("go", "a rune left open", "r := '\n// allow", ()),
    (
        "go",
        "a block comment's close is after its opening",
        "/*/ a */ // c",
        ((1, "/*/ a */"), (1, "// c")),
    ),
    ("go", "a close before the comment", "x = a */ b; /* c */ // d", ((1, "/* c */"), (1, "// d"))),
    (
        "go",
        "two block comments",
        "/* a */ x /* b */ // c",
        ((1, "/* a */"), (1, "/* b */"), (1, "// c")),
    ),
    # Java
    ("java", "a block comment left open is data", "/* c\n// allow", ()),
    ("java", "an empty block comment", "/**/ // c", ((1, "/**/"), (1, "// c"))),
    ("java", "three quotes and no line end: data", 's = """a"""; // allow', ()),
    (
        "java",
        "an escaped quote in a text block",
        's = """\n  \\""" // allow\n  """; // c',
        ((3, "// c"),),
    ),
    (
        "java",
        "blanks after a text block's opening",
        's = """  \n  "" // allow\n  """; // c',
        ((3, "// c"),),
    ),
    ("java", "a string template: none", 's = "\\{x}"; // allow', ()),
    ("java", "a unicode escape of a slash: none", 's = "\\u002f"; // allow', ()),
    ("java", "a unicode escape of a star, many u: none", 's = "\\uu002A"; // allow', ()),
    ("java", "a unicode escape of a letter", 's = "\\u0041"; // c', ((1, "// c"),)),
    ("java", "a character literal", "c = 'a'; // c", ((1, "// c"),)),
    ("java", "a string", 's = "a"; // c', ((1, "// c"),)),
    ("java", "a string left open is data", 's = "a\n// allow', ()),
    # Rust
    ("rust", "a shebang line", "#!/usr/bin/env run // allow\n// c", ((2, "// c"),)),
    ("rust", "an inner attribute is no shebang", "#![allow(x)] // c", ((1, "// c"),)),
    (
        "rust",
        "an inner attribute after a comment",
        "#! /* a */ [x] // c",
        ((1, "/* a */"), (1, "// c")),
    ),
    ("rust", "an inner attribute after a line comment", "#! // c\n[x]", ((1, "// c"),)),
    ("rust", "a nested block comment left open is data", "/* a /* b */\n// allow", ()),
    ("rust", "a block comment alone", "/* a */", ((1, "/* a */"),)),
    ("rust", "an empty block comment", "/**/ // c", ((1, "/**/"), (1, "// c"))),
    (
        "rust",
        "a nested block comment, then a line comment",
        "/* a /* b */ c */ // d",
        ((1, "/* a /* b */ c */"), (1, "// d")),
    ),
    ("rust", "a byte raw string", 's = br#"// allow"#; // c', ((1, "// c"),)),
    ("rust", "a C raw string", 's = cr"// allow"; // c', ((1, "// c"),)),
    ("rust", "a raw string", 's = r"// allow"; // c', ((1, "// c"),)),
    ("rust", "a raw string closed by its hashes", 's = r##"a"# // allow"##; // c', ((1, "// c"),)),
    ("rust", "a raw string left open", 's = r#"// allow', ()),
    ("rust", "an r after a letter is no raw prefix", 'ar"x" // c', ((1, "// c"),)),
    ("rust", "a byte string", 's = b"// allow"; // c', ((1, "// c"),)),
    ("rust", "an escaped quote in a string", 's = "a\\"// allow"; // c', ((1, "// c"),)),
    ("rust", "a unicode escape character", "c = '\\u{1F600}'; // c", ((1, "// c"),)),
    ("rust", "a hexadecimal escape character", "c = '\\x41'; // c", ((1, "// c"),)),
    ("rust", "an escaped letter character", "c = '\\n'; // c", ((1, "// c"),)),
    ("rust", "an escape left open is data", "c = '\\q // allow", ()),
    ("rust", "a byte character", "c = b'x'; // c", ((1, "// c"),)),
    ("rust", "two quotes are no character", "c = ''; // c", ((1, "// c"),)),
    ("rust", "a quote before a line end is no character", "c = '\n'; // c", ((2, "// c"),)),
    ("rust", "a label", "'a: loop {} // c", ((1, "// c"),)),
    ("rust", "a character", "x = 'a' // c", ((1, "// c"),)),
    ("rust", "a character of a slash", "x = '/' // c", ((1, "// c"),)),
    ("rust", "a lifetime, then a string", 'f::<\'static>(); "// allow" // c', ((1, "// c"),)),
]


@pytest.mark.parametrize(
    ("language", "text", "comments"),
    [pytest.param(language, text, comments, id=name) for language, name, text, comments in CASES],
)
def test_brace_languages_comments(
    language: str, text: str, comments: tuple[tuple[int, str], ...]
) -> None:
    assert comments_of(language, text.split("\n")) == comments
