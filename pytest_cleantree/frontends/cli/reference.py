"""``cleantree reference [TOPIC]``: the manifest's keys and the exit codes, printed, so that a
server with the wheel alone (no clone, no internet) has the reference its manifest points at.

One source for the keys: the shipped schema's descriptions (as ``ruff config KEY`` prints its
own settings), which docs/manifest.md and editors read too.  The exit codes are held to
docs/cli.md's table by a test.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from collections.abc import Iterator, Mapping
from typing import Any

EXIT_OK, EXIT_UNKNOWN = 0, 2
#: the topic that prints the exit codes instead of a key
EXIT_TOPIC = "exit-codes"
#: ``cleantree``'s exit codes (and the launch wrapper's one more), as docs/cli.md lists them
EXIT_CODES = (
    ("0", "clean (one summary line), or `--exit-zero` with forbidden lines remaining"),
    (
        "1",
        "forbidden lines remain, an expected name is missing, or a file that must be absent exists",
    ),
    (
        "2",
        "the check could not run in full: bad manifest or flag, missing root or file, "
        "unreadable or unparseable file, unreachable host. `--exit-zero` never hides it",
    ),
    (
        "3",
        "launch_server.sh only: pytest-cleantree is not installed for the server's Python "
        "(nothing was checked)",
    ),
)


def add_reference_command(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    """Register ``reference`` on ``cleantree``'s subcommands."""
    reference = subparsers.add_parser(
        "reference",
        help="print the manifest's keys (or one: `reference files`) and the exit codes",
        description="The reference of every manifest key, from the schema shipped in the "
        f"package, or of one (`cleantree reference forbid`); `cleantree reference {EXIT_TOPIC}` "
        "prints the exit codes. Works offline. Exit codes: 0 printed, 2 no such key.",
    )
    reference.add_argument(
        "topic", nargs="?", metavar="KEY", help=f"a manifest key, or {EXIT_TOPIC}"
    )
    reference.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    topic: str | None = args.topic
    if topic == EXIT_TOPIC:
        print(render_exit_codes())
        return EXIT_OK
    keys = dict(manifest_keys())
    if topic is None:
        print(render_all(keys))
        return EXIT_OK
    found = {name: text for name, text in keys.items() if name.split(".")[-1] == topic}
    if not found and topic in keys:
        found = {topic: keys[topic]}
    if not found:
        names = sorted({name.split(".")[-1] for name in keys} | {EXIT_TOPIC})
        print(
            f"cleantree: error: no manifest key {topic!r} (keys: {', '.join(names)})",
            file=sys.stderr,
        )
        return EXIT_UNKNOWN
    print("\n\n".join(_entry(name, text) for name, text in found.items()))
    return EXIT_OK


def manifest_keys() -> Iterator[tuple[str, str]]:
    """``(key, description)`` for every key of the manifest, top-level keys first, then the
    rule's as ``rule.KEY``, in the schema's order."""
    from pytest_cleantree.config.starter import SCHEMA_FILE

    schema: dict[str, Any] = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    yield from _described(schema["properties"], "")
    yield from _described(schema["definitions"]["rule"]["properties"], "rule.")


def _described(properties: Mapping[str, Any], prefix: str) -> Iterator[tuple[str, str]]:
    for name, spec in properties.items():
        description = spec.get("description") if isinstance(spec, dict) else None
        if description:
            yield f"{prefix}{name}", str(description)


def _entry(name: str, text: str) -> str:
    body = textwrap.fill(text, width=88, initial_indent="  ", subsequent_indent="  ")
    return f"{name}\n{body}"


def render_all(keys: Mapping[str, str]) -> str:
    """Every key, then the exit codes: the whole offline reference."""
    entries = "\n\n".join(_entry(name, text) for name, text in keys.items())
    return (
        "cleantree.toml (or [tool.cleantree] in pyproject.toml): the keys\n\n"
        f"{entries}\n\n{render_exit_codes()}"
    )


def render_exit_codes() -> str:
    rows = "\n".join(
        textwrap.fill(text, width=88, initial_indent=f"  {code}  ", subsequent_indent="     ")
        for code, text in EXIT_CODES
    )
    return f"exit codes\n{rows}"
