"""The ``cleantree`` command: the plugin's checks for CI jobs and pre-launch hooks.

Exit codes: 0 clean, 1 violations, 2 anything that prevented a full check.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_cleantree.engine import iter_checks
from pytest_cleantree.errors import CleanTreeError, SourceError
from pytest_cleantree.manifest import find_manifest, load_manifest
from pytest_cleantree.report import render_report, render_summary
from pytest_cleantree.runner import Runner

EXIT_CLEAN, EXIT_VIOLATIONS, EXIT_INCOMPLETE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cleantree", description="Check that a tree holds no forbidden symbols."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="check the tree against a manifest")
    check.add_argument(
        "--manifest", type=Path, help="default: ./cleantree.toml, else ./pyproject.toml"
    )
    check.add_argument("--root", help="check this folder instead of the manifest's root")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return _check(args)
    except CleanTreeError as exc:
        print(f"cleantree: error: {exc}", file=sys.stderr)
        return EXIT_INCOMPLETE


def _check(args: argparse.Namespace) -> int:
    path = args.manifest or find_manifest(Path.cwd())
    if path is None:
        print(
            "cleantree: error: no cleantree.toml (or pyproject.toml with [tool.cleantree]) here; "
            "pass --manifest PATH",
            file=sys.stderr,
        )
        return EXIT_INCOMPLETE
    manifest = load_manifest(path)
    root = str(Path(args.root).resolve()) if args.root else None
    runner = Runner(manifest, root_override=root)
    try:
        source = runner.source()
        if isinstance(source, SourceError):  # no tree to check at all: one error, not one per rule
            raise SourceError(f"{'--root' if args.root else path}: {source}")
        results = list(runner.run(list(iter_checks(manifest.rules))).values())
    finally:
        runner.close()
    if all(result.ok for result in results):
        print(render_summary(results))
        return EXIT_CLEAN
    print(render_report(results))
    return EXIT_VIOLATIONS if all(result.complete for result in results) else EXIT_INCOMPLETE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
