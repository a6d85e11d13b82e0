"""The ``cleantree`` command: the plugin's checks for CI jobs and pre-launch hooks.

Exit codes: 0 clean, 1 violations, 2 anything that prevented a full check.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pytest_cleantree.errors import CleanTreeError, SourceError

if TYPE_CHECKING:
    from pytest_cleantree.model import Result

EXIT_CLEAN, EXIT_VIOLATIONS, EXIT_INCOMPLETE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    from pytest_cleantree.cli_fromdiff import add_from_diff_commands
    from pytest_cleantree.formats import FORMATS
    from pytest_cleantree.hosts import parse_forks, parse_seconds

    parser = argparse.ArgumentParser(
        prog="cleantree", description="Check that a tree holds no forbidden symbols."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser(
        "check",
        help="check the tree against a manifest",
        description="Exit codes: 0 clean, 1 forbidden lines remain or expectations fail, "
        "2 anything prevented a full check (bad manifest, unreadable file, unreachable host).",
    )
    which = check.add_mutually_exclusive_group()
    which.add_argument(
        "--manifest", type=Path, help="default: ./cleantree.toml, else ./pyproject.toml"
    )
    which.add_argument(
        "--reverted",
        metavar="REV",
        help="check that commit REV (or a range A..B) of the git repository here is fully "
        "reverted: the manifest is derived from its diff, as `cleantree from-diff` would",
    )
    check.add_argument("--root", help="check this folder instead of the manifest's root")
    check.add_argument(
        "--format",
        choices=FORMATS,
        default="text",
        help="text (default), json (schemas/report-v1.json), github (workflow annotations), "
        "sarif (2.1.0, for code scanning)",
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
    add_from_diff_commands(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is not None:
        code: int = handler(args)
        return code
    try:
        return _check(args)
    except CleanTreeError as exc:
        print(f"cleantree: error: {exc}", file=sys.stderr)
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
    from pytest_cleantree.engine import default_jobs, iter_checks
    from pytest_cleantree.manifest import find_manifest, load_manifest
    from pytest_cleantree.report import render_report, render_summary
    from pytest_cleantree.runner import LOCAL_TARGET, Runner
    from pytest_cleantree.sources import RemoteOptions, resolve_hosts
    from pytest_cleantree.store import default_cache_dir

    if args.reverted:
        from pytest_cleantree.fromdiff import derive_manifest_for_revert

        manifest = derive_manifest_for_revert(args.reverted, Path.cwd())
        path: Path | None = Path(manifest.path)
    else:
        path = args.manifest or find_manifest(Path.cwd())
        if path is None:
            raise CleanTreeError(
                "no cleantree.toml (or pyproject.toml with [tool.cleantree]) here; "
                "pass --manifest PATH or --reverted REV"
            )
        manifest = load_manifest(path)
    names, table = list(args.host), dict(manifest.hosts)
    if args.group and not args.inventory:
        raise CleanTreeError("--group needs --inventory FILE")
    if args.inventory:
        names += _inventory_hosts(args.inventory, args.group, table)
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
        checks = list(iter_checks(manifest.rules))
        results = list(runner.run_fleet(checks).values())
        roots = {host: getattr(runner.source(host), "root", "") for host in runner.hosts}
    finally:
        runner.close()
    clean = all(result.ok for result in results)
    complete = all(result.complete for result in results)
    if args.format == "text":
        print(render_summary(results) if clean else render_report(results))
    else:
        print(_render_machine(args.format, results, str(path), roots.get("", "")))
    if clean:
        return EXIT_CLEAN
    return EXIT_VIOLATIONS if complete else EXIT_INCOMPLETE


def _inventory_hosts(path: Path, groups: list[str], table: dict[str, str]) -> list[str]:
    """The inventory's host names (of ``groups``), each added to the host table as a spec."""
    from pytest_cleantree.inventory import load_inventory, select_hosts

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
    from pytest_cleantree.formats import render_github, render_json, render_sarif

    shown = os.path.relpath(root, os.environ.get("GITHUB_WORKSPACE") or Path.cwd()) if root else ""
    if fmt == "json":
        return render_json(results, manifest=manifest, root=root)
    if fmt == "github":
        return render_github(results, root=shown)
    return render_sarif(results, root=shown)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
