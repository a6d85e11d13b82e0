"""The module each file of a tree is (``names/modules.py``), asked of a tree held in memory:
what the source is asked, what the layout names, and the tree the symbol graph looks in."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest

from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.names.modules import module_names, name_tree, tree_modules
from pytest_cleantree.names.modules_to_read import TreeModule
from pytest_cleantree.sources.base import Expansion, Needles, ReadAnswer


class Tree:
    """A source over a set of paths: a literal maps to itself when it is there, ``**/*.py``
    to every Python file; ``errors`` answers an entry with an error."""

    host = ""
    root = "/tree"

    def __init__(self, *files: str, errors: Mapping[str, SourceError] | None = None) -> None:
        self.files = set(files)
        self.errors = dict(errors or {})
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
                answers[entry] = tuple(sorted(f for f in self.files if f.endswith(".py")))
            else:
                answers[entry] = (entry,) if entry in self.files else ()
        return answers

    def read(
        self, paths: Sequence[str], needles: Needles | None = None
    ) -> Mapping[str, ReadAnswer]:
        raise AssertionError("naming reads no file")

    def close(self) -> None:
        pass


PACKAGE = ("pkg/__init__.py", "pkg/sub/__init__.py", "pkg/sub/mod.py", "pkg/util.py")


def test_the_source_is_asked_for_every_init_above_the_files_in_one_round() -> None:
    tree = Tree(*PACKAGE, "script.py")
    paths = ["pkg/sub/mod.py", "script.py", "/abs/x.py", "../up.py", "notes.txt"]
    _, names = module_names(tree, paths, [])
    asked = ["__init__.py", "pkg/__init__.py", "pkg/sub/__init__.py", "pyproject.toml"]
    assert tree.asked == [asked]
    # a file in no package keeps its path's name: no entry
    assert names == {"pkg/sub/mod.py": "pkg.sub.mod"}


def test_a_file_in_no_package_does_not_stop_the_others_being_named() -> None:
    _, names = module_names(Tree(*PACKAGE, "script.py"), ["script.py", "pkg/util.py"], [])
    assert names == {"pkg/util.py": "pkg.util"}


def test_an_init_among_the_files_is_not_asked_for_again() -> None:
    tree = Tree(*PACKAGE)
    _, names = module_names(tree, ["pkg/__init__.py", "pkg/util.py"], [])
    assert tree.asked == [["__init__.py", "pyproject.toml"]]
    assert names == {"pkg/__init__.py": "pkg", "pkg/util.py": "pkg.util"}


def test_import_roots_name_the_files_under_them() -> None:
    tree = Tree("src/app/main.py", "src/app/__init__.py", "tools/run.py")
    layout, names = module_names(tree, ["src/app/main.py", "tools/run.py"], ["src"])
    assert names == {"src/app/main.py": "app.main"}
    assert layout.decides("src/app/main.py")
    assert not layout.decides("tools/run.py")


def test_a_folder_whose_packages_cannot_be_known_fails() -> None:
    tree = Tree(*PACKAGE, errors={"pkg/__init__.py": SourceError("permission denied")})
    with pytest.raises(SourceError, match="permission denied"):
        module_names(tree, ["pkg/util.py"], [])


def test_a_bad_import_root_is_a_source_error_naming_the_key() -> None:
    with pytest.raises(SourceError) as info:
        module_names(Tree("a.py"), ["a.py"], ["../out"])
    assert str(info.value).startswith("import_roots: '../out' leaves the tree")
    assert info.value.__cause__ is None


def test_the_graph_s_tree_holds_every_python_file_of_the_tree() -> None:
    tree = Tree(*PACKAGE, "script.py", "README.md", "deep/x.py")
    modules = tree_modules(tree, ["pkg/util.py", "/abs/y.py", "../up.py", "extra.py"], [])
    assert tree.asked[0] == ["**/*.py"]
    assert modules == [
        TreeModule("deep/x.py", "deep.x", False),
        TreeModule("extra.py", "extra", False),
        TreeModule("pkg/__init__.py", "pkg", True),
        TreeModule("pkg/sub/__init__.py", "pkg.sub", True),
        TreeModule("pkg/sub/mod.py", "pkg.sub.mod", False),
        TreeModule("pkg/util.py", "pkg.util", False),
        TreeModule("script.py", "script", False),
    ]


def test_the_graph_s_tree_names_files_by_the_layout() -> None:
    tree = Tree("src/app/__init__.py", "src/app/main.py")
    assert tree_modules(tree, [], ["src"]) == [
        TreeModule("src/app/__init__.py", "app", True),
        TreeModule("src/app/main.py", "app.main", False),
    ]


def test_a_folder_that_cannot_be_listed_adds_nothing() -> None:
    tree = Tree(*PACKAGE, errors={"**/*.py": SourceError("cannot list")})
    assert tree_modules(tree, ["pkg/util.py"], []) == [TreeModule("pkg/util.py", "pkg.util", False)]


def test_the_names_given_are_reused_only_when_the_tree_holds_no_other_file() -> None:
    named = {"pkg/util.py": "given.name"}
    tree = Tree("pkg/util.py")
    assert tree_modules(tree, ["pkg/util.py"], [], named) == [
        TreeModule("pkg/util.py", "given.name", False)
    ]
    assert tree.asked == [["**/*.py"]]  # no init asked for: the names were given
    tree = Tree(*PACKAGE)
    modules = tree_modules(tree, ["pkg/util.py"], [], named)
    assert TreeModule("pkg/util.py", "pkg.util", False) in modules


def test_name_tree_gives_the_layout_the_modules_the_bases_and_the_tree() -> None:
    tree = Tree("python/pkg/__init__.py", "python/pkg/mod.py", "tools/run.py")
    naming = name_tree(tree, ["python/pkg/mod.py"], [])
    assert naming.modules == {"python/pkg/mod.py": "pkg.mod"}
    assert naming.layout.decides("python/pkg/mod.py")
    assert naming.bases == ["python", ""]
    assert naming.tree == [
        TreeModule("python/pkg/__init__.py", "pkg", True),
        TreeModule("python/pkg/mod.py", "pkg.mod", False),
        TreeModule("tools/run.py", "tools.run", False),
    ]


def test_name_tree_asks_for_the_inits_once() -> None:
    tree = Tree("pkg/__init__.py", "pkg/mod.py")
    naming = name_tree(tree, ["pkg/__init__.py", "pkg/mod.py"], [])
    assert tree.asked == [["**/*.py"], ["__init__.py", "pyproject.toml"]]
    assert naming.tree == [
        TreeModule("pkg/__init__.py", "pkg", True),
        TreeModule("pkg/mod.py", "pkg.mod", False),
    ]
