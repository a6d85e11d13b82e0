"""The pattern tiers, as pure functions.

========== ====================== =============================================
written    tier                   matches a name when
========== ====================== =============================================
``sm120``  substring              the name contains it (case-sensitive), as grep
``a*_b?``  glob (``* ? [``)       the glob matches the *whole* name
``re:...`` regex (RE2)            the regex finds it in the name (``search``)
``a.b.c``  qualified              the name *resolves* to it through imports
``=name``  exact                  the name is exactly it
``line:x`` line                   a whole line, stripped, is exactly ``x``
========== ====================== =============================================

A line pattern (``forbid_lines`` in a manifest, or ``line@N:x`` pinned to line
``N``) is matched against each physical line of a file, Python or not, never
against names.  A counted one, ``line*N:x``, stands for ``N`` such lines: in
``expect`` the file must hold at least ``N`` of them, in ``forbid`` more than ``N``
is a violation (each of them reported); its text may be empty (blank lines are
counted, where one alone cannot be told apart), as may a pinned one's (``line@N:``).

In strings, comments and non-Python text the "name" is the text itself for
substring, regex and qualified patterns (a qualified pattern is then looked for
literally), and each word of the text for glob and exact patterns.

``re:`` patterns run on RE2, whose time is linear in the text: a pattern such as
``(a+)+$`` cannot stall a CI job, as it does with a backtracking engine.  A
pattern must be valid both as a Python regex and for RE2 (no backreferences, no
lookaround); ``\\w``, ``\\d``, ``\\s`` and ``\\b`` are ASCII-only in RE2.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import functools
import re
import unicodedata
from collections.abc import Iterator
from typing import Protocol, cast

from pytest_cleantree.core.model import Pattern, PatternTier

#: a Python identifier (ASCII or not): what a name in code looks like
IDENTIFIER = re.compile(r"[^\W\d]\w*")
#: the words of free text an exact or glob pattern is compared with (dots kept: ``a.b``)
WORD = re.compile(r"[^\W\d][\w.]*")
_QUALIFIED = re.compile(rf"{IDENTIFIER.pattern}(\.{IDENTIFIER.pattern})+")
_PINNED_LINE = re.compile(r"line@([1-9][0-9]*):")
_COUNTED_LINE = re.compile(r"line\*(0|[1-9][0-9]*):")
_GLOB_CHARS = frozenset("*?[")
_GLOB_WILDCARDS = re.compile(r"[*?]|\[!?\]?[^\]]*\]?")


class _Span(Protocol):
    """Where a match stands."""

    def start(self) -> int: ...

    def end(self) -> int: ...


class _Searcher(Protocol):
    """What RE2's compiled patterns offer that the matchers use."""

    def search(self, text: str, pos: int = 0) -> _Span | None: ...


def parse_pattern(text: str) -> Pattern:
    """Classify a manifest pattern; raise ``ValueError`` saying what is wrong with it."""
    if not text or text.isspace():
        raise ValueError("empty pattern")
    if text != text.strip():
        raise ValueError(f"pattern {text!r} has leading or trailing whitespace")
    if text.startswith("re:"):
        body = text[3:]
        if not body:
            raise ValueError("empty regular expression after 're:'")
        try:
            re.compile(body)
        except re.error as exc:
            raise ValueError(f"bad regular expression {body!r}: {exc}") from None
        except (OverflowError, RecursionError):  # raised by ``re`` itself, not as re.error
            raise ValueError(f"regular expression {body!r} is too large to compile") from None
        import re2  # here: most runs hold no re: pattern, and the module costs 6 ms to load

        try:
            _regex(body)
        except re2.error as exc:
            first = exc.args[0] if exc.args else exc
            why = first.decode("utf-8", "replace") if isinstance(first, bytes) else str(first)
            raise ValueError(
                f"regular expression {body!r} cannot run on RE2 ({why}): re: patterns use "
                "RE2 syntax, which runs in linear time but has no backreferences nor lookaround"
            ) from None
        return Pattern(text, PatternTier.REGEX, body)
    if text.startswith(("line:", "line@", "line*")):
        return _line_pattern(text)
    if text.startswith("="):
        body = text[1:]
        if not body:
            raise ValueError("empty name after '='")
        return Pattern(text, PatternTier.EXACT, as_name(body))
    if _GLOB_CHARS & set(text):
        return Pattern(text, PatternTier.GLOB, as_name(text))
    if _QUALIFIED.fullmatch(text):
        return Pattern(text, PatternTier.QUALIFIED, as_name(text))
    return Pattern(text, PatternTier.SUBSTRING, as_name(text))


def as_name(body: str) -> str:
    """A pattern's body as Python reads a name: NFKC-normalised, as the tokenizer normalises
    every identifier (PEP 3131), so that a name written in NFD bytes matches a pattern
    written in the same bytes.  Free text is matched as written too (:func:`written`)."""
    return body if body.isascii() else unicodedata.normalize("NFKC", body)


def written(pattern: Pattern) -> str:
    """A name pattern's body as the manifest wrote it (before :func:`as_name`)."""
    return pattern.text[1:] if pattern.tier is PatternTier.EXACT else pattern.text


def line_pattern(line: str) -> Pattern:
    """The pattern of a ``forbid_lines`` entry: the line, whatever its indentation."""
    return parse_pattern("line:" + line.strip())


def _line_pattern(text: str) -> Pattern:
    if text.startswith("line*"):
        counted = _COUNTED_LINE.match(text)
        if counted is None:
            raise ValueError(f"pattern {text!r}: write 'line*N:TEXT' with N a count from 0")
        body = text[counted.end() :].strip()
        return Pattern(text, PatternTier.LINE, body, count=int(counted.group(1)))
    pinned = _PINNED_LINE.match(text)
    if text.startswith("line@") and pinned is None:
        raise ValueError(f"pattern {text!r}: write 'line@N:TEXT' with N a line number from 1")
    body = text[pinned.end() if pinned else len("line:") :].strip()
    if not body and not pinned:  # a blank line pinned to its line is told apart by it
        raise ValueError(
            f"pattern {text!r}: empty line (blank lines cannot be told apart; "
            "'line*N:' counts them)"
        )
    return Pattern(text, PatternTier.LINE, body, int(pinned.group(1)) if pinned else 0)


@functools.lru_cache(maxsize=4096)
def _regex(body: str) -> _Searcher:
    import re2

    options = re2.Options()
    options.log_errors = False  # a refused pattern is reported once, by parse_pattern
    return cast(_Searcher, re2.compile(body, options))


@functools.lru_cache(maxsize=4096)
def _glob(body: str) -> re.Pattern[str]:
    return re.compile(fnmatch.translate(body))


def match_name(
    pattern: Pattern, name: str, qualified: tuple[str, ...] = (), *, inside: bool = True
) -> bool:
    """Does ``pattern`` match a name in code?

    ``qualified`` holds what the name resolves to through imports.  A resolved
    name that starts with ``.`` is known only up to the file's own package
    (a relative import): it matches a qualified pattern that ends with it.
    With ``inside`` (uses and imports), a name *inside* the pattern matches too
    (``utils.f`` for the module pattern ``utils``); without it (definitions),
    only the pattern's own name does.
    """
    tier = pattern.tier
    if tier is PatternTier.SUBSTRING:
        return pattern.body in name
    if tier is PatternTier.GLOB:
        return _glob(pattern.body).match(name) is not None
    if tier is PatternTier.REGEX:
        return _regex(pattern.body).search(name) is not None
    if tier is PatternTier.EXACT:
        return name == pattern.body
    if tier is PatternTier.LINE:
        return False  # a line pattern never matches a name: only whole lines (match_text)
    if inside:
        return any(covers(pattern.body, target) for target in qualified)
    return any(_names(pattern.body, target) for target in qualified)


def _names(wanted: str, resolved: str) -> bool:
    """``resolved`` is exactly ``wanted`` (a relative ``resolved`` up to its unknown prefix)."""
    if resolved.startswith("."):
        return ("." + wanted).endswith(resolved)
    return resolved == wanted


def covers(wanted: str, resolved: str) -> bool:
    """``resolved`` is ``wanted`` or something inside it (``wanted.attr``).

    A ``resolved`` that starts with ``.`` lacks an unknown package prefix: it
    covers ``wanted`` when some prefix completes it into ``wanted`` or into
    something inside ``wanted``.
    """
    if not resolved.startswith("."):
        return resolved == wanted or resolved.startswith(wanted + ".")
    known = resolved[1:].split(".")
    parts = wanted.split(".")
    return any(parts[-k:] == known[:k] for k in range(1, min(len(known), len(parts)) + 1))


def match_text(pattern: Pattern, text: str) -> bool:
    """Does ``pattern`` match free text (a string, a comment, a line of a non-Python file)?"""
    tier = pattern.tier
    if tier in (PatternTier.SUBSTRING, PatternTier.QUALIFIED):
        return pattern.body in text or (not text.isascii() and written(pattern) in text)
    if tier is PatternTier.REGEX:
        return _regex(pattern.body).search(_encodable(text)) is not None
    if tier is PatternTier.LINE:
        return text.strip() == pattern.body
    words = text_words(text)
    bodies = {pattern.body, written(pattern)}  # as a name reads, and as written
    if tier is PatternTier.EXACT:
        return not bodies.isdisjoint(words)
    globs = [_glob(body) for body in bodies]
    return any(glob.match(word) for glob in globs for word in words)


def text_words(text: str) -> set[str]:
    """The words of free text that exact and glob patterns are compared with: each
    identifier (split at dots: ``m.is_sm120()`` holds ``is_sm120``), each dotted name whole
    (``a.b.c``), and each run of non-blank characters (``--flag=x``)."""
    return {*IDENTIFIER.findall(text), *WORD.findall(text), *text.split()}


def regex_spans(pattern: Pattern, text: str) -> Iterator[tuple[int, int]]:
    """Where a regex pattern matches ``text``, left to right and without overlap, as
    ``grep -o`` lists them (an empty match steps one character on)."""
    searcher = _regex(pattern.body)
    text = _encodable(text)  # one code point for one: the columns stand
    pos = 0
    while pos <= len(text) and (found := searcher.search(text, pos)) is not None:
        start, end = found.start(), found.end()
        yield start, end
        pos = end if end > start else end + 1


def _encodable(text: str) -> str:
    """``text`` with each lone surrogate (``"\\ud800"`` is a valid literal) as U+FFFD: RE2
    matches UTF-8, which cannot encode one (a crash would end the whole run)."""
    if text.isascii() or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub("\ufffd", text)


_SURROGATE = re.compile("[\ud800-\udfff]")


def prefilter_needles(pattern: Pattern) -> tuple[str | None, ...]:
    """Strings one of which must appear in a file's text for the pattern to match in it.

    One, :func:`prefilter_needle`, but for a qualified name spelt through a module
    alias, whose uses that count spell one of the target's last names (``needles``).
    """
    if pattern.needles and pattern.tier is PatternTier.QUALIFIED:
        return pattern.needles
    needle = prefilter_needle(pattern)
    as_written = written(pattern)
    if needle is None or as_written == pattern.body:
        return (needle,)
    # free text (a string's value, a comment) is matched as written too (``match_text``):
    # ``"ab\u2070"`` holds the pattern ``ab⁰`` though no view spells its NFKC body ``ab0``
    return (needle, prefilter_needle(dataclasses.replace(pattern, body=as_written)))


def prefilter_needle(pattern: Pattern) -> str | None:
    """A string that must appear in a file's text for the pattern to match anything in it.

    ``None`` means no such string is known (a regex): the file must be analysed.
    """
    tier = pattern.tier
    if tier in (PatternTier.SUBSTRING, PatternTier.EXACT, PatternTier.LINE):
        return pattern.body
    if tier is PatternTier.QUALIFIED:
        # an import of the name, or of a module on its path, always spells its last part
        # ... except ``from a import b`` followed by ``b.c``: then ``c`` is spelt.  Either
        # way the last segment appears in the text.
        return pattern.body.rsplit(".", 1)[-1]
    if tier is PatternTier.GLOB:
        # a class as fnmatch reads it: ``[``, an optional ``!``, a ``]`` taken as a member
        # when first, up to the next ``]`` (an unclosed one is dropped to the end: safe)
        runs = _GLOB_WILDCARDS.split(pattern.body)
        longest = max(runs, key=len)
        return longest or None
    return None


def is_path_glob(entry: str) -> bool:
    """Is a manifest file entry a glob rather than a literal path?"""
    return bool(_GLOB_CHARS & set(entry))


@functools.lru_cache(maxsize=1024)
def compile_path_glob(entry: str) -> re.Pattern[str]:
    """Translate a file glob (``*``, ``?``, ``[...]``, ``**``) into a regex over ``/`` paths.

    ``*`` and ``?`` stay within one path segment; ``**`` spans any number of
    segments, zero included.  As in the shell, a wildcard does not match a
    segment that starts with ``.``: write ``.hidden/*.py`` to look inside one.
    """
    out: list[str] = []
    segments = entry.split("/")
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            out.append(r"(?:[^./][^/]*/)*" if not last else r"(?:[^./][^/]*/)*[^./][^/]*")
            continue
        body = _segment_regex(segment)
        if segment[:1] in ("*", "?", "["):
            body = r"(?!\.)" + body
        out.append(body if last else body + "/")
    return re.compile("".join(out) + r"\Z")


def glob_base(entry: str) -> str:
    """The literal folder a glob starts in (``""`` for the root): nothing above it can match."""
    literal: list[str] = []
    for segment in entry.split("/")[:-1]:
        if _GLOB_CHARS & set(segment):
            break
        literal.append(segment)
    return "/".join(literal)


def literal_glob(path: str) -> str:
    """The file entry naming exactly ``path``: the path itself when it holds no glob
    character, else a glob with each ``*``, ``?`` and ``[`` in a class of its own (``[x].py``
    is ``[[]x].py``), so that a path is never read as a pattern."""
    if not is_path_glob(path):
        return path
    return "".join(f"[{char}]" if char in _GLOB_CHARS else char for char in path)


def _segment_regex(segment: str) -> str:
    """One path segment of a glob as a regex; wildcards never cross ``/``."""
    out: list[str] = []
    i = 0
    while i < len(segment):
        char = segment[i]
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (close := segment.find("]", i + 2)) != -1:
            inner = segment[i + 1 : close]
            negate = inner.startswith("!")
            inner = re.escape(inner[1:] if negate else inner).replace(r"\-", "-")
            out.append(f"[^/{inner}]" if negate else f"[{inner}]")
            i = close
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


def greps_code(pattern: Pattern) -> bool:
    """Is the pattern also searched on the code lines of a Python file, as grep would (see
    :mod:`pytest_cleantree.analysis.codetext`)?  Every regex (whether each of its matches
    holds a character no name holds is not guessed), and a substring no name holds that a
    line can hold (no line break in it)."""
    if pattern.tier is PatternTier.REGEX:
        return True
    return (
        pattern.tier is PatternTier.SUBSTRING
        and bool(code_blind(pattern))
        and not any(c in pattern.body for c in "\r\n")
    )


def code_blind(pattern: Pattern) -> str:
    """The first character of a substring, glob or exact pattern that no name in Python code
    holds (``""``: none; a glob's wildcards do not count).

    Such a pattern (``is_sm120_supported()``, ``x = 1``) matches only strings and comments of
    a Python file, where grep would also find the code line: a check of it in code would say
    "clean" of a tree that still calls the function.
    """
    if pattern.tier not in (PatternTier.SUBSTRING, PatternTier.GLOB, PatternTier.EXACT):
        return ""
    body = pattern.body
    if pattern.tier is PatternTier.GLOB:
        body = _GLOB_WILDCARDS.sub("", body)
    return next((c for c in body if c != "." and not ("a" + as_name(c)).isidentifier()), "")
