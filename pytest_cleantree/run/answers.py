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
The same answer is also filed under the command line as typed (:mod:`.answer_lookup`),
with what its state was computed from, so that the next run finds it before the option
parser and the manifest's loader are imported.
Not keyed, and so documented: a change of Python that keeps ``sys.version`` and the
executable's path; a hand edit deep inside an installed package; a file changed behind the
kernel's back (a clock set back over two seconds, a file system that does not move ctime).
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_cleantree.agent import MODULE_PREFIX
from pytest_cleantree.config.exclusions import with_exclusions
from pytest_cleantree.config.layout import LayoutError, normalize_folder
from pytest_cleantree.config.manifest import load_manifest
from pytest_cleantree.core.errors import CleanTreeError
from pytest_cleantree.core.model import Manifest, PatternTier
from pytest_cleantree.core.patterns import glob_base, is_path_glob
from pytest_cleantree.run.answer_lookup import (
    asked_where,
    typed_digest,
    typed_file,
    typed_record,
)
from pytest_cleantree.run.cache import RACY_NS, choose_cache_dir
from pytest_cleantree.run.cachedir import (
    load_private,
    save_private,
    save_private_record,
    which_libraries,
)
from pytest_cleantree.run.signatures import (
    code_signature,
    digest,
    discovery_signature,
    environment_signature,
)
from pytest_cleantree.run.signatures import tree_signature as _walk_signature
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
    #: where the answer is also filed under the command line as typed, and what its state
    #: was computed from (:mod:`.answer_lookup`); ``None``: not filed so
    typed: tuple[str, dict[str, Any]] | None = None

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
        if self.typed is not None:
            file, record = self.typed
            kept = {**record, "version": 1, "code": answer.code, "stdout": answer.stdout}
            save_private_record(file, kept, os.geteuid())
        return True


def ask_warm(
    options: Mapping[str, object],
    manifest: Path,
    cwd: str,
    env: Mapping[str, str],
    color: bool,
    *,
    argv: Sequence[str] | None = None,
    since: int | None = None,
) -> WarmQuestion | None:
    """The warm question of a ``check`` with these parsed options, or ``None`` when its
    answer may depend on more than the key covers (then the run is always in full).

    ``argv``: the command line as typed, under which the answer is also filed for
    :mod:`.answer_lookup`; ``since``: when the run began (before its manifest was looked for).
    """
    if any(name not in SOUND_OPTIONS | BYPASS_OPTIONS for name in options):
        return None  # an option this module does not know: never guess it is harmless
    if any(options[name] for name in BYPASS_OPTIONS if name in options):
        return None
    if since is None:
        since = time.time_ns()  # before any stat: what is read after it is at least as new
    try:
        manifest_bytes = manifest.read_bytes()
        found = _loaded(options, manifest, cwd)
    except (CleanTreeError, OSError, ValueError):
        return None  # the full run says what is wrong
    if found is None:
        return None
    loaded, root_path = found
    root = os.path.realpath(root_path)
    folder = choose_cache_dir(env, root).folder
    if folder is None:
        return None
    question = digest(
        json.dumps(canonical(dict(options))), str(manifest), *asked_where(cwd, env, color)
    )
    entries = {entry for rule in loaded.rules for entry in (*rule.files, *rule.absent)}
    # the symbol graph reads the import roots' Python files, a dot folder's too (issue 48)
    entries |= {f"{root}/**/*.py" for root in map(_folder, loaded.import_roots) if root}
    literals, starts = tree_walks(entries)
    tree, newest = _walk_signature(root, literals, starts)
    installed = any(p.tier is PatternTier.QUALIFIED for rule in loaded.rules for p in rule.patterns)
    code, code_newest = _code_state(installed, cwd)
    resolved = json.dumps(canonical(loaded))
    state = digest(manifest_bytes.hex(), resolved, root, tree, code, which_libraries())
    file = os.path.join(folder, "answers", question + ".json")
    newest = max(newest, code_newest)
    typed: tuple[str, dict[str, Any]] | None = None
    searched = _searched(cwd, manifest, options.get("manifest") is not None)
    if argv is not None and searched is not None:
        witness, searched_newest = discovery_signature(searched)
        newest = max(newest, searched_newest)
        record = typed_record(
            manifest=str(manifest.absolute()),
            root_path=root_path,
            root=root,
            literals=literals,
            starts=starts,
            installed=installed,
            cwd=cwd,
            searched=searched,
        )
        record["state"] = typed_digest(manifest_bytes, root, tree, code, witness)
        typed = (typed_file(str(folder), argv, cwd, env, color), record)
    return WarmQuestion(file, state, newest, since, manifest, manifest_bytes, typed)


def _loaded(options: Mapping[str, object], manifest: Path, cwd: str) -> tuple[Manifest, str] | None:
    """The manifest as the run reads it (exclusions folded in) and the tree's root as written
    from the manifest's folder (links not followed);
    ``None`` for a root no answer is kept for (outside the tree, or a module's folder)."""
    loaded = load_manifest(manifest)
    exclude = options.get("exclude")
    patterns = [str(p) for p in exclude] if isinstance(exclude, (list, tuple)) else []
    loaded = with_exclusions(loaded, patterns)
    root_option = options.get("root")
    override = None if root_option is None else str(root_option)
    written, base = local_root(loaded, override, Path(cwd))
    if loaded.allow_outside_root or written.startswith(MODULE_PREFIX):
        return None
    return loaded, str(resolve_local_root(written, base))


def _code_state(installed: bool, cwd: str) -> tuple[str, int]:
    """This package's code signature, with the installed modules' when the graph may read
    them (names/environment.py: an install, upgrade or removal must not keep an answer it
    changes); and the newest time in them."""
    code, newest = code_signature()
    if installed:
        environment, environment_newest = environment_signature(cwd)
        return code + environment, max(newest, environment_newest)
    return code, newest


def tree_walks(entries: Iterable[str]) -> tuple[list[str], list[str]]:
    """The literal entries to stat and the folders to walk (``""``: the root) for a run with
    these file entries: a glob's walk starts at the root, or at its base below a dot folder
    (the agent's walk enters one only so)."""
    literals: list[str] = []
    starts = {""}
    for entry in sorted(entries):
        if is_path_glob(entry):
            base = glob_base(entry)
            if any(part.startswith(".") for part in base.split("/")):
                starts.add(base)  # the walk starts there, even below a dot folder
        else:
            literals.append(entry)
    return literals, sorted(starts)


def _searched(cwd: str, manifest: Path, named: bool) -> list[str] | None:
    """The folders a manifest search from ``cwd`` went through to find ``manifest`` (none
    when it was named); ``None`` when they cannot be told (no typed answer is filed)."""
    if named:
        return []
    folder, goal = Path(cwd).absolute(), manifest.absolute().parent
    folders = [folder, *folder.parents]
    if goal not in folders:
        return None
    return [str(f) for f in folders[: folders.index(goal) + 1]]


def tree_signature(root: str, entries: Iterable[str]) -> tuple[str, int]:
    """The signature of what a run over ``root`` with these file entries can read, and the
    newest mtime or ctime in it (see the module's docstring for what it covers)."""
    return _walk_signature(root, *tree_walks(entries))


def _folder(root: str) -> str:
    try:
        return normalize_folder(root)
    except LayoutError:
        return ""  # the run refuses it, and keeps no answer


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
