"""JavaScript and TypeScript comments (:mod:`.comments`): ``//`` and ``/* */`` outside
``'...'`` and ``"..."`` (one line, a backslash at the end continues them), template literals
(over lines, their ``${...}`` read as code, nested), and regular expression literals.

A ``/`` is a regular expression where the token before it plainly starts an expression (an
operator, ``(``, ``,``, ``return``...; a ``)`` closing the condition of ``if``, ``while``,
``for``, ``with``), a division where it plainly ends one (a name, a number, a literal, ``]``,
another ``)``).  Where it cannot be told on tokens alone (after ``}``, ``++``, ``--``,
``of``, ``yield``, ``await`` and ``await (...)``; after a TypeScript ``!``), the rest of
the file is data: an allow there counts for nothing.  So is the rest after a ``<`` that
may open JSX (where an expression starts, in ``.js``, ``.jsx``, ``.mjs``, ``.cjs``,
``.tsx``: JSX text is no code), after an HTML-like comment's ``<!--`` or ``-->``
(``x-->0`` too), and after anything unterminated.  A ``#!`` first line is data.
"""

from __future__ import annotations

import functools
import re

from .comments_base import Text

__all__ = ["javascript", "tsx", "typescript"]

_TOKEN = re.compile(
    r"""(?P<lc>//)|(?P<bc>/\*)|(?P<q>["'])|(?P<tpl>`)|(?P<slash>/)"""
    r"""|(?P<html><!--|-->)"""
    r"""|(?P<open>[(\[{])|(?P<close>[)\]}])"""
    r"""|(?P<word>\#?(?:[^\W\d]|\$)[\w$\u200c\u200d]*)"""  # a blank (U+00A0) is no name
    r"""|(?P<num>\.?\d(?:[\w.]|(?<=[eE])[+-])*)"""
    r"""|(?P<incdec>\+\+|--)|(?P<dot>\?\.(?!\d)|\.)|(?P<lt><)|(?P<bang>!)"""
    r"""|(?P<punct>[^\s\w$\ufeff])""",  # U+FEFF: a blank in JavaScript
    re.MULTILINE,
)
_STRING = {q: re.compile(rf"(?:[^{q}\\\n]|\\[\s\S])*{q}") for q in "\"'"}
_REGEX = re.compile(r"(?:[^/\\\[\n]|\\.|\[(?:[^\]\\\n]|\\.)*\])+/[\w$]*")
_TEMPLATE_PART = re.compile(r"(?:[^`\\$]|\\[\s\S]|\$(?!\{))*(?P<end>`|\$\{)")

#: words after which a ``/`` starts a regular expression
_STARTS = frozenset(
    "return typeof instanceof in new delete void throw case do else extends default".split()  # noqa: SIM905
)
#: words after which a ``/`` may be either
_EITHER = frozenset(["of", "yield", "await"])
_CONDITIONS = frozenset(["if", "while", "for", "with"])

#: what the token before a ``/`` makes it
EXPRESSION, VALUE, UNSURE = "expression", "value", "unsure"


class _Scan:
    """One file's scan: the kind of the last token, the brackets open (each with what its
    ``)`` makes a ``/`` after it; ``${`` a template's substitution)."""

    def __init__(self, text: Text, jsx: bool, typescript: bool) -> None:
        self.text, self.jsx, self.typescript = text, jsx, typescript
        self.last = EXPRESSION
        self.word = ""
        self.dotted = False
        self.open: list[tuple[str, str]] = []

    def run(self) -> None:
        src = self.text.src
        pos = self.text.eol(0) if src.startswith("#!") else 0
        while (found := _TOKEN.search(src, pos)) is not None:
            next_pos = self.step(found.lastgroup or "punct", found)
            if next_pos is None:
                return  # not read exactly: the rest is data
            pos = next_pos

    def step(self, kind: str, found: re.Match[str]) -> int | None:
        start, end = found.start(), found.end()
        word, self.word = self.word, ""
        dotted, self.dotted = self.dotted, False
        if kind == "lc":
            self.word, self.dotted = word, dotted  # a comment is no token
            return self.text.comment(start)
        if kind == "bc":
            self.word, self.dotted = word, dotted
            close = self.text.src.find("*/", end)
            return None if close < 0 else self.text.comment(start, close + 2)
        if kind == "q":
            return self.literal(_STRING[found["q"]].match(self.text.src, end))
        if kind == "tpl":
            return self.template(end)
        if kind == "slash":
            return self.slash(end)
        if kind in ("open", "close"):
            return self.bracket(found.group(), end, word)
        if kind == "word":
            self.word = "" if dotted else found.group()  # ``x.return / 2``, ``x.if(a) / 2``
            self.last = VALUE if dotted else _word_kind(found.group())
            return end
        return self.other(kind, end)

    def other(self, kind: str, end: int) -> int | None:
        if kind == "num":
            self.last = VALUE
        elif kind == "incdec" or (kind == "bang" and self.typescript):
            self.last = UNSURE
        elif kind == "html" or (kind == "lt" and self.jsx and self.last == EXPRESSION):
            return None
        else:
            self.dotted = kind == "dot"
            self.last = EXPRESSION
        return end

    def bracket(self, char: str, end: int, word: str) -> int | None:
        if char in "([{":
            self.open.append((char, _after_parenthesis(word)))
            self.last = EXPRESSION
            return end
        if not self.open:
            return None
        opened, after = self.open.pop()
        if _CLOSE[opened] != char:
            return None
        if opened == "${":
            return self.template(end)
        if char == "}":
            self.last = UNSURE  # a block's end or an object's: a ``/`` after it is either
        else:
            self.last = after if char == ")" else VALUE
        return end

    def literal(self, found: re.Match[str] | None) -> int | None:
        self.last = VALUE
        return None if found is None else found.end()

    def slash(self, end: int) -> int | None:
        if self.last == VALUE:
            self.last = EXPRESSION
            return end
        if self.last == UNSURE:
            return None
        return self.literal(_REGEX.match(self.text.src, end))

    def template(self, pos: int) -> int | None:
        """From inside a template at ``pos``: past its end, or into a substitution."""
        found = _TEMPLATE_PART.match(self.text.src, pos)
        if found is None:
            return None
        if found["end"] == "`":
            self.last = VALUE
        else:
            self.open.append(("${", VALUE))
            self.last = EXPRESSION
        return found.end()


_CLOSE = {"(": ")", "[": "]", "{": "}", "${": "}"}


def _after_parenthesis(word: str) -> str:
    """What a ``)`` makes a ``/`` after it, by the word before its ``(``: an ``if``'s
    condition ends before a statement; ``for await (...)`` and ``await (x) / 2`` look alike."""
    if word in _CONDITIONS:
        return EXPRESSION
    return UNSURE if word == "await" else VALUE


def _word_kind(word: str) -> str:
    if word in _STARTS:
        return EXPRESSION
    return UNSURE if word in _EITHER else VALUE


def _scan(text: Text, jsx: bool, typescript: bool) -> None:
    _Scan(text, jsx, typescript).run()


#: plain functions bound with :func:`functools.partial`, not closures built at import, so that
#: a mutation test can switch the scan's mutants in
javascript = functools.partial(_scan, jsx=True, typescript=False)
typescript = functools.partial(_scan, jsx=False, typescript=True)
tsx = functools.partial(_scan, jsx=True, typescript=True)
