"""What a kept answer stands on, as stat signatures: the tree a run can read, this package's
code, the installed modules a qualified pattern's graph may read, and the folders where a
manifest is looked for.

Standard library only (and the agent's path test, the walk's own): the kept-answer lookup
(:mod:`.answer_lookup`) recomputes these before anything else of the package is imported.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys

try:  # the digest alone: hashlib would load OpenSSL first (2 ms of a warm answer's start)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter built without it
    from hashlib import blake2b

from pytest_cleantree.agent import inside

TYPE_CHECKING = False  # not typing's: nothing here imports typing
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

#: the names a manifest is looked for by in each folder, and what ends the search
#: (:func:`pytest_cleantree.config.discovery.discover_manifest`)
DISCOVERY_NAMES = ("cleantree.toml", "pyproject.toml", ".git")


def tree_signature(root: str, literals: Iterable[str], starts: Iterable[str]) -> tuple[str, int]:
    """The signature of what a run over ``root`` can read, and the newest mtime or ctime in
    it (see :mod:`.answers` for what it covers): each ``literal`` entry's stat (and, for a
    folder, its walk), and the walk from each of ``starts`` (``""``: the root)."""
    lines: list[str] = []
    newest = 0
    walks = set(starts)
    for entry in sorted(literals):
        newest = max(newest, _record(lines, root, entry, os.path.join(root, entry)))
        if os.path.isdir(os.path.join(root, entry)):
            walks.add(entry)
    for base in sorted(walks):
        lines.append(f"\0walk {base}\n")
        newest = max(newest, _walk(lines, root, base))
    return _digest_of(lines), newest


def _digest_of(lines: list[str]) -> str:
    """The digest of the recorded lines, taken once (as if each was added in turn)."""
    return blake2b("".join(lines).encode(errors="surrogateescape"), digest_size=16).hexdigest()


def _walk(lines: list[str], root: str, base: str) -> int:
    """Record every entry under ``root/base`` the agent's walk may meet; the newest time."""
    newest = 0
    start = os.path.join(root, base) if base else root
    stack: list[tuple[str, str, tuple[str, ...]]] = [(start, base, (os.path.realpath(start),))]
    while stack:
        folder, rel_folder, chain = stack.pop()
        try:
            with os.scandir(folder) as found:
                entries = sorted(found, key=_name)
        except OSError as exc:
            lines.append(f"{rel_folder}\0unlisted {exc.errno}\n")
            continue
        prefix = rel_folder + "/" if rel_folder else ""
        inner: list[tuple[str, str, tuple[str, ...]]] = []
        for entry in entries:
            name, full = entry.name, entry.path
            rel = prefix + name
            when, is_folder, is_link = _record_entry(lines, rel, full, entry)
            if when > newest:
                newest = when
            if name.startswith(".") or not is_folder:
                continue  # listed, not entered (as the agent's walk)
            # a folder that is no link is where its parent really is, by its own name: only
            # a link needs the (costly) resolution
            real = os.path.realpath(full) if is_link else os.path.join(chain[-1], name)
            if inside(real, root) and real not in chain:  # a link out or back: not followed
                inner.append((full, rel, (*chain, real)))
        stack.extend(sorted(inner, reverse=True))
    return newest


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


def _entered(entry: os.DirEntry[str]) -> bool:
    return entry.is_dir() and not entry.is_symlink()


def _record(lines: list[str], root: str, rel: str, full: str) -> int:
    """Add one entry's stat (and its link's target and the target's stat) to ``lines``;
    its newest mtime or ctime (folders: 0, their listing is recorded instead)."""
    return _record_entry(lines, rel, full)[0]


def _record_entry(
    lines: list[str], rel: str, full: str, entry: os.DirEntry[str] | None = None
) -> tuple[int, bool, bool]:
    """:func:`_record`, whether the entry is a folder as :func:`os.path.isdir` says
    (through a link; an error is not one), from the stat already taken, and whether it is
    a link; ``entry``: ``full`` as its folder's listing met it (its own stat, no new path)."""
    try:
        info = entry.stat(follow_symlinks=False) if entry else os.stat(full, follow_symlinks=False)
    except OSError as exc:
        lines.append(f"{rel}\0error {exc.errno}\n")
        return 0, False, False
    mode = info.st_mode
    if stat.S_ISDIR(mode):
        lines.append(f"{rel}\0dir {info.st_dev} {info.st_ino}\n")
        return 0, True, False
    newest = max(info.st_mtime_ns, info.st_ctime_ns)
    shown = (
        f"{rel}\0{mode} {info.st_size} {info.st_mtime_ns} {info.st_ctime_ns} "
        f"{info.st_ino} {info.st_dev}"
    )
    if not stat.S_ISLNK(mode):
        lines.append(shown + "\n")
        return newest, False, False
    # a link: where it leads, then what is there
    parts = [shown, os.path.realpath(full)]
    is_folder = False
    try:
        info = os.stat(full)
    except OSError as exc:
        parts.append(f"error {exc.errno}")
    else:
        is_folder = stat.S_ISDIR(info.st_mode)
        if is_folder:
            parts.append(f"dir {info.st_dev} {info.st_ino}")
        else:
            parts.append(
                f"{info.st_mode} {info.st_size} {info.st_mtime_ns} {info.st_ctime_ns} "
                f"{info.st_ino} {info.st_dev}"
            )
            newest = max(newest, info.st_mtime_ns, info.st_ctime_ns)
    lines.append("\0".join(parts) + "\n")
    return newest, is_folder, True


def environment_signature(cwd: str) -> tuple[str, int]:
    """The top entries of every folder on ``sys.path`` (but the current one), with the stat of
    each and a folder's own mtime: what a qualified pattern's graph may read outside the tree.
    Installing, upgrading or removing a package adds, replaces or removes a top folder or its
    ``dist-info``; a hand edit deep inside an installed package is not seen (documented)."""
    lines: list[str] = []
    newest = 0
    here = {"", ".", cwd}
    for folder in dict.fromkeys(sys.path):
        if folder in here or not os.path.isdir(folder):
            continue
        try:
            names = sorted(os.listdir(folder))
        except OSError as exc:
            lines.append(f"{folder} error {exc.errno}\n")
            continue
        for name in names:
            full = os.path.join(folder, name)
            newest = max(newest, _record(lines, folder, full, full))
            with contextlib.suppress(OSError):
                info = os.stat(full)
                if stat.S_ISDIR(info.st_mode):  # a file added or removed in the package
                    lines.append(f"{info.st_mtime_ns} {info.st_ctime_ns}\n")
                    newest = max(newest, info.st_mtime_ns, info.st_ctime_ns)
    return _digest_of(lines), newest


def code_signature(package: str = "") -> tuple[str, int]:
    """The stat of every module of this package (the whole answer depends on all of them);
    ``package``: another package's folder (a test's)."""
    lines: list[str] = []
    package = package or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    newest = 0
    folders = [package]
    while folders:  # as os.walk, top down, each folder's names sorted, its stats its own
        folder = folders.pop()
        with contextlib.suppress(OSError), os.scandir(folder) as found:
            entries = sorted(found, key=_name)
            # os.walk's: a link to a folder is no file, and is not entered
            inner = [e.path for e in entries if e.name != "__pycache__" and _entered(e)]
            folders.extend(reversed(inner))
            for entry in entries:
                if entry.name.endswith((".py", ".json")) and not entry.is_dir():
                    newest = max(newest, _record_entry(lines, entry.path, entry.path, entry)[0])
    return _digest_of(lines), newest


def digest(*parts: str) -> str:
    """A short digest of ``parts``, each preceded by its length, so that no two lists of
    parts collide (no ``json``: 1.3 ms of a kept answer's start)."""
    material = "".join(f"{len(part)}:{part}" for part in parts).encode(errors="surrogateescape")
    return blake2b(material, digest_size=16).hexdigest()


def discovery_signature(folders: Sequence[str]) -> tuple[str, int]:
    """The stat of each name :data:`DISCOVERY_NAMES` in each of ``folders`` (those a
    manifest search from the current folder went through): a manifest or a repository
    added, removed or edited on the way changes which manifest is found."""
    lines: list[str] = []
    newest = 0
    for folder in folders:
        for name in DISCOVERY_NAMES:
            full = os.path.join(folder, name)
            newest = max(newest, _record(lines, folder, full, full))
    return _digest_of(lines), newest
