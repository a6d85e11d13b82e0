"""Whole answers: a check of an unchanged tree prints what the same check printed last time.

A warm run still pays for the interpreter, the option parser, the manifest and the
analysis cache's lookups; most of that is imports.  When nothing the answer
depends on has changed, the answer itself (exit code and report) is kept whole,
keyed by:

* the question: every option as parsed, the current folder, the manifest's path,
  the whole environment (a superset of the variables the run reads: ``NO_COLOR``,
  ``CLEANTREE_ENGINE``, ``GITHUB_WORKSPACE``, ...), whether stdout is a colour
  terminal, this Python (version, executable, cache tag) and the package version;
* the state: the manifest's bytes and its resolved value (exclusions folded in),
  the root's real path, the stat of every module of this package and which astroid
  and RE2 answer, and the *signature of the tree*: path, type, size, mtime, ctime,
  inode and device of every entry of every folder the run's walk can enter (so an
  added, removed or renamed file changes it), with the target of each link.

The tree's signature over-approximates what the run reads: it enters every folder
the agent's walk enters (:func:`pytest_cleantree.agent.walk`: not those whose name
starts with ``.``, unless an entry starts below one, as the walk then does), does
not prune folders no glob can match, and stats each literal entry.  ctime moves on
every write, even one that puts the mtime back.  An edit in the same timestamp
tick as the run's stat would keep every number, so no answer is kept while any
entry changed within :data:`~.cache.RACY_NS` of the walk (git's "racy clean"
rule); the next run computes afresh and keeps it.

Only plain local checks are answered so (:data:`SOUND_OPTIONS`): a run naming hosts,
files, ``--changed-since``, ``--reverted``, report files or ``--no-cache``, or a
manifest with ``allow_outside_root`` or a ``module:`` root, always runs in full.
With a qualified pattern, the state also holds the top entries of every ``sys.path``
folder (:func:`environment_signature`: the graph may read installed modules).
Not keyed, and so documented: a change of Python that keeps ``sys.version`` and the
executable's path; a hand edit deep inside an installed package; a file changed behind the
kernel's back (a clock set back over two seconds, a file system that does not move ctime).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import stat
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from pytest_cleantree import __version__
from pytest_cleantree.agent import MODULE_PREFIX, inside
from pytest_cleantree.config.exclusions import with_exclusions
from pytest_cleantree.config.layout import LayoutError, normalize_folder
from pytest_cleantree.config.manifest import load_manifest
from pytest_cleantree.core.errors import CleanTreeError
from pytest_cleantree.core.model import PatternTier
from pytest_cleantree.core.patterns import glob_base, is_path_glob
from pytest_cleantree.run.cache import (
    RACY_NS,
    choose_cache_dir,
    load_private,
    save_private,
    which_libraries,
)
from pytest_cleantree.sources.local import local_root, resolve_local_root

#: options a whole answer may be kept for, whatever their value (each is in the key)
SOUND_OPTIONS = frozenset(
    {
        "command",
        "manifest",
        "root",
        "exclude",
        "format",
        "exit_zero",
        "quiet",
        "statistics",
        "jobs",
        "forks",
        "allow_unchecked_changes",
        # remote settings: unused without a host, keyed all the same
        "known_hosts",
        "accept_new_host_key",
        "ssh_config",
        "python",
        "timeout",
        "connect_timeout",
    }
)

#: options that must be off (empty): each makes the answer depend on git, a host, or writes
BYPASS_OPTIONS = frozenset(
    {
        "files",
        "changed_since",
        "reverted",
        "sarif_output",
        "json_output",
        "no_cache",
        "host",
        "inventory",
        "group",
    }
)


@dataclass(frozen=True)
class Answer:
    """What a check printed on stdout (``None``: nothing) and its exit code."""

    code: int
    stdout: str | None


@dataclass(frozen=True)
class WarmQuestion:
    """A check whose whole answer may be kept: where, and the state it was asked in."""

    file: str
    state: str
    #: the newest mtime or ctime of what the state covers, and when the walk began (ns)
    newest: int
    since: int
    manifest: Path
    manifest_bytes: bytes

    def lookup(self) -> Answer | None:
        """The answer kept for this very state, if any."""
        entry, _ = load_private(self.file, os.geteuid())
        try:
            if entry.get("state") != self.state:
                return None
            code, stdout = entry["code"], entry["stdout"]
        except (KeyError, AttributeError):
            return None
        if not isinstance(code, int) or not (stdout is None or isinstance(stdout, str)):
            return None
        return Answer(code, stdout)

    def keep(self, answer: Answer) -> bool:
        """Keep ``answer`` unless the state may hide a change (racy, or the manifest was
        rewritten during the run); is it kept?"""
        if self.newest >= self.since - RACY_NS:
            return False
        try:
            if self.manifest.read_bytes() != self.manifest_bytes:
                return False
        except OSError:
            return False
        entry = {"state": self.state, "code": answer.code, "stdout": answer.stdout}
        save_private(self.file, entry, os.geteuid())
        return True


def ask_warm(
    options: Mapping[str, object],
    manifest: Path,
    cwd: str,
    env: Mapping[str, str],
    color: bool,
) -> WarmQuestion | None:
    """The warm question of a ``check`` with these parsed options, or ``None`` when its
    answer may depend on more than the key covers (then the run is always in full)."""
    if any(name not in SOUND_OPTIONS | BYPASS_OPTIONS for name in options):
        return None  # an option this module does not know: never guess it is harmless
    if any(options[name] for name in BYPASS_OPTIONS if name in options):
        return None
    since = time.time_ns()  # before any stat: what is read after it is at least as new
    try:
        manifest_bytes = manifest.read_bytes()
        loaded = load_manifest(manifest)
        exclude = options.get("exclude")
        patterns = [str(p) for p in exclude] if isinstance(exclude, (list, tuple)) else []
        loaded = with_exclusions(loaded, patterns)
        root_option = options.get("root")
        override = None if root_option is None else str(root_option)
        written, base = local_root(loaded, override, Path(cwd))
        if loaded.allow_outside_root or written.startswith(MODULE_PREFIX):
            return None
        root = os.path.realpath(resolve_local_root(written, base))
    except (CleanTreeError, OSError, ValueError):
        return None  # the full run says what is wrong
    folder = choose_cache_dir(env, root).folder
    if folder is None:
        return None
    question = _digest(
        json.dumps(canonical(dict(options))),
        cwd,
        str(manifest),
        repr(sorted(env.items())),
        str(color),
        sys.version,
        sys.executable,
        str(sys.implementation.cache_tag),
        __version__,
    )
    entries = {entry for rule in loaded.rules for entry in (*rule.files, *rule.absent)}
    # the symbol graph reads the import roots' Python files, a dot folder's too (issue 48)
    entries |= {f"{root}/**/*.py" for root in map(_folder, loaded.import_roots) if root}
    tree, newest = tree_signature(root, entries)
    code, code_newest = _code_signature()
    if any(p.tier is PatternTier.QUALIFIED for rule in loaded.rules for p in rule.patterns):
        # the graph may read installed modules (names/environment.py): an install, upgrade
        # or removal must not keep an answer it changes
        environment, environment_newest = environment_signature(cwd)
        code += environment
        code_newest = max(code_newest, environment_newest)
    resolved = json.dumps(canonical(loaded))
    state = _digest(manifest_bytes.hex(), resolved, root, tree, code, which_libraries())
    file = os.path.join(folder, "answers", question + ".json")
    return WarmQuestion(file, state, max(newest, code_newest), since, manifest, manifest_bytes)


def _folder(root: str) -> str:
    try:
        return normalize_folder(root)
    except LayoutError:
        return ""  # the run refuses it, and keeps no answer


def tree_signature(root: str, entries: Iterable[str]) -> tuple[str, int]:
    """The signature of what a run over ``root`` with these file entries can read, and the
    newest mtime or ctime in it (see the module's docstring for what it covers)."""
    digest = hashlib.blake2b(digest_size=16)
    newest = 0
    starts = {""}
    for entry in sorted(entries):
        if is_path_glob(entry):
            base = glob_base(entry)
            if any(part.startswith(".") for part in base.split("/")):
                starts.add(base)  # the walk starts there, even below a dot folder
        else:
            newest = max(newest, _record(digest, root, entry, os.path.join(root, entry)))
            if os.path.isdir(os.path.join(root, entry)):
                starts.add(entry)
    for base in sorted(starts):
        digest.update(f"\0walk {base}\n".encode(errors="surrogateescape"))
        newest = max(newest, _walk(digest, root, base))
    return digest.hexdigest(), newest


def _walk(digest: hashlib.blake2b, root: str, base: str) -> int:
    """Record every entry under ``root/base`` the agent's walk may meet; the newest time."""
    newest = 0
    start = os.path.join(root, base) if base else root
    stack: list[tuple[str, str, tuple[str, ...]]] = [(start, base, (os.path.realpath(start),))]
    while stack:
        folder, rel_folder, chain = stack.pop()
        try:
            with os.scandir(folder) as found:
                names = sorted(entry.name for entry in found)
        except OSError as exc:
            digest.update(f"{rel_folder}\0unlisted {exc.errno}\n".encode(errors="surrogateescape"))
            continue
        prefix = rel_folder + "/" if rel_folder else ""
        inner: list[tuple[str, str, tuple[str, ...]]] = []
        for name in names:
            rel, full = prefix + name, os.path.join(folder, name)
            newest = max(newest, _record(digest, root, rel, full))
            if name.startswith(".") or not os.path.isdir(full):
                continue  # listed, not entered (as the agent's walk)
            real = os.path.realpath(full)
            if inside(real, root) and real not in chain:  # a link out or back: not followed
                inner.append((full, rel, (*chain, real)))
        stack.extend(sorted(inner, reverse=True))
    return newest


def _record(digest: hashlib.blake2b, root: str, rel: str, full: str) -> int:
    """Add one entry's stat (and its link's target and the target's stat) to ``digest``;
    its newest mtime or ctime (folders: 0, their listing is recorded instead)."""
    parts = [rel]
    newest = 0
    for follow in (False, True):
        try:
            info = os.stat(full, follow_symlinks=follow)
        except OSError as exc:
            parts.append(f"error {exc.errno}")
            break
        if stat.S_ISDIR(info.st_mode):
            parts.append(f"dir {info.st_dev} {info.st_ino}")
        else:
            parts.append(
                f"{info.st_mode} {info.st_size} {info.st_mtime_ns} {info.st_ctime_ns} "
                f"{info.st_ino} {info.st_dev}"
            )
            newest = max(newest, info.st_mtime_ns, info.st_ctime_ns)
        if not stat.S_ISLNK(info.st_mode) or follow:
            break
        parts.append(os.path.realpath(full))  # a link: where it leads, then what is there
        newest = max(newest, info.st_ctime_ns)
    digest.update(("\0".join(parts) + "\n").encode(errors="surrogateescape"))
    return newest


def environment_signature(cwd: str) -> tuple[str, int]:
    """The top entries of every folder on ``sys.path`` (but the current one), with the stat of
    each and a folder's own mtime: what a qualified pattern's graph may read outside the tree.
    Installing, upgrading or removing a package adds, replaces or removes a top folder or its
    ``dist-info``; a hand edit deep inside an installed package is not seen (documented)."""
    digest = hashlib.blake2b(digest_size=16)
    newest = 0
    here = {"", ".", cwd}
    for folder in dict.fromkeys(sys.path):
        if folder in here or not os.path.isdir(folder):
            continue
        try:
            names = sorted(os.listdir(folder))
        except OSError as exc:
            digest.update(f"{folder} error {exc.errno}\n".encode(errors="surrogateescape"))
            continue
        for name in names:
            full = os.path.join(folder, name)
            newest = max(newest, _record(digest, folder, full, full))
            with contextlib.suppress(OSError):
                info = os.stat(full)
                if stat.S_ISDIR(info.st_mode):  # a file added or removed in the package
                    digest.update(f"{info.st_mtime_ns} {info.st_ctime_ns}\n".encode())
                    newest = max(newest, info.st_mtime_ns, info.st_ctime_ns)
    return digest.hexdigest(), newest


def _code_signature() -> tuple[str, int]:
    """The stat of every module of this package (the whole answer depends on all of them)."""
    digest = hashlib.blake2b(digest_size=16)
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    newest = 0
    for folder, folders, files in os.walk(package):
        folders[:] = sorted(name for name in folders if name != "__pycache__")
        for name in sorted(files):
            if name.endswith((".py", ".json")):
                full = os.path.join(folder, name)
                newest = max(newest, _record(digest, package, full, full))
    return digest.hexdigest(), newest


def canonical(value: object) -> object:
    """``value`` as JSON data that is the same in every process: sets sorted (their order
    changes with the hash seed), dataclasses by field.  Anything else is its ``repr``: one
    that holds an address only ever misses."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return [type(value).__name__, [[f.name, canonical(getattr(value, f.name))] for f in fields]]
    if isinstance(value, (set, frozenset)):
        return sorted((canonical(item) for item in value), key=repr)
    if isinstance(value, (list, tuple)):
        return [canonical(item) for item in value]
    if isinstance(value, Mapping):
        return sorted(([canonical(k), canonical(v)] for k, v in value.items()), key=repr)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


def _digest(*parts: str) -> str:
    material = json.dumps(parts, ensure_ascii=False).encode(errors="surrogateescape")
    return hashlib.blake2b(material, digest_size=16).hexdigest()
