"""Which modules to read (``names/modules_to_read.py``), on sources held in memory: which
modules can spell a target, and the rounds that admit them to the export map (what a file's
import statements take, read from its text, is ``test_imports.py``'s)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import pytest

from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.names.budget import Budget, GraphBudgetError, Meter
from pytest_cleantree.names.exports import ModuleExports, parse_module_exports
from pytest_cleantree.names.imports import UNKNOWN_STAR, ImportSummary, import_summary
from pytest_cleantree.names.modules_to_read import (
    STAR_NEEDLE,
    Reach,
    TreeModule,
    grow_chains,
    pattern_targets,
    spelling_words,
)
from pytest_cleantree.names.symbol_graph import ExportMap, build_export_map
from pytest_cleantree.sources.base import NO_NEEDLE, FileRead, Needles, ReadAnswer, Source

# ------------------------------------------------------------------ Reach


def test_reach_unknown_keeps_every_spelling() -> None:
    assert Reach().reaches("a.m", "x")
    assert Reach(pairs=frozenset()).reaches("a.m", "x")
    assert Reach(modules=frozenset()).reaches("a.m", "x")


@pytest.mark.parametrize(
    ("pairs", "modules", "stars", "reached"),
    [
        ({("m", "x")}, set(), set(), True),  # ``from a.m import x``
        ({("", "x")}, set(), set(), True),  # ``from . import x``
        ({("other", "x")}, set(), set(), False),
        ({("m", "y")}, set(), set(), False),
        ({("x", "m")}, set(), set(), True),  # ``from x import m``: ``m.x`` an attribute away
        (set(), {"m"}, set(), True),  # ``import a.m``
        (set(), {"a", "x"}, set(), False),
        (set(), set(), {"m"}, True),  # ``from a.m import *``
        (set(), set(), {UNKNOWN_STAR}, True),
        (set(), set(), {"a"}, False),
    ],
)
def test_reach_of_a_spelling(
    pairs: set[tuple[str, str]], modules: set[str], stars: set[str], reached: bool
) -> None:
    reach = Reach(frozenset(pairs), frozenset(modules), frozenset(stars))
    assert reach.reaches("a.m", "x") is reached


def test_reach_of_a_top_level_module() -> None:
    reach = Reach(frozenset({("m", "x")}), frozenset(), frozenset())
    assert reach.reaches("m", "x")
    assert not reach.reaches("m.n", "x")
    assert reach.reaches("a.b.m", "x")  # the last part of a dotted module


# ------------------------------------------------------------------ spelling words


def emap_of(modules: Mapping[str, str], packages: Sequence[str] = ()) -> ExportMap:
    return build_export_map(dict(modules), {name: name in packages for name in modules})


def test_spelling_words_are_the_last_parts_of_every_name_that_reaches_a_target() -> None:
    emap = emap_of({"os": "import posixpath as path\n", "posixpath": "def join(): ...\n"})
    assert spelling_words(emap, ["posixpath.join"]) == {"join", "posixpath", "path", "os"}
    assert spelling_words(emap, ["os.path.join"]) == {"join", "posixpath", "path", "os"}
    assert spelling_words(emap, []) == frozenset()


def test_spelling_words_of_several_patterns() -> None:
    emap = emap_of({"a": "def f(): ...\n", "b": "def g(): ...\n"})
    assert spelling_words(emap, ["a.f", "b.g"]) == {"a", "f", "b", "g"}


def test_pattern_targets_hold_every_end_and_the_pattern() -> None:
    emap = emap_of(
        {
            "pkg": "try:\n    from ._fast import f\nexcept ImportError:\n    def f(): ...\n",
            "pkg._fast": "def f(): ...\n",
        },
        packages=["pkg"],
    )
    assert pattern_targets(emap, "pkg.f") == {"pkg.f", "pkg._fast.f"}
    assert pattern_targets(emap, "nowhere.f") == {"nowhere.f"}


# ------------------------------------------------------------------ grow_chains


def _needle_in(data: bytes, needles: Sequence[str]) -> bool:
    text = data.decode("utf-8", "replace")
    return any(
        re.search(rf"(?<!\w){re.escape(n)}(?!\w)", text) if n != STAR_NEEDLE else n in text
        for n in needles
    )


class Tree:
    """A tree held in memory; ``server``: a file spelling none of the needles is not sent."""

    host = ""
    root = "/tree"

    def __init__(
        self,
        files: Mapping[str, str | bytes],
        *,
        server: bool = False,
        errors: Mapping[str, SourceError] | None = None,
    ) -> None:
        self.files = {p: t.encode() if isinstance(t, str) else t for p, t in files.items()}
        self.server = server
        self.errors = dict(errors or {})
        self.reads: list[tuple[list[str], list[str] | None]] = []

    def expand(self, entries: Sequence[str], **_: object) -> Mapping[str, object]:
        raise AssertionError("the graph lists nothing: it is given the tree")

    def read(
        self, paths: Sequence[str], needles: Needles | None = None
    ) -> Mapping[str, ReadAnswer]:
        asked = None if needles is None else list(needles)
        self.reads.append((list(paths), asked))
        answers: dict[str, ReadAnswer] = {}
        for path in paths:
            if path in self.errors:
                answers[path] = self.errors[path]
            elif self.server and asked is not None and not _needle_in(self.files[path], asked):
                answers[path] = NO_NEEDLE
            else:
                answers[path] = FileRead(self.files[path])
        return answers

    def close(self) -> None:
        pass

    def times_read(self, path: str) -> int:
        return sum(path in paths for paths, _ in self.reads)

    def times_sent(self, path: str) -> int:
        """How many times the file's bytes were sent (a server keeps back some it is asked)."""
        return sum(
            path in paths
            and (not self.server or needles is None or _needle_in(self.files[path], needles))
            for paths, needles in self.reads
        )


def tree_of(files: Mapping[str, str | bytes]) -> list[TreeModule]:
    modules = []
    for path in sorted(files):
        parts = path[: -len(".py")].split("/")
        package = parts[-1] == "__init__"
        if package:
            parts = parts[:-1]
        modules.append(TreeModule(path, ".".join(parts), package))
    return modules


def grow(
    files: Mapping[str, str | bytes],
    patterns: Sequence[str],
    *,
    source: Tree | None = None,
    parsed: dict[str, ModuleExports] | None = None,
    store: FakeStore | None = None,
    meter: object = None,
) -> tuple[ExportMap, Reach, dict[str, ModuleExports], dict[str, tuple[str, str]]]:
    source = source or Tree(files)
    parsed = {} if parsed is None else parsed
    texts: dict[str, tuple[str, str]] = {}
    emap, reach = grow_chains(
        source,  # type: ignore[arg-type]
        patterns,
        tree_of(files),
        parsed,
        texts,
        store,  # type: ignore[arg-type]
        meter,  # type: ignore[arg-type]
    )
    return emap, reach, parsed, texts


PKG = {
    "pkg/__init__.py": "from .core import f\n",
    "pkg/core.py": "def f(): ...\n",
    "use.py": "from pkg import f as g\n",
    "plain.py": "import json\n",
    "other.py": "from elsewhere import h as f2\n",
}


def chain() -> dict[str, ModuleExports]:
    """The module a pattern names, read before the graph grows (as ``read_chains`` does)."""
    return {"pkg.core": parse_module_exports("pkg.core", PKG["pkg/core.py"], is_package=False)}


def test_the_modules_that_re_export_a_target_are_admitted() -> None:
    emap, _, parsed, texts = grow(PKG, ["pkg.core.f"], parsed=chain())
    assert set(parsed) == {"pkg", "pkg.core", "use"}
    assert emap.canonical("use.g") == "pkg.core.f"
    spelt = {s.spelling for s in emap.spellings("pkg.core.f")}
    assert spelt == {"pkg.core.f", "pkg.f", "use.g"}
    assert texts["use"] == ("use.py", "from pkg import f as g\n")


def test_the_rounds_go_on_while_new_names_reach_a_target() -> None:
    files = {
        **PKG,
        "second.py": "from use import g as k\n",
        "third.py": "from second import k as z\n",
        "star.py": "from third import *\n",
    }
    emap, _, parsed, _ = grow(files, ["pkg.core.f"])
    assert {"second", "third", "star"} <= set(parsed)
    assert emap.canonical("third.z") == "pkg.core.f"
    assert emap.canonical("star.z") == "pkg.core.f"
    assert "plain" not in parsed
    assert "other" not in parsed


def test_modules_already_parsed_are_kept_and_not_read_again() -> None:
    source = Tree(PKG)
    core = parse_module_exports("pkg.core", "def f(): ...\n", is_package=False)
    parsed = {"pkg.core": core}
    emap, _, parsed, texts = grow(PKG, ["pkg.core.f"], source=source, parsed=parsed)
    assert parsed["pkg.core"] is core
    assert "pkg.core" not in texts
    assert source.times_read("pkg/core.py") == 0
    assert emap.canonical("use.g") == "pkg.core.f"


def test_a_module_at_the_root_with_no_name_is_left_out() -> None:
    files = {"use.py": "from pkg import f as g\n"}
    source = Tree(files)
    texts: dict[str, tuple[str, str]] = {}
    parsed: dict[str, ModuleExports] = {}
    tree = [TreeModule("use.py", "", False)]
    grow_chains(source, ["pkg.f"], tree, parsed, texts)  # type: ignore[arg-type]
    assert parsed == {}
    assert source.reads == []


def test_each_admitted_file_is_read_once() -> None:
    source = Tree(PKG)
    grow(PKG, ["pkg.core.f"], source=source)
    for path in PKG:
        assert source.times_read(path) == 1, path
    assert all(needles is not None for _, needles in source.reads[:1])


def test_the_summary_read_asks_for_the_words_and_the_star_needle() -> None:
    source = Tree(PKG)
    grow(PKG, ["pkg.core.f"], source=source)
    paths, needles = source.reads[0]
    assert paths == sorted(PKG)
    assert needles is not None
    assert STAR_NEEDLE in needles
    assert {"f", "core", "pkg"} <= set(needles)
    assert needles == sorted(needles)


def test_a_file_a_server_keeps_back_is_asked_again_when_the_words_grow() -> None:
    files = {
        "pkg/__init__.py": "from .core import f\n",
        "pkg/core.py": "def f(): ...\n",
        "use.py": "from pkg import f as g\n",
        "later.py": "from use import g as k\n",  # no word until ``use`` is parsed
        "never.py": "import json\n",
    }
    source = Tree(files, server=True)
    emap, _, parsed, _ = grow(files, ["pkg.core.f"], source=source)
    assert emap.canonical("later.k") == "pkg.core.f"
    assert "never" not in parsed
    assert source.times_read("later.py") == 2
    assert source.times_sent("later.py") == 1
    # asked again each time the words grew (by ``g``, then by ``k``), and no more
    assert source.times_read("never.py") == 3


def test_a_file_kept_back_is_not_asked_again_when_the_words_do_not_grow() -> None:
    files = {"pkg/core.py": "def f(): ...\n", "never.py": "import json\n"}
    source = Tree(files, server=True)
    _, _, parsed, _ = grow(files, ["pkg.core.f"], source=source)
    assert source.times_read("never.py") == 1
    assert parsed == {}  # a definition re-exports nothing: ``read_chains`` reads it


def test_a_file_the_server_sends_once_is_never_asked_again() -> None:
    files = {
        "pkg/core.py": "def f(): ...\n",
        "a.py": "from pkg.core import f as g\n",
        "b.py": "from a import g as h\n",
        "json_user.py": "import json  # core\n",  # sent (a word), spells nothing
    }
    source = Tree(files, server=True)
    _, _, parsed, _ = grow(files, ["pkg.core.f"], source=source)
    assert {"a", "b"} <= set(parsed)
    assert source.times_read("json_user.py") == 1
    assert source.times_read("b.py") == 2  # kept back, then sent when ``g`` became a word


def test_an_unreadable_file_spells_nothing() -> None:
    error = SourceError("permission denied")
    source = Tree(PKG, errors={"use.py": error})
    emap, _, parsed, _ = grow(PKG, ["pkg.core.f"], source=source)
    assert "use" not in parsed
    assert emap.canonical("use.g") == "use.g"


def test_the_files_after_an_unreadable_one_are_still_read() -> None:
    files = {**PKG, "a_bad.py": "from pkg import f as h\n"}
    source = Tree(files, errors={"a_bad.py": SourceError("permission denied")})
    emap, _, parsed, _ = grow(files, ["pkg.core.f"], source=source, parsed=chain())
    assert "a_bad" not in parsed
    assert emap.canonical("use.g") == "pkg.core.f"


def test_a_file_unreadable_when_parsed_is_left_out_and_the_others_parsed() -> None:
    files = {**PKG, "a_bad.py": "from pkg import f as h\n"}
    store = FakeStore()
    for path in ("a_bad.py", "use.py"):
        store.stored[("", "/tree", path)] = import_summary(str(files[path]))
    source = Tree(files, errors={"a_bad.py": SourceError("gone since")})
    emap, _, parsed, _ = grow(files, ["pkg.core.f"], source=source, store=store, parsed=chain())
    assert "a_bad" not in parsed
    assert emap.canonical("use.g") == "pkg.core.f"


def test_a_file_kept_back_is_not_asked_again_in_a_round_whose_words_did_not_grow() -> None:
    files = {
        "pkg/core.py": "def f(): ...\n",
        "f.py": "from pkg.core import f\n",  # ``f.f``: no word that was not one already
        "never.py": "import json\n",
    }
    source = Tree(files, server=True)
    _, _, parsed, _ = grow(files, ["pkg.core.f"], source=source)
    assert set(parsed) == {"f"}
    assert source.times_read("never.py") == 1


def test_each_admitted_module_counts_against_the_budget_at_its_name() -> None:
    class Recording(Meter):
        def spend(self, where: str, count: int = 1) -> None:
            self.wheres.append(where)
            super().spend(where, count)

    meter = Recording()
    meter.wheres = []  # type: ignore[attr-defined]
    grow(PKG, ["pkg.core.f"], meter=meter, parsed=chain())
    wheres = meter.wheres  # type: ignore[attr-defined]
    assert {"use", "pkg"} <= set(wheres)
    # every step names a module: a budget error always says where it stopped
    assert all(isinstance(where, str) and where for where in wheres)


def test_a_file_in_a_coding_python_refuses_is_summarised_but_adds_nothing() -> None:
    files = {
        **PKG,
        "bad.py": b"# -*- coding: nonesuch -*-\nfrom pkg import f as g\n",
        "rot.py": b"# -*- coding: rot13 -*-\nfrom pkg import f as g\n",
        "latin.py": b"# -*- coding: latin-1 -*-\nfrom pkg import f as \xe9\n",
        "broken.py": "from pkg import f as g\nx = (\n",
        "deep.py": "from pkg import f as g\nx = " + "(" * 2000 + ")" * 2000 + "\n",
    }
    emap, _, parsed, texts = grow(files, ["pkg.core.f"])
    for module in ("bad", "rot", "broken", "deep"):
        assert module not in parsed, module
        assert module not in texts, module
    assert emap.canonical("latin.\xe9") == "pkg.core.f"
    assert texts["latin"][1].endswith("as \xe9\n")


def test_undecodable_bytes_are_summarised_with_replacement() -> None:
    files = {**PKG, "odd.py": b"from pkg import f as g\nx = '\xff'\n"}
    _, reach, parsed, _ = grow(files, ["pkg.core.f"])
    assert "odd" not in parsed  # Python refuses it: it re-exports nothing
    assert ("pkg", "f") in reach.pairs  # type: ignore[operator]


def test_the_reach_counts_the_summaries_and_the_parsed_modules() -> None:
    files = {
        **PKG,
        "stars.py": "from pkg.core import *\nimport os.path\n",
        "more_stars.py": "from elsewhere.lib import *\n",
        "alias.py": "import a.b.c as d\n",
    }
    core = parse_module_exports(
        "pkg.core",
        "def f(): ...\nfrom x.y import z\nimport m.n\nfrom s.t import *\n",
        is_package=False,
    )
    _, reach, _, _ = grow(files, ["pkg.core.f"], parsed={"pkg.core": core})
    assert reach.pairs is not None
    assert reach.modules is not None
    assert {("core", "f"), ("pkg", "f"), ("elsewhere", "h")} <= reach.pairs
    assert {("y", "z"), ("b", "c")} <= reach.pairs
    assert {"json", "os", "path", "m"} <= reach.modules
    assert {"core", "t", "lib"} <= reach.stars
    assert reach.reaches("pkg", "f")
    assert reach.reaches("s.t", "anything")
    assert not reach.reaches("q", "r")


def test_the_reach_of_parsed_modules_alone() -> None:
    core = parse_module_exports(
        "pkg.core",
        "from w.x.y import z\nimport m.n\nimport o.p as q\nfrom r.s.t import *\n",
        is_package=False,
    )
    files = {"pkg/core.py": ""}
    _, reach, _, _ = grow(files, ["pkg.core.f"], parsed={"pkg.core": core})
    assert reach == Reach(frozenset({("y", "z")}), frozenset({"m", "o", "p"}), frozenset({"t"}))


class FakeStore:
    """A summary store in memory: what was kept, and what it answers."""

    def __init__(self) -> None:
        #: (host, root, path) -> the summary of the file's bytes
        self.stored: dict[tuple[str, str, str], ImportSummary] = {}
        self.kept: list[str] = []
        self.data: dict[str, bytes] = {}
        self.exported: dict[str, ModuleExports] = {}
        self.kept_exports: list[str] = []

    def summaries(self, source: Source, paths: Sequence[str]) -> dict[str, ImportSummary]:
        where = (source.host, source.root)  # type: ignore[attr-defined]
        return {p: s for (*at, p), s in self.stored.items() if tuple(at) == where and p in paths}

    def keep(self, source: Source, path: str, data: bytes, summary: ImportSummary) -> None:
        self.kept.append(path)
        self.data[path] = data
        self.stored[(source.host, source.root, path)] = summary  # type: ignore[attr-defined]

    def exports(self, path: str, module: str, is_package: bool) -> ModuleExports | None:
        found = self.exported.get(path)
        if found is None or (found.name, found.is_package) != (module, is_package):
            return None
        return found

    def keep_exports(self, path: str, exports: ModuleExports) -> None:
        self.kept_exports.append(path)
        self.exported[path] = exports

    def whole(self, path: str, data: bytes, module: str, is_package: bool) -> None:
        return None

    def keep_whole(self, path: str, data: bytes, exports: ModuleExports) -> None:
        pass


def test_a_store_keeps_each_summary_and_export_and_a_second_run_reads_nothing() -> None:
    store = FakeStore()
    first = Tree(PKG)
    emap, _, _, _ = grow(PKG, ["pkg.core.f"], source=first, store=store)
    assert sorted(store.kept) == sorted(PKG)
    assert store.data == {path: text.encode() for path, text in PKG.items()}
    assert sorted(store.kept_exports) == ["pkg/__init__.py", "use.py"]
    again = Tree(PKG)
    emap, reach, parsed, texts = grow(
        PKG, ["pkg.core.f"], source=again, store=store, parsed=chain()
    )
    assert again.reads == []
    assert emap.canonical("use.g") == "pkg.core.f"
    assert texts["use"] == ("use.py", "")
    assert set(parsed) == {"pkg", "pkg.core", "use"}
    assert ("pkg", "f") in (reach.pairs or ())


def test_a_store_answers_only_for_the_tree_it_kept() -> None:
    store = FakeStore()
    grow(PKG, ["pkg.core.f"], source=Tree(PKG), store=store)
    other = Tree(PKG)
    other.root = "/elsewhere"
    grow(PKG, ["pkg.core.f"], source=other, store=store)
    assert sorted(other.reads[0][0]) == sorted(PKG)  # every file summarised again


def test_a_stored_summary_admits_a_file_read_only_to_be_parsed() -> None:
    store = FakeStore()
    store.stored[("", "/tree", "use.py")] = import_summary(PKG["use.py"])
    source = Tree(PKG)
    emap, _, _, _ = grow(PKG, ["pkg.core.f"], source=source, store=store)
    assert emap.canonical("use.g") == "pkg.core.f"
    assert source.times_read("use.py") == 1  # not summarised again: read once, to parse
    assert "use.py" not in store.kept


def test_the_rounds_count_against_the_budget() -> None:
    with pytest.raises(GraphBudgetError, match=r"'use'|'pkg"):
        grow(PKG, ["pkg.core.f"], meter=Budget(nodes=12).start())
    meter = Budget().start()
    grow(PKG, ["pkg.core.f"], meter=meter)
    assert meter.steps > 0


def test_no_tree_no_modules() -> None:
    emap, reach, parsed, _ = grow({}, ["pkg.core.f"])
    assert parsed == {}
    assert emap.canonical("pkg.core.f") == "pkg.core.f"
    assert reach == Reach(frozenset(), frozenset(), frozenset())


def test_a_module_a_parsed_star_import_needs_is_read_though_it_imports_no_word() -> None:
    """``m2`` star-imports ``core`` and ``m0``; ``m0`` imports nothing, so no word admits
    it, yet what ``from m2 import *`` binds is unknown until it is read (found by the
    property of ``test_import_spellings.py``: a use of ``f`` after ``from pkg.m2 import *``
    was clean)."""
    files = {
        "pkg/__init__.py": "",
        "pkg/core.py": "def f(): ...\n",
        "pkg/m0.py": "x = 1\n",
        "pkg/m1.py": "from .m0 import *\n",  # star-imports it too, but no word admits m1
        "pkg/m2.py": "from pkg.core import *\nfrom pkg.m0 import *\n",
    }
    emap, _, parsed, _ = grow(files, ["pkg.core.f"], parsed=dict(chain()))
    assert "pkg.m0" in parsed
    assert "pkg.m1" not in parsed
    assert emap.exported_names("pkg.m2") == {"f", "x"}
    assert emap.star_needs() == frozenset()
