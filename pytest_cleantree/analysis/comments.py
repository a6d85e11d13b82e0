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
- Ruby and Perl: ``#`` outside strings, here-documents, ``%``-literals and quote-like
  operators, regular expressions (a ``/`` that is not plainly a division), ``=begin``
  blocks and POD, and after ``__END__``;
- C, C++ and CUDA: ``//`` (a backslash at the end continues it) and ``/* */``, outside
  string and character literals (prefixes ``u8``, ``u``, ``U``, ``L``; a ``'`` after a
  digit or letter is a digit separator) and raw strings ``R"d(...)d"``, as ``gcc -E``
  reads them.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Sequence

__all__ = ["LANGUAGES", "comments_of"]

Comments = list[tuple[int, str]]


class _Text:
    """The lines joined by ``\\n``, with each offset's line number."""

    def __init__(self, lines: Sequence[str]) -> None:
        self.src = "\n".join(lines)
        self.starts = [0]
        for line in lines[:-1]:
            self.starts.append(self.starts[-1] + len(line) + 1)
        self.found: Comments = []

    def eol(self, offset: int) -> int:
        end = self.src.find("\n", offset)
        return len(self.src) if end < 0 else end

    def comment(self, start: int, end: int | None = None) -> int:
        """Record the comment from ``start`` (to its line's end, or over lines to ``end``)."""
        end = self.eol(start) if end is None else end
        first = bisect.bisect_right(self.starts, start)
        for number, text in enumerate(self.src[start:end].split("\n"), start=first):
            self.found.append((number, text))
        return end

    def after(self, pattern: re.Pattern[str], offset: int) -> int:
        """The end of ``pattern`` matched at ``offset``; the text's end when it does not
        match (an unterminated string runs to the end: data)."""
        found = pattern.match(self.src, offset)
        return len(self.src) if found is None else found.end()

    def body_end(self, offset: int, word: str, strip: str) -> int:
        """The end of a here-document whose body starts at ``offset``: after the first line
        that, ``strip`` characters stripped on its left, is ``word`` (else the text's end)."""
        while offset < len(self.src):
            end = self.eol(offset)
            if self.src[offset:end].lstrip(strip) == word:
                return end
            offset = end + 1
        return len(self.src)


def _closing(quote: str, escapes: bool = True) -> re.Pattern[str]:
    """What follows an opening ``quote`` up to its close, over lines."""
    q = re.escape(quote)
    body = rf"(?:[^{q}\\]|\\[\s\S])*" if escapes else rf"[^{q}]*"
    return re.compile(body + q)


_DQ, _SQ, _BQ, _SQ_RAW = _closing('"'), _closing("'"), _closing("`"), _closing("'", False)
_PAIRS = {"(": ")", "[": "]", "{": "}", "<": ">"}


def _balanced(text: _Text, offset: int, open_: str, close: str, depth: int = 1) -> int:
    """The end of a bracketed run from ``offset`` (``depth`` open already; ``\\`` escapes)."""
    src, index = text.src, offset
    while index < len(src):
        char = src[index]
        if char == "\\":
            index += 1
        elif char == close:
            depth -= 1
            if depth == 0:
                return index + 1
        elif char == open_:
            depth += 1
        index += 1
    return len(src)


def _delimited(text: _Text, offset: int, delim: str) -> int:
    """The end of a ``%q(...)``/``q{...}``-like body opened by ``delim`` at ``offset - 1``."""
    if delim in _PAIRS:
        return _balanced(text, offset, delim, _PAIRS[delim])
    return text.after(_closing(delim), offset)


# ------------------------------------------------------------------------------ TOML

_TOML = re.compile(r"""(?P<c>\#)|(?P<ml>\"\"\"|''')|(?P<s>["'])""")
_TOML_ML = {
    '"': re.compile(r'(?:[^"\\]|\\[\s\S]|"(?!""))*"""'),
    "'": re.compile(r"(?:[^']|'(?!''))*'''"),
}
_TOML_LINE = {'"': re.compile(r'(?:[^"\\\n]|\\.)*"'), "'": re.compile(r"[^'\n]*'")}


def _toml(text: _Text) -> None:
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


def _shell(text: _Text) -> None:
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
            pos = text.after({"dq": _DQ, "sq": _SQ_RAW, "bq": _BQ, "ansi": _ANSI}[kind], pos)
        elif kind == "param":
            pos = _balanced(text, pos, "{", "}")
        elif kind == "arith":
            pos = _balanced(text, pos, "(", ")", depth=2)


# ------------------------------------------------------------------------------ YAML

_YAML = re.compile(r"""(?P<c>(?<![^\s])\#)|(?P<q>(?<![^\s\[\]{},:?-])["'])""")
_YAML_CLOSE = {'"': _DQ, "'": re.compile(r"(?:[^']|'')*'")}
_BLOCK_HEADER = re.compile(r"(?:^|\s)[|>][1-9+-]{0,2}\s*$")
_INDICATORS = re.compile(r"(?:[-?](?:\s+|$))*")
_DOCUMENT = re.compile(r"(?:---|\.\.\.)(?:\s|$)")


def _yaml(text: _Text) -> None:
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


def _whole_lines(prefixes: str) -> Callable[[_Text], None]:
    def scan(text: _Text) -> None:
        for start in text.starts:
            line = text.src[start : text.eol(start)]
            stripped = line.lstrip()
            if stripped[:1] and stripped[0] in prefixes:
                text.comment(start + len(line) - len(stripped))

    return scan


# -------------------------------------------------------------------------- Makefile

_DEFINE = re.compile(r"\s*(?:(?:override|export|private)\s+)*define\b")
_ENDEF = re.compile(r"\s*endef\b")


def _make(text: _Text) -> None:
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


def _recipe(text: _Text, starts: list[int]) -> None:
    """A recipe's logical line, read by the shell, with make's references as data."""
    first, last = starts[0], text.eol(starts[-1])
    inner = _Text(_masked(text.src[first:last]).split("\n"))
    _shell(inner)
    offset = bisect.bisect_right(text.starts, first) - 1
    text.found += [(number + offset, comment) for number, comment in inner.found]


# ------------------------------------------------------------------------------ R

_R = re.compile(
    r"""(?P<c>\#)|(?<![\w.])[rR](?P<raw>["'])(?P<dash>-*)(?P<open>[(\[{])|(?P<s>["'`])"""
)


def _r(text: _Text) -> None:
    pos = 0
    while (found := _R.search(text.src, pos)) is not None:
        if found["c"]:
            pos = text.comment(found.start())
        elif found["raw"]:
            close = _PAIRS[found["open"]] + found["dash"] + found["raw"]
            end = text.src.find(close, found.end())
            pos = len(text.src) if end < 0 else end + len(close)
        else:
            pos = text.after(_closing(found["s"]), found.end())


# --------------------------------------------------------------------------- CMake

_CMAKE = re.compile(r"""\#\[(?P<ce>=*)\[|(?P<c>\#)|\[(?P<ae>=*)\[|(?P<s>")|(?P<esc>\\.)""")


def _cmake(text: _Text) -> None:
    pos = 0
    while (found := _CMAKE.search(text.src, pos)) is not None:
        pos = found.end()
        if found["c"]:
            pos = text.comment(found.start())
        elif found["s"]:
            pos = text.after(_DQ, pos)
        elif found["ce"] is not None or found["ae"] is not None:
            close = "]" + (found["ce"] or found["ae"] or "") + "]"
            end = text.src.find(close, pos)
            end = len(text.src) if end < 0 else end + len(close)
            pos = text.comment(found.start(), end) if found["ce"] is not None else end


# --------------------------------------------------------------------- Ruby and Perl


_PERL_BLANKS = r"[ \t]*"


def _heredoc(blanks: str) -> str:
    """A here-document's opening: ``<<~WORD``, ``<<-WORD``, ``<<WORD``, or a quoted word
    (after ``blanks``: Perl allows them before one, Ruby does not)."""
    return (
        r"""<<(?P<strip>[~-]?)(?:(?P<word>[A-Za-z_]\w*)"""
        rf"""|{blanks}(?P<hq>["'`])(?P<quoted>[^"'`\n]*)(?P=hq))"""
    )


def _script_pattern(perl: bool) -> re.Pattern[str]:
    """What opens a comment or data in Ruby (``%`` literals, ``?#``) or Perl (quote-like
    operators, ``$#``)."""
    delimiter = r"""(?P<d>\#|\s*[^\w\s#])"""
    quoting = (  # ``y => 1`` is a word, not a transliteration
        rf"""(?P<var>\$\#)|(?<![\w$@%&])(?P<op>qq|qw|qx|qr|q|m|s|tr|y)\b(?!\s*=>){delimiter}"""
        if perl
        else rf"""(?P<chr>\?\#)|(?<![\w$@%&])(?P<pct>%[qQwWiIrsx]?){delimiter}"""
    )
    heredoc = _heredoc(_PERL_BLANKS if perl else "")
    return re.compile(
        r"""(?P<stop>^__(?:END|DATA)__$)|(?P<doc>^=[A-Za-z]\w*)|(?P<esc>\\.)"""
        rf"""|{heredoc}|(?P<c>\#)|(?P<slash>/)|(?P<s>["'`])|(?P<nl>\n)|{quoting}""",
        re.MULTILINE,
    )


_DIVISION = re.compile(r"[\w)\]}]$|[\w)\]}]\s+$")


def _script(perl: bool) -> Callable[[_Text], None]:
    close_doc = re.compile(r"^=cut\b.*$" if perl else r"^=end\b.*$", re.MULTILINE)
    opener = _script_pattern(perl)

    def scan(text: _Text) -> None:
        src, pos = text.src, 0
        pending: list[tuple[str, str]] = []
        while (found := opener.search(src, pos)) is not None:
            pos = found.end()
            if found["stop"]:
                return
            if found["doc"]:  # POD to =cut, =begin to =end: read as data
                done = close_doc.search(src, pos)
                pos = len(src) if done is None else done.end()
            elif found["word"] or found["hq"]:  # its body starts after the line
                pending.append((found["word"] or found["quoted"], " \t" * bool(found["strip"])))
            elif found["nl"] and pending:
                for word, strip in pending:
                    pos = min(text.body_end(pos, word, strip) + 1, len(src))
                pending = []
            elif found["c"]:
                pos = text.comment(found.start())
            elif found["slash"]:
                head = src[text.starts[bisect.bisect_right(text.starts, pos - 1) - 1] : pos - 1]
                spaced = head[-1:].isspace()
                if not (_DIVISION.search(head) and (not spaced or src[pos : pos + 1].isspace())):
                    pos = text.after(_closing("/"), pos)
            elif found["s"]:
                quote = found["s"]
                interpolates = not perl and quote != "'"
                pos = _interpolated(text, pos, quote) if interpolates else _after(text, pos, quote)
            elif found.groupdict().get("d") is not None:
                delim = found["d"][-1]
                pos = _delimited(text, pos, delim)
                if perl and found["op"] in ("s", "tr", "y"):  # a second part
                    pos = _second_part(text, pos, delim)

    return scan


def _after(text: _Text, pos: int, quote: str) -> int:
    return text.after(_closing(quote), pos)


def _interpolated(text: _Text, pos: int, quote: str) -> int:
    """The end of a Ruby string from ``pos``, its ``#{...}`` read as code (whose strings
    may hold the quote)."""
    src = text.src
    while pos < len(src):
        char = src[pos]
        if char == "\\":
            pos += 2
        elif char == quote:
            return pos + 1
        elif src.startswith("#{", pos):
            pos = _code_block(text, pos + 2)
        else:
            pos += 1
    return len(src)


def _code_block(text: _Text, pos: int) -> int:
    """The end of an interpolation's code from ``pos`` (after its ``{``): to its ``}``."""
    src, depth = text.src, 1
    while pos < len(src):
        char = src[pos]
        if char in "\"'`":
            pos = _interpolated(text, pos + 1, char) if char != "'" else _after(text, pos + 1, "'")
            continue
        depth += (char == "{") - (char == "}")
        if depth == 0:
            return pos + 1
        pos += 1
    return len(src)


def _second_part(text: _Text, pos: int, delim: str) -> int:
    if delim not in _PAIRS:
        return text.after(_closing(delim), pos)
    found = re.compile(r"\s*(\S)").match(text.src, pos)
    if found is None:
        return len(text.src)
    return _delimited(text, found.end(), found.group(1))


# --------------------------------------------------------------------------- C family

_C = re.compile(r"""(?P<lc>//)|(?P<bc>/\*)|(?P<q>["'])""")
_C_PREFIX = re.compile(r"(?:^|(?<=[^\w]))(?:u8|[uUL])?R?$")
_C_RAW = re.compile(r'([^()\\\s"]{0,16})\(')
_C_LINE_END = re.compile(r"(?:\\\n|[^\n])*")  # a backslash-newline continues a // comment


def _c_family(text: _Text) -> None:
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


def _c_literal(text: _Text, start: int, quote: str) -> int:
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
    return text.after(_closing(quote), start + 1)


#: each language the model reads: its scanner
LANGUAGES: dict[str, Callable[[_Text], None]] = {
    "toml": _toml,
    "shell": _shell,
    "yaml": _yaml,
    "ini": _whole_lines("#;"),
    "conf": _whole_lines("#"),
    "make": _make,
    "dockerfile": _shell,  # shell-form instructions, exec form's JSON quotes, heredocs
    "r": _r,
    "cmake": _cmake,
    "ruby": _script(perl=False),
    "perl": _script(perl=True),
    "c": _c_family,
}


def comments_of(language: str, lines: Sequence[str]) -> tuple[tuple[int, str], ...]:
    """The ``(line, comment)`` pairs of a file of ``language`` (a key of :data:`LANGUAGES`),
    each comment from its start to its line's end, in order."""
    text = _Text(lines)
    LANGUAGES[language](text)
    return tuple(sorted(set(text.found)))
