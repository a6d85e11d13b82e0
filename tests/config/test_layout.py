"""Module names from the layout of a listing, as Python would import each file."""

from __future__ import annotations

import pytest

from pytest_cleantree.config.layout import (
    LayoutError,
    import_file,
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
        # a folder without __init__.py inside a package is a namespace package in it
        (SGLANG, "python/sglang/srt/layers/communicator.py", {}, "sglang.srt.layers.communicator"),
        # a folder with no package at or above it: a top module
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
            "pyproject.toml: tool.setuptools.package-dir.\"\": '../elsewhere' leaves the tree; "
            "import roots are relative to the tree",
        ),
        (
            '[tool.setuptools]\npackages = ["a-b"]\n',
            "pyproject.toml: tool.setuptools.packages[0]: expected a dotted package name",
        ),
        (
            '[tool.setuptools.packages.find]\nwhere = "src"\n',
            "pyproject.toml: tool.setuptools.packages.find.where: expected a list",
        ),
        ("tool = 1\n", "pyproject.toml: tool: expected a table"),
        (
            "[tool.setuptools]\npackage-dir = 1\n",
            "pyproject.toml: tool.setuptools.package-dir: expected a table",
        ),
        (
            '[tool.setuptools]\npackage-dir = {"a-b" = "src"}\n',
            "pyproject.toml: tool.setuptools.package-dir.a-b: expected a dotted package name",
        ),
        (
            '[tool.setuptools]\npackage-dir = {"a" = 1}\n',
            "pyproject.toml: tool.setuptools.package-dir.a: expected a folder name",
        ),
        (
            "[tool.setuptools.packages]\nfind = 1\n",
            "pyproject.toml: tool.setuptools.packages.find: expected a table",
        ),
        (
            "[tool.setuptools.packages.find]\nwhere = [1]\n",
            "pyproject.toml: tool.setuptools.packages.find.where[0]: expected a folder name",
        ),
        (
            "[tool.setuptools]\npackages = 1\n",
            "pyproject.toml: tool.setuptools.packages: expected a list or a table",
        ),
        ("[tool]\nhatch = 1\n", "pyproject.toml: tool.hatch: expected a table"),
        ("[tool.hatch]\nbuild = 1\n", "pyproject.toml: tool.hatch.build: expected a table"),
        ("[tool.hatch.build]\ntargets = 1\n", "pyproject.toml: targets: expected a table"),
        (
            "[tool.hatch.build.targets]\nwheel = 1\n",
            "pyproject.toml: tool.hatch.build.targets.wheel: expected a table",
        ),
        (
            '[tool.hatch.build.targets.wheel]\npackages = "src/ns"\n',
            "pyproject.toml: hatch wheel packages: expected a list",
        ),
        (
            '[tool.hatch.build.targets.wheel]\npackages = ["src/ns", 1]\n',
            "pyproject.toml: tool.hatch.build.targets.wheel.packages[1]: expected a folder name",
        ),
        ("[tool]\npoetry = 1\n", "pyproject.toml: tool.poetry: expected a table"),
        (
            '[tool.poetry]\npackages = "ns"\n',
            "pyproject.toml: tool.poetry.packages: expected a list",
        ),
        (
            '[tool.poetry]\npackages = [{include = "a"}, {include = "b", from = 1}]\n',
            "pyproject.toml: tool.poetry.packages[1].from: expected a folder name",
        ),
    ],
)
def test_bad_pyproject_names_the_key(pyproject: str, problem: str) -> None:
    with pytest.raises(LayoutError) as info:
        pyproject_package_dirs(pyproject)
    if problem.endswith(": "):  # TOML's own words follow
        assert str(info.value).startswith(problem)
    else:
        assert str(info.value) == problem


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


def test_pyproject_settings_give_each_folder_its_package() -> None:
    setuptools = (
        "[tool.setuptools]\n"
        'packages = ["pkg.sub", "other", "lone.mod"]\n'
        'package-dir = {"pkg" = "lib/pkg", "" = "src"}\n'
    )
    assert pyproject_package_dirs(setuptools) == {
        "lib/pkg": "pkg",
        "src": "",
        "lib/pkg/sub": "pkg.sub",
        "src/other": "other",
        "src/lone/mod": "lone.mod",
    }
    assert pyproject_package_dirs('[tool.setuptools]\npackages = ["a.b"]\n') == {"a/b": "a.b"}
    dotted = '[tool.setuptools]\npackages = ["pkg.sub.x"]\npackage-dir = {"pkg.sub" = "there"}\n'
    assert pyproject_package_dirs(dotted) == {"there": "pkg.sub", "there/x": "pkg.sub.x"}
    assert pyproject_package_dirs('[tool.setuptools.packages.find]\nwhere = ["src"]\n') == {
        "src": ""
    }
    assert pyproject_package_dirs("[tool.setuptools.packages.find]\n") == {}
    assert pyproject_package_dirs("[tool.setuptools]\npackages = {}\n") == {}
    hatch = '[tool.hatch.build.targets.wheel]\npackages = ["src/ns", "top"]\n'
    assert pyproject_package_dirs(hatch) == {"src": "", "": ""}
    poetry = '[tool.poetry]\npackages = [{include = "a"}, {include = "ns", from = "src"}]\n'
    assert pyproject_package_dirs(poetry) == {"src": ""}
    assert pyproject_package_dirs("") == {}


def test_import_roots_and_package_dirs_are_the_layouts_mappings() -> None:
    layout = parse_layout(
        ["lib/x.py"],
        import_roots=["./src/", "python\\pkgs", "a//b/."],
        package_dirs={"lib": "my.pkg"},
    )
    assert layout.mapped == (("a/b", ""), ("lib", "my.pkg"), ("python/pkgs", ""), ("src", ""))
    assert layout.module_name("lib/x.py") == "my.pkg.x"
    with pytest.raises(LayoutError, match=r"^package 'a-b' \(for 'lib'\) is not a dotted name$"):
        parse_layout([], package_dirs={"lib": "a-b"})


def test_paths_for_prefers_a_source_then_the_shallowest_file() -> None:
    layout = parse_layout(
        ["z/x.pyi", "x.pyi", "a/x.py", "x.py", "z/x.py"], import_roots=["", "a", "z"]
    )
    assert layout.paths_for("x") == ("x.py", "a/x.py", "z/x.py", "x.pyi", "z/x.pyi")


def test_a_folder_below_a_root_is_named_as_written() -> None:
    layout = parse_layout(["src/X/a.py", "src/sp /a.py"], import_roots=["src"])
    assert layout.module_name("src/X/a.py") == "X.a"
    assert layout.module_name("src/sp /a.py") is None  # "sp " is no identifier


def test_the_layout_decides_a_name_under_a_package_or_a_root_and_knows_packages() -> None:
    layout = parse_layout([*SRC, "scripts/run.py"], import_roots=["tests"])
    assert layout.decides("src/pkg/core.py")  # a package chain above it
    assert layout.decides("tests/test_core.py")  # an import root holds it
    assert not layout.decides("scripts/run.py")  # its file name only
    assert not layout.decides("src/top.py")
    assert layout.is_package("src/pkg/__init__.py")
    assert layout.is_package("src/pkg/sub/__init__.pyi")
    assert not layout.is_package("src/pkg/core.py")
    assert not layout.is_package("README.md")


def test_a_package_wins_over_a_module_of_the_same_name() -> None:
    layout = parse_layout(["pkg/__init__.py", "pkg/mod.py", "pkg/mod/__init__.py"])
    assert layout.paths_for("pkg.mod") == ("pkg/mod/__init__.py", "pkg/mod.py")


def test_folders_without_init_inside_a_package_are_namespace_packages_in_it() -> None:
    layout = parse_layout(["python/pkg/__init__.py", "python/pkg/a/b/x.py", "python/y/z.py"])
    assert layout.decides("python/pkg/a/b/x.py")
    assert layout.module_name("python/pkg/a/b/x.py") == "pkg.a.b.x"
    assert not layout.decides("python/y/z.py")  # no package holds it
    assert module_name("a/x.py", ["__init__.py", "a/x.py"]) is None  # the root is a package


@pytest.mark.parametrize(
    ("files", "bases", "module", "expected"),
    [
        # a package before a module of its name; a module before a namespace folder
        (["p/__init__.py", "p/m.py", "p/m/__init__.py"], [""], "p.m", "p/m/__init__.py"),
        (["p/m.py", "p/m/x.py"], [""], "p.m", "p/m.py"),
        (["p/m.py", "p/m/x.py"], [""], "p.m.x", None),  # a plain module holds no sub-module
        # namespace portions across the path; a regular package searches its own folder only
        (["a/ns/x.py", "b/ns/y.py"], ["a", "b"], "ns.y", "b/ns/y.py"),
        (["a/p/__init__.py", "b/p/y.py"], ["a", "b"], "p.y", None),
        # the first base that holds a name wins; a namespace package is no file
        (["a/m.py", "b/m/__init__.py"], ["a", "b"], "m", "a/m.py"),
        (["a/ns/x.py"], ["a"], "ns", None),
        (["x.py"], [""], "nothing", None),
    ],
)
def test_import_file_finds_what_python_s_path_finder_imports(
    files: list[str], bases: list[str], module: str, expected: str | None
) -> None:
    folders = {f.rsplit("/", n)[0] for f in files for n in range(1, f.count("/") + 1)}
    assert import_file(module, bases, set(files), folders) == expected
