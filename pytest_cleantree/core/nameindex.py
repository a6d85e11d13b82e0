"""Which patterns of a list a name or free text matches, by lookup (issue 44).

:mod:`.patterns` says what each tier matches (:func:`~.patterns.match_name`,
:func:`~.patterns.covers`, :func:`~.patterns.match_text`), one pattern at a time: the
oracle.  The tables here answer the same for a whole list, one look-up a part of the name
however many patterns are asked (``tests/core/test_name_index.py`` holds them equal); a
file's part of a run's list is a view of the list's tables (``within``), never a table of
its own.
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Iterable, Sequence

from pytest_cleantree.core.model import Pattern, PatternTier

from .patterns import match_name, match_text, written

__all__ = ["Covering", "NameIndex", "TextIndex"]


class Covering:
    """Which of many wanted names a resolved name is (:func:`_names`) or lies inside
    (:func:`covers`), by lookup: a name's dotted prefixes (or, relative, the first parts
    it knows) are looked up among the wanted names (or their last parts), one dict look-up
    a part, however many names are wanted.  Exactly what comparing with each would say
    (``tests/core/test_name_index.py`` holds them equal), for any strings: a dotted name's
    parts hold no dot, so a joined run of parts names its parts.
    """

    def __init__(self, wanted: Sequence[str]) -> None:
        self.wanted = tuple(wanted)
        #: each wanted name, with its positions in ``wanted``
        self._whole: dict[str, list[int]] = {}
        #: each run of last parts of a wanted name (``c``, ``b.c``, ``a.b.c``), likewise
        self._tails: dict[str, list[int]] = {}
        #: each run of first parts of a wanted name (``a``, ``a.b``, ``a.b.c``), and each
        #: part, likewise
        self._heads: dict[str, list[int]] = {}
        self._parts: dict[str, list[int]] = {}
        for index, name in enumerate(self.wanted):
            self._whole.setdefault(name, []).append(index)
            parts = name.split(".")
            for part in set(parts):
                self._parts.setdefault(part, []).append(index)
            for k in range(1, len(parts) + 1):
                self._tails.setdefault(".".join(parts[-k:]), []).append(index)
                self._heads.setdefault(".".join(parts[:k]), []).append(index)
        #: the positions asked about (``None``: all): see :meth:`within`
        self._keep: frozenset[int] | None = None

    def within(self, keep: Iterable[int]) -> Covering:
        """The table of the wanted names at positions ``keep`` only, its tables shared (a
        file's part of a run's list, asked without a table of its own, issue 44).  It
        answers as ``Covering`` of those names would, positions kept as in ``wanted``."""
        view = copy.copy(self)
        view._keep = frozenset(keep)
        return view

    def _asked(self, positions: list[int] | None) -> bool:
        """Does one of ``positions`` stand for a name asked about?"""
        if not positions:
            return False
        return self._keep is None or not self._keep.isdisjoint(positions)

    def on_path(self, imported: str) -> bool:
        """Is ``imported`` on the way to a wanted name, or inside one?  A relative one
        (known in part) is when it shares a part with one."""
        if imported.startswith("."):
            parts = self._parts
            return any(self._asked(parts.get(part)) for part in imported[1:].split("."))
        return self._asked(self._heads.get(imported)) or self.covers_any(imported)

    def leads_into(self, target: str) -> bool:
        """Is ``target`` a wanted name, or a run of its first parts (an alias of it leads to a
        wanted name, or to something on its way)?"""
        return self._asked(self._heads.get(target))

    def positions(self, resolved: str, *, inside: bool = True) -> set[int]:
        """The positions in ``wanted`` of the names ``resolved`` is (or lies inside)."""
        found: set[int] = set()
        relative = resolved.startswith(".")
        table = self._tails if relative else self._whole
        known = resolved[1:] if relative else resolved
        if inside:
            # ``covers``: absolute, a prefix of parts is a wanted name; relative, a run of
            # its first parts is a run of a wanted name's last parts
            end = known.find(".")
            while end != -1:
                found.update(table.get(known[:end], ()))
                end = known.find(".", end + 1)
        # and the whole name (``_names``: without ``inside``, only it; relative, a run of
        # last parts)
        found.update(table.get(known, ()))
        if self._keep is not None:
            found &= self._keep
        return found

    def covers_any(self, resolved: str) -> bool:
        """:func:`covers` for some wanted name."""
        return bool(self.positions(resolved))


class NameIndex:
    """A list of patterns, asked which match a name (:func:`match_name`) by lookup.

    Exact and qualified patterns are looked up (see :class:`Covering`); substring, glob and
    regex patterns are compared, as they must be; a line pattern never matches a name.
    The answer keeps the list's order and repeats, as comparing each in turn would.
    """

    def __init__(self, patterns: Sequence[Pattern]) -> None:
        self.patterns = tuple(patterns)
        self._exact: dict[str, list[int]] = {}
        self._compared: list[int] = []
        qualified: list[int] = []
        for index, pattern in enumerate(self.patterns):
            tier = pattern.tier
            if tier is PatternTier.EXACT:
                self._exact.setdefault(pattern.body, []).append(index)
            elif tier is PatternTier.QUALIFIED:
                qualified.append(index)
            elif tier is not PatternTier.LINE:
                self._compared.append(index)
        self._qualified = qualified
        self._covering = Covering([self.patterns[i].body for i in qualified])
        #: a qualified pattern's position in the list -> its position in ``_covering``
        self._in_covering = {index: at for at, index in enumerate(qualified)}
        #: the positions asked about (``None``: all): see :meth:`within`
        self._keep: frozenset[int] | None = None

    @functools.cached_property
    def positions(self) -> dict[Pattern, int] | None:
        """Each pattern's position in the list; ``None`` when the list repeats one."""
        positions = {pattern: index for index, pattern in enumerate(self.patterns)}
        return positions if len(positions) == len(self.patterns) else None

    def within(self, keep: frozenset[int]) -> NameIndex:
        """The index of the list's patterns at positions ``keep`` only, its tables shared:
        a file asks a run's list for the patterns its text may spell, without building
        a table of its own."""
        view = copy.copy(self)
        view._keep = keep
        view._compared = [i for i in self._compared if i in keep]
        view.__dict__["text"] = self.text.within(keep)
        at = self._in_covering
        view._covering = self._covering.within(at[i] for i in keep if i in at)
        return view

    @property
    def covering(self) -> Covering:
        """The list's qualified patterns' bodies, in order, as a :class:`Covering` (of the
        positions asked about only, for a view)."""
        return self._covering

    @functools.cached_property
    def text(self) -> TextIndex:
        """The list as a table free text (strings, comments) is looked up in."""
        return TextIndex(self.patterns)

    def match(
        self, name: str, qualified: tuple[str, ...] = (), *, inside: bool = True
    ) -> tuple[Pattern, ...]:
        """The patterns of the list that match ``name`` resolved to ``qualified``, in order."""
        patterns = self.patterns
        found = set(self._exact.get(name, ()))
        found.update(i for i in self._compared if match_name(patterns[i], name))
        found |= self._through(qualified, inside)
        if self._keep is not None:
            found &= self._keep
        return tuple(patterns[i] for i in sorted(found)) if found else ()

    def match_qualified(
        self, qualified: tuple[str, ...], *, inside: bool = True
    ) -> tuple[Pattern, ...]:
        """The qualified patterns of the list that ``qualified`` leads to, in order."""
        found = self._through(qualified, inside)
        if self._keep is not None:
            found &= self._keep
        return tuple(self.patterns[i] for i in sorted(found)) if found else ()

    def _through(self, qualified: tuple[str, ...], inside: bool) -> set[int]:
        spots = self._qualified
        found: set[int] = set()
        for target in qualified:
            found.update(spots[i] for i in self._covering.positions(target, inside=inside))
        return found


class TextIndex:
    """A list of patterns, asked which match free text (:func:`match_text`) by lookup.

    A substring or qualified pattern whose text is all word characters and dots, with a
    dot (``os.path.join``: every spelling of a qualified pattern), can only stand inside a
    run of such characters that holds a dot: each such run's pieces are looked up among
    those texts, one set look-up a piece and length.  Every other pattern is compared.
    The answer keeps the list's order and repeats, as comparing each in turn would.
    """

    def __init__(self, patterns: Sequence[Pattern]) -> None:
        self.patterns = tuple(patterns)
        #: as a name reads (always asked), and as written (asked of text that is not ASCII)
        self._read: dict[str, list[int]] = {}
        self._written: dict[str, list[int]] = {}
        self._compared: list[int] = []
        for index, pattern in enumerate(self.patterns):
            body, as_written = pattern.body, written(pattern)
            if (
                pattern.tier in (PatternTier.SUBSTRING, PatternTier.QUALIFIED)
                and _DOTTED_RUN.fullmatch(body)
                and _DOTTED_RUN.fullmatch(as_written)
            ):
                self._read.setdefault(body, []).append(index)
                self._written.setdefault(as_written, []).append(index)
            else:
                self._compared.append(index)
        self._lengths = sorted({len(text) for text in (*self._read, *self._written)})
        self._keep: frozenset[int] | None = None

    def within(self, keep: frozenset[int]) -> TextIndex:
        """As :meth:`NameIndex.within`: the patterns at positions ``keep`` only."""
        view = copy.copy(self)
        view._keep = keep
        view._compared = [i for i in self._compared if i in keep]
        return view

    def matching(self, text: str) -> tuple[Pattern, ...]:
        """The patterns of the list that match ``text``, in order."""
        patterns = self.patterns
        found = {i for i in self._compared if match_text(patterns[i], text)}
        if self._lengths and "." in text:
            tables = (self._read,) if text.isascii() else (self._read, self._written)
            for run in {run for run in _WORD_RUN.findall(text) if "." in run}:
                for start in range(len(run)):
                    room = len(run) - start
                    for length in self._lengths:
                        if length > room:
                            break
                        piece = run[start : start + length]
                        for table in tables:
                            found.update(table.get(piece, ()))
        if self._keep is not None:
            found &= self._keep
        return tuple(patterns[i] for i in sorted(found)) if found else ()


#: a text a run of word characters and dots can hold, with a dot (see :class:`TextIndex`)
_DOTTED_RUN = re.compile(r"[\w.]*\.[\w.]*")
_WORD_RUN = re.compile(r"[\w.]+")
