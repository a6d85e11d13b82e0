"""``cleantree from-diff``: print the manifest that says what a complete revert means.

An argparse adapter only: :func:`add_from_diff_commands` registers the command on the
``cleantree`` parser's subcommands, its options from the one table
(:data:`pytest_cleantree.frontends.options.OPTIONS`), and sets ``handler`` to
:func:`run_from_diff`; the
work is done by :mod:`pytest_cleantree.revert`.  Exit codes: 0 the manifest was
printed, 2 the input could not give one (the message says which file and line).

``python -m pytest_cleantree.frontends.cli.fromdiff from-diff ...`` runs it on its own.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from pytest_cleantree.core.errors import CleanTreeError
from pytest_cleantree.frontends.declare import add_cli_options

EXIT_OK, EXIT_BAD_INPUT = 0, 2

_DESCRIPTION = """\
Derive a manifest from the experiment itself.  Per file it changed, the lines it added
are forbidden (experiment-lines), and so is every code name it introduced into the file
(introduced-names: a name the file's code did not have before); files it added must be
absent; files it deleted must exist again.  The manifest is printed on stdout: review it,
then commit it (or run `cleantree check --reverted REV`, which takes the experiment's lines
from git blame instead)."""

_EPILOG = """\
examples:
  cleantree from-diff --rev HEAD~1..experiment > cleantree.toml
  cleantree from-diff --rev 1a2b3c4 --root python/sglang > cleantree.toml
  git diff base experiment | cleantree from-diff - > cleantree.toml
      (the tree may hold the change, or not, or only partly: a file the diff applies to
      neither way is derived from the diff alone, and named on stderr)
  cleantree from-diff experiment.patch --expect-removed > cleantree.toml"""


def add_from_diff_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    """Register ``from-diff`` on ``cleantree``'s subcommands; its ``handler`` is set."""
    parser = subparsers.add_parser(
        "from-diff",
        help="print the manifest of a complete revert of a commit, range or patch",
        description=_DESCRIPTION,
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_cli_options(parser, "from-diff")
    parser.set_defaults(handler=run_from_diff)
    return parser


def build_parser() -> argparse.ArgumentParser:
    """A ``cleantree`` parser holding only ``from-diff``, until ``cli`` registers it."""
    parser = argparse.ArgumentParser(prog="cleantree")
    add_from_diff_commands(parser.add_subparsers(dest="command", required=True))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.handler(args))


def run_from_diff(args: argparse.Namespace) -> int:
    """Print the derived manifest; on bad input, say what and where on stderr and return 2."""
    try:
        text, unverified = _derive(args)
    except CleanTreeError as exc:
        print(f"cleantree: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    _write_stdout(text)
    if unverified:
        print(
            f"cleantree: not verified against the tree (the diff applies to it neither way): "
            f"{', '.join(unverified)}: derived from the diff alone, their lines are checked, "
            "not their names (see the manifest's notes; --rev BASE..EXPERIMENT checks both)",
            file=sys.stderr,
        )
    return EXIT_OK


def _derive(args: argparse.Namespace) -> tuple[str, list[str]]:
    """The manifest's text, and the files the diff could not be verified against."""
    from pytest_cleantree.config.manifest import parse_manifest
    from pytest_cleantree.revert.diff import FromDiffError, patch_subjects
    from pytest_cleantree.revert.git import images_from_patch, images_from_rev, repository_top
    from pytest_cleantree.revert.toml import derive_manifest

    repo = Path(args.repo)
    if not repo.is_dir():
        raise FromDiffError(f"--repo {args.repo}: no such folder")
    if args.strip is not None and args.strip < 0:
        raise FromDiffError(f"--strip {args.strip}: must be 0 or more")
    if args.rev is not None:
        top = repository_top(repo)
        files, why = images_from_rev(args.rev, top)
    else:
        top = repo
        name, data = _read_patch(args.patch)
        diff = data.decode("utf-8", errors="surrogateescape")
        files = images_from_patch(diff, top, source=name, strip=args.strip)
        why = _patch_why(name, patch_subjects(diff))
    text = derive_manifest(
        files,
        expect_removed=args.expect_removed,
        text_rules=not args.no_text,
        why=args.why or why,
        root=_written_root(top, args.diff_root),
        under=args.diff_root,
    )
    parse_manifest(text, "<derived manifest>")  # what is printed is always a valid manifest
    return text, [changed.change.path for changed in files if changed.unverified]


def _read_patch(name: str) -> tuple[str, bytes]:
    from pytest_cleantree.revert.diff import FromDiffError

    if name == "-":
        return "<stdin>", sys.stdin.buffer.read()
    try:
        return name, Path(name).read_bytes()
    except OSError as exc:
        raise FromDiffError(f"{name}: cannot read the patch: {exc.strerror or exc}") from None


def _patch_why(name: str, subjects: Sequence[str]) -> str:
    where = "the diff on stdin" if name == "<stdin>" else f"the patch {name}"
    if not subjects:
        return where
    more = f" and {len(subjects) - 1} more" if len(subjects) > 1 else ""
    return f'{where} ("{subjects[0]}"{more})'


def _written_root(top: Path, root: str) -> str:
    """The manifest's ``root``: the folder checked, relative to the current folder (where the
    manifest is written), ``""`` when it is the current folder."""
    folder = (top / root).resolve() if root else top.resolve()
    relative = os.path.relpath(folder, Path.cwd().resolve()).replace(os.sep, "/")
    return "" if relative == "." else relative


def _write_stdout(text: str) -> None:
    """Write UTF-8 (what a manifest must be), whatever the console's encoding."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(text)
        return
    sys.stdout.flush()
    buffer.write(text.encode("utf-8"))
    buffer.flush()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
