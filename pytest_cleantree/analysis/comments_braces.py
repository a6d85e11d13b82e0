"""Comments of the languages whose comments are ``//`` and ``/* */`` (:mod:`.comments`): C,
C++ and CUDA; Go; Java; Rust.  Each reads its literals exactly; what it cannot read exactly
(an unterminated literal or comment, which its compiler refuses) is data to the end.

- C, C++ and CUDA: ``//`` (a backslash at the end continues it) and ``/* */``, outside
  string and character literals (prefixes ``u8``, ``u``, ``U``, ``L``; a ``'`` after a
  digit or letter is a digit separator) and raw strings ``R"d(...)d"``, as ``gcc -E``
  reads them;
- Go: outside ``"..."`` and rune literals (one line each, ``\\`` escapes) and raw strings
  in backquotes (over lines);
- Java: outside ``"..."`` and character literals (one line each) and text blocks
  ``\"\"\"...\"\"\"``; a file holding a Unicode escape (``\\u0022``) of a character the
  lexer reads (a quote, ``/``, ``*``, a backslash, a line end) has none (javac reads the
  escape before anything else), and so has one holding ``\\{`` (a string template);
- Rust: block comments nest; outside strings (over lines, ``b``/``c`` prefixes), raw strings
  ``r"..."``, ``r#"..."#``, ``br#"..."#``, and character literals (``'a'``, ``'\\''``,
  ``b'x'``), a ``'`` before a name and no closing ``'`` being a lifetime or label.
"""

from __future__ import annotations

import re

from .comments_base import Text, closing

__all__ = ["c_family", "go", "java", "rust"]


def _block(text: Text, start: int) -> int:
    """A ``/* */`` comment from ``start``; unterminated, it is data to the end."""
    end = text.src.find("*/", start + 2)
    return len(text.src) if end < 0 else text.comment(start, end + 2)


def _line_literal(pattern: re.Pattern[str], text: Text, offset: int) -> int:
    """The end of a one-line literal whose body starts at ``offset``; data to the end of
    the text when it does not close on its line (the compiler refuses it)."""
    found = pattern.match(text.src, offset)
    return len(text.src) if found is None else found.end()


_DQ_LINE = re.compile(r'(?:[^"\\\n]|\\.)*"')
_SQ_LINE = re.compile(r"(?:[^'\\\n]|\\.)+'")


# --------------------------------------------------------------------------- C family

_C = re.compile(r"""(?P<lc>//)|(?P<bc>/\*)|(?P<q>["'])""")
_C_PREFIX = re.compile(r"(?:^|(?<=[^\w]))(?:u8|[uUL])?R?$")
_C_RAW = re.compile(r'([^()\\\s"]{0,16})\(')
_C_LINE_END = re.compile(r"(?:\\\n|[^\n])*")  # a backslash-newline continues a // comment


def c_family(text: Text) -> None:
    src = text.src
    pos = 0
    while (found := _C.search(src, pos)) is not None:
        start = found.start()
        if found["lc"]:
            pos = text.comment(start, text.after(_C_LINE_END, start))
        elif found["bc"]:
            end = src.find("*/", start + 2)
            pos = text.comment(start, len(src) if end < 0 else end + 2)
        else:
            pos = _c_literal(text, start, found["q"])


def _c_literal(text: Text, start: int, quote: str) -> int:
    """The end of the literal whose quote is at ``start`` (or just after a digit
    separator): a raw string's by its delimiter, others by their closing quote."""
    line_start = text.src.rfind("\n", 0, start) + 1
    prefix = _C_PREFIX.search(text.src, line_start, start)
    if quote == "'" and prefix is None:
        return start + 1  # ``1'000``: a digit separator, not a character literal
    if quote == '"' and prefix is not None and prefix.group().endswith("R"):
        raw = _C_RAW.match(text.src, start + 1)
        if raw is None:
            return len(text.src)  # not plainly a raw string: data to the end
        close = f'){raw.group(1)}"'
        end = text.src.find(close, raw.end())
        return len(text.src) if end < 0 else end + len(close)
    return text.after(closing(quote), start + 1)


# -------------------------------------------------------------------------------- Go

_GO = re.compile(r"""(?P<lc>//)|(?P<bc>/\*)|(?P<raw>`)|(?P<q>["'])""")


def go(text: Text) -> None:
    src, pos = text.src, 0
    while (found := _GO.search(src, pos)) is not None:
        start = found.start()
        if found["lc"]:
            pos = text.comment(start)
        elif found["bc"]:
            pos = _block(text, start)
        elif found["raw"]:
            end = src.find("`", start + 1)
            pos = len(src) if end < 0 else end + 1
        else:
            pos = _line_literal(_DQ_LINE if found["q"] == '"' else _SQ_LINE, text, start + 1)


# ------------------------------------------------------------------------------ Java

_JAVA = re.compile(r"""(?P<lc>//)|(?P<bc>/\*)|(?P<tb>\"\"\"[ \t\f]*\n)|(?P<q>["'])""")
_TEXT_BLOCK = re.compile(r'(?:[^"\\]|\\[\s\S]|"(?!""))*"""')
_UNICODE_ESCAPE = re.compile(r"\\+u+([0-9a-fA-F]{4})")
_LEXED = frozenset("\"'/*\\\n\r")


def java(text: Text) -> None:
    src, pos = text.src, 0
    if any(chr(int(hex4, 16)) in _LEXED for hex4 in _UNICODE_ESCAPE.findall(src)):
        return  # javac reads ``\\u0022`` as a quote before it reads anything: not modelled
    if "\\{" in src:
        return  # a string template's ``\\{ "nested" }`` (a preview of Java 21, 22): not read
    while (found := _JAVA.search(src, pos)) is not None:
        start = found.start()
        if found["lc"]:
            pos = text.comment(start)
        elif found["bc"]:
            pos = _block(text, start)
        elif found["tb"]:
            pos = text.after(_TEXT_BLOCK, found.end())
        elif src.startswith('"""', start):
            return  # ``"""`` not followed by a line end: refused by javac, data
        else:
            pos = _line_literal(_DQ_LINE if found["q"] == '"' else _SQ_LINE, text, start + 1)


# ------------------------------------------------------------------------------ Rust

_RUST = re.compile(r"""(?P<lc>//)|(?P<bc>/\*)|(?<!\w)[bc]?r(?P<hashes>\#*)"|(?P<s>")|(?P<ch>')""")
#: a first line ``#!`` that is no inner attribute (``#![...]``, ``#! /* */ [...]``)
_SHEBANG = re.compile(r"#!(?!\s*(?:\[|/[/*]))")
_NESTING = re.compile(r"/\*|\*/")
_RUST_ESCAPED_CHAR = re.compile(r"\\(?:u\{[0-9a-fA-F_]{1,8}\}|x[0-9a-fA-F]{2}|[^\n])'")


def rust(text: Text) -> None:
    src = text.src
    pos = text.eol(0) if _SHEBANG.match(src) else 0
    while (found := _RUST.search(src, pos)) is not None:
        start = found.start()
        if found["lc"]:
            pos = text.comment(start)
        elif found["bc"]:
            pos = _nested(text, start)
        elif found["hashes"] is not None:
            close = '"' + found["hashes"]
            end = src.find(close, found.end())
            pos = len(src) if end < 0 else end + len(close)
        elif found["s"]:
            pos = text.after(_DQ_BODY, found.end())
        else:
            pos = _rust_quote(text, start)


_DQ_BODY = closing('"')


def _rust_quote(text: Text, start: int) -> int:
    """After a ``'``: the end of a character literal, or just past the ``'`` of a lifetime
    or label (``'a``, ``'static``); a ``'\\`` that is no character literal is data."""
    src = text.src
    if src[start + 1 : start + 2] == "\\":
        escaped = _RUST_ESCAPED_CHAR.match(src, start + 1)
        return len(src) if escaped is None else escaped.end()
    if src[start + 2 : start + 3] == "'" and src[start + 1 : start + 2] not in ("", "\n", "'"):
        return start + 3
    return start + 1


def _nested(text: Text, start: int) -> int:
    """A Rust block comment from ``start``, nested ones inside it; unterminated: data."""
    depth, pos = 1, start + 2
    while depth:
        found = _NESTING.search(text.src, pos)
        if found is None:
            return len(text.src)
        depth += 1 if found.group() == "/*" else -1
        pos = found.end()
    return text.comment(start, pos)
