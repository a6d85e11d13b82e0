"""A qualified pattern's spellings (``names/spellings.py``) through a tree held in memory: the
modules read, what each spelling leads to, star re-exports, and files that cannot be followed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.names.modules import name_tree
from pytest_cleantree.names.spellings import (
    Spellings,
    StarSite,
    explain_name,
    pattern_spellings,
)
from pytest_cleantree.sources.base import Expansion, Needles, NoNeedle


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

    def expand(
        self,
        entries: Sequence[str],
        *,
        any_kind: bool = False,
        read_ahead: Mapping[str, Sequence[str]] | None = None,
    ) -> Mapping[str, Expansion]:
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
    ) -> Mapping[str, bytes | SourceError | NoNeedle]:
        answers: dict[str, bytes | SourceError | NoNeedle] = {}
        for path in paths:
            if path in self.read_errors:
                error = self.read_errors[path]
                if error is not None:
                    answers[path] = error
            else:
                answers[path] = self.files[path]
        return answers

    def close(self) -> None:
        pass


FILES = {
    "python/sglang/__init__.py": "",
    "python/sglang/srt/__init__.py": "",
    "python/sglang/srt/utils/__init__.py": "from .common import *\n",
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
    star = StarSite(INIT, 1, "sglang.srt.utils.common", REEXPORTED, "from .common import *")
    assert found.stars[DEFINED] == found.stars[REEXPORTED] == (star,)
    assert found.stars["other.name"] == ()
    assert found.binds == {
        "sglang.srt.utils": {"is_sm120_supported"},
        "sglang.srt.utils.common": {"is_sm120_supported"},
    }
    assert found.problems == {}
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
    assert problems.pop("a.py") == "cannot list a"
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
    assert explained.spellings == ((DEFINED, COMMON, 4), (REEXPORTED, INIT, 1))


def test_explain_a_name_that_leads_nowhere_known() -> None:
    explained = explain_name(Tree(FILES), "nowhere.name", BASES)
    assert (explained.canonical, explained.defined, explained.spellings) == (
        "nowhere.name",
        None,
        (),
    )


def test_the_tree_s_other_modules_add_the_re_exports_its_imports_reach() -> None:
    app = {"python/app/__init__.py": "from sglang.srt.utils import is_sm120_supported\n"}
    use = {"python/use.py": "import app\napp.is_sm120_supported()\n"}
    files = {**FILES, **app, **use}
    naming = name_tree(Tree(files), list(files), [])
    found = pattern_spellings(Tree(files), [DEFINED], naming.bases, naming.tree)
    assert found.names[DEFINED] == {DEFINED, REEXPORTED, "app.is_sm120_supported"}
    # no module imports app: its re-export is no way to the definition
    files = {**FILES, **app}
    naming = name_tree(Tree(files), list(files), [])
    found = pattern_spellings(Tree(files), [DEFINED], naming.bases, naming.tree)
    assert found.names[DEFINED] == {DEFINED, REEXPORTED}
