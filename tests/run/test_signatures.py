"""The stat signatures a kept answer stands on (run/signatures.py), against the obvious walk.

The signature's walk takes two shortcuts: a folder that is no link is taken to be where its
parent really is, by its own name (no ``realpath`` per folder), and the lines are digested
once at the end.  The oracle below is the plain walk: every folder resolved, every line
digested as it is met.  Both must give the same digest and the same newest time on trees
holding every kind of link the agent's walk meets: into the tree, out of it, back up to an
ancestor (a cycle), dangling, to a file, a chain of links, and a dot folder.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import pytest

from pytest_cleantree.agent import inside
from pytest_cleantree.run.signatures import code_signature, tree_signature


def _stat_line(info: os.stat_result) -> str:
    if stat.S_ISDIR(info.st_mode):
        return f"dir {info.st_dev} {info.st_ino}"
    return (
        f"{info.st_mode} {info.st_size} {info.st_mtime_ns} {info.st_ctime_ns} "
        f"{info.st_ino} {info.st_dev}"
    )


def _oracle_entry(digest: hashlib.blake2b, rel: str, full: str) -> tuple[int, bool]:
    parts, newest, is_folder = [rel], 0, False
    for follow in (False, True):
        try:
            info = os.stat(full, follow_symlinks=follow)
        except OSError as exc:
            parts.append(f"error {exc.errno}")
            is_folder = False
            break
        is_folder = stat.S_ISDIR(info.st_mode)
        parts.append(_stat_line(info))
        if not is_folder:
            newest = max(newest, info.st_mtime_ns, info.st_ctime_ns)
        if not stat.S_ISLNK(info.st_mode) or follow:
            break
        parts.append(os.path.realpath(full))
    digest.update(("\0".join(parts) + "\n").encode(errors="surrogateescape"))
    return newest, is_folder


def _oracle_walk(digest: hashlib.blake2b, root: str, base: str) -> int:
    newest = 0
    start = os.path.join(root, base) if base else root
    stack = [(start, base, (os.path.realpath(start),))]
    while stack:
        folder, rel_folder, chain = stack.pop()
        try:
            names = sorted(os.listdir(folder))
        except OSError as exc:
            digest.update(f"{rel_folder}\0unlisted {exc.errno}\n".encode())
            continue
        prefix = rel_folder + "/" if rel_folder else ""
        inner = []
        for name in names:
            rel, full = prefix + name, os.path.join(folder, name)
            when, is_folder = _oracle_entry(digest, rel, full)
            newest = max(newest, when)
            if name.startswith(".") or not is_folder:
                continue
            real = os.path.realpath(full)  # every folder resolved
            if inside(real, root) and real not in chain:
                inner.append((full, rel, (*chain, real)))
        stack.extend(sorted(inner, reverse=True))
    return newest


def oracle(root: str, literals: list[str], starts: list[str]) -> tuple[str, int]:
    digest = hashlib.blake2b(digest_size=16)
    newest, walks = 0, set(starts)
    for entry in sorted(literals):
        newest = max(newest, _oracle_entry(digest, entry, os.path.join(root, entry))[0])
        if os.path.isdir(os.path.join(root, entry)):
            walks.add(entry)
    for base in sorted(walks):
        digest.update(f"\0walk {base}\n".encode())
        newest = max(newest, _oracle_walk(digest, root, base))
    return digest.hexdigest(), newest


@pytest.fixture
def linked(tmp_path: Path) -> Path:
    """A tree with every kind of link, under a root reached through a link itself."""
    real = tmp_path / "real"
    (real / "pkg" / "sub").mkdir(parents=True)
    (real / "pkg" / "a.py").write_text("a = 1\n")
    (real / "pkg" / "sub" / "b.py").write_text("b = 2\n")
    (real / ".hidden").mkdir()
    (real / ".hidden" / "c.py").write_text("c = 3\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "d.py").write_text("d = 4\n")
    (real / "into").symlink_to(real / "pkg")  # into the tree: entered once more
    (real / "pkg" / "sub" / "up").symlink_to(real / "pkg")  # back to an ancestor: a cycle
    (real / "out").symlink_to(outside)  # out of the tree: listed, not entered
    (real / "dangling").symlink_to(real / "nowhere")
    (real / "file_link").symlink_to(real / "pkg" / "a.py")
    (real / "chain").symlink_to(real / "into")  # a link to a link to a folder
    (real / "relative").symlink_to(Path("pkg") / "sub")
    (tmp_path / "root").symlink_to(real)
    return tmp_path


@pytest.mark.parametrize("through", ["real", "root"])
@pytest.mark.parametrize(
    ("literals", "starts"),
    [
        ([], [""]),
        ([], ["pkg", "into"]),
        (["pkg/a.py", "dangling", "file_link", "missing.py", "chain"], []),
        (["relative"], ["out", ".hidden"]),
    ],
)
def test_the_signature_is_the_plain_walks(
    linked: Path, through: str, literals: list[str], starts: list[str]
) -> None:
    root = str(linked / through)
    assert tree_signature(root, literals, starts) == oracle(root, literals, starts)


def test_a_change_under_a_followed_link_changes_the_signature(linked: Path) -> None:
    """Control: the oracle is no constant; what either walk sees, both see change."""
    root = str(linked / "real")
    before = tree_signature(root, [], [""])
    (linked / "real" / "pkg" / "sub" / "new.py").write_text("")
    after = tree_signature(root, [], [""])
    assert before != after
    assert after == oracle(root, [], [""])


def code_oracle(package: str) -> tuple[str, int]:
    """The plain walk of a package's modules: os.walk, each file stat'ed by its path."""
    digest = hashlib.blake2b(digest_size=16)
    newest = 0
    for folder, folders, files in os.walk(package):
        folders[:] = sorted(name for name in folders if name != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".json")):
                full = os.path.join(folder, name)
                newest = max(newest, _oracle_entry(digest, full, full)[0])
    return digest.hexdigest(), newest


def test_the_code_signature_is_os_walks(tmp_path: Path) -> None:
    """The package's own modules, and a package with links (to a folder: not entered; to
    nowhere, named like a module: recorded), a cache folder and data files."""
    package = tmp_path / "pkg"
    (package / "sub" / "__pycache__").mkdir(parents=True)
    (package / "sub" / "__pycache__" / "m.py").write_text("")
    (package / "sub" / "m.py").write_text("m = 1\n")
    (package / "sub" / "data.json").write_text("{}")
    (package / "sub" / "notes.txt").write_text("")
    (package / "__init__.py").write_text("")
    (package / "linked").symlink_to(package / "sub")
    (package / "linked.py").symlink_to(package / "sub")
    (package / "dangling.py").symlink_to(package / "nowhere.py")
    for folder in (str(package), str(Path(inside.__code__.co_filename).parents[1])):
        assert code_signature(folder) == code_oracle(folder)
    before = code_signature(str(package))
    (package / "sub" / "m.py").write_text("m = 22\n")
    assert code_signature(str(package)) != before
