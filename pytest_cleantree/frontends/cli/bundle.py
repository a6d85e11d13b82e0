"""``cleantree example`` and ``cleantree scripts``: write out the material the package ships,
so that a wheel installed on a server with no source tree (no GitHub access) has what a clone
has.  An argparse adapter only; :mod:`pytest_cleantree.config.bundle` does the writing.

Exit codes: 0 written, 2 the folder is not empty (nothing is ever overwritten) or could not
be written.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from pytest_cleantree.core.errors import CleanTreeError

EXIT_OK, EXIT_NOT_WRITTEN = 0, 2
#: where ``cleantree example`` writes when no folder is named
DEFAULT_EXAMPLE_FOLDER = "cleantree-example"

_EXIT_CODES = "Exit codes: 0 written, 2 the folder is not empty (never overwritten) or unwritable."


def add_bundle_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    """Register ``example`` and ``scripts`` on ``cleantree``'s subcommands."""
    example = subparsers.add_parser(
        "example",
        help="write the bundled SM120 example (a manifest, a partial and a full revert) to DIR",
        description="Write the example the README runs: its cleantree.toml, the partially "
        "reverted tree the manifest points at (the check fails on purpose, five lines "
        f"remain) and the fully reverted one (clean). {_EXIT_CODES}",
    )
    example.add_argument(
        "folder",
        nargs="?",
        default=DEFAULT_EXAMPLE_FOLDER,
        metavar="DIR",
        help=f"a new or empty folder (default: ./{DEFAULT_EXAMPLE_FOLDER})",
    )
    example.set_defaults(handler=_run_example)
    scripts = subparsers.add_parser(
        "scripts",
        help="write the pre-launch wrapper, the Ansible playbook and the CI workflow to DIR",
        description="Write prelaunch/launch_server.sh (check, then start the server), "
        "ansible/cleantree.yml (each host checks itself) and ci/cleantree.yml (a GitHub "
        f"workflow). {_EXIT_CODES}",
    )
    scripts.add_argument("folder", metavar="DIR", help="a new or empty folder")
    scripts.set_defaults(handler=_run_scripts)


def _run_example(args: argparse.Namespace) -> int:
    written = _write("example", Path(args.folder))
    if written is None:
        return EXIT_NOT_WRITTEN
    manifest = shlex.quote(str(Path(args.folder) / "cleantree.toml"))
    reverted = shlex.quote(str(Path(args.folder) / "reverted" / "python" / "sglang"))
    print(
        f"cleantree: wrote the SM120 example to {args.folder} ({len(written)} files)\n"
        f"  python3 -m pytest --cleantree {manifest}    # fails on purpose: five lines remain\n"
        f"  cleantree check --manifest {manifest} --root {reverted}    # the full revert: clean"
    )
    return EXIT_OK


def _run_scripts(args: argparse.Namespace) -> int:
    written = _write("scripts", Path(args.folder))
    if written is None:
        return EXIT_NOT_WRITTEN
    print(f"cleantree: wrote {len(written)} files to {args.folder}:")
    for path in written:
        print(f"  {path}")
    return EXIT_OK


def _write(name: str, folder: Path) -> list[Path] | None:
    from pytest_cleantree.config.bundle import write_bundle

    try:
        return write_bundle(name, folder)
    except CleanTreeError as exc:
        print(f"cleantree: error: {exc}", file=sys.stderr)
        return None
