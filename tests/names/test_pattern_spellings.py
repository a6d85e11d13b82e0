"""A qualified pattern's spellings (``names/spellings.py``) through a tree held in memory: the
modules read, what each spelling leads to, star re-exports, and files that cannot be followed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from pytest_cleantree.config.layout import parse_layout
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.names.budget import Budget, GraphBudgetError
from pytest_cleantree.names.explanation import explain_name
from pytest_cleantree.names.exports import ModuleExports, parse_module_exports
from pytest_cleantree.names.imports import ImportSummary
from pytest_cleantree.names.modules import name_tree
from pytest_cleantree.names.spellings import (
    Spellings,
    StarSite,
    import_bases,
    modules_to_read,
    next_reads,
    pattern_spellings,
)
from pytest_cleantree.names.symbol_graph import ExportMap
from pytest_cleantree.sources.base import Expansion, FileRead, Needles, ReadAnswer, Source


class Tree:
    """A source over files held in memory; ``errors`` answers a path with an error (listing it
    when the error's path is asked for, reading it when ``read_errors`` names it)."""

    host = ""
    root = "/tree"

    def __init__(
        self,
        files: Mapping[str, str | bytes],
        errors: Mapping[str, SourceError] | None = None,
        read_errors: Mapping[str, SourceError | None] | None = None,
    ) -> None:
        self.files = {p: t.encode() if isinstance(t, str) else t for p, t in files.items()}
        self.errors = dict(errors or {})
        self.read_errors = dict(read_errors or {})
        self.asked: list[list[str]] = []

    def expand(
        self,
        entries: Sequence[str],
        *,
        any_kind: bool = False,
        read_ahead: Mapping[str, Sequence[str]] | None = None,
    ) -> Mapping[str, Expansion]:
        self.asked.append(list(entries))
        answers: dict[str, Expansion] = {}
        for entry in entries:
            if entry in self.errors:
                answers[entry] = self.errors[entry]
            elif entry == "**/*.py":
                answers[entry] = tuple(sorted(self.files))
            else:
                answers[entry] = (entry,) if entry in self.files else ()
        return answers

    def read(
        self, paths: Sequence[str], needles: Needles | None = None
    ) -> Mapping[str, ReadAnswer]:
        answers: dict[str, ReadAnswer] = {}
        for path in paths:
            if path in self.read_errors:
                error = self.read_errors[path]
                if error is not None:
                    answers[path] = error
            else:
                answers[path] = FileRead(self.files[path])
        return answers

    def close(self) -> None:
        pass


FILES = {
    "python/sglang/__init__.py": "",
    "python/sglang/srt/__init__.py": "",
    "python/sglang/srt/utils/__init__.py": "import os\nfrom .common import *\n",
    "python/sglang/srt/utils/common.py": "import os\n\n\ndef is_sm120_supported():\n    return 1\n",
}
BASES = ["python", ""]
DEFINED = "sglang.srt.utils.common.is_sm120_supported"
REEXPORTED = "sglang.srt.utils.is_sm120_supported"
INIT = "python/sglang/srt/utils/__init__.py"
COMMON = "python/sglang/srt/utils/common.py"


def test_a_star_re_export_is_a_spelling_of_the_definition() -> None:
    found = pattern_spellings(Tree(FILES), [DEFINED, REEXPORTED, "other.name"], BASES)
    assert found.names[DEFINED] == found.names[REEXPORTED] == {DEFINED, REEXPORTED}
    assert found.names["other.name"] == {"other.name"}
    assert found.words[DEFINED] == {"is_sm120_supported"}
    assert found.words["other.name"] == {"name"}
    assert DEFINED in found.targets[REEXPORTED]
    assert found.targets["other.name"] == {"other.name"}
    star = StarSite(INIT, 2, "sglang.srt.utils.common", REEXPORTED, "from .common import *")
    assert found.stars[DEFINED] == found.stars[REEXPORTED] == (star,)
    assert found.stars["other.name"] == ()
    assert found.binds == {
        # ``from .common import *`` loads ``common``: the package then has it (a star takes it)
        "sglang.srt.utils": {"common", "is_sm120_supported"},
        "sglang.srt.utils.common": {"is_sm120_supported"},
    }
    assert found.problems == {}
    assert found.leads_to("zzz.q", "zzz.q")  # a pattern not planned leads to itself
    assert found.leads_to(REEXPORTED, DEFINED)
    assert found.leads_to(DEFINED, REEXPORTED)
    assert not found.leads_to("other.name", DEFINED)


def test_a_tree_at_the_root_with_a_module_file() -> None:
    files = {"pkg/__init__.py": "from .impl import fast\n", "pkg/impl.py": "def fast(): pass\n"}
    found = pattern_spellings(Tree(files), ["pkg.impl.fast"], [""])
    assert found.names["pkg.impl.fast"] == {"pkg.impl.fast", "pkg.fast"}


def test_no_pattern_reads_nothing() -> None:
    assert pattern_spellings(Tree({}), [], BASES) == Spellings({}, {})


def test_without_a_map_every_name_may_lead_to_the_pattern() -> None:
    spellings = Spellings({"a.b": frozenset({"a.b"})}, {})
    assert spellings.leads_to("x.y", "a.b")


def test_files_that_cannot_be_followed_are_problems() -> None:
    files = {
        "a/__init__.py": "",
        "b/__init__.py": "",
        "c/__init__.py": "def (:\n",
        "d/__init__.py": b"x = '\xff'\n",
    }
    tree = Tree(
        files,
        errors={"a.py": SourceError("cannot list a"), "e.py": SourceError("cannot list e")},
        read_errors={"a/__init__.py": SourceError("cannot read a"), "b/__init__.py": None},
    )
    found = pattern_spellings(tree, ["a.x", "b.x", "c.x", "d.x", "e.x"], [""])
    problems = dict(found.problems)
    # a.py cannot be listed, but the package a/__init__.py is found first and wins over it
    assert "a.py" not in problems
    assert problems.pop("e.py") == "cannot list e"
    assert problems.pop("a/__init__.py") == "cannot read a"
    assert problems.pop("b/__init__.py") == "listed, but the source returned nothing for it"
    c = problems.pop("c/__init__.py")
    assert c.startswith("cannot follow its re-exports (SyntaxError: ")
    assert c.endswith("): the spellings of the qualified patterns through it are unknown")
    assert problems.pop("d/__init__.py").startswith("cannot follow its re-exports (SyntaxError: ")
    assert problems == {}


def test_explain_follows_the_name_to_its_definition() -> None:
    explained = explain_name(Tree(FILES), REEXPORTED, BASES)
    assert explained.qualified == REEXPORTED
    assert explained.canonical == DEFINED
    assert explained.defined == (COMMON, 4)
    assert explained.others == ()
    assert explained.spellings == ((DEFINED, COMMON, 4), (REEXPORTED, INIT, 2))


def test_explain_a_name_that_leads_nowhere_known() -> None:
    explained = explain_name(Tree(FILES), "nowhere.name", BASES)
    assert (explained.canonical, explained.defined, explained.spellings) == (
        "nowhere.name",
        None,
        (),
    )


def test_the_tree_s_other_modules_add_the_re_exports_its_imports_reach() -> None:
    app = {
        "python/app/__init__.py": "from sglang.srt.utils import is_sm120_supported\n",
        "python/api/__init__.py": "from sglang.srt.utils.common import *\n",
        "python/mod/__init__.py": "from sglang.srt import utils\n",
    }
    use = {"python/use.py": "import app, api, mod\napp.is_sm120_supported()\n"}
    files = {**FILES, **app, **use}
    naming = name_tree(Tree(files), list(files), [])
    found = pattern_spellings(Tree(files), [DEFINED], naming.bases, naming.tree)
    # each also through its file's path from the root (``python`` a namespace package there)
    assert found.names[DEFINED] == {
        DEFINED,
        REEXPORTED,
        "app.is_sm120_supported",
        "api.is_sm120_supported",
        *(f"python.{name}" for name in (DEFINED, REEXPORTED)),
        "python.app.is_sm120_supported",
        "python.api.is_sm120_supported",
    }
    assert [site.path for site in found.stars[DEFINED]] == ["python/api/__init__.py", INIT]
    # mod imports a module on the way: a use may be spelt through it, then resolved
    assert found.ways[DEFINED] == {"sglang.srt.utils", "sglang.srt.utils.common"}
    # no module imports app: its re-export is no way to the definition
    files = {**FILES, **app}
    naming = name_tree(Tree(files), list(files), [])
    found = pattern_spellings(Tree(files), [DEFINED], naming.bases, naming.tree)
    assert found.names[DEFINED] == {
        DEFINED,
        REEXPORTED,
        f"python.{DEFINED}",
        f"python.{REEXPORTED}",
    }


def test_a_relative_name_leads_to_the_pattern_when_it_completes_a_spelling() -> None:
    spellings = Spellings({"a.b.c": frozenset({"a.b.c"})}, {})
    assert spellings.leads_to(".b.c", "a.b.c")
    assert not spellings.leads_to(".z.c", "a.b.c")
    assert not spellings.leads_to(".b.c", "unknown.pattern")


def test_a_relative_import_in_a_module_file_is_from_its_package() -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/impl.py": "from .other import fast\n",
        "pkg/other.py": "def fast(): pass\n",
    }
    found = pattern_spellings(Tree(files), ["pkg.impl.fast"], [""])
    assert found.names["pkg.impl.fast"] == {"pkg.impl.fast", "pkg.other.fast"}


def test_the_first_round_asks_for_every_prefix_at_every_base() -> None:
    tree = Tree(FILES)
    pattern_spellings(tree, [DEFINED], BASES)
    parts = DEFINED.split(".")
    prefixes = [".".join(parts[:end]) for end in range(1, len(parts) + 1)]
    expected = {
        f"{base + '/' if base else ''}{prefix.replace('.', '/')}{tail}"
        for prefix in prefixes
        for base in BASES
        for tail in (".py", "/__init__.py")
    }
    assert set(tree.asked[0]) == expected


def test_modules_to_read_gives_one_file_per_prefix() -> None:
    layout = parse_layout(FILES)
    assert modules_to_read([REEXPORTED], layout) == {
        "python/sglang/__init__.py",
        "python/sglang/srt/__init__.py",
        "python/sglang/srt/utils/__init__.py",
    }


def test_import_bases_are_the_roots_then_each_top_package_s_folder_then_the_root() -> None:
    files = ["pkg/__init__.py", "src/app/__init__.py", "src/app/mod.py", "a/b/lib/__init__.py"]
    layout = parse_layout(files)
    named = {path: name for path in files if (name := layout.module_name(path))}
    # the shallowest first: the order the layout prefers files of one name in
    assert import_bases(layout, named, ["roots"]) == ["roots", "", "src", "a/b"]
    assert import_bases(layout, {"src/app/mod.py": "app.mod"}, []) == ["src", ""]


def test_a_budget_too_small_for_the_chains_ends_the_run() -> None:
    with pytest.raises(GraphBudgetError, match=r"at the module 'sglang\.srt\.utils'"):
        pattern_spellings(Tree(FILES), [DEFINED], BASES, budget=Budget(nodes=2))
    files = {**FILES, "python/use.py": "import sglang.srt.utils\n"}
    naming = name_tree(Tree(files), list(files), [])
    with pytest.raises(GraphBudgetError):
        pattern_spellings(Tree(files), [DEFINED], BASES, naming.tree, budget=Budget(nodes=6))


class Store:
    """A summary store that keeps whole modules' exports by path and content."""

    def __init__(self) -> None:
        self.kept: dict[tuple[str, bytes], ModuleExports] = {}
        self.asked: list[tuple[str, bytes, str, bool]] = []

    def summaries(self, source: Source, paths: Sequence[str]) -> dict[str, ImportSummary]:
        return {}

    def keep(self, source: Source, path: str, data: bytes, summary: ImportSummary) -> None:
        pass

    def exports(self, path: str, module: str, is_package: bool) -> ModuleExports | None:
        return None

    def keep_exports(self, path: str, exports: ModuleExports) -> None:
        pass

    def whole(self, path: str, data: bytes, module: str, is_package: bool) -> ModuleExports | None:
        self.asked.append((path, data, module, is_package))
        return self.kept.get((path, data))

    def keep_whole(self, path: str, data: bytes, exports: ModuleExports) -> None:
        self.kept[(path, data)] = exports


def test_modules_read_are_kept_in_the_store_and_taken_from_it() -> None:
    store = Store()
    first = pattern_spellings(Tree(FILES), [REEXPORTED], BASES, store=store)
    assert sorted(path for path, _ in store.kept) == sorted(FILES)
    kept = store.kept[(COMMON, FILES[COMMON].encode())]
    assert (kept.name, kept.is_package) == ("sglang.srt.utils.common", False)
    assert (COMMON, FILES[COMMON].encode(), "sglang.srt.utils.common", False) in store.asked
    assert (INIT, FILES[INIT].encode(), "sglang.srt.utils", True) in store.asked
    # a second run takes every module from the store and keeps none again
    kept_before = dict(store.kept)
    store.kept = {key: value for key, value in kept_before.items()}
    again = pattern_spellings(Tree(FILES), [REEXPORTED], BASES, store=store)
    assert again.names == first.names
    assert store.kept == kept_before


def test_next_reads_follow_the_map_one_hop_further() -> None:
    layout = parse_layout(FILES)
    read = {
        name: parse_module_exports(name, "", is_package=True) for name in ("sglang", "sglang.srt")
    }
    assert next_reads(ExportMap(read), [DEFINED], layout) == {INIT}
    read["sglang.srt.utils"] = parse_module_exports(
        "sglang.srt.utils", FILES[INIT], is_package=True
    )
    read["sglang.srt.utils.common"] = parse_module_exports(
        "sglang.srt.utils.common", FILES[COMMON], is_package=False
    )
    assert next_reads(ExportMap(read), [DEFINED, REEXPORTED], layout) == set()


def test_explain_names_every_target_a_binding_may_reach() -> None:
    files = {
        "pkg/__init__.py": (
            "try:\n    from .a import f\nexcept ImportError:\n    from .b import f\n"
        ),
        "pkg/a.py": "def f(): pass\n",
        "pkg/b.py": "\ndef f(): pass\n",
    }
    explained = explain_name(Tree(files), "pkg.f", [""])
    where = {"pkg.a.f": ("pkg/a.py", 1), "pkg.b.f": ("pkg/b.py", 2)}
    assert explained.canonical in where
    assert explained.defined == where[explained.canonical]
    assert dict(explained.others) == {
        other: spot for other, spot in where.items() if other != explained.canonical
    }


def test_explain_looks_through_the_tree() -> None:
    app = {"python/app/__init__.py": "from sglang.srt.utils import is_sm120_supported\n"}
    files = {**FILES, **app, "python/use.py": "import app\n"}
    naming = name_tree(Tree(files), list(files), [])
    explained = explain_name(Tree(files), DEFINED, naming.bases, naming.tree)
    assert ("app.is_sm120_supported", "python/app/__init__.py", 1) in explained.spellings
