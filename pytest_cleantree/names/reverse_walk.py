"""The symbol graph walked backwards: every name from which a target is reached.

The graph is :mod:`.symbol_graph`'s (:class:`~.symbol_graph.ExportMap`: nodes
``(module, name)``, edges from the binding records of :mod:`.exports`); this module
reverses its edges once per map and walks them from the targets with a work list,
each name visited once (twice when met first on the way and later as the target
itself).  Its names are the words a use of the target spells; no spelling strings
are enumerated, so a web of modules that import each other in cycles has as many
answers as nodes.  Every step counts against the map's :class:`~.budget.Meter`.
"""

from __future__ import annotations

from collections import defaultdict, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Protocol

from pytest_cleantree.names.budget import Meter
from pytest_cleantree.names.exports import Binding, BindingKind, ModuleExports, Spelling

__all__ = ["Reached", "ReverseWalk"]


@dataclass(frozen=True, order=True)
class Reached:
    """A name from which a target is reached: ``name`` then ``.suffix`` leads to it.

    ``suffix`` is empty for a spelling of the target itself; otherwise ``name``
    leads to a module (or a spelling) on the target's way, and ``suffix`` is the
    shortest continuation found.  ``module`` and ``line``: the statement that
    makes the name (the definition, for the target).
    """

    name: str
    suffix: str
    module: str
    line: int

    @property
    def spelling(self) -> str:
        """The whole spelling: the name and its continuation to the target."""
        return f"{self.name}.{self.suffix}" if self.suffix else self.name


#: one reverse edge: (the node's dotted name, the module binding it, the binding's line)
_Into = tuple[str, str, int, int]  # ... and the binding's place among all (the walk's order)
#: one star import of a module: (the module importing it, the binding's line, its place)
_Star = tuple[str, int, int]


class _Graph(Protocol):
    """What the backward walk asks of the graph (:class:`~.symbol_graph.ExportMap`)."""

    @property
    def modules(self) -> Mapping[str, ModuleExports]: ...

    @property
    def meter(self) -> Meter: ...

    def known(self, module: str) -> bool: ...

    def definition(self, canonical: str) -> tuple[str, int] | None: ...

    def exported_names(self, module: str) -> frozenset[str] | None: ...


class ReverseWalk:
    """The graph's edges reversed (built at the first walk), and the walks over them."""

    def __init__(self, graph: _Graph) -> None:
        self._graph = graph
        self._reverse: tuple[dict[str, list[_Into]], dict[str, list[_Star]]] | None = None

    def spellings(self, canonical: str) -> list[Spelling]:
        """Every whole spelling, one per node of the graph that reaches ``canonical``.

        Each comes with the statement that makes it (its module and line): the
        definition for the canonical spelling itself, the re-export (import,
        star import or module alias) for the others.  Sorted by spelling.
        """
        found = {
            r.spelling: Spelling(r.spelling, r.module, r.line)
            for r in self.reach([canonical]).values()
            if not r.suffix and r.module
        }
        return sorted(found.values())

    def reach(self, targets: Iterable[str]) -> dict[str, Reached]:
        """Every name from which one of ``targets`` is reached, with its shortest continuation.

        A walk backwards over the graph's edges from the targets: a node whose
        binding leads to a reached name is reached (with the same continuation);
        the module part of a reached name is reached with one more attribute
        (``posixpath`` then ``join``); and a spelling through a module on the way
        (``os.path`` then ``join``) is a name of its own.  Each name is visited
        once, or twice when found first on the way and later as the target itself.
        """
        into, stars = self._reverse_edges()
        found: dict[str, Reached] = {}
        queue: deque[str] = deque()

        def add(name: str, suffix: str, module: str, line: int) -> None:
            old = found.get(name)
            if old is not None and (not old.suffix or suffix):
                if not (old.suffix or suffix or old.module) and module:
                    found[name] = Reached(name, "", module, line)  # the statement making it
                return  # met before as the target itself, or both times on the way
            found[name] = Reached(name, suffix, module, line)
            queue.append(name)

        for target in sorted(set(targets)):
            where = self._graph.definition(target)
            add(target, "", *(where or ("", 0)))
        while queue:
            here = found[queue.popleft()]
            head, _, tail = here.name.rpartition(".")
            edges, wild = self._edges_into(here.name, into, stars)
            self._graph.meter.spend(here.module or here.name, 1 + len(edges) + len(wild))
            for name, module, line, _ in edges:
                add(name, here.suffix, module, line)
            if head:
                add(head, f"{tail}.{here.suffix}" if here.suffix else tail, here.module, here.line)
                for module, line, _ in wild:  # star imports of what is not known
                    add(f"{module}.{tail}", here.suffix, module, line)
            if here.suffix:
                add(here.spelling, "", here.module, here.line)
        return found

    def _edges_into(
        self, name: str, into: Mapping[str, list[_Into]], stars: Mapping[str, list[_Star]]
    ) -> tuple[list[_Into], list[_Star]]:
        """The edges into ``name``, in the bindings' order; the star imports of its module
        whose exports are not known (each may provide it).

        A star import of ``S`` is an edge ``S.x`` -> ``M.x`` for each name ``x`` that ``S``
        exports: taken here, for the name the walk is at, never listed per name.
        """
        edges = into.get(name, [])
        head, _, tail = name.rpartition(".")
        importers = stars.get(head, []) if head else []
        if not importers:
            return edges, []
        provided = self._graph.exported_names(head)
        if provided is None:
            return edges, importers
        if tail not in provided:
            return edges, []
        made = [(f"{module}.{tail}", module, line, place) for module, line, place in importers]
        return sorted([*edges, *made], key=lambda edge: edge[3]), []

    def _reverse_edges(self) -> tuple[dict[str, list[_Into]], dict[str, list[_Star]]]:
        """Per dotted name, the nodes whose binding leads there; per module, its star imports.

        The graph's edges, reversed: ``from S import a as n`` in ``M`` is an edge
        ``S.a`` -> ``M.n``; ``import S as n`` one ``S`` -> ``M.n``; a star import of
        ``S`` one ``S.x`` -> ``M.x`` per name ``S`` exports (all of them, when that
        is not known), taken by :meth:`_edges_into` for the names a walk meets (a web
        of star imports would list the product of its modules and their names).  Each
        edge keeps its binding's place, so a walk meets them in the bindings' order.
        Names that only repeat a spelling are left out:
        ``import os`` in ``m`` (``m.os.path`` is ``os.path``), ``from . import sub``
        (``m.sub.X`` is ``pkg.sub.X``), ``import os as _os`` (the module's own).
        """
        if self._reverse is not None:
            return self._reverse
        into: dict[str, list[_Into]] = defaultdict(list)
        stars: dict[str, list[_Star]] = defaultdict(list)
        place = 0
        for module, exports in sorted(self._graph.modules.items()):
            self._graph.meter.spend(module, len(exports.bindings))
            for binding in exports.bindings:
                place += 1
                if binding.kind is BindingKind.STAR:
                    stars[binding.module].append((module, binding.line, place))
                    continue
                source = self._source_of(binding)
                if source is not None:
                    name = f"{module}.{binding.name}"
                    into[source].append((name, module, binding.line, place))
        self._reverse = (dict(into), dict(stars))
        return self._reverse

    def _source_of(self, binding: Binding) -> str | None:
        """The dotted name an import binding leads to, unless the name only repeats it."""
        if binding.kind is BindingKind.MODULE:
            if binding.name == binding.module or _private(binding.name):
                return None
            return binding.module
        if binding.kind is BindingKind.FROM:
            source = f"{binding.module}.{binding.attr}"
            own = binding.name == binding.attr and self._graph.known(source)
            return None if own else source
        return None


def _private(name: str) -> bool:
    """A name a module keeps to itself (``_os``), not a dunder (``__version__``)."""
    return name.startswith("_") and not name.endswith("__")
