"""A file's text in every view a needle can stand in: where a pattern can possibly stand.

Everything here is an *over-approximation* of what the parser sees, used to
skip work: a file whose text cannot spell a pattern is not parsed, and only
the lines that can are walked.  To stay sound it models what Python's
tokenizer does to text before names and strings reach the AST:

- identifiers are NFKC-normalised (a name in fullwidth letters is the ASCII name);
- string escapes spell characters (``"\\x73m120"``), and a backslash-newline
  inside a string disappears (``"sm\\`` + newline + ``120"``);
- a one-letter escape (``\\\\``, ``\\"``, ``\\n``...), a carriage return (read as a newline)
  and an f-string's doubled brace spell characters the views do not decode: a needle
  holding one of them, where the text can make it, makes every line a candidate;
- adjacent string literals are joined (``"sm" "120"``).

Each of these gives a *view* of the text in which needles are looked for; a
needle found in any view counts.  What no view models (form feeds,
unterminated strings, f-strings whose nesting a regex cannot follow on 3.12+)
makes :func:`lex` say so, and the caller falls back to the reference path.
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence

from pytest_cleantree.agent import STRING_ESCAPE, made_chars, unescape
from pytest_cleantree.core.patterns import IDENTIFIER

from .breaks import _BREAK, breaks_search
from .offsets import NEWLINE_BYTES, line_starts, lines_at

#: escapes that can spell a character inside a string literal, and a backslash-newline: the
#: agent's expression (the servers' needle test decodes with it too)
_ESCAPE = STRING_ESCAPE

#: where Python may join two string literals into one value: the end of one, separators
#: (whitespace, comments, backslash-newlines), the start of the next; or two quotes with
#: nothing between (``"sm""120"``; an empty string ``""`` matches too, which only costs time).
#: A docstring's own ``"""`` matches neither.
_ADJACENT = re.compile(
    r"""["']{1,3}(?:"""
    r"""(?:[ \t\f\r\n]|\\(?:\r\n|\r|\n)|\#[^\r\n]*(?=[\r\n]))+(?:[rRbBuUfF]{1,2})?["']{1,3}"""
    r"""|(?<=[^"']["'])(?:[rRbBuUfF]{1,2})?["'](?!["']))"""
)


#: what :mod:`.breaks` searches across, as text: every match taken out joins what it parted
_BREAKS = re.compile(_BREAK.decode("ascii"))


class TextViews:
    """The views of one file's text in which a needle can be found (see the module doc).

    ``norm`` is the text with each line NFKC-normalised: line numbers are kept,
    so lines found in it are the file's lines.  The other views are built only
    when the text holds what they model.
    """

    def __init__(self, text: str, lines: Sequence[str]) -> None:
        self.text = text
        self.lines = lines
        self.ascii = text.isascii()
        # NFKC maps no character to a line break, nor joins one with the next: lines are kept
        self.norm = (
            text
            if self.ascii or unicodedata.is_normalized("NFKC", text)
            else unicodedata.normalize("NFKC", text)
        )
        self.escapes = "\\" in text
        self._views: tuple[str, ...] | None = None
        self._decoded: str | None = None
        self._joined: tuple[tuple[str, str], ...] | None = None
        #: needles the break search proved no value spells anew (see derived_may_spell)
        self.unbroken: frozenset[str] = frozenset()

    @functools.cached_property
    def decoded_chars(self) -> frozenset[str]:
        """The characters the views' escapes decode to (a backslash-newline is a break)."""
        if not self.escapes:
            return frozenset()
        decoded = (unescape(match) for match in _ESCAPE.finditer(self.text))
        return frozenset(char for char in decoded if len(char) == 1)

    @functools.cached_property
    def made_chars(self) -> frozenset[str]:
        """Every character the tokenizer may put in a value that the text does not hold
        there as itself (the agent's :func:`~pytest_cleantree.agent.made_chars`)."""
        return frozenset(made_chars(self.text))

    def makes(self, needle: str) -> bool:
        """Does ``needle`` hold a character the tokenizer makes here (see :attr:`made_chars`)?

        Then no view is trusted to spell it: the file is analysed, every line a candidate.
        """
        made = self.made_chars
        return bool(made) and any(char in made for char in needle)

    def derived_may_spell(self, needles: frozenset[str], *, together: bool = False) -> bool:
        """Can a string's value spell one of ``needles`` where the text itself does not?

        ``False`` is a proof, so that the derived views need not be built (the common
        case, and the expensive one: joining literals is a regular-expression pass over
        the file).  Python builds a value from pieces of the text with breaks between
        them (:data:`_BREAK`) and from decoded escapes.  When no escape decodes to a
        needle's character, an occurrence the text does not hold is pieces of the text
        with breaks between, which one search finds.  A needle with a quote or a
        backslash is left to the views; one with a character the tokenizer makes
        (:attr:`made_chars`) to the whole analysis.
        """
        needles = needles - self.unbroken
        if not needles:
            return False
        if any('"' in needle or "'" in needle or "\\" in needle for needle in needles):
            return True
        if any(char in needle for char in self.decoded_chars for needle in needles) or any(
            self.makes(needle) for needle in needles
        ):
            return True
        # a pattern list's needles are searched for at once (their expression compiled
        # once); a subset (what one file spells) one by one, each needle's expression
        # compiled once, where a union would be compiled for each new combination
        groups = [needles] if together else [frozenset({needle}) for needle in needles]
        for group in groups:
            search = breaks_search(group)
            if search is not None and search.search(self._utf8) is not None:
                return True
        self.unbroken |= needles
        return False

    @functools.cached_property
    def _utf8(self) -> bytes:
        return self.text.encode("utf-8", "surrogatepass")

    @functools.cached_property
    def adjacent(self) -> bool:
        """Does the text hold two string literals Python may join (asked only when needed)?"""
        return _ADJACENT.search(self.text) is not None

    def spells(self, needle: str) -> bool:
        """Does the text (or its normalised form) spell ``needle`` as it stands?"""
        return needle in self.text or (self.norm is not self.text and needle in self.norm)

    def contains(self, needle: str) -> bool:
        """Can the text spell ``needle`` in a name, string, comment or line (in any view)?"""
        return (
            self.spells(needle)
            or any(needle in view for view in self._derived())
            or self.spelt_across_breaks(needle)
        )

    def spelt_across_breaks(self, needle: str) -> bool:
        """Is ``needle`` spelt with breaks between its characters, in the text or decoded?

        The joined views pair quotes left to right, and a literal whose whole value could
        be a join (``"f" "lashinfer"``: ``"f"`` reads as the end of one literal, a prefix
        and the start of the next) throws them off; the break search pairs nothing.
        """
        search = breaks_search(frozenset({needle}))
        if search is None:
            return False
        if search.search(self._utf8) is not None:
            return True
        return self.escapes and search.search(self._unescaped_utf8) is not None

    @functools.cached_property
    def _unescaped_utf8(self) -> bytes:
        return self._unescaped().encode("utf-8", "surrogatepass")

    def words(self, *, derived: bool = True) -> set[str]:
        """Every identifier-shaped word the views spell (``derived=False``: the text's own)."""
        found = set(IDENTIFIER.findall(self.norm))
        if not self.ascii:
            found.update(IDENTIFIER.findall(self.text))
        for view in self._derived() if derived else ():
            found.update(IDENTIFIER.findall(view))
        return found

    @functools.cached_property
    def made_word_chars(self) -> frozenset[str]:
        """The word characters (and their NFKC forms' characters) among :attr:`made_chars`:
        an identifier holding one may be spelt where no view spells it."""
        made = {char for char in self.made_chars if ("a" + char).isidentifier()}
        return frozenset(made | {c for char in made for c in unicodedata.normalize("NFKC", char)})

    def identifiers(self) -> set[str]:
        """Every identifier a view spells as a whole word, NFKC-normalised as Python reads
        a name: the views' words (:meth:`words`), and those of the text and its decoding with
        every break taken out (a value joined across breaks, :meth:`spelt_across_breaks`).
        What the tokenizer makes where no view decodes it is not here (see
        :attr:`made_word_chars`)."""
        sources = [self.text, self._unescaped()] if self.escapes else [self.text]
        broken = [
            joined for joined in (_BREAKS.sub("", s) for s in sources) if joined not in sources
        ]
        found = self.words()
        for view in broken:
            found.update(IDENTIFIER.findall(view))
        if not self.ascii:
            for view in (*self._derived(), *broken):
                if not view.isascii():
                    found.update(IDENTIFIER.findall(unicodedata.normalize("NFKC", view)))
        return found

    def _derived(self) -> tuple[str, ...]:
        """The views that decode escapes and join strings, built once per file, when asked."""
        if self._views is None:
            pairs = self._joins()
            self._views = ((self._unescaped(),) if self.escapes else ()) + tuple(
                joined for _, joined in pairs
            )
        return self._views

    def _unescaped(self) -> str:
        if self._decoded is None:
            self._decoded = _ESCAPE.sub(unescape, self.text) if self.escapes else self.text
        return self._decoded

    def _joins(self) -> tuple[tuple[str, str], ...]:
        """(text, the same text with adjacent literals joined), for the text and its decoding."""
        if not self.adjacent:
            return ()
        if self._joined is None:
            sources = (self.text, self._unescaped()) if self.escapes else (self.text,)
            self._joined = tuple((source, _ADJACENT.sub("", source)) for source in sources)
        return self._joined

    def lines_spelling(self, needles: Iterable[str]) -> set[int]:
        """The lines where one of ``needles`` can stand, in any view."""
        needles = set(needles)
        offsets: set[int] = set()
        for needle in needles:
            index = self.norm.find(needle)
            while index != -1:
                offsets.add(index)
                index = self.norm.find(needle, index + 1)
        found = lines_at(self.norm, offsets)
        if not self.ascii:
            found |= lines_at(self.text, _all_offsets(self.text, needles))
        if not self.derived_may_spell(frozenset(needles)):
            return found  # every occurrence a derived view holds is one of the text's
        needles = {needle for needle in needles if self.derived_may_spell(frozenset({needle}))}
        # a line decoded or joined is a piece of the whole view decoded or joined: a needle
        # no derived view spells is spelt by no such line
        if self.escapes:
            decoded = {needle for needle in needles if needle in self._unescaped()}
            if decoded:
                found |= self._escaped_lines(decoded)
        if any(char in needle for char in self.decoded_chars for needle in needles) or any(
            self.makes(needle) for needle in needles
        ):
            # an escape spells a needle's character, or the tokenizer makes one: only the
            # joined views see it joined, and they may pair quotes wrongly (see
            # spelt_across_breaks), nor do they decode one-letter escapes or newlines: any
            # line may
            return set(range(1, len(self.lines) + 1))
        if self.adjacent and needles:
            found |= self._joined_lines(needles)
        return found | self._broken_lines(needles)

    def _broken_lines(self, needles: Iterable[str]) -> set[int]:
        """Lines of every spelling of a needle across breaks (each found once, overlaps too)."""
        starts = [0, *(match.end() for match in NEWLINE_BYTES.finditer(self._utf8))]
        found: set[int] = set()
        for needle in needles:
            search = breaks_search(frozenset({needle}))
            if search is None:
                continue
            match = search.search(self._utf8)
            while match is not None:
                start, end = match.span()
                first, last = (bisect.bisect_right(starts, at) for at in (start, end - 1))
                found.update(range(first, last + 1))
                match = search.search(self._utf8, start + 1)
        return found

    def _escaped_lines(self, needles: set[str]) -> set[int]:
        """Lines whose escapes (or continued strings) spell a needle once decoded.

        A run of lines joined by backslash-newlines is decoded as one.
        """
        found: set[int] = set()
        lines = self.lines
        number = 0
        for with_backslash in sorted(lines_at(self.text, _all_offsets(self.text, ["\\"]))):
            if with_backslash <= number:
                continue  # inside the run already decoded
            first = with_backslash - 1
            while first > 0 and lines[first - 1].endswith("\\"):
                first -= 1  # a run continued from above starts there
            number = with_backslash - 1
            while lines[number].endswith("\\") and number + 1 < len(lines):
                number += 1
            number += 1
            decoded = _ESCAPE.sub(unescape, "\n".join(lines[first:number]))
            if any(needle in decoded for needle in needles):
                found.update(range(first + 1, number + 1))
        return found

    def _joined_lines(self, needles: set[str]) -> set[int]:
        """Lines of adjacent string literals whose joined value may spell a needle."""
        starts = line_starts(self.text)
        groups: list[list[int]] = []  # [first line, last line] of touching joins
        for match in _ADJACENT.finditer(self.text):
            first = bisect.bisect_right(starts, match.start())
            last = bisect.bisect_right(starts, match.end() - 1)
            if groups and first <= groups[-1][1]:
                groups[-1][1] = max(groups[-1][1], last)
            else:
                groups.append([first, last])
        found: set[int] = set()
        for first, last in groups:
            window = "\n".join(self.lines[first - 1 : last])
            joined = _ADJACENT.sub("", _ESCAPE.sub(unescape, window) if self.escapes else window)
            if any(needle in joined for needle in needles):
                found.update(range(first, last + 1))
        return found


def _all_offsets(text: str, needles: Iterable[str]) -> list[int]:
    offsets = []
    for needle in needles:
        index = text.find(needle)
        while index != -1:
            offsets.append(index)
            index = text.find(needle, index + 1)
    return offsets
