"""One contract, three ways to read a tree: the local source, SSH commands, SSH's SFTP.

Each source must give exactly the expected answers (so the three agree), on a
tree written here and on a tree nobody here wrote (a copy of stdlib packages).
"""

from __future__ import annotations

import email
import json
import os
import shutil
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path

import pytest

from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.sources.base import FileRead, ReadAnswer, Source
from pytest_cleantree.sources.local import LocalSource
from pytest_cleantree.sources.ssh import SSHSource

#: ``open_tree(root, allow_outside_root=False)``
OpenTree = Callable[..., Source]
#: the ``make_ssh_source`` fixture (see conftest.py)
SourceFactory = Callable[..., SSHSource]

KINDS = [
    "local",
    pytest.param("ssh", marks=pytest.mark.ssh),
    pytest.param("sftp", marks=pytest.mark.ssh),
]


@pytest.fixture(params=KINDS)
def open_tree(request: pytest.FixtureRequest) -> OpenTree:
    """Open a folder as a source of the parametrized kind."""
    if request.param == "local":
        return LocalSource
    make: SourceFactory = request.getfixturevalue("make_ssh_source")
    if request.param == "ssh":
        return lambda root, **options: make(root, **options)
    setup = request.getfixturevalue("sftp_only_setup")
    return lambda root, **options: make(root, setup, **options)


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("contract") / "tree"
    files = {
        "top.py": b"import os\n",
        "notes.txt": b"plain text\n",
        "with space.py": b"x = 'space'\n",
        "\u00fcn\u00ef.py": "s = '\u00fcn\u00ef'\n".encode(),
        "pkg/__init__.py": b"",
        "pkg/mod.py": b"def f():\n    return 1\n",
        "pkg/data.bin": bytes(range(256)) * 3,
        "pkg/.dot.py": b"hidden_file = 1\n",
        "pkg/.hidden/secret.py": b"hidden_folder = 1\n",
        "pkg/sub/deep.py": b"deep = True\n",
    }
    for name, data in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    (root / "link_file.py").symlink_to("pkg/mod.py")
    (root / "link_dir").symlink_to("pkg")
    (root / "dangling.py").symlink_to("nowhere.py")
    (root / "escape.txt").symlink_to("../outside.txt")
    (root.parent / "outside.txt").write_text("not in the tree\n")
    os.mkfifo(root / "fifo.py")
    return root


EXPECTED_EXPAND: dict[str, tuple[str, ...]] = {
    "**/*.py": (  # through link_dir too: Python imports through a link to a folder
        "link_dir/__init__.py",
        "link_dir/mod.py",
        "link_dir/sub/deep.py",
        "link_file.py",
        "pkg/__init__.py",
        "pkg/mod.py",
        "pkg/sub/deep.py",
        "top.py",
        "with space.py",
        "\u00fcn\u00ef.py",
    ),
    "pkg/*.py": ("pkg/__init__.py", "pkg/mod.py"),
    "pkg/**": ("pkg/__init__.py", "pkg/data.bin", "pkg/mod.py", "pkg/sub/deep.py"),
    "pkg/.hidden/*.py": ("pkg/.hidden/secret.py",),
    "pkg/.*.py": ("pkg/.dot.py",),
    "link_dir/*.py": ("link_dir/__init__.py", "link_dir/mod.py"),
    "*.txt": ("escape.txt", "notes.txt"),
    "?op.py": ("top.py",),
    "pkg/[ms]*.py": ("pkg/mod.py",),
    "missing/**/*.py": (),
    "*.rs": (),
    "top.py": ("top.py",),
    "with space.py": ("with space.py",),
    "missing.py": (),
    "pkg": ("pkg",),
    "dangling.py": ("dangling.py",),
    "link_dir": ("link_dir",),
    "fifo.py": ("fifo.py",),
}


def test_expand_answers_every_entry(open_tree: OpenTree, tree: Path) -> None:
    source = open_tree(tree)
    assert dict(source.expand(list(EXPECTED_EXPAND))) == EXPECTED_EXPAND


@pytest.fixture(scope="module")
def linked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Links between folders: cycles, a link out of the root, a folder named like a glob."""
    root = tmp_path_factory.mktemp("linked") / "tree"
    for name in ("a/m.py", "x/x.py", "y/y.py", "kernels/keep.py", "kernels/sm120_fused/k.py"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("sm120 = 1\n")
    (root / "a" / "up").symlink_to("..")  # a cycle through one link
    (root / "x" / "l1").symlink_to("../y")  # and through two
    (root / "y" / "l2").symlink_to("../x")
    (root.parent / "outside").mkdir()
    (root.parent / "outside" / "o.py").write_text("sm120 = 1\n")
    (root / "ext").symlink_to("../outside")
    (root / "dangling_dir").symlink_to("nowhere")
    return root


def _answers(found: Mapping[str, object]) -> dict[str, object]:
    return {
        entry: f"error: {got}" if isinstance(got, SourceError) else got
        for entry, got in found.items()
    }


def test_globs_follow_links_to_folders_once_per_path(open_tree: OpenTree, linked: Path) -> None:
    outside = os.path.realpath(linked.parent / "outside")
    entries = ["a/**/*.py", "x/**/*.py", "y/**", "kernels/*", "kernels/sm120*", "*/*.py"]
    assert _answers(open_tree(linked).expand(entries)) == {
        "a/**/*.py": ("a/m.py",),
        "x/**/*.py": ("x/l1/y.py", "x/x.py"),
        "y/**": ("y/l2/x.py", "y/y.py"),
        "kernels/*": ("kernels/keep.py",),
        "kernels/sm120*": (),
        "*/*.py": f"error: */*.py: cannot list every folder it covers: ext: a link to a "
        f"folder outside the root (to {outside}); set allow_outside_root = true to follow it",
    }


def test_globs_follow_links_out_of_the_root_when_allowed(open_tree: OpenTree, linked: Path) -> None:
    source = open_tree(linked, allow_outside_root=True)
    assert dict(source.expand(["*/*.py"])) == {
        "*/*.py": ("a/m.py", "ext/o.py", "kernels/keep.py", "x/x.py", "y/y.py")
    }


def test_any_kind_expansion_names_folders_and_links(open_tree: OpenTree, linked: Path) -> None:
    entries = ["kernels/sm120*", "dangl*", "kernels/*", "ext", "gone"]
    assert _answers(open_tree(linked).expand(entries, any_kind=True)) == {
        "kernels/sm120*": ("kernels/sm120_fused",),
        "dangl*": ("dangling_dir",),
        "kernels/*": ("kernels/keep.py", "kernels/sm120_fused"),
        "ext": ("ext",),
        "gone": (),
    }


def test_expand_keeps_the_order_of_entries(open_tree: OpenTree, tree: Path) -> None:
    entries = ["top.py", "**/*.py", "missing.py", "*.txt"]
    assert list(open_tree(tree).expand(entries)) == entries


def test_expand_of_nothing_is_empty(open_tree: OpenTree, tree: Path) -> None:
    assert dict(open_tree(tree).expand([])) == {}


def _shown(found: Mapping[str, ReadAnswer]) -> dict[str, FileRead | str]:
    """Each answer: the record read (every field of it: the sources must agree on each), or
    the error's text."""
    return {
        path: got if isinstance(got, FileRead) else f"error: {got}" for path, got in found.items()
    }


def test_read_gives_one_record_or_one_error_per_path(open_tree: OpenTree, tree: Path) -> None:
    paths = [
        "top.py",
        "pkg/data.bin",
        "link_file.py",
        "\u00fcn\u00ef.py",
        "with space.py",
        "pkg/__init__.py",
        "missing.py",
        "pkg",
        "dangling.py",
        "fifo.py",
        "escape.txt",
    ]
    outside = tree.parent / "outside.txt"
    assert _shown(open_tree(tree).read(paths)) == {
        "top.py": FileRead(b"import os\n"),
        "pkg/data.bin": FileRead(bytes(range(256)) * 3),
        "link_file.py": FileRead(b"def f():\n    return 1\n"),
        "\u00fcn\u00ef.py": FileRead("s = '\u00fcn\u00ef'\n".encode()),
        "with space.py": FileRead(b"x = 'space'\n"),
        "pkg/__init__.py": FileRead(b""),
        "missing.py": "error: missing.py: no such file (or a dangling link)",
        "pkg": "error: pkg: is a folder, not a file",
        "dangling.py": "error: dangling.py: no such file (or a dangling link)",
        "fifo.py": "error: fifo.py: is a FIFO, socket or device, not a file",
        "escape.txt": f"error: escape.txt: leads outside the root (to {outside}); "
        "set allow_outside_root = true to allow it",
    }


def test_read_refuses_a_file_under_a_link_out_of_the_root(
    open_tree: OpenTree, linked: Path
) -> None:
    """The file is no link: its folder is (each folder's real path is resolved once)."""
    outside = os.path.realpath(linked.parent / "outside" / "o.py")
    paths = ["x/l1/y.py", "ext/o.py", "a/up/a/m.py"]
    assert _shown(open_tree(linked).read(paths)) == {
        "x/l1/y.py": FileRead(b"sm120 = 1\n"),
        "ext/o.py": f"error: ext/o.py: leads outside the root (to {outside}); "
        "set allow_outside_root = true to allow it",
        "a/up/a/m.py": FileRead(b"sm120 = 1\n"),
    }
    allowed = open_tree(linked, allow_outside_root=True).read(["ext/o.py"])
    assert _shown(allowed) == {"ext/o.py": FileRead(b"sm120 = 1\n")}


def test_a_file_read_ahead_is_the_same_record_but_for_saying_so(
    open_tree: OpenTree, tree: Path, request: pytest.FixtureRequest
) -> None:
    """Read after a listing that read it ahead, a file is the record a plain read gives, its
    ``ahead`` told: by the source that reads ahead (the agent's), by no other."""
    paths = ["top.py", "pkg/mod.py", "\u00fcn\u00ef.py", "pkg/data.bin"]
    plain = open_tree(tree).read(paths)
    source = open_tree(tree)
    source.expand(["**/*.py", "pkg/*.bin"], read_ahead={"**/*.py": [""], "pkg/*.bin": [""]})
    found = source.read(paths, [""])
    ahead = {path: read.ahead for path, read in found.items() if isinstance(read, FileRead)}
    assert {path: replace(read, ahead=False) for path, read in found.items()} == plain
    reads_ahead = request.node.callspec.params["open_tree"] == "ssh"  # (SFTP runs no agent)
    assert ahead == dict.fromkeys(paths, reads_ahead)


def test_read_of_nothing_is_empty(open_tree: OpenTree, tree: Path) -> None:
    assert dict(open_tree(tree).read([])) == {}


def test_a_missing_root_is_an_error(open_tree: OpenTree, tmp_path: Path) -> None:
    with pytest.raises(SourceError, match=r"does not exist|not an existing folder"):
        open_tree(tmp_path / "absent").expand(["**/*.py"])


def _snapshot(root: Path) -> dict[str, tuple[int, int, bytes]]:
    """Every entry's mode and mtime, and each regular file's bytes."""
    found: dict[str, tuple[int, int, bytes]] = {}
    for folder, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(folder, name)
            info = path.lstat()
            data = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
            found[str(path.relative_to(root))] = (info.st_mode, info.st_mtime_ns, data)
    return found


def test_reading_changes_nothing_in_the_tree(open_tree: OpenTree, tree: Path) -> None:
    before = _snapshot(tree)
    source = open_tree(tree)
    listed = source.expand(list(EXPECTED_EXPAND))
    source.read(sorted({path for paths in listed.values() for path in paths}))
    source.close()
    assert _snapshot(tree) == before


@pytest.fixture(scope="module")
def stdlib_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Packages nobody here wrote: ``json`` and ``email`` from the running Python."""
    root = tmp_path_factory.mktemp("stdlib")
    ignore = shutil.ignore_patterns("__pycache__")
    for package in (json, email):
        assert package.__file__ is not None
        folder = Path(package.__file__).parent
        shutil.copytree(folder, root / folder.name, ignore=ignore)
    return root


@pytest.mark.parametrize(
    "kind",
    [pytest.param("ssh", marks=pytest.mark.ssh), pytest.param("sftp", marks=pytest.mark.ssh)],
)
def test_a_real_tree_reads_the_same_as_locally(
    kind: str,
    stdlib_tree: Path,
    make_ssh_source: SourceFactory,
    request: pytest.FixtureRequest,
) -> None:
    setup = request.getfixturevalue("sftp_only_setup") if kind == "sftp" else None
    remote = make_ssh_source(stdlib_tree, setup)
    local = LocalSource(stdlib_tree)
    entries = ["**/*.py", "email/mime/*.py", "json/__init__.py", "email/_*.py", "*/**/__init__.py"]
    listed = remote.expand(entries)
    assert listed == local.expand(entries)
    paths = list(listed["**/*.py"])
    assert len(paths) > 30
    assert remote.read(paths) == local.read(paths)
