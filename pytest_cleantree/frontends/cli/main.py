"""The ``cleantree`` command: the plugin's checks for CI jobs and pre-launch hooks.

Exit codes: 0 clean, 1 violations, 2 anything that prevented a full check.
"""

from __future__ import annotations

import os
import sys
import time

from pytest_cleantree.core.errors import CleanTreeError

# not typing's: a kept answer is printed without importing typing, pathlib or argparse
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    import contextlib
    from collections.abc import Mapping, Sequence
    from pathlib import Path
    from typing import TextIO

    from pytest_cleantree.core.model import Result
    from pytest_cleantree.report.context import RenderContext
    from pytest_cleantree.run.answers import WarmQuestion
    from pytest_cleantree.run.runner import Runner
    from pytest_cleantree.run.session import SessionRequest

EXIT_CLEAN, EXIT_VIOLATIONS, EXIT_INCOMPLETE = 0, 1, 2


def build_parser() -> argparse.ArgumentParser:
    import argparse  # here: a kept answer is printed without it (run/answer_lookup.py)

    from pytest_cleantree.frontends.cli.bundle import add_bundle_commands
    from pytest_cleantree.frontends.cli.fromdiff import add_from_diff_commands
    from pytest_cleantree.frontends.cli.reference import add_reference_command
    from pytest_cleantree.frontends.declare import add_cli_options

    parser = argparse.ArgumentParser(
        prog="cleantree", description="Check that a tree holds no forbidden symbols."
    )
    add_cli_options(parser, "")
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser(
        "check",
        help="check the tree against a manifest",
        description="Exit codes: 0 clean, 1 forbidden lines remain or expectations fail, "
        "2 anything prevented a full check (bad manifest, unreadable file, unreachable host).",
    )
    add_cli_options(check, "check")
    explain = commands.add_parser(
        "explain",
        help="show where a qualified name leads in the tree, and every spelling of it",
        description="Exit codes: 0 the name leads to a definition in the tree, 1 it does not, "
        "2 the manifest or the tree could not be read.",
    )
    add_cli_options(explain, "explain")
    explain.set_defaults(handler=_explain)
    init = commands.add_parser(
        "init",
        help="write a starter cleantree.toml for the tree in the current folder",
        description="Writes cleantree.toml and, beside it, cleantree.schema.json (the schema "
        "its #:schema line names, for editors; commit both). Exit codes: 0 written, 2 a "
        "cleantree.toml is already there, or a cleantree.schema.json that is not this "
        "version's schema (neither is ever overwritten), or a file could not be written.",
    )
    add_cli_options(init, "init")
    init.set_defaults(handler=_init)
    add_from_diff_commands(commands)
    add_bundle_commands(commands)
    add_reference_command(commands)
    return parser


def _parse(argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse; an unknown flag is reported with the usage of the command it was given to
    (argparse's top-level parser would show its own, which does not list the flag's peers)."""
    import argparse

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
    since = time.time_ns()  # before the manifest is looked for (see run/answers.py)
    typed = list(sys.argv[1:] if argv is None else argv)
    try:
        kept = _kept_answer(typed)
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_INCOMPLETE
    except Exception as exc:  # as below: a bug is exit 2 in one line
        return _internal_error(exc)
    if kept is not None:
        return kept
    try:  # `cleantree reference | head -1`, `--version`, `--help`: as for a check, below
        args = _parse(typed)
        handler = getattr(args, "handler", None)
        if handler is not None:
            code: int = handler(args)
            return code
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_INCOMPLETE
    try:
        return _check(args, typed, since)
    except BrokenPipeError:  # `cleantree check | head -1`: the reader has all it wanted
        _silence_stdout()
        return EXIT_INCOMPLETE  # the result was not all written: never "clean"
    except CleanTreeError as exc:
        error = _in_cli_terms(exc)
        print(f"cleantree: error: {error}", file=sys.stderr)
        _write_error(args, error)
        return EXIT_INCOMPLETE
    except Exception as exc:  # a bug must never read as "violations" (1), let alone "clean"
        return _internal_error(exc)


def _internal_error(exc: Exception) -> int:
    """Say a bug in one line (the traceback with ``CLEANTREE_DEBUG``); exit 2."""
    if os.environ.get("CLEANTREE_DEBUG"):
        raise exc
    print(
        f"cleantree: internal error: {type(exc).__name__}: {exc} "
        "(set CLEANTREE_DEBUG=1 for the traceback, and please report it)",
        file=sys.stderr,
    )
    return EXIT_INCOMPLETE


def _kept_answer(typed: Sequence[str]) -> int | None:
    """The exit code of a check whose answer was kept for this very command line and
    nothing it depends on has changed, its report written (:mod:`.run.answer_lookup`:
    found before the option parser or the manifest's loader is imported); else ``None``."""
    from pytest_cleantree.run.answer_lookup import lookup_typed

    try:
        kept = lookup_typed(typed, os.getcwd(), os.environ, use_color(sys.stdout, os.environ))
    except OSError:
        return None  # no current folder, say: the full run says what is wrong
    if kept is None:
        return None
    code, stdout = kept
    if stdout is not None:
        _write(stdout)
    return code


def _check(args: argparse.Namespace, typed: Sequence[str], since: int) -> int:
    path = _manifest_path(args, "--manifest PATH or --reverted REV")
    warm = _warm(args, path, typed, since)
    if warm is not None:
        answer = warm.lookup()
        if answer is not None:  # nothing it depends on has changed (see run/answers.py)
            if answer.stdout is not None:
                _write(answer.stdout)
            return answer.code
    from pytest_cleantree.run.session import open_session

    session = open_session(_request(args, path))
    try:
        checks = session.checks
        with _progress(args, session.runner, len({check.rule.id for check in checks})):
            results = list(session.runner.run_fleet(checks).values())
        roots = session.roots()
    finally:
        session.close()
    empty = session.unchecked_folders(results)
    if empty and not results:
        raise CleanTreeError(_nothing_checked(empty))
    clean = all(result.ok for result in results)
    complete = all(result.complete for result in results) and not empty
    code = EXIT_CLEAN if clean and complete else EXIT_VIOLATIONS if complete else EXIT_INCOMPLETE
    context = _context(
        args, str(session.path), roots.pop("", ""), session.uncovered, roots, session.mirror()
    )
    shown = _write_reports(args, results, context)
    for where, why in session.unchecked:  # allowed: said, never silent
        print(f"cleantree: not checked: {where}: {why}", file=sys.stderr)
    if empty:
        print(f"cleantree: error: {_nothing_checked(empty)}", file=sys.stderr)
    if code == EXIT_VIOLATIONS and args.exit_zero:
        code = EXIT_CLEAN
    if warm is not None and complete and not session.unchecked:
        from pytest_cleantree.run.answers import Answer

        warm.keep(Answer(code, shown))
    return code


def _warm(
    args: argparse.Namespace, manifest: Path | None, typed: Sequence[str], since: int
) -> WarmQuestion | None:
    """The run's warm question (``None``: always run in full; see :mod:`.run.answers`)."""
    if manifest is None:
        return None
    from pytest_cleantree.run.answers import ask_warm

    options = {name: value for name, value in vars(args).items() if name != "handler"}
    color = use_color(sys.stdout, os.environ)
    return ask_warm(options, manifest, os.getcwd(), os.environ, color, argv=typed, since=since)


def _nothing_checked(folders: Sequence[str]) -> str:
    """Why a run naming these folders is incomplete: it read nothing under them."""
    shown = ", ".join(folders)
    return f"nothing checked under {shown}: no rule covers a file there"


def _manifest_path(args: argparse.Namespace, hint: str) -> Path | None:
    """The manifest named, else found from here; ``None`` with ``--reverted`` (derived)."""
    from pathlib import Path

    from pytest_cleantree.config.discovery import discover_manifest, misspelled_table

    if getattr(args, "reverted", None):
        return None
    path: Path | None = args.manifest or discover_manifest(Path.cwd())
    if path is None:
        misspelled = misspelled_table(Path.cwd())
        if misspelled:
            raise CleanTreeError(misspelled)
        raise CleanTreeError(
            "no cleantree.toml (or pyproject.toml with [tool.cleantree]) here or in a "
            f"parent folder up to the repository's root; pass {hint}, or run "
            "`cleantree init` to write a starter cleantree.toml here"
        )
    return path


def _request(args: argparse.Namespace, manifest: Path | None, **values: object) -> SessionRequest:
    """The session request of these arguments (``values`` override them)."""
    from pathlib import Path

    from pytest_cleantree.frontends.declare import session_request

    given = {**vars(args), "manifest": manifest, **values}
    return session_request(given, Path.cwd(), tree_must_exist=True)


def _context(
    args: argparse.Namespace,
    manifest: str,
    root: str,
    uncovered: tuple[str, ...] = (),
    remote_roots: Mapping[str, str] | None = None,
    mirror: str = "",
) -> RenderContext:
    from pytest_cleantree.report.context import RenderContext

    return RenderContext(
        manifest=manifest,
        root=root,
        cwd=os.getcwd(),
        workspace=os.environ.get("GITHUB_WORKSPACE") or os.getcwd(),
        uncovered=uncovered,
        statistics=getattr(args, "statistics", False),
        quiet=getattr(args, "quiet", False),
        remote_roots=tuple(sorted((remote_roots or {}).items())),
        mirror=mirror,
        color=use_color(sys.stdout, os.environ),
    )


def use_color(stream: TextIO, environ: Mapping[str, str]) -> bool:
    """Colour on a terminal (not ``TERM=dumb``); ``NO_COLOR`` (any non-empty value) turns it
    off, else ``FORCE_COLOR`` (non-empty) on even in a pipe, as https://no-color.org and
    Python's own tracebacks do."""
    if environ.get("NO_COLOR"):
        return False
    if environ.get("FORCE_COLOR"):
        return True
    try:
        return stream.isatty() and environ.get("TERM") != "dumb"
    except (OSError, ValueError):
        return False


def _write_reports(
    args: argparse.Namespace, results: list[Result], context: RenderContext
) -> str | None:
    """The ``--sarif-output`` and ``--json-output`` files, then ``--format`` on stdout (what
    is printed is returned; ``None``: nothing)."""
    from pytest_cleantree.report.registry import render

    for fmt, output in (("sarif", args.sarif_output), ("json", args.json_output)):
        if output is not None:
            _write_file(output, render(fmt, results, context))
    text = render(args.format, results, context)
    if text or args.format != "text":  # a quiet clean text run prints nothing at all
        _write(text)
        return text
    return None


def _explain(args: argparse.Namespace) -> int:
    """``cleantree explain``: the modules on the name's chains are read as ``check`` reads them
    (same manifest, root, layout and ``import_roots``), so the answer is the one a check uses."""
    try:
        return _explain_or_raise(args)
    except CleanTreeError as exc:
        print(f"cleantree: error: {_in_cli_terms(exc)}", file=sys.stderr)
        return EXIT_INCOMPLETE


def _in_cli_terms(error: CleanTreeError) -> CleanTreeError:
    """A value the session refused, named by the CLI's flag (``--exclude: empty pattern``)."""
    from pytest_cleantree.frontends.options import cli_flag
    from pytest_cleantree.run.session import OptionError

    if isinstance(error, OptionError):
        return CleanTreeError(f"{cli_flag(error.option)}: {error.problem}")
    return error


def _explain_or_raise(args: argparse.Namespace) -> int:
    from pathlib import Path

    from pytest_cleantree.report.explain import render_explanation
    from pytest_cleantree.report.text import shown_root
    from pytest_cleantree.run.session import open_session

    if not all(part.isidentifier() for part in args.qualified.split(".")):
        raise CleanTreeError(f"{args.qualified!r} is not a dotted name such as pkg.mod.f")
    from pytest_cleantree.config.discovery import discover_manifest

    path: Path | None = args.manifest or discover_manifest(Path.cwd())
    bare = path is None and args.root is not None  # --root DIR: no manifest needed
    if not bare:
        path = _manifest_path(args, "--manifest PATH or --root DIR")
    session = open_session(_request(args, path, no_cache=True, jobs=1), bare=bare)
    try:
        explained = session.explain(args.qualified)
        root = shown_root(getattr(session.local_source(), "root", ""), os.getcwd())
    finally:
        session.close()
    _write(render_explanation(explained, root))
    if explained.standing.missing:  # a mistyped pattern: what check reports as an error
        return EXIT_INCOMPLETE
    return EXIT_CLEAN if explained.defined is not None else EXIT_VIOLATIONS


def _init(args: argparse.Namespace) -> int:
    """``cleantree init``: a starter manifest for the tree here and the schema it names,
    beside it (both meant to be committed); never over an existing manifest or a different
    schema file, and nothing written when either is in the way."""
    from pathlib import Path

    from pytest_cleantree.config.manifest import MANIFEST_NAME
    from pytest_cleantree.config.starter import (
        SCHEMA_NAME,
        detect_starter,
        render_starter,
        schema_to_write,
        write_schema,
    )

    folder = Path.cwd()
    path = folder / MANIFEST_NAME
    starter = detect_starter(folder)
    try:
        if path.exists() or path.is_symlink():
            raise FileExistsError
        schema_wanted = schema_to_write(folder)  # before anything is written
        with path.open("x", encoding="utf-8") as out:  # "x": never over an existing file
            out.write(render_starter(starter))
        if schema_wanted:
            try:
                write_schema(folder)
            except CleanTreeError:
                path.unlink()  # all or nothing: init can be run again
                raise
    except FileExistsError:
        print(
            f"cleantree: error: {MANIFEST_NAME} already exists here: not overwritten "
            "(remove it first to start again)",
            file=sys.stderr,
        )
        return EXIT_INCOMPLETE
    except CleanTreeError as exc:
        print(f"cleantree: error: {exc}", file=sys.stderr)
        return EXIT_INCOMPLETE
    except OSError as exc:
        print(f"cleantree: error: cannot write {path}: {exc.strerror or exc}", file=sys.stderr)
        return EXIT_INCOMPLETE
    where = f"root {starter.root!r}" + (f", package {starter.package!r}" if starter.package else "")
    schema = f"{SCHEMA_NAME} (its schema)" if schema_wanted else f"{SCHEMA_NAME} kept: the same"
    print(
        f"cleantree: wrote {MANIFEST_NAME} ({where}) and {schema}; commit both, edit the "
        "example rules, then run `cleantree check`"
    )
    return EXIT_CLEAN


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
    import contextlib

    if args.quiet or not sys.stderr.isatty():
        return contextlib.nullcontext()
    from pytest_cleantree.frontends.cli.progress import Progress

    progress = Progress(sys.stderr, hosts=len(runner.hosts), rules=rules)
    runner.cache.on_analysed = progress.files_done
    runner.cache.on_planned = progress.files_planned
    return progress


def _write_error(args: argparse.Namespace, error: CleanTreeError) -> None:
    """Machine formats say why the run could not start, in their own terms: an empty or
    missing SARIF or JSON file would fail its upload, and a github log without ``::error``
    hides the cause."""
    from pytest_cleantree.report.registry import render_error

    manifest = getattr(error, "source", "") or str(args.manifest or "")
    context = _context(args, manifest, "")
    for fmt in ("sarif", "json"):
        output = getattr(args, f"{fmt}_output", None)
        if output is not None:
            try:
                _write_file(output, str(render_error(fmt, error, context)))
            except CleanTreeError as exc:
                print(f"cleantree: error: {exc}", file=sys.stderr)
    shown = render_error(args.format, error, context)
    if shown is not None:
        _write(shown)


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


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
