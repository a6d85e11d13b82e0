"""Module names from the layout of a listing, as Python would import each file."""

from __future__ import annotations

import pytest

from pytest_cleantree.config.layout import (
    LayoutError,
    module_name,
    parse_layout,
    pyproject_package_dirs,
)

SGLANG = (
    "python/sglang/__init__.py",
    "python/sglang/srt/__init__.py",
    "python/sglang/srt/utils/__init__.py",
    "python/sglang/srt/utils/common.py",
    "python/sglang/srt/layers/communicator.py",  # layers/ has no __init__.py
    "python/pyproject.toml",
    "test/srt/test_utils.py",
    "setup.py",
)
SRC = ("src/pkg/__init__.py", "src/pkg/core.py", "src/pkg/sub/__init__.py", "tests/test_core.py")
NAMESPACE = ("python/google/cloud/storage/__init__.py", "python/google/cloud/storage/blob.py")


@pytest.mark.parametrize(
    ("listing", "path", "options", "expected"),
    [
        # the root is above the package: the name comes from the __init__ chain, not the root
        (SGLANG, "python/sglang/srt/utils/common.py", {}, "sglang.srt.utils.common"),
        (SGLANG, "python/sglang/srt/utils/__init__.py", {}, "sglang.srt.utils"),
        (SGLANG, "python/sglang/__init__.py", {}, "sglang"),
        # a folder without __init__.py stops the walk: this file is imported as a top module
        (SGLANG, "python/sglang/srt/layers/communicator.py", {}, "communicator"),
        (SGLANG, "test/srt/test_utils.py", {}, "test_utils"),
        (SGLANG, "setup.py", {}, "setup"),
        (SGLANG, "python/pyproject.toml", {}, None),
        # an explicit import root makes the folders below it packages (namespace packages)
        (
            SGLANG,
            "python/sglang/srt/layers/communicator.py",
            {"import_roots": ["python"]},
            "sglang.srt.layers.communicator",
        ),
        (
            SGLANG,
            "python/sglang/srt/utils/common.py",
            {"import_roots": ["./python/"]},
            "sglang.srt.utils.common",
        ),
        (SGLANG, "test/srt/test_utils.py", {"import_roots": ["python"]}, "test_utils"),
        (SGLANG, "test/srt/test_utils.py", {"import_roots": ["."]}, "test.srt.test_utils"),
        (NAMESPACE, "python/google/cloud/storage/blob.py", {}, "storage.blob"),
        (
            NAMESPACE,
            "python/google/cloud/storage/blob.py",
            {"import_roots": ["python"]},
            "google.cloud.storage.blob",
        ),
        # the deepest import root wins
        (
            SGLANG,
            "python/sglang/srt/utils/common.py",
            {"import_roots": [".", "python"]},
            "sglang.srt.utils.common",
        ),
        # src/ layout: the walk finds it; a root that is itself a package needs its name
        (SRC, "src/pkg/sub/__init__.py", {}, "pkg.sub"),
        (SRC, "tests/test_core.py", {}, "test_core"),
        (("__init__.py", "srt/utils.py", "srt/__init__.py"), "srt/utils.py", {}, None),
        (
            ("__init__.py", "srt/utils.py", "srt/__init__.py"),
            "srt/utils.py",
            {"package_dirs": {"": "sglang"}},
            "sglang.srt.utils",
        ),
        # not importable by name
        (("my-tools/run.py",), "my-tools/run.py", {"import_roots": ["."]}, None),
        (("scripts/run-all.py",), "scripts/run-all.py", {}, None),
        # a stub is the module too
        (("pkg/__init__.pyi", "pkg/mod.pyi"), "pkg/mod.pyi", {}, "pkg.mod"),
    ],
)
def test_module_name(
    listing: tuple[str, ...], path: str, options: dict[str, object], expected: str | None
) -> None:
    assert module_name(path, listing, **options) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("pyproject", "path", "expected"),
    [
        ('[tool.setuptools]\npackage-dir = {"" = "src"}\n', "src/ns/mod.py", "ns.mod"),
        (
            '[tool.setuptools]\npackage-dir = {"mypkg" = "lib/code"}\n',
            "lib/code/util/x.py",
            "mypkg.util.x",
        ),
        (
            '[tool.setuptools]\npackages = ["a", "a.b"]\npackage-dir = {"a" = "source/a"}\n',
            "source/a/b/c.py",
            "a.b.c",
        ),
        ('[tool.setuptools.packages.find]\nwhere = ["src"]\n', "src/ns/mod.py", "ns.mod"),
        ('[tool.hatch.build.targets.wheel]\npackages = ["src/ns"]\n', "src/ns/mod.py", "ns.mod"),
        ('[tool.poetry]\npackages = [{include = "ns", from = "src"}]\n', "src/ns/mod.py", "ns.mod"),
        ("[project]\nname = 'x'\n", "src/ns/mod.py", "mod"),
    ],
)
def test_pyproject_settings_map_folders(pyproject: str, path: str, expected: str) -> None:
    listing = (path, "src/ns/other.py")
    assert module_name(path, listing, pyproject=pyproject) == expected


def test_pyproject_in_a_subfolder_is_relative_to_it() -> None:
    layout = parse_layout(
        ["python/src/ns/mod.py"],
        pyproject='[tool.setuptools]\npackage-dir = {"" = "src"}\n',
        pyproject_folder="python",
    )
    assert layout.module_name("python/src/ns/mod.py") == "ns.mod"


@pytest.mark.parametrize(
    ("pyproject", "problem"),
    [
        ("[tool.setuptools\n", "pyproject.toml: "),
        ("[tool]\nsetuptools = 1\n", "pyproject.toml: tool.setuptools: expected a table"),
        (
            '[tool.setuptools]\npackage-dir = {"" = "../elsewhere"}\n',
            "pyproject.toml: tool.setuptools.package-dir.\"\": '../elsewhere' leaves the tree",
        ),
        (
            '[tool.setuptools]\npackages = ["a-b"]\n',
            "pyproject.toml: tool.setuptools.packages[0]: expected a dotted package name",
        ),
        (
            '[tool.setuptools.packages.find]\nwhere = "src"\n',
            "pyproject.toml: tool.setuptools.packages.find.where: expected a list",
        ),
    ],
)
def test_bad_pyproject_names_the_key(pyproject: str, problem: str) -> None:
    with pytest.raises(LayoutError) as info:
        pyproject_package_dirs(pyproject)
    assert str(info.value).startswith(problem)


@pytest.mark.parametrize("root", ["/abs", "../up", "a/../../b"])
def test_import_root_outside_the_tree_is_refused(root: str) -> None:
    with pytest.raises(LayoutError, match="import roots are relative to the tree"):
        parse_layout([], import_roots=[root])


def test_paths_for_is_the_inverse_and_prefers_source_to_stub() -> None:
    layout = parse_layout([*SGLANG, "python/sglang/srt/utils/common.pyi"], import_roots=["python"])
    assert layout.paths_for("sglang.srt.utils.common") == (
        "python/sglang/srt/utils/common.py",
        "python/sglang/srt/utils/common.pyi",
    )
    assert layout.paths_for("sglang.srt.utils") == ("python/sglang/srt/utils/__init__.py",)
    assert layout.paths_for("sglang.srt.nothing") == ()
    for path in SGLANG:
        name = layout.module_name(path)
        if name is not None:
            assert path in layout.paths_for(name)


def test_namespace_packages_are_the_folders_no_file_is() -> None:
    layout = parse_layout(NAMESPACE, import_roots=["python"])
    assert layout.namespace_packages() == {"google", "google.cloud"}
    assert layout.modules() == {"google.cloud.storage", "google.cloud.storage.blob"}
