"""Only the paths named: ``cleantree check PATH...`` (what pre-commit passes, or a folder) and
``--changed-since REV`` (see :mod:`.changed`).

One rule for what a run covers.  The root named (``cleantree check .``) is the whole tree.  A
named folder is the files under it that the rules cover, as the whole-tree check would list
them (globs are expanded by the source, so links, hidden folders and exclusions are the
walk's).  A named file is checked as the whole-tree check checks it, by its path in the tree:
a link is not resolved first (the read follows it, and refuses one leading out of the root,
as it does for the walk).  A named path that does not exist is an error.  A named path is a
path, never a pattern: an entry made from it names that path alone (``src/[x]/a.py`` is not
``src/x/a.py``; :func:`~pytest_cleantree.core.patterns.literal_glob`).

A file has one path in the tree per way the walk can reach it; a named path stands for
each of its spellings in the root (:attr:`NamedPath.spellings`): as written, its folders
resolved (``linkdir/a.py`` through ``linkdir -> src`` is ``src/a.py`` too), and wholly
resolved (a link to a file is its target too).  So naming a file through a link reports
what the whole-tree check reports on the file under either path.

A rule applies to a named file when the whole-tree check would have looked at it: a
``files`` entry naming it (literally, or as a glob with the same glob rules as the
sources), an ``absent`` entry naming it or a folder holding it, an entry outside the root
(``allow_outside_root``) naming it.  Each rule is narrowed to what it covers and rules
covering none are left out; the named files no rule covers are returned too, so that the
report says so rather than "clean".  So a commit touching ``srt/server_args.py`` checks
that file against the rules naming it, and nothing else.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

from pytest_cleantree.core.errors import CleanTreeError, SourceError
from pytest_cleantree.core.model import Rule
from pytest_cleantree.core.patterns import compile_path_glob, glob_base, is_path_glob, literal_glob

__all__ = [
    "NamedPath",
    "Selection",
    "narrow_glob",
    "place_named",
    "select_paths",
    "select_rules",
    "under",
]

#: a source's expansion of entries: tuple of paths, or why they cannot be known
Expand = Callable[[Sequence[str], bool], Mapping[str, "tuple[str, ...] | SourceError"]]


@dataclasses.dataclass(frozen=True)
class Selection:
    """The rules narrowed to the named paths, the named files none of them covers, and the
    named folders (``.`` the root) whose files must be checked for the run to count."""

    rules: tuple[Rule, ...]
    uncovered: tuple[str, ...]
    folders: tuple[str, ...] = ()


@dataclasses.dataclass(frozen=True)
class NamedPath:
    """A path the user named: as given, and as a normalised path from the root (``.`` the
    root itself, ``../x`` outside it), the last part never resolved (a link stays a link);
    ``also``: the other paths in the root that reach it through links (its folders
    resolved, then the whole path)."""

    given: str
    path: str
    folder: bool
    also: tuple[str, ...] = ()

    @property
    def spellings(self) -> tuple[str, ...]:
        """Every path from the root by which the whole-tree check may meet it."""
        return (self.path, *self.also)


def under(path: str, folder: str) -> bool:
    """Is ``path`` (normalised, from the root) ``folder`` or inside it (``.``: the tree)?"""
    if folder == ".":
        return path != ".." and not path.startswith("../")
    return path == folder or path.startswith(folder + "/")


def place_named(
    names: Iterable[str], root: str, cwd: Path, *, folders: bool = True
) -> list[NamedPath]:
    """The named paths (relative to ``cwd``, or absolute) from the root, in order, without
    duplicates (``folders=False``: each is a file, as git lists a link to a folder).
    Raises :class:`CleanTreeError` for a path where nothing exists."""
    real = os.path.realpath(root)
    roots = dict.fromkeys([os.path.abspath(root), real])
    found: dict[str, NamedPath] = {}
    for name in names:
        full = _joined(cwd, name)
        if not os.path.lexists(full):
            raise CleanTreeError(f"{name}: no such file or folder")
        path = _from_root(full, tuple(roots))
        folder = folders and os.path.isdir(full)
        found.setdefault(path, NamedPath(name, path, folder, _also(full, path, real, folder)))
    return list(found.values())


def _joined(cwd: Path, name: str) -> str:
    """``name`` from ``cwd`` as the system opens it: the part up to its last ``..`` resolved
    (``lnk/../a.py`` is beside ``lnk``'s target, not beside ``lnk``), the rest as written."""
    parts = os.path.join(cwd, name).split(os.sep)
    if ".." not in parts:
        return os.path.normpath(os.sep.join(parts))
    last = len(parts) - parts[::-1].index("..")
    head = os.path.realpath(os.sep.join(parts[:last]))
    return os.path.normpath(os.path.join(head, *parts[last:]))


def _also(full: str, path: str, real_root: str, folder: bool) -> tuple[str, ...]:
    """The other paths in the root of ``full`` (placed at ``path``): its folders resolved,
    and (a folder, or a link to a file) the whole path resolved."""
    parent, name = os.path.split(full)
    candidates = [os.path.join(os.path.realpath(parent), name)]
    if folder or not os.path.isdir(full):
        candidates.append(os.path.realpath(full))
    found: dict[str, None] = {}
    for candidate in candidates:
        relative = Path(os.path.relpath(candidate, real_root)).as_posix()
        if relative != path and relative != ".." and not relative.startswith("../"):
            found[relative] = None
    return tuple(found)


def _from_root(full: str, roots: tuple[str, ...]) -> str:
    """``full`` from the root, its folders taken as written when that puts it in the root,
    else resolved (the last part never is: a named link is checked as the link)."""
    folder, name = os.path.split(full)
    candidates = [full, os.path.join(os.path.realpath(folder), name) if name else full]
    relative = ""
    for candidate in candidates:
        for root in roots:
            relative = Path(os.path.relpath(candidate, root)).as_posix()
            if not relative.startswith("../") and relative != "..":
                return relative
    return relative


def _matches(entry: str, path: str) -> bool:
    """Does a ``files`` entry name ``path``: the same path (``./a.py`` is ``a.py``), or a
    glob matching it?  A glob's wildcards never match ``..``: only an entry written
    outside the root reaches a file there, as in the whole-tree expansion."""
    if is_path_glob(entry):
        return compile_path_glob(entry).match(path) is not None
    return posixpath.normpath(entry) == path


def _absent_covers(entry: str, path: str) -> str | None:
    """What an ``absent`` entry finds present given that ``path`` exists: the path itself or
    the folder holding it that the entry names (literally or by a glob, which matches
    folders too), as the entry's expansion would name it; ``None`` when it covers nothing."""
    parts = path.split("/")
    for end in range(len(parts), 0, -1):
        here = "/".join(parts[:end])
        if here != ".." and not here.endswith("/..") and _matches(entry, here):
            return literal_glob(here) if is_path_glob(entry) else entry
    return None


def _narrowed(rule: Rule, paths: Sequence[str]) -> tuple[Rule | None, set[str]]:
    """``rule`` with the ``files`` and ``absent`` it has among ``paths`` (``None``: none),
    and the paths it covers."""
    files: dict[str, None] = {}
    absent: dict[str, None] = {}
    covered: set[str] = set()
    for path in paths:
        for entry in rule.files:
            if _matches(entry, path):
                files[literal_glob(path) if is_path_glob(entry) else entry] = None
                covered.add(path)
        for entry in rule.absent:
            if (present := _absent_covers(entry, path)) is not None:
                absent[present] = None
                covered.add(path)
    if not covered:
        return None, covered
    # the files exist (they were named): a missing one is an error, not "missing_ok"
    return dataclasses.replace(rule, files=tuple(files), absent=tuple(absent)), covered


def select_rules(rules: Iterable[Rule], paths: Sequence[str]) -> Selection:
    """The rules narrowed to ``paths`` (relative to the root, normalised; ``../`` for a path
    outside it): each keeps, as its ``files`` and ``absent``, the entries covering those
    paths (a glob's matches, a literal as written); a rule covering none is left out."""
    selected: list[Rule] = []
    covered: set[str] = set()
    for rule in rules:
        narrowed, paths_covered = _narrowed(rule, paths)
        if narrowed is not None:
            selected.append(narrowed)
            covered |= paths_covered
    return Selection(tuple(selected), tuple(p for p in paths if p not in covered))


def select_paths(rules: Sequence[Rule], named: Sequence[NamedPath], expand: Expand) -> Selection:
    """The rules narrowed to the named files (:func:`select_rules`) and folders: under a
    folder, each rule keeps its literal entries there, and the files of its globs there as
    the source lists them (a glob the source cannot list is kept whole: it reports why).
    The root named keeps every rule whole.  Each named path counts by all its spellings:
    a file is uncovered when none is covered, a folder unchecked when nothing is read under
    any (:class:`Selection` names each by its :attr:`NamedPath.path`)."""
    spelt = {n.path: n.spellings for n in named if n.folder}
    folders = list(dict.fromkeys(p for spellings in spelt.values() for p in spellings))
    if "." in folders:
        return Selection(tuple(rules), (), (".",))
    by_files = _by_files(rules, [n for n in named if not n.folder])
    if not folders:
        return by_files
    listed = _listings(rules, folders, expand)
    narrowed: list[Rule] = []
    needing = dict.fromkeys(spelt)
    file_rules = {rule.id: rule for rule in by_files.rules}
    for rule in rules:
        in_folders, absent = _in_folders(rule, folders, listed)
        for folder, spellings in spelt.items():
            if any(under(a, f) or under(f, a) for a in absent for f in spellings):
                needing.pop(folder, None)  # an absent entry is checked there
        merged = _merged(file_rules.get(rule.id), rule, in_folders, absent)
        if merged is not None:
            narrowed.append(merged)
    return Selection(tuple(narrowed), by_files.uncovered, tuple(needing))


def _by_files(rules: Sequence[Rule], named: Sequence[NamedPath]) -> Selection:
    """The rules narrowed to the named files by all their spellings; the uncovered named
    files (by :attr:`NamedPath.path`) are those with no spelling covered."""
    selection = select_rules(rules, list(dict.fromkeys(p for n in named for p in n.spellings)))
    uncovered = set(selection.uncovered)
    return dataclasses.replace(
        selection, uncovered=tuple(n.path for n in named if uncovered.issuperset(n.spellings))
    )


def _listings(
    rules: Sequence[Rule], folders: Sequence[str], expand: Expand
) -> dict[tuple[str, bool], tuple[str, ...] | SourceError]:
    """Each glob entry (files, then absent: any kind) that can reach a named folder, as
    the source expands it."""
    wanted: dict[bool, dict[str, None]] = {False: {}, True: {}}
    for rule in rules:
        for any_kind, entries in ((False, rule.files), (True, rule.absent)):
            for entry in entries:
                base = posixpath.normpath(glob_base(entry) or ".")
                reach = any(under(base, f) or under(f, base) for f in folders)
                if is_path_glob(entry) and reach:
                    wanted[any_kind][entry] = None
    listed: dict[tuple[str, bool], tuple[str, ...] | SourceError] = {}
    for any_kind, globs in wanted.items():
        if globs:
            for entry, paths in expand(list(globs), any_kind).items():
                listed[entry, any_kind] = paths
    return listed


def _in_folders(
    rule: Rule, folders: Sequence[str], listed: Mapping[tuple[str, bool], object]
) -> tuple[list[str], list[str]]:
    """The ``files`` and ``absent`` entries of ``rule`` that reach into the named folders."""
    files: dict[str, None] = {}
    absent: dict[str, None] = {}
    for any_kind, entries, out in ((False, rule.files, files), (True, rule.absent, absent)):
        for entry in entries:
            if not is_path_glob(entry):
                path = posixpath.normpath(entry)
                if any(under(path, f) or (any_kind and under(f, path)) for f in folders):
                    out[entry] = None
                continue
            paths = listed.get((entry, any_kind), ())
            if isinstance(paths, SourceError):
                out[entry] = None  # cannot be listed: checked whole, it says why
                continue
            assert isinstance(paths, tuple)
            for folder in folders:
                inside = [p for p in paths if under(p, folder)]
                narrowed = narrow_glob(entry, folder) if inside and not any_kind else None
                out.update(
                    (p, None) for p in ([narrowed] if narrowed else map(literal_glob, inside))
                )
            if any_kind:
                out.update((a, None) for f in folders if (a := _absent_covers(entry, f)))
    return list(files), list(absent)


def narrow_glob(entry: str, folder: str) -> str | None:
    """The one glob naming exactly the paths ``entry`` names under ``folder`` (``src`` and
    ``**/*.py``: ``src/**/*.py``), so that a named folder is walked once, as the whole-tree
    check walks it; ``None`` when there is not exactly one (the caller lists the files)."""
    parts = [] if folder == "." else folder.split("/")
    if _GLOB_FOLDER & set(folder) or ".." in parts:
        return None
    segments = entry.split("/")
    found: set[str] = set()
    stack = [(0, 0)]
    while stack and len(found) < 2:
        i, j = stack.pop()
        if j == len(parts):
            if i < len(segments):
                found.add("/".join([*parts, *segments[i:]]))
        elif i < len(segments) and (i < len(segments) - 1 or segments[i] == "**"):
            stack.extend(_steps(segments[i], parts[j], i, j))
    return found.pop() if len(found) == 1 else None


#: characters a folder name would need escaped in a glob: such folders are listed instead
_GLOB_FOLDER = frozenset("*?[]")


def _steps(segment: str, part: str, i: int, j: int) -> list[tuple[int, int]]:
    """Where a glob's ``segment`` may take the match when the folder's next part is ``part``:
    ``**`` matches no part, or this one (not hidden) and more; another segment this one."""
    if segment == "**":
        return [(i + 1, j), *([(i, j + 1)] if not part.startswith(".") else [])]
    if compile_path_glob(segment).match(part) is not None:
        return [(i + 1, j + 1)]
    return []


def _merged(
    by_files: Rule | None, rule: Rule, files: Sequence[str], absent: Sequence[str]
) -> Rule | None:
    """``rule`` narrowed to its entries for the named files and folders together."""
    if by_files is None and not files and not absent:
        return None
    all_files = dict.fromkeys([*(by_files.files if by_files else ()), *files])
    all_absent = dict.fromkeys([*(by_files.absent if by_files else ()), *absent])
    return dataclasses.replace(rule, files=tuple(all_files), absent=tuple(all_absent))
