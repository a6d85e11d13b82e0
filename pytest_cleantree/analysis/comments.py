"""Comments of files that are not Python, by each language's own grammar: where an inline
allow counts (:func:`comments_of`).

A ``#`` is a comment only where the language reads one: never inside what it reads as data
(a string, however it spans lines; a here-document; a YAML block scalar; a Makefile
``define``).  Where this model cannot tell code from data (a construct it does not read
exactly), it reads data: an allow then counts for nothing, which leaves a finding standing,
never a false clean.  Per language:

- TOML: ``#`` outside basic, literal and multi-line strings (as :mod:`tomllib` reads them);
- shell and Dockerfile: ``#`` at the start of a word, outside single, double, ``$'...'``
  and backtick quotes, ``${...}``, ``$((...))`` and here-documents;
- YAML: ``#`` after a blank, outside quoted scalars (any that spans lines) and block
  scalars (``|``, ``>``: the lines indented deeper than their key);
- INI (``.ini``, ``.cfg``; and ``.conf``): whole lines starting ``#`` or ``;`` (``#`` for
  ``.conf``), as :mod:`configparser` reads them: an inline ``#`` is part of the value;
- Makefile: ``#`` outside ``$(...)``/``${...}`` and ``define`` blocks (a backslash at the
  end continues it); recipe lines (a tab first) by the shell's rules;
- R: ``#`` outside strings (they span lines) and raw strings;
- CMake: ``#`` and bracket comments, outside quoted and bracket arguments;
- Ruby and Perl (:mod:`.comments_script`): ``#`` outside strings, here-documents,
  ``%``-literals and quote-like operators, regular expressions, ``=begin`` blocks and POD,
  and after ``__END__``;
- C, C++, CUDA, Go, Java and Rust (:mod:`.comments_braces`): ``//`` and ``/* */`` outside
  each one's literals (raw strings, text blocks, Rust's nested comments and lifetimes);
- JavaScript and TypeScript (:mod:`.comments_js`): ``//`` and ``/* */`` outside strings,
  template literals (their substitutions read as code) and regular expression literals;
  the rest of the file is data after a ``/`` that may be either, or a JSX element;
- Markdown: none.  An HTML comment ``<!-- -->`` is one only outside code spans, fenced and
  indented code, HTML blocks and link titles, which turn on the document's containers
  (lists, block quotes, lazy lines): not read exactly here, so an allow in a Markdown file
  counts for nothing (its finding stands; exclude the file, or reword it).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Callable, Sequence

from .comments_base import BQ, DQ, PAIRS, SQ_RAW, Text, balanced, closing
from .comments_braces import c_family, go, java, rust
from .comments_js import javascript, tsx, typescript
from .comments_script import perl, ruby

__all__ = ["LANGUAGES", "comments_of"]


# ------------------------------------------------------------------------------ TOML

_TOML = re.compile(r"""(?P<c>\#)|(?P<ml>\"\"\"|''')|(?P<s>["'])""")
_TOML_ML = {
    '"': re.compile(r'(?:[^"\\]|\\[\s\S]|"(?!""))*"""'),
    "'": re.compile(r"(?:[^']|'(?!''))*'''"),
}
_TOML_LINE = {'"': re.compile(r'(?:[^"\\\n]|\\.)*"'), "'": re.compile(r"[^'\n]*'")}


def _toml(text: Text) -> None:
    pos = 0
    while (found := _TOML.search(text.src, pos)) is not None:
        if found["c"]:
            pos = text.comment(found.start())
        elif found["ml"]:
            quote = found["ml"][0]
            pos = text.after(_TOML_ML[quote], found.end())
            for _ in range(2):  # one or two quotes may stand before the closing three
                pos += text.src.startswith(quote, pos)
        else:
            end = _TOML_LINE[found["s"]].match(text.src, found.end())
            pos = text.eol(found.end()) if end is None else end.end()


# ----------------------------------------------------------------------------- shell

_SHELL = re.compile(
    r"""(?P<esc>\\[\s\S])|(?P<c>\#)|(?P<here3><<<)"""
    r"""|<<(?P<strip>-?)[ \t]*(?P<word>(?:'[^'\n]*'|"(?:[^"\\\n]|\\.)*"|\\.|[^\s;&|()<>'"\\])+)"""
    r"""|(?P<ansi>\$')|(?P<dq>\$?")|(?P<sq>')|(?P<bq>`)|(?P<param>\$\{)|(?P<arith>\$?\(\()"""
    r"""|(?P<nl>\n)"""
)
_WORD_START = frozenset(" \t\n;&|()<>")
_ANSI = re.compile(r"(?:[^'\\]|\\[\s\S])*'")


def _shell(text: Text) -> None:
    pos, pending, escaped_end = 0, [], -1
    src = text.src
    while (found := _SHELL.search(src, pos)) is not None:
        start, kind = found.start(), found.lastgroup
        pos = found.end()
        if kind == "esc":
            escaped_end = pos
        elif kind == "c":
            if start == 0 or (src[start - 1] in _WORD_START and start != escaped_end):
                pos = text.comment(start)
        elif kind == "word":
            word = re.sub(r"""\\(.)|['"]""", r"\1", found["word"])
            pending.append((word, "\t" if found["strip"] else ""))
        elif kind == "nl":
            for word, strip in pending:
                pos = min(text.body_end(pos, word, strip) + 1, len(src))
            pending = []
        elif kind in ("dq", "sq", "bq", "ansi"):
            pos = text.after({"dq": DQ, "sq": SQ_RAW, "bq": BQ, "ansi": _ANSI}[kind], pos)
        elif kind == "param":
            pos = balanced(text, pos, "{", "}")
        elif kind == "arith":
            pos = balanced(text, pos, "(", ")", depth=2)


# ------------------------------------------------------------------------------ YAML

_YAML = re.compile(r"""(?P<c>(?<![^\s])\#)|(?P<q>(?<![^\s\[\]{},:?-])["'])""")
_YAML_CLOSE = {'"': DQ, "'": re.compile(r"(?:[^']|'')*'")}
_BLOCK_HEADER = re.compile(r"(?:^|\s)[|>][1-9+-]{0,2}\s*$")
_INDICATORS = re.compile(r"(?:[-?](?:\s+|$))*")
_DOCUMENT = re.compile(r"(?:---|\.\.\.)(?:\s|$)")


def _yaml(text: Text) -> None:
    src, pos = text.src, 0
    # inside a block scalar: the indentation its lines go deeper than, and theirs once known
    block: tuple[int, int | None] | None = None
    for start in text.starts:
        end = text.eol(start)
        if pos > end:  # the whole line inside a quoted scalar begun on an earlier one
            continue
        line = src[start:end]
        if pos <= start:
            if block is not None and not _DOCUMENT.match(line):
                block = _in_block(line, *block)
                if block is not None:
                    continue
            block, pos = None, start
        code_end = end
        while (found := _YAML.search(src, pos, end)) is not None:
            if found["c"]:
                code_end = found.start()
                text.comment(code_end)
                break
            pos = text.after(_YAML_CLOSE[found["q"]], found.end())
        header = _BLOCK_HEADER.search(src[max(pos, start) : code_end]) if pos <= end else None
        if header is not None:
            parent = _block_indent(line)
            digit = re.search(r"[1-9]", header.group())
            block = (parent, parent + int(digit.group()) if digit and parent >= 0 else None)
        pos = max(pos, end + 1)


def _in_block(line: str, parent: int, indent: int | None) -> tuple[int, int | None] | None:
    """The block scalar's state after ``line`` when the line is its content (``None``: the
    line ends it): blank, or as indented as its first line (deeper than its parent)."""
    if not line.strip():
        return parent, indent
    here = len(line) - len(line.lstrip(" "))
    if indent is None:
        return (parent, here) if here > parent else None
    return (parent, indent) if here >= indent else None


def _block_indent(line: str) -> int:
    """The indentation a block scalar's lines go deeper than: its key's column, or that of
    the sequence entry it is the value of; -1 (every line, to the document's end) when
    neither stands on its line (``--- |``, or a key on the line above)."""
    indent = len(line) - len(line.lstrip(" "))
    after = _INDICATORS.match(line, indent)
    rest = after.end() if after else indent
    if line[rest : rest + 1] not in ("|", ">", "") and not line.startswith("---"):
        return rest  # ``key: |``, ``- key: |``: the key's column
    if rest > indent:  # ``- |``: the last entry's column
        return max(line.rfind("-", indent, rest), line.rfind("?", indent, rest))
    return -1


# ------------------------------------------------------------------------ INI, .conf


def _whole_lines(text: Text, prefixes: str) -> None:
    """A comment is a whole line that starts with one of ``prefixes`` (a function called
    with the text, not a closure made at import: mutation testing reaches it)."""
    for start in text.starts:
        line = text.src[start : text.eol(start)]
        stripped = line.lstrip()
        if stripped[:1] and stripped[0] in prefixes:
            text.comment(start + len(line) - len(stripped))


# -------------------------------------------------------------------------- Makefile

_DEFINE = re.compile(r"\s*(?:(?:override|export|private)\s+)*define\b")
_ENDEF = re.compile(r"\s*endef\b")


def _make(text: Text) -> None:
    src, define, refs, comment = text.src, 0, 0, False
    recipe: list[int] = []
    for start in text.starts:
        end = text.eol(start)
        line = src[start:end]
        continued = bool(len(line) - len(line.rstrip("\\")) & 1)
        if comment:  # a comment that a backslash continues
            text.comment(start)
            comment = continued
        elif define:
            define += bool(_DEFINE.match(line)) - bool(_ENDEF.match(line))
        elif recipe or (line.startswith("\t") and not refs):
            recipe.append(start)
            if not continued:
                _recipe(text, recipe)
                recipe = []
        elif not refs and _DEFINE.match(line):
            define = 1
        else:
            column, refs = _make_comment(line, refs)
            if column is not None:
                text.comment(start + column)
                comment, refs = continued, 0
            elif not continued:
                refs = 0
    if recipe:
        _recipe(text, recipe)


def _make_comment(line: str, depth: int = 0) -> tuple[int | None, int]:
    """Where a make line's comment starts (``#`` outside references, not escaped), and how
    many references are open at its end."""
    index = 0
    while index < len(line):
        char = line[index]
        if char == "\\" or (char == "$" and line[index + 1 : index + 2] not in ("(", "{")):
            index += 2
            continue
        if char == "$":
            depth, index = depth + 1, index + 1
        elif depth and char in ")}":
            depth -= 1
        elif depth and char in "({":
            depth += 1
        elif char == "#" and not depth:
            return index, depth
        index += 1
    return None, depth


def _masked(text: str) -> str:
    """Make's references (``$(...)``, nested) as data the shell cannot read a comment in."""
    out, depth, index = list(text), 0, 0
    while index < len(text):
        char = text[index]
        if char == "$" and text[index + 1 : index + 2] in ("(", "{"):
            depth += 1
            out[index] = out[index + 1] = "x"
            index += 2
            continue
        if depth:
            depth += (char in "({") - (char in ")}")
            out[index] = "\n" if char == "\n" else "x"
        index += 1
    return "".join(out)


def _recipe(text: Text, starts: list[int]) -> None:
    """A recipe's logical line, read by the shell, with make's references as data."""
    first, last = starts[0], text.eol(starts[-1])
    inner = Text(_masked(text.src[first:last]).split("\n"))
    _shell(inner)
    offset = bisect.bisect_right(text.starts, first) - 1
    text.found += [(number + offset, comment) for number, comment in inner.found]


# ------------------------------------------------------------------------------ R

_R = re.compile(
    r"""(?P<c>\#)|(?<![\w.])[rR](?P<raw>["'])(?P<dash>-*)(?P<open>[(\[{])|(?P<s>["'`])"""
)


def _r(text: Text) -> None:
    pos = 0
    while (found := _R.search(text.src, pos)) is not None:
        if found["c"]:
            pos = text.comment(found.start())
        elif found["raw"]:
            close = PAIRS[found["open"]] + found["dash"] + found["raw"]
            end = text.src.find(close, found.end())
            pos = len(text.src) if end < 0 else end + len(close)
        else:
            pos = text.after(closing(found["s"]), found.end())


# --------------------------------------------------------------------------- CMake

_CMAKE = re.compile(r"""\#\[(?P<ce>=*)\[|(?P<c>\#)|\[(?P<ae>=*)\[|(?P<s>")|(?P<esc>\\.)""")


def _cmake(text: Text) -> None:
    pos = 0
    while (found := _CMAKE.search(text.src, pos)) is not None:
        pos = found.end()
        if found["c"]:
            pos = text.comment(found.start())
        elif found["s"]:
            pos = text.after(DQ, pos)
        elif found["ce"] is not None or found["ae"] is not None:
            close = "]" + (found["ce"] or found["ae"] or "") + "]"
            end = text.src.find(close, pos)
            end = len(text.src) if end < 0 else end + len(close)
            pos = text.comment(found.start(), end) if found["ce"] is not None else end


#: each language the model reads: its scanner
LANGUAGES: dict[str, Callable[[Text], None]] = {
    "toml": _toml,
    "shell": _shell,
    "yaml": _yaml,
    "ini": functools.partial(_whole_lines, prefixes="#;"),
    "conf": functools.partial(_whole_lines, prefixes="#"),
    "make": _make,
    "dockerfile": _shell,  # shell-form instructions, exec form's JSON quotes, heredocs
    "r": _r,
    "cmake": _cmake,
    "ruby": ruby,
    "perl": perl,
    "c": c_family,
    "go": go,
    "java": java,
    "rust": rust,
    "javascript": javascript,
    "typescript": typescript,
    "tsx": tsx,
    "markdown": lambda text: None,  # none: see the module's doc
}


def comments_of(language: str, lines: Sequence[str]) -> tuple[tuple[int, str], ...]:
    """The ``(line, comment)`` pairs of a file of ``language`` (a key of :data:`LANGUAGES`),
    each comment from its start to its line's end, in order."""
    text = Text(lines)
    LANGUAGES[language](text)
    return tuple(sorted(set(text.found)))
