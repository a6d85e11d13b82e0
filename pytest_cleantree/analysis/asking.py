"""Which patterns of a run's list a file is asked: each needle once, each way only where the
file may reach it (issue 44).

A qualified pattern's spellings and its ways (names through module aliases, see
:mod:`pytest_cleantree.run.rewrite`) run to thousands on a real package.  Asking each of
each file (:func:`.text.present_patterns`, the oracle, ``CLEANTREE_ENGINE=every-spelling``)
cost as much as the list is long, for every file; :func:`present_asked` answers the same in
time that grows with what the file is asked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pytest_cleantree.core.identity import ByIdentity
from pytest_cleantree.core.model import Pattern, PatternTier
from pytest_cleantree.core.patterns import as_name

from .text import PatternSet, Presence, TextViews, present_patterns

#: up to this many ways in a list, each is asked of every file that may spell its needle, as
#: the oracle does: the ways are looked up by needle (one ask a needle), and a file's part is
#: a view of the list's tables shared by the files that spell the same needles, while
#: narrowing costs a walk of the file's names and a part of its own.  Measured (CPU, one
#: job): networkx's widely imported class (1,544 ways) took 9.2 s narrowed from 1,024 ways,
#: 6.3 s asked each.  Above it (a site-packages tree's ``os.path.join`` makes 15,022), a way
#: asked widens what resolution follows: narrowing stays, unmeasured since the index
FEW_WAYS = 4096


def present_asked(
    views: TextViews,
    patterns: PatternSet,
    module: str | None,
    *,
    is_package: bool = False,
    together: bool = False,
) -> list[Pattern]:
    """:func:`present_patterns` without asking what the file provably cannot hold, in time
    that grows with the patterns kept, not with the list (a qualified pattern's spellings
    run to thousands on a real package, issue 44).

    Each needle is asked once for all the patterns that share it (:func:`asking_of`).
    A way (a name through a module alias, ``Pattern.needles`` set: see
    :mod:`pytest_cleantree.run.rewrite`) is asked only when a name of this file may resolve
    inside it (:func:`_reachable`).  What a way finds in strings and comments, matched as
    written, counts for no pattern (``run.rewrite._Through``).  Else the answer is the
    oracle's, in its order.
    """
    kept = asked_positions(views, patterns, module, is_package=is_package, together=together)
    if kept is None:
        return present_patterns(views, patterns, together=together)
    every = patterns.patterns
    return [every[i] for i in kept]


def asked_positions(
    views: TextViews,
    patterns: PatternSet,
    module: str | None,
    *,
    is_package: bool = False,
    together: bool = False,
) -> list[int] | None:
    """:func:`present_asked` as the positions in the list of the patterns asked, in order;
    ``None`` when the list repeats a pattern (then the oracle asks each in turn).

    Matching is by index, not by comparison: each needle is asked once, and the patterns
    it stands for (ways included) are looked up by it, so the work grows with the needles
    the list holds (a qualified pattern's thousands of ways share a few last names), not
    with its patterns.
    """
    asking = asking_of(patterns)
    if asking is None:
        return None
    presence = Presence(views, patterns, together=together)
    kept: set[int] = set()
    for needle, whole_word, positions in asking.needles:
        if presence.holds(needle, whole_word):
            kept.update(positions)
    held: set[int] = set()  # the ways whose needle the file may spell
    for needle, whole_word, positions in asking.way_groups:
        if presence.holds(needle, whole_word):
            held.update(positions)
    most = len(patterns.patterns) / 2
    if len(asking.way_parts) > FEW_WAYS and len(kept) < most:
        kept |= _ways_asked(asking, views, held, module, is_package=is_package)
    if len(asking.way_parts) <= FEW_WAYS or len(kept) >= most:
        # few ways: each asked, as the oracle does (the file's identifiers cost more); or
        # most of the list asked anyway: then the oracle's part, often the whole list
        kept |= held
    return sorted(kept)


def _ways_asked(
    asking: Asking,
    views: TextViews,
    held: set[int],
    module: str | None,
    *,
    is_package: bool,
) -> set[int]:
    """The ways asked of this file (positions): those a name of it may resolve inside, whose
    needle it may spell.

    Resolution is the file's own (its imports, aliases, strings, star imports, top-level
    bindings): an absolute name it reaches spells each of its parts in the file (the import
    spells its target whole, the use the rest), so every part of the way is an identifier
    the file may spell (:meth:`TextViews.identifiers`, NFKC) or a part of its module.  A
    relative one (``.pkg.mod.x``, the root's package unknown) covers a way whose last parts
    are its first (``covers``): those parts are spelt so, and the first of them is the
    first part of the file's module, or (an import with more dots than the module has
    packages) any.  A name holding a character the tokenizer makes where no view decodes it
    (:attr:`TextViews.made_word_chars`) may be spelt.

    One more of each last name the file spells: the scan takes a top-level binding of this
    module as its own qualified name only when some qualified pattern asked ends with it
    (``scan.Scanner``), so the list asked ends with every name the whole list does.
    """

    reach = _Reach(asking, views, module, is_package=is_package)
    kept: set[int] = set()
    for key in reach.last_names():
        found = False
        for group in reach.groups(key):
            for i in group:
                if i in held and reach.reached(i):
                    kept.add(i)
                    found = True
        if not found and reach.named(key):
            one = next((i for i in asking.ways[key] if i in held), None)
            if one is not None:
                kept.add(one)
    return kept


class _Reach:
    """What one file may spell, asked of a list's ways (see :func:`_ways_asked`)."""

    def __init__(
        self, asking: Asking, views: TextViews, module: str | None, *, is_package: bool
    ) -> None:
        self.asking = asking
        # the views a value is derived in (decoded, joined, across breaks) are split into
        # words only when they may spell a name of a way the text does not (rare): the
        # break search answers for all of them at once, its expression compiled once a list
        derived = views.derived_may_spell(asking.names, together=True)
        self.words = views.identifiers() if derived else views.words(derived=False)
        parts = [as_name(part) for part in module.split(".")] if module else []
        self.spelt = self.words | set(parts)
        self.above = _above_the_top(views.norm, parts, is_package)
        self.first = self.spelt if self.above else set(parts[:1])
        self.made = views.made_word_chars

    def may(self, name: str) -> bool:
        """Spelt, or holding a character the tokenizer makes?"""
        return name in self.spelt or not self.made.isdisjoint(name)

    def named(self, key: str) -> bool:
        """May the file's text spell the name (its module's parts aside)?"""
        return key in self.words or not self.made.isdisjoint(key)

    def last_names(self) -> Iterable[str]:
        """The last names of the ways the file may reach."""
        ways = self.asking.ways
        return [key for key in ways if self.may(key)] if self.made else ways.keys() & self.spelt

    def groups(self, key: str) -> Iterable[tuple[int, ...]]:
        """The ways ending with ``key`` that may be reached: by their rarest name spelt, or a
        relative one's first; with made characters (rare: a raw or bytes literal with
        escapes) every one."""
        if self.made:
            return (self.asking.ways[key],)
        starts, inner = self.asking.by_first[key], self.asking.by_inner.get(key, {})
        return (
            *(starts[name] for name in starts.keys() & self.spelt),
            *(inner[name] for name in inner.keys() & self.first),
        )

    def covered(self, names: frozenset[str]) -> bool:
        return names <= self.spelt or (bool(self.made) and all(self.may(n) for n in names))

    def reached(self, position: int) -> bool:
        """May a name of the file resolve inside the way at ``position``?"""
        whole, suffixes = self.asking.way_parts[position]
        return self.covered(whole) or any(
            (head in self.first or (self.above and self.may(head))) and self.covered(suffix)
            for head, suffix in suffixes
        )


#: a relative import's dots, however spaced (see ``resolve._RELATIVE_FROM``)
_RELATIVE_DOTS = re.compile(r"from(?:\s|\\)*((?:\.(?:\s|\\)*)+)")


def _above_the_top(norm: str, module: list[str], is_package: bool) -> bool:
    """May a relative import climb past the file's top package (a name relative to nothing
    known: its first part is then one the import spells)?"""
    packages = len(module) if is_package else len(module) - 1
    return any(match.group(1).count(".") > packages for match in _RELATIVE_DOTS.finditer(norm))


@dataclass(frozen=True)
class Asking:
    """A compiled list's needles, each with the positions of the patterns it stands for, and
    its ways by last name (see :func:`present_asked`): built once per list."""

    #: (needle, whole word, positions of the patterns that are not ways)
    needles: tuple[tuple[str | None, bool, tuple[int, ...]], ...]
    #: per last name (NFKC) of a way, the positions of the ways that end with it
    ways: dict[str, tuple[int, ...]]
    #: (needle, whole word, positions of the ways it stands for): the ways by needle, each
    #: needle asked once however many ways share it
    way_groups: tuple[tuple[str | None, bool, tuple[int, ...]], ...]
    #: per way's position, its parts, and each run of its last parts after the first with
    #: that run's first part (see :func:`_ways_asked`)
    way_parts: _Parts
    #: per last name, the positions of its ways by the name of theirs fewest of its ways
    #: hold (each of a way's names must be spelt for an absolute name to reach it), and by
    #: each name after their first (a relative name's first, see :class:`_Reach`)
    by_first: _ByName
    by_inner: _ByName
    #: every name of every way
    names: frozenset[str]

    @classmethod
    def of(cls, patterns: PatternSet) -> Asking | None:
        """``None`` when the list repeats a pattern (then each is asked in turn)."""
        positions = patterns.index.positions
        if positions is None:
            return None
        grouped: dict[tuple[str | None, bool], list[int]] = {}
        ways: dict[str, list[int]] = {}
        by_needle: dict[tuple[str | None, bool], list[int]] = {}
        seen: set[int] = set()
        for pattern, needle, whole_word in patterns.needles:
            position = positions[pattern]
            if pattern.tier is PatternTier.QUALIFIED and pattern.needles:
                if position not in seen:
                    seen.add(position)
                    ways.setdefault(as_name(pattern.body.rsplit(".", 1)[-1]), []).append(position)
                by_needle.setdefault((needle, whole_word), []).append(position)
            else:
                grouped.setdefault((needle, whole_word), []).append(position)
        way_parts, by_first, by_inner = _ways_indexed(patterns, sorted(seen))
        return cls(
            tuple((n, w, tuple(p)) for (n, w), p in grouped.items()),
            {key: tuple(p) for key, p in ways.items()},
            tuple((n, w, tuple(p)) for (n, w), p in by_needle.items()),
            way_parts,
            by_first,
            by_inner,
            frozenset(name for whole, _ in way_parts.values() for name in whole),
        )


_Parts = dict[int, tuple[frozenset[str], tuple[tuple[str, frozenset[str]], ...]]]
_ByName = dict[str, dict[str, tuple[int, ...]]]


def _ways_indexed(patterns: PatternSet, ways: Iterable[int]) -> tuple[_Parts, _ByName, _ByName]:
    """Each way's parts and runs of last parts; the ways by last name and rarest name, and
    by last name and each name after their first (see :class:`Asking`)."""
    way_parts: _Parts = {}
    by_inner: dict[str, dict[str, list[int]]] = {}
    held_by: dict[tuple[str, str], int] = {}  # (last name, name): how many ways hold it
    for position in ways:
        names = [as_name(part) for part in patterns.patterns[position].body.split(".")]
        suffixes = tuple((names[i], frozenset(names[i:])) for i in range(1, len(names)))
        way_parts[position] = (frozenset(names), suffixes)
        for name in set(names):
            held_by[names[-1], name] = held_by.get((names[-1], name), 0) + 1
        for name in set(names[1:]):
            by_inner.setdefault(names[-1], {}).setdefault(name, []).append(position)
    by_first: dict[str, dict[str, list[int]]] = {}
    for position, (whole, _) in way_parts.items():
        last = as_name(patterns.patterns[position].body.rsplit(".", 1)[-1])
        pivot = min(sorted(whole), key=lambda name: held_by[last, name])
        by_first.setdefault(last, {}).setdefault(pivot, []).append(position)
    return (
        way_parts,
        {k: {f: tuple(p) for f, p in v.items()} for k, v in by_first.items()},
        {k: {f: tuple(p) for f, p in v.items()} for k, v in by_inner.items()},
    )


#: the :class:`Asking` of a compiled list, built once per list
asking_of: ByIdentity[PatternSet, Asking | None] = ByIdentity(Asking.of)
