"""One row of the option table (:data:`.options.OPTIONS`): :class:`Option`, and the parsers
of the values a row may take (a timeout, a number of hosts).

What a row is apart from the rows themselves, so that the table reads as data and the
code that declares it on each front end (:mod:`.declare`) reads as code.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal


def parse_seconds(text: str) -> float:
    """A timeout as typed on a command line (an argparse ``type``): finite, above zero.

    ``float`` alone takes ``nan``, ``inf`` and ``-1``, each of which turns a later
    socket call into an internal error, or waits forever.
    """
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number of seconds (a finite number above 0)"
        )
    return value


def parse_forks(text: str) -> int:
    """How many hosts to check at once (an argparse ``type``): a whole number, 1 or more."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of hosts (1 or more)")
    return value


#: a CLI command; ``""`` is the ``cleantree`` parser itself (options before any command)
Command = Literal["", "check", "explain", "init", "from-diff"]
Action = Literal["store", "store_true", "append", "version"]


class _VersionAction(argparse.Action):
    """``--version``: the version and commit are looked up when asked for, not at every run
    (finding the commit runs git)."""

    def __init__(self, option_strings: list[str], dest: str, help: str | None = None) -> None:
        super().__init__(option_strings, dest, nargs=0, help=help, default=argparse.SUPPRESS)

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from pytest_cleantree.frontends.version import render_version

        print(render_version())  # on stdout, as argparse's own version action prints
        parser.exit()


@dataclass(frozen=True)
class Option:
    """One option of the table.

    ``cli`` holds the flags of the CLI's ``commands`` (a positional when the name has no
    dash), empty for a pytest-only option; ``pytest`` the plugin's option, ``None`` for a
    CLI-only one; a ``report`` option (a format, an output file, what the report shows) gets
    its pytest name from its CLI flag (``--format`` is ``--cleantree-format``), so that no
    report the CLI can write is out of pytest's reach.  A ``path`` value is a
    :class:`~pathlib.Path` as typed on the CLI and is taken from the invocation folder under
    pytest (which may run elsewhere).  An ``append``
    option's default is ``()``: each parser gets a fresh list.
    """

    dest: str
    help: str
    cli: tuple[str, ...] = ()
    pytest: str | None = None
    action: Action = "store"
    parse: Callable[[str], object] | None = None
    path: bool = False
    default: object = None
    metavar: str | None = None
    choices: tuple[str, ...] | None = None
    nargs: str | None = None
    commands: tuple[Command, ...] = ("check",)
    #: the CLI's argument group (its --help section); "" for the command's own options
    section: str = ""
    #: options of one mutually exclusive CLI group share this name
    exclusive: str = ""
    #: one option of its exclusive group must be given (every row of the group says so)
    required: bool = False
    #: an option of the report: pytest knows it as ``--cleantree-`` + its long CLI flag
    report: bool = False

    def __post_init__(self) -> None:
        if self.report and self.pytest is None:
            object.__setattr__(self, "pytest", "--cleantree-" + self.cli[-1].lstrip("-"))

    def initial(self) -> object:
        """The value when the option is not given (a new list for ``append``)."""
        return [] if self.action == "append" or self.nargs == "*" else self.default

    @property
    def pytest_dest(self) -> str:
        """The name ``config.getoption`` knows the pytest option by."""
        assert self.pytest is not None
        return self.pytest.lstrip("-").replace("-", "_")

    def kwargs(self) -> dict[str, Any]:
        """The keywords of ``add_argument`` / ``addoption`` (flags and dest apart)."""
        found: dict[str, Any] = {"help": self.help}
        if self.action == "version":
            return {**found, "action": _VersionAction}
        if self.action != "store":
            found["action"] = self.action
        if self.action != "store_true":
            found["metavar"] = self.metavar
        found["default"] = self.initial()
        if self.choices is not None:
            found["choices"] = self.choices
        if self.nargs is not None:
            found["nargs"] = self.nargs
        return found
