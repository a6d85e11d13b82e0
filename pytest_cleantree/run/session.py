"""The one use case both front ends call: a request in, the manifest, checks, hosts and runner out.

``cleantree check`` and ``pytest --cleantree`` differ in how they take their options and show
results, never in how a run is assembled: manifest (or a reverted commit) -> exclusions ->
hosts -> runner -> checks.  They build a :class:`SessionRequest`, call :func:`open_session`,
and render.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_cleantree.config.exclusions import with_exclusions
from pytest_cleantree.config.manifest import load_manifest
from pytest_cleantree.core.checks import Check, iter_checks
from pytest_cleantree.core.errors import CleanTreeError, SourceError
from pytest_cleantree.core.model import Manifest, Result, Rule
from pytest_cleantree.run.cache import choose_cache_dir, say
from pytest_cleantree.run.parallel import default_jobs
from pytest_cleantree.run.runner import LOCAL_TARGET, Runner, local_root
from pytest_cleantree.sources import HostTarget, RemoteOptions, Source, resolve_hosts
from pytest_cleantree.sources.base import Expansion

if TYPE_CHECKING:
    from pytest_cleantree.names.budget import Budget
    from pytest_cleantree.names.explanation import Explanation


class OptionError(CleanTreeError):
    """A requested value that cannot be used; ``option`` is its name in the option table, so
    that each front end names it as its user typed it (``--exclude``, ``--cleantree-exclude``)."""

    def __init__(self, option: str, problem: str) -> None:
        self.option = option
        self.problem = problem
        super().__init__(f"{option}: {problem}")


@dataclass(frozen=True)
class SessionRequest:
    """What to check, where, and how: the options of either front end, parsed.

    Exactly one of ``manifest`` (a path, as given) and ``reverted`` (a commit or range of
    the repository at ``base``) names the rules.  ``base`` is the folder that a relative
    ``root`` and the reverted repository are taken from (the invocation folder).
    """

    base: Path
    manifest: Path | None = None
    reverted: str | None = None
    root: str | None = None
    exclude: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()
    inventory: Path | None = None
    groups: tuple[str, ...] = ()
    remote: RemoteOptions = field(default_factory=RemoteOptions)
    cache: bool = True
    #: parse in this many processes (``None``: the CPUs available)
    jobs: int | None = None
    forks: int | None = None
    #: check only the rules covering these files (relative to ``base``) ...
    files: tuple[str, ...] = ()
    #: ... and those changed since this git revision
    changed_since: str | None = None
    #: a missing local tree is one error at once, not one problem per rule (the CLI's way)
    tree_must_exist: bool = False
    #: with ``reverted``: the changes no check can see are listed, not an error
    allow_unchecked_changes: bool = False


@dataclass
class Session:
    """An assembled run; :meth:`close` it (it holds the runner's connections and pool)."""

    request: SessionRequest
    manifest: Manifest
    #: the manifest's path (for a reverted commit, the derived manifest's own)
    path: Path
    targets: list[HostTarget]
    runner: Runner
    checks: list[Check]
    #: the files named (as given) that no rule covers: the report says so, never "clean"
    uncovered: tuple[str, ...] = ()
    #: with ``reverted``: the changes no check can see (path, why), when allowed
    unchecked: tuple[tuple[str, str], ...] = ()
    #: the folders named (each of its paths from the root, and as given): nothing checked
    #: there is an error
    folders: tuple[tuple[tuple[str, ...], str], ...] = ()

    def unchecked_folders(self, results: Sequence[Result]) -> list[str]:
        """The named folders (as given) under which the run checked nothing: no file read
        and no ``absent`` entry there (a folder named must never pass having read nothing)."""
        from pytest_cleantree.run.selection import under

        read = [path for result in results for path in result.files]
        return [
            given
            for spellings, given in self.folders
            if not any(under(path, folder) for path in read for folder in spellings)
        ]

    def local_source(self) -> Source:
        """This machine's tree; a tree that cannot be opened is one error naming its origin."""
        source = self.runner.source()
        if isinstance(source, SourceError):
            raise SourceError(f"{'--root' if self.request.root else self.path}: {source}")
        return source

    def explain(self, qualified: str) -> Explanation:
        """Where ``qualified`` leads in this machine's tree, read as a check reads it (same
        manifest, root, layout and ``import_roots``)."""
        from pytest_cleantree.names.explanation import explain_name
        from pytest_cleantree.names.modules import name_tree

        source = self.local_source()
        entries = sorted({entry for rule in self.manifest.rules for entry in rule.files})
        files: set[str] = set()
        for listed in source.expand(entries or ["**/*.py"]).values():
            if isinstance(listed, SourceError):  # the layout would be a guess: say so
                raise listed
            files.update(listed)
        naming = name_tree(source, sorted(files), self.manifest.import_roots)
        return explain_name(source, qualified, naming.bases, naming.tree, self._graph_budget())

    def _graph_budget(self) -> Budget | None:
        """The manifest's bound on the symbol graph's work (``None``: the default)."""
        from pytest_cleantree.names.budget import Budget

        steps = self.manifest.graph_budget
        return Budget(nodes=steps) if steps is not None else None

    def roots(self) -> dict[str, str]:
        """Each host's root folder (``""`` for a host whose tree could not be opened)."""
        return {host: getattr(self.runner.source(host), "root", "") for host in self.runner.hosts}

    def mirror(self) -> str:
        """The local folder the hosts' trees stand for, when this machine is not checked: the
        root as written (``--root`` from the current folder, else the manifest's from its
        folder); ``""`` for a ``module:`` root, which names no folder here."""
        written, base = local_root(self.manifest, self.request.root, self.request.base)
        if LOCAL_TARGET in self.targets or written.startswith("module:"):
            return ""
        return os.path.join(base, written)

    def close(self) -> None:
        self.runner.close()


def open_session(request: SessionRequest, *, bare: bool = False) -> Session:
    """Load the manifest (or derive it), add the exclusions, resolve the hosts, start the
    runner and select the checks.  Raises :class:`CleanTreeError` (an :class:`OptionError`
    for a value of the request) when the run cannot start.  ``bare``: without a manifest,
    the tree at ``request.root`` with no rule (``explain --root DIR``; never a check)."""
    manifest, path, noted = _load(request, bare=bare)
    unchecked = _unchecked_changes(request) + noted
    table = dict(manifest.hosts)
    names = list(request.hosts)
    if request.groups and request.inventory is None:
        raise CleanTreeError("--group needs --inventory FILE")
    keys: dict[str, str] = {}
    if request.inventory is not None:
        names += _inventory_hosts(request.inventory, request.groups, table, keys)
    try:
        manifest = with_exclusions(manifest, request.exclude)
    except ValueError as exc:
        raise OptionError("exclude", str(exc)) from None
    try:
        targets = resolve_hosts(names, table) if names else [LOCAL_TARGET]
    except ValueError as exc:
        raise OptionError("host", str(exc)) from None
    targets = [_with_key(target, keys, request.base) for target in targets]
    runner = Runner(
        manifest,
        root_override=request.root,
        override_base=request.base,
        targets=targets,
        remote=request.remote,
        cache_dir=_cache_dir(request, manifest, targets) if request.cache else None,
        jobs=request.jobs or default_jobs(),
        forks=request.forks,
    )
    session = Session(request, manifest, path, targets, runner, [], unchecked=unchecked)
    try:
        if request.tree_must_exist and targets == [LOCAL_TARGET]:
            session.local_source()
        rules = manifest.rules
        if request.files or request.changed_since:
            rules, session.uncovered = _selected_rules(session)
        session.checks = list(iter_checks(rules))
    except BaseException:
        runner.close()
        raise
    return session


def _load(
    request: SessionRequest, *, bare: bool = False
) -> tuple[Manifest, Path, tuple[tuple[str, str], ...]]:
    """The manifest, its path, and (``--reverted``) what its derivation could not check:
    listed as not checked, never silent, and no error (a change that leaves no trace)."""
    if request.reverted:
        from pytest_cleantree.revert.git import derive_revert_check

        derived = derive_revert_check(request.reverted, request.base)
        return derived.manifest, Path(derived.manifest.path), derived.unchecked
    if request.manifest is None:
        if bare and request.root is not None:  # explain --root DIR: no rule, the tree alone
            return Manifest(str(request.root), ".", ()), Path(request.root), ()
        raise CleanTreeError("no manifest and no reverted commit to check")
    return load_manifest(request.manifest), request.manifest, ()


def _unchecked_changes(request: SessionRequest) -> tuple[tuple[str, str], ...]:
    """What the reverted change holds that no derived check can see (see
    :mod:`.reverted`): an error, unless the request allows it (then listed)."""
    if not request.reverted:
        return ()
    from pytest_cleantree.run.reverted import unchecked_changes

    found = tuple(unchecked_changes(request.reverted, request.base))
    if found and not request.allow_unchecked_changes:
        said = "; ".join(f"{path}: {why}" for path, why in found)
        raise OptionError(
            "allow_unchecked_changes",
            f"not given, and {request.reverted} holds changes no check can see ({said}): "
            "the run cannot say they are reverted",
        )
    return found


def _cache_dir(
    request: SessionRequest, manifest: Manifest, targets: list[HostTarget]
) -> Path | None:
    """The analysis cache's folder (see :func:`.cache.choose_cache_dir`): never inside this
    machine's checked tree; why there is none, when it could not be, is said once."""
    from pytest_cleantree.sources.local import resolve_local_root

    tree = None
    if LOCAL_TARGET in targets:
        with contextlib.suppress(SourceError):  # no tree to check: the run says so
            tree = str(resolve_local_root(*local_root(manifest, request.root, request.base)))
    choice = choose_cache_dir(os.environ, tree)
    if choice.why:
        say(choice.why)
    return choice.folder


def _selected_rules(session: Session) -> tuple[tuple[Rule, ...], tuple[str, ...]]:
    """The rules narrowed to the named paths and those changed since a revision, and the
    named files (as given) no rule covers (see :mod:`.selection`); the named folders whose
    files must be checked are kept in ``session.folders``."""
    from pytest_cleantree.run.changed import changed_since
    from pytest_cleantree.run.selection import place_named, select_paths

    request, manifest = session.request, session.manifest
    if session.targets != [LOCAL_TARGET]:
        raise CleanTreeError("FILE arguments and --changed-since check this machine's tree only")
    changed: list[str] = []
    if request.changed_since:
        found = changed_since(request.changed_since, str(request.base))
        if found.unchecked:
            raise CleanTreeError(_unchecked_submodules(found.unchecked))
        changed = found.paths
    base = request.base
    named = [*request.files, *changed]
    if any(os.path.realpath(base / name) == os.path.realpath(manifest.path) for name in named):
        return manifest.rules, ()  # the manifest changed: every rule may have
    source = session.local_source()
    root = getattr(source, "root", "")
    placed = place_named(request.files, root, base)
    placed += place_named(changed, root, base, folders=False)

    def expand(entries: Sequence[str], any_kind: bool) -> Mapping[str, Expansion]:
        return source.expand(entries, any_kind=any_kind)

    selection = select_paths(manifest.rules, placed, expand)
    by_path = {n.path: n for n in placed}
    session.folders = tuple(
        (by_path[path].spellings, by_path[path].given) for path in selection.folders
    )
    return selection.rules, tuple(by_path[path].given for path in selection.uncovered)


def _unchecked_submodules(unchecked: Sequence[tuple[str, str]]) -> str:
    """Why a ``--changed-since`` run cannot be complete: submodules it could not list."""
    said = "; ".join(f"{path}: {why}" for path, why in unchecked)
    return f"--changed-since: submodules not checked ({said})"


def _with_key(target: HostTarget, keys: Mapping[str, str], base: Path) -> HostTarget:
    """``target`` with its inventory's private key file (relative to ``base``, as ``ssh -i``
    takes it from the current folder), when it has one."""
    key = keys.get(target.label)
    if target.spec is None or key is None:
        return target
    identity = str(base / os.path.expanduser(key))
    return dataclasses.replace(
        target, spec=dataclasses.replace(target.spec, identity_file=identity)
    )


def _inventory_hosts(
    path: Path, groups: tuple[str, ...], table: dict[str, str], keys: dict[str, str]
) -> list[str]:
    """The inventory's host names (of ``groups``), each added to the host table as a spec,
    and its private key file to ``keys``."""
    from pytest_cleantree.config.inventory import load_inventory, select_hosts

    inventory = load_inventory(path)
    chosen = select_hosts(inventory, list(groups))
    names = []
    for name in chosen:
        spec = inventory[name].spec()
        names.append("local" if spec == "local" else name)  # ansible_connection=local
        if spec == "local":
            continue
        if table.get(name, spec) != spec:
            raise OptionError(
                "inventory",
                f"host {name!r} is also in the manifest's [hosts], as {table[name]!r}: "
                "rename one of them",
            )
        table[name] = spec
        if inventory[name].key_file:
            keys[name] = str(inventory[name].key_file)
    return names
