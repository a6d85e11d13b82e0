"""The ``cleantree`` command: the plugin's checks for CI jobs and pre-launch hooks.

Exit codes: 0 clean, 1 violations, 2 anything that prevented a full check.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_cleantree import __version__
from pytest_cleantree.core.errors import CleanTreeError, SourceError

if TYPE_CHECKING:
    from pytest_cleantree.core.model import Manifest, Result, Rule
    from pytest_cleantree.run.runner import Runner
    from pytest_cleantree.sources import HostTarget

EXIT_CLEAN, EXIT_VIOLATIONS, EXIT_INCOMPLETE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    from pytest_cleantree.frontends.cli.fromdiff import add_from_diff_commands
    from pytest_cleantree.frontends.options import parse_forks, parse_seconds
    from pytest_cleantree.report.formats import FORMATS

    parser = argparse.ArgumentParser(
        prog="cleantree", description="Check that a tree holds no forbidden symbols."
    )
    parser.add_argument(
        "--version", action="version", version=f"%(prog)s (pytest-cleantree) {__version__}"
    )
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser(
        "check",
        help="check the tree against a manifest",
        description="Exit codes: 0 clean, 1 forbidden lines remain or expectations fail, "
        "2 anything prevented a full check (bad manifest, unreadable file, unreachable host).",
    )
    check.add_argument(
        "files",
        nargs="*",
        metavar="FILE",
        help="check only these files, against the rules whose entries cover them (what "
        "pre-commit passes); naming the manifest itself checks everything",
    )
    check.add_argument(
        "--changed-since",
        metavar="REV",
        help="check only the files changed since git revision REV (untracked files included)",
    )
    which = check.add_mutually_exclusive_group()
    which.add_argument(
        "--manifest",
        type=Path,
        help="default: cleantree.toml, else pyproject.toml with [tool.cleantree], in the "
        "current folder or the nearest parent up to the repository's root (.git)",
    )
    which.add_argument(
        "--reverted",
        metavar="REV",
        help="check that commit REV (or a range A..B) of the git repository here is fully "
        "reverted: the manifest is derived from its diff, as `cleantree from-diff` would",
    )
    check.add_argument("--root", help="check this folder instead of the manifest's root")
    check.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="PATTERN",
        help="leave out files matching this gitignore-style pattern (relative to the root), "
        "on top of the manifest's exclude; repeatable",
    )
    check.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="text (default), json (schemas/report-v1.json), github (workflow annotations), "
        "sarif (2.1.0, for code scanning)",
    )
    check.add_argument(
        "--sarif-output",
        type=Path,
        metavar="PATH",
        help="also write SARIF to PATH, whatever --format prints (one run, two outputs; "
        "a valid document even when the check cannot run)",
    )
    check.add_argument(
        "--json-output", type=Path, metavar="PATH", help="also write the JSON report to PATH"
    )
    check.add_argument(
        "--exit-zero",
        action="store_true",
        help="exit 0 even when forbidden lines remain (2, the check could not run, stays 2)",
    )
    check.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print the findings only: no summary line, nothing at all when clean, no progress",
    )
    check.add_argument(
        "--statistics",
        action="store_true",
        help="print how many lines remain per rule and per file instead of the lines",
    )
    check.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="parse in N processes when many files need it (default: the CPUs available)",
    )
    check.add_argument(
        "--no-cache",
        action="store_true",
        help="do not keep analyses between runs (default cache: $CLEANTREE_CACHE_DIR, "
        "else ~/.cache/pytest-cleantree; never in the checked tree)",
    )
    remote = check.add_argument_group("remote hosts (SSH)")
    remote.add_argument(
        "--host",
        action="append",
        default=[],
        metavar="HOST",
        help="check the tree on this host (user@host:/path, an ~/.ssh/config alias, or a "
        "name from the manifest's [hosts]); repeat for a fleet; 'local' is this machine",
    )
    remote.add_argument(
        "--inventory",
        type=Path,
        metavar="FILE",
        help="check the hosts of this Ansible inventory (INI or YAML: ansible_host, "
        "ansible_port, ansible_user, cleantree_root, groups and children)",
    )
    remote.add_argument(
        "--group",
        action="append",
        default=[],
        metavar="G",
        help="with --inventory: only the hosts of group G (repeat for several)",
    )
    remote.add_argument("--known-hosts", type=Path, help="default: ~/.ssh/known_hosts")
    remote.add_argument(
        "--accept-new-host-key",
        action="store_true",
        help="accept (and record) a host never seen before; a changed key is always refused",
    )
    remote.add_argument("--ssh-config", type=Path, help="default: ~/.ssh/config")
    remote.add_argument("--python", default="python3", help="remote interpreter for module: roots")
    remote.add_argument(
        "--timeout",
        type=parse_seconds,
        default=60.0,
        metavar="SECONDS",
        help="timeout of one remote command (default: 60)",
    )
    remote.add_argument(
        "--connect-timeout",
        type=parse_seconds,
        default=10.0,
        metavar="SECONDS",
        help="timeout of connecting to a host, handshake and login included (default: 10)",
    )
    remote.add_argument(
        "--forks",
        type=parse_forks,
        default=None,
        metavar="N",
        help="check N hosts at once, as ansible's --forks (default: every host, up to 32); "
        "each host's results are ready as soon as it is done",
    )
    explain = commands.add_parser(
        "explain",
        help="show where a qualified name leads in the tree, and every spelling of it",
        description="Exit codes: 0 the name leads to a definition in the tree, 1 it does not, "
        "2 the manifest or the tree could not be read.",
    )
    explain.add_argument("qualified", metavar="QUALIFIED", help="a dotted name: pkg.mod.f")
    explain.add_argument(
        "--manifest", type=Path, help="default: found as `cleantree check` finds it"
    )
    explain.add_argument("--root", help="this folder instead of the manifest's root")
    explain.set_defaults(handler=_explain)
    add_from_diff_commands(commands)
    return parser


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse; an unknown flag is reported with the usage of the command it was given to
    (argparse's top-level parser would show its own, which does not list the flag's peers)."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        commands = next(
            action for action in parser._actions if isinstance(action, argparse._SubParsersAction)
        )
        command = commands.choices.get(getattr(args, "command", ""), parser)
        command.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(argv)
    handler = getattr(args, "handler", None)
    if handler is not None:
        code: int = handler(args)
        return code
    try:
        return _check(args)
    except BrokenPipeError:  # `cleantree check | head -1`: the reader has all it wanted
        _silence_stdout()
        return EXIT_INCOMPLETE  # the result was not all written: never "clean"
    except CleanTreeError as exc:
        print(f"cleantree: error: {exc}", file=sys.stderr)
        _write_error(args, exc)
        return EXIT_INCOMPLETE
    except Exception as exc:  # a bug must never read as "violations" (1), let alone "clean"
        if os.environ.get("CLEANTREE_DEBUG"):
            raise
        print(
            f"cleantree: internal error: {type(exc).__name__}: {exc} "
            "(set CLEANTREE_DEBUG=1 for the traceback, and please report it)",
            file=sys.stderr,
        )
        return EXIT_INCOMPLETE


def _check(args: argparse.Namespace) -> int:
    from pytest_cleantree.config.discovery import discover_manifest
    from pytest_cleantree.config.exclusions import with_exclusions
    from pytest_cleantree.config.manifest import load_manifest
    from pytest_cleantree.core.checks import iter_checks
    from pytest_cleantree.report.text import shown_root
    from pytest_cleantree.run.cache import default_cache_dir
    from pytest_cleantree.run.engine import default_jobs
    from pytest_cleantree.run.runner import LOCAL_TARGET, Runner
    from pytest_cleantree.sources import RemoteOptions, resolve_hosts

    if args.reverted:
        from pytest_cleantree.revert.git import derive_manifest_for_revert

        manifest = derive_manifest_for_revert(args.reverted, Path.cwd())
        path: Path | None = Path(manifest.path)
    else:
        path = args.manifest or discover_manifest(Path.cwd())
        if path is None:
            raise CleanTreeError(
                "no cleantree.toml (or pyproject.toml with [tool.cleantree]) here or in a "
                "parent folder up to the repository's root; pass --manifest PATH or --reverted REV"
            )
        manifest = load_manifest(path)
    names, table = list(args.host), dict(manifest.hosts)
    if args.group and not args.inventory:
        raise CleanTreeError("--group needs --inventory FILE")
    if args.inventory:
        names += _inventory_hosts(args.inventory, args.group, table)
    try:
        manifest = with_exclusions(manifest, args.exclude)
    except ValueError as exc:
        raise CleanTreeError(f"--exclude: {exc}") from None
    try:
        targets = resolve_hosts(names, table) if names else [LOCAL_TARGET]
    except ValueError as exc:
        raise CleanTreeError(f"--host: {exc}") from None
    remote = RemoteOptions(
        known_hosts=args.known_hosts,
        accept_new_host_key=args.accept_new_host_key,
        ssh_config=args.ssh_config,
        connect_timeout=args.connect_timeout,
        command_timeout=args.timeout,
        python=args.python,
    )
    runner = Runner(
        manifest,
        root_override=args.root,
        targets=targets,
        remote=remote,
        cache_dir=None if args.no_cache else default_cache_dir(),
        jobs=args.jobs or default_jobs(),
        forks=args.forks,
    )
    try:
        if targets == [LOCAL_TARGET]:
            source = runner.source()
            if isinstance(source, SourceError):  # no tree at all: one error, not one per rule
                raise SourceError(f"{'--root' if args.root else path}: {source}")
        rules = manifest.rules
        if args.files or args.changed_since:
            rules = _selected_rules(args, manifest, targets, runner)
        checks = list(iter_checks(rules))
        with _progress(args, runner, len({check.rule.id for check in checks})):
            results = list(runner.run_fleet(checks).values())
        roots = {host: getattr(runner.source(host), "root", "") for host in runner.hosts}
    finally:
        runner.close()
    clean = all(result.ok for result in results)
    complete = all(result.complete for result in results)
    code = EXIT_CLEAN if clean else EXIT_VIOLATIONS if complete else EXIT_INCOMPLETE
    root = roots.get("", "")
    for fmt, output in (("sarif", args.sarif_output), ("json", args.json_output)):
        if output is not None:
            _write_file(output, _render_machine(fmt, results, str(path), root))
    if args.format == "text":
        text = _render_text(args, results, shown_root(root, os.getcwd()))
        if text:
            _write(text)
    else:
        _write(_render_machine(args.format, results, str(path), root))
    if code == EXIT_VIOLATIONS and args.exit_zero:
        return EXIT_CLEAN
    return code


def _explain(args: argparse.Namespace) -> int:
    """``cleantree explain``: the modules on the name's chains are read as ``check`` reads them
    (same manifest, root, layout and ``import_roots``), so the answer is the one a check uses."""
    try:
        return _explain_or_raise(args)
    except CleanTreeError as exc:
        print(f"cleantree: error: {exc}", file=sys.stderr)
        return EXIT_INCOMPLETE


def _explain_or_raise(args: argparse.Namespace) -> int:
    from pytest_cleantree.config.discovery import discover_manifest
    from pytest_cleantree.config.manifest import load_manifest
    from pytest_cleantree.names.spellings import explain_name, import_bases, render_explanation
    from pytest_cleantree.report.text import shown_root
    from pytest_cleantree.run.engine import module_names
    from pytest_cleantree.run.runner import Runner

    if not all(part.isidentifier() for part in args.qualified.split(".")):
        raise CleanTreeError(f"{args.qualified!r} is not a dotted name such as pkg.mod.f")
    path = args.manifest or discover_manifest(Path.cwd())
    if path is None:
        raise CleanTreeError(
            "no cleantree.toml (or pyproject.toml with [tool.cleantree]) here or in a "
            "parent folder up to the repository's root; pass --manifest PATH"
        )
    manifest = load_manifest(path)
    runner = Runner(manifest, root_override=args.root)
    try:
        source = runner.source()
        if isinstance(source, SourceError):
            raise SourceError(f"{'--root' if args.root else path}: {source}")
        entries = sorted({entry for rule in manifest.rules for entry in rule.files})
        files: set[str] = set()
        for listed in source.expand(entries).values():
            if isinstance(listed, SourceError):  # the layout would be a guess: say so
                raise listed
            files.update(listed)
        layout, modules = module_names(source, sorted(files), manifest.import_roots)
        bases = import_bases(layout, modules, manifest.import_roots)
        explained = explain_name(source, args.qualified, bases)
        root = shown_root(getattr(source, "root", ""), os.getcwd())
    finally:
        runner.close()
    _write(render_explanation(explained, root))
    return EXIT_CLEAN if explained.defined is not None else EXIT_VIOLATIONS


def _render_text(args: argparse.Namespace, results: list[Result], root: str) -> str:
    from pytest_cleantree.report.text import render_report, render_statistics, render_summary

    clean = all(result.ok for result in results)
    if args.statistics:
        text = render_statistics(results, root) + "\n\n" + render_summary(results)
    else:
        text = render_summary(results) if clean else render_report(results, root)
    if not args.quiet:
        return text
    if clean:
        return ""
    return text.rpartition("\n\n")[0]  # the findings, without the summary line


def _write_file(path: Path, text: str) -> None:
    try:
        path.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        raise CleanTreeError(f"cannot write {path}: {exc.strerror or exc}") from None


def _progress(
    args: argparse.Namespace, runner: Runner, rules: int
) -> contextlib.AbstractContextManager[object]:
    """A progress line on stderr when it is a terminal (and not --quiet); else nothing, and
    nothing imported for it."""
    if args.quiet or not sys.stderr.isatty():
        return contextlib.nullcontext()
    from pytest_cleantree.frontends.cli.progress import Progress

    progress = Progress(sys.stderr, hosts=len(runner.hosts), rules=rules)
    runner.cache.on_analysed = progress.files_done
    return progress


def _selected_rules(
    args: argparse.Namespace, manifest: Manifest, targets: list[HostTarget], runner: Runner
) -> tuple[Rule, ...]:
    """The rules narrowed to FILE... and --changed-since (see :mod:`.selection`)."""
    from pytest_cleantree.run.runner import LOCAL_TARGET
    from pytest_cleantree.run.selection import changed_since, paths_under_root, select_rules

    if targets != [LOCAL_TARGET]:
        raise CleanTreeError("FILE arguments and --changed-since check this machine's tree only")
    cwd = Path.cwd()
    named = list(args.files)
    if args.changed_since:
        named += changed_since(args.changed_since, cwd)
    if any(os.path.realpath(cwd / name) == os.path.realpath(manifest.path) for name in named):
        return manifest.rules  # the manifest changed: every rule may have
    source = runner.source()
    root = getattr(source, "root", "")
    return select_rules(manifest.rules, paths_under_root(named, root, cwd))


def _write_error(args: argparse.Namespace, error: CleanTreeError) -> None:
    """Machine formats say why the run could not start, in their own terms: an empty SARIF
    file would fail its upload, and a github log without ``::error`` hides the cause."""
    from pytest_cleantree.report.formats import render_github_error, render_sarif_error

    manifest = getattr(error, "source", "") or str(args.manifest or "")
    shown = _workspace_relative(manifest) if manifest else ""
    if getattr(args, "sarif_output", None) is not None:
        try:
            _write_file(args.sarif_output, render_sarif_error(error, manifest=shown))
        except CleanTreeError as exc:
            print(f"cleantree: error: {exc}", file=sys.stderr)
    if args.format == "github":
        _write(render_github_error(error, manifest=shown))
    elif args.format == "sarif":
        _write(render_sarif_error(error, manifest=shown))


def _workspace_relative(path: str) -> str:
    workspace = os.environ.get("GITHUB_WORKSPACE") or os.getcwd()
    return Path(os.path.relpath(os.path.abspath(path), workspace)).as_posix()


def _write(text: str) -> None:
    """Print the report; a reader that stops early (``| head -1``) is not an error.

    The exit code stays the check's own, so that ``set -o pipefail`` still sees a dirty tree.
    """
    try:
        print(text, flush=True)
    except BrokenPipeError:
        _silence_stdout()


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that the interpreter's last flush cannot fail loudly."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _inventory_hosts(path: Path, groups: list[str], table: dict[str, str]) -> list[str]:
    """The inventory's host names (of ``groups``), each added to the host table as a spec."""
    from pytest_cleantree.config.inventory import load_inventory, select_hosts

    inventory = load_inventory(path)
    chosen = select_hosts(inventory, groups)
    names = []
    for name in chosen:
        spec = inventory[name].spec()
        names.append("local" if spec == "local" else name)  # ansible_connection=local
        if spec == "local":
            continue
        if table.get(name, spec) != spec:
            raise CleanTreeError(
                f"--inventory: host {name!r} is also in the manifest's [hosts], as "
                f"{table[name]!r}: rename one of them"
            )
        table[name] = spec
    return names


def _render_machine(fmt: str, results: list[Result], manifest: str, root: str) -> str:
    """Paths in github and sarif output are relative to the repository (the workspace)."""
    from pytest_cleantree.report.formats import render_github, render_json, render_sarif

    shown = os.path.relpath(root, os.environ.get("GITHUB_WORKSPACE") or Path.cwd()) if root else ""
    if fmt == "json":
        return render_json(results, manifest=manifest, root=root)
    if fmt == "github":
        return render_github(results, root=shown)
    return render_sarif(results, root=shown, manifest=_workspace_relative(manifest))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
