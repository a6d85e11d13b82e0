"""A file as text: decoding, lines, the compiled pattern list, and which patterns it may spell.

The views of the text in which a needle is looked for are :class:`.views.TextViews` (what
the tokenizer does to text before names and strings reach the AST); line and word offsets are
:mod:`.offsets`.  Everything here is an *over-approximation* of what the parser sees,
used to skip work: a file whose text cannot spell a pattern is not parsed.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from pytest_cleantree.core.identity import ByIdentity
from pytest_cleantree.core.model import PYTHON_SUFFIXES, Pattern, PatternTier, is_python_path
from pytest_cleantree.core.nameindex import Covering, NameIndex
from pytest_cleantree.core.patterns import (
    IDENTIFIER,
    prefilter_needles,
    written,
)

from .offsets import (
    NEWLINE,
    line_numbers,
    line_starts,
    lines_at,
    spells_word,
    word_offsets,
    word_positions,
)
from .views import TextViews

__all__ = [
    "MAX_PARSE_BYTES",
    "PYTHON_SUFFIXES",
    "STRING_OR_COMMENT",
    "PatternSet",
    "TextViews",
    "column",
    "compile_patterns",
    "is_python_path",
    "lex",
    "line_numbers",
    "line_starts",
    "lines_at",
    "present_patterns",
    "spelling_lines",
    "spells_word",
    "split_lines",
    "too_large_to_parse",
    "word_offsets",
    "word_positions",
]

#: larger Python files are matched as text: ``ast`` needs ~100x the file's size in memory
MAX_PARSE_BYTES = 8 * 2**20

K = TypeVar("K")
V = TypeVar("V")


def too_large_to_parse(size: int) -> bool:
    """Is a file of ``size`` bytes over :data:`MAX_PARSE_BYTES` (read at call time)?"""
    return size > MAX_PARSE_BYTES


def split_lines(text: str) -> tuple[str, ...]:
    """Split as Python's tokenizer counts lines (``\\f`` and ``\\u2028`` are not line breaks)."""
    if "\r" not in text:
        return tuple(text.split("\n"))
    return tuple(NEWLINE.split(text))


# --------------------------------------------------------------------------- pattern sets


@dataclass(frozen=True, eq=False)
class PatternSet:
    """A list of patterns with everything the analysis derives from it, worked out once.

    A list is shared by every file its rules name (see the engine), so its
    set is compiled once per run, not once per file.
    """

    patterns: tuple[Pattern, ...]
    #: per pattern: the string its every match contains (``None``: unknown), and whether it
    #: must stand as a whole word (an exact pattern on a plain name)
    needles: tuple[tuple[Pattern, str | None, bool], ...]
    qualified: tuple[Pattern, ...]
    #: the patterns matched against names without resolution
    plain: tuple[Pattern, ...]

    @functools.cached_property
    def qualified_bodies(self) -> tuple[str, ...]:
        return tuple(p.body for p in self.qualified)

    @functools.cached_property
    def needle_strings(self) -> frozenset[str]:
        """Every pattern's needle: what the break search looks for (``derived_may_spell``)."""
        return frozenset(needle for _, needle, _ in self.needles if needle)

    @functools.cached_property
    def index(self) -> NameIndex:
        """The list as tables names (and, ``.text``, free text) are looked up in."""
        return NameIndex(self.patterns)

    @functools.cached_property
    def bounded(self) -> bool:
        """Does every pattern have a needle?  (Else every line is a candidate.)"""
        return all(needle is not None for _, needle, _ in self.needles)

    @property
    def covering(self) -> Covering:
        """The qualified patterns' bodies as a table (a part's: a view of its list's)."""
        return self.index.covering

    @functools.cached_property
    def qualified_parts(self) -> frozenset[str]:
        """Every part of every qualified pattern (``a.b.c``: ``a``, ``b``, ``c``)."""
        return frozenset(part for body in self.qualified_bodies for part in body.split("."))

    @functools.cached_property
    def qualified_first_last(self) -> tuple[tuple[str, str], ...]:
        """Each distinct (first part, last part) of the qualified patterns (``a.b.c``:
        ``("a", "c")``), what the fast path's text tests read of them: a pattern's thousands
        of spellings share few (issue 44)."""
        pairs: dict[tuple[str, str], None] = {}
        for body in self.qualified_bodies:
            first, _, rest = body.partition(".")
            pairs[(first, rest.rsplit(".", 1)[-1])] = None
        return tuple(pairs)

    @functools.cached_property
    def qualified_ends(self) -> frozenset[str]:
        """The last part of every qualified pattern (``a.b.c``: ``c``)."""
        return frozenset(body.rsplit(".", 1)[-1] for body in self.qualified_bodies)

    @classmethod
    def of(cls, patterns: Sequence[Pattern]) -> PatternSet:
        """Compile a list (see :func:`compile_patterns` for the shared, cached one)."""
        needles = []
        for pattern in patterns:
            for needle in prefilter_needles(pattern):
                word = pattern.tier is PatternTier.EXACT and bool(
                    IDENTIFIER.fullmatch(needle or "")
                )
                needles.append((pattern, needle, word))
        return cls(
            tuple(patterns),
            tuple(needles),
            tuple(p for p in patterns if p.tier is PatternTier.QUALIFIED),
            tuple(p for p in patterns if p.tier is not PatternTier.QUALIFIED),
        )


#: the :class:`PatternSet` of a list shared by many files: the same list, the same set
compile_patterns: ByIdentity[Sequence[Pattern], PatternSet] = ByIdentity(PatternSet.of)


def present_patterns(
    views: TextViews, patterns: PatternSet, *, together: bool = False
) -> list[Pattern]:
    """The patterns that can match something in this text; the others certainly cannot.

    A pattern's needle must be in one of the text's views.  An exact pattern
    on a plain name must be one of the views' words: one set lookup, however
    many such rules (a revert guard writes one per name).  A pattern without
    a needle (a regex) is always kept.  The derived views are asked only when
    :meth:`TextViews.derived_may_spell` cannot rule them out (``together``: the
    patterns are a list many files share, see there).

    Each pattern of the list is asked in turn: the oracle of :func:`present_asked`, which
    asks each needle once and each way (see there) only when the file spells its name.
    """
    presence = Presence(views, patterns, together=together)
    kept: dict[Pattern, None] = {}  # (a pattern with several needles is kept once)
    for pattern, needle, whole_word in patterns.needles:
        if pattern not in kept and presence.holds(needle, whole_word):
            kept[pattern] = None
    return list(kept)


class Presence:
    """Which needles one file's text may spell, each asked once (see :func:`present_patterns`)."""

    def __init__(self, views: TextViews, patterns: PatternSet, *, together: bool) -> None:
        self.views = views
        self.derived = views.derived_may_spell(patterns.needle_strings, together=together)
        self._words: set[str] | None = None
        self._every_word: set[str] | None = None
        #: each needle searched once: the ways to a target share its last names as needles
        self._spelt: dict[str, bool] = {}

    def holds(self, needle: str | None, whole_word: bool) -> bool:
        """May a pattern with this needle match here?"""
        if needle is None:
            return True
        views, derived = self.views, self.derived
        if whole_word:
            if self._words is None:
                self._words = views.words(derived=derived)
            if (
                needle not in self._words
                and not derived
                and views.decoded_chars
                and views.spells(needle)
            ):
                # a decoded escape beside a longer word (``\x00name``) can leave it alone
                if self._every_word is None:
                    self._every_word = views.words()
                return needle in self._every_word
            return needle in self._words or (derived and views.spelt_across_breaks(needle))
        found = self._spelt.get(needle)
        if found is None:
            found = self._spelt[needle] = _spelt(views, needle, derived)
        return found


def _spelt(views: TextViews, needle: str, derived: bool) -> bool:
    """Is ``needle`` in the text or its NFKC form, or (``derived``) made by a derived view?"""
    text, norm = views.text, views.norm  # :meth:`TextViews.spells`, inlined: a needle a file
    return (
        needle in text
        or (norm is not text and needle in norm)
        or (derived and (views.makes(needle) or views.contains(needle)))
    )


def spelling_lines(views: TextViews, patterns: PatternSet) -> set[int] | None:
    """The lines that can spell a needle in some view; ``None``: any line may."""
    if not patterns.bounded:
        return None
    return views.lines_spelling(patterns.needle_strings)


# --------------------------------------------------------------------------- lexing

#: comments and string literals as the tokenizer reads them (tokenize's own expressions);
#: a group is set only where a string ends unterminated (at a line's end, or the text's)
STRING_OR_COMMENT = re.compile(
    r"""
    \#[^\r\n]*
  | \"\"\"[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*(?:\"\"\"|(\Z))
  | '''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*(?:'''|(\Z))
  | "[^"\\\r\n]*(?:\\(?:\r\n|[\s\S])[^"\\\r\n]*)*(?:"|((?=[\r\n])|\Z))
  | '[^'\\\r\n]*(?:\\(?:\r\n|[\s\S])[^'\\\r\n]*)*(?:'|((?=[\r\n])|\Z))
    """,
    re.X,
)
#: a string prefix with ``f``: the literal that follows is an f-string
_F_PREFIX = re.compile(r"[rRbBuU]?[fF][rRbBuU]?\Z")
#: the letters of string prefixes
_PREFIX_LETTERS = "rRbBuUfF"


def lex(text: str) -> tuple[list[tuple[int, int]], str | None]:
    """The ``(start, end)`` offsets of every comment and string literal, in order, and
    what in this text the lexical shortcuts do not model, if anything.

    A form feed (it resets indentation), a string the regex lexer ends
    unterminated (the file does not tokenize: only a full parse can say
    where), and an f-string whose braces do not balance inside the regex's
    extent (on Python 3.12+ a replacement field may hold the same quotes, and
    even newlines: the regex then misplaces the string's end).
    """
    matches = list(STRING_OR_COMMENT.finditer(text))
    spans = [match.span() for match in matches]
    if "\f" in text:
        return spans, "form feed"
    if any(match.lastindex for match in matches):
        return spans, "unterminated string"
    # a literal right after a prefix letter (few are): is it an f-string, and do its braces balance?
    prefixed = [(s, e) for s, e in spans if s and text[s - 1] in _PREFIX_LETTERS]
    for start, end in prefixed:
        char = text[start]
        if char == "#":
            continue
        prefix_start = start - 1
        while prefix_start > 0 and text[prefix_start - 1] in _PREFIX_LETTERS:
            prefix_start -= 1
        quote = char * 3 if text.startswith(char * 3, start) else char
        if _F_PREFIX.match(text, prefix_start, start) and not _braces_balance(
            text[start + len(quote) : end - len(quote)]
        ):
            return spans, "f-string nesting"
    return spans, None


def _braces_balance(body: str) -> bool:
    """Do an f-string body's replacement fields close inside it (``{{``/``}}`` are literal)?"""
    body = body.replace("{{", "").replace("}}", "")
    depth = 0
    for char in body:
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


# --------------------------------------------------------------------------- text matching


def column(pattern: Pattern, text: str) -> int:
    """Where ``pattern`` starts in ``text`` (0 when unknown): its body as a name reads it,
    else as written (a name in NFD bytes in free text)."""
    if pattern.tier is PatternTier.REGEX:
        return 0
    index = text.find(pattern.body)
    if index < 0 and pattern.tier is not PatternTier.LINE:
        index = text.find(written(pattern))
    return max(index, 0)
