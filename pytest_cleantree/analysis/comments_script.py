"""Ruby and Perl comments (:mod:`.comments`): ``#`` outside strings, here-documents,
``%``-literals and quote-like operators, regular expressions (a ``/`` that is not plainly a
division), ``=begin`` blocks and POD, and after ``__END__``."""

from __future__ import annotations

import bisect
import functools
import re

from .comments_base import PAIRS, Text, closing, delimited

__all__ = ["perl", "ruby"]


_PERL_BLANKS = r"[ \t]*"


def _heredoc(blanks: str) -> str:
    """A here-document's opening: ``<<~WORD``, ``<<-WORD``, ``<<WORD``, or a quoted word
    (after ``blanks``: Perl allows them before one, Ruby does not)."""
    return (
        r"""<<(?P<strip>[~-]?)(?:(?P<word>[A-Za-z_]\w*)"""
        rf"""|{blanks}(?P<hq>["'`])(?P<quoted>[^"'`\n]*)(?P=hq))"""
    )


@functools.cache
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


#: what ends POD (Perl) or an ``=begin`` block (Ruby)
_CLOSE_DOC = {
    False: re.compile(r"^=end\b.*$", re.MULTILINE),
    True: re.compile(r"^=cut\b.*$", re.MULTILINE),
}


def _scan(text: Text, perl: bool) -> None:
    src, pos = text.src, 0
    pending: list[tuple[str, str]] = []
    opener = _script_pattern(perl)  # built when first asked, so that its mutants switch in
    while (found := opener.search(src, pos)) is not None:
        pos = found.end()
        if found["stop"]:
            return
        if found["doc"]:  # POD to =cut, =begin to =end: read as data
            done = _CLOSE_DOC[perl].search(src, pos)
            pos = len(src) if done is None else done.end()
        elif found["word"] or found["hq"]:  # its body starts after the line
            pending.append((found["word"] or found["quoted"], " \t" * bool(found["strip"])))
        elif found["nl"] and pending:
            for word, strip in pending:
                pos = min(text.body_end(pos, word, strip) + 1, len(src))
            pending = []
        else:
            pos = _skip(text, found, pos, perl)


#: the scanners: a plain function bound with :func:`functools.partial`, not a closure built at
#: import, so that a mutation test can switch its mutants in
ruby = functools.partial(_scan, perl=False)
perl = functools.partial(_scan, perl=True)


def _skip(text: Text, found: re.Match[str], pos: int, perl: bool) -> int:
    """Past what ``found`` opens at ``pos``: a comment, a regular expression, a string, a
    quote-like literal (or nothing, for a division or a line's end)."""
    src = text.src
    if found["c"]:
        return text.comment(found.start())
    if found["slash"]:
        head = src[text.starts[bisect.bisect_right(text.starts, pos - 1) - 1] : pos - 1]
        spaced = head[-1:].isspace()
        if not (_DIVISION.search(head) and (not spaced or src[pos : pos + 1].isspace())):
            return text.after(closing("/"), pos)
        return pos
    if found["s"]:
        quote = found["s"]
        interpolates = not perl and quote != "'"
        return _interpolated(text, pos, quote) if interpolates else _after(text, pos, quote)
    if found.groupdict().get("d") is not None:
        delim = found["d"][-1]
        pos = delimited(text, pos, delim)
        if perl and found["op"] in ("s", "tr", "y"):  # a second part
            pos = _second_part(text, pos, delim)
    return pos


def _after(text: Text, pos: int, quote: str) -> int:
    return text.after(closing(quote), pos)


def _interpolated(text: Text, pos: int, quote: str) -> int:
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


def _code_block(text: Text, pos: int) -> int:
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


def _second_part(text: Text, pos: int, delim: str) -> int:
    if delim not in PAIRS:
        return text.after(closing(delim), pos)
    found = re.compile(r"\s*(\S)").match(text.src, pos)
    if found is None:
        return len(text.src)
    return delimited(text, found.end(), found.group(1))
