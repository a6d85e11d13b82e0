"""Modules outside the tree, found and read from the environment without running them (issue 48)."""

from __future__ import annotations

import email.utils
import posixpath
import sys
from pathlib import Path

import pytest

from pytest_cleantree.names.environment import find_module, read_module


def test_a_module_with_source_is_found_package_by_package() -> None:
    assert find_module("posixpath") == (posixpath.__file__, False)
    assert find_module("email.utils") == (email.utils.__file__, False)
    found = find_module("email")
    assert found is not None
    assert found[1]


@pytest.mark.parametrize(
    "name",
    [
        "sys",  # built in: no source
        "os.path",  # an attribute of a module, no module file
        "no_such_module_cleantree",
        "email.no_such_module",
        "not-a-name",
    ],
)
def test_what_has_no_source_file_is_not_read(name: str) -> None:
    assert find_module(name) is None
    assert read_module(name) is None


def test_the_current_folder_is_not_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "cleantree_here_only.py").write_text("x = 1\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", ["", str(tmp_path), *sys.path])
    assert find_module("cleantree_here_only") is None


def test_a_module_read_is_parsed_into_its_bindings() -> None:
    found = read_module("os")
    assert found is not None
    assert found.path.endswith("os.py")
    assert {b.module for b in found.exports.bound("path")} >= {"posixpath"}


class _EditableFinder:
    """What an editable install puts on ``sys.meta_path``: a finder mapping a name to a folder."""

    def __init__(self, name: str, origin: Path) -> None:
        self.name, self.origin = name, origin

    def find_spec(self, name: str, path: object, target: object = None) -> object:
        import importlib.util

        if name != self.name:
            return None
        return importlib.util.spec_from_file_location(
            name, self.origin, submodule_search_locations=[str(self.origin.parent)]
        )


def test_a_package_installed_editable_is_found_through_its_finder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "src" / "cleantree_editable"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("from .inner import f\n")
    (package / "inner.py").write_text("def f(): ...\n")
    finder = _EditableFinder("cleantree_editable", package / "__init__.py")
    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, finder])
    assert find_module("cleantree_editable") == (str(package / "__init__.py"), True)
    assert find_module("cleantree_editable.inner") == (str(package / "inner.py"), False)
