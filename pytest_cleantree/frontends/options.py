"""Every option of the ``cleantree`` commands and of ``pytest --cleantree-*``, declared once.

:data:`OPTIONS` is the one table: each row names its CLI flag(s) and its pytest option, and
either may be absent (an option of one front end only).  The argparse parsers of the CLI and
the plugin's ``pytest_addoption`` are both built from it, so a default or a help text is
written in one place; :func:`session_request` turns either front end's values into the one
:class:`~pytest_cleantree.run.session.SessionRequest`.

Imported by the plugin in every pytest session: it stays cheap (no host-spec regexes, no
source or engine code until a run is asked for).
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pytest_cleantree.report.registry import DEFAULT_FORMAT, FORMAT_NAMES, describe_formats

if TYPE_CHECKING:
    from pytest_cleantree.run.session import SessionRequest


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


_REMOTE = "remote hosts (SSH)"
_WHICH = "which manifest"
_DISCOVERY = (
    "cleantree.toml, else pyproject.toml with [tool.cleantree], in the current folder or "
    "the nearest parent up to the repository's root (.git)"
)
_CACHE = "$CLEANTREE_CACHE_DIR, else ~/.cache/pytest-cleantree; never in the checked tree"
_FROM = "what the change is"

#: every option, in the order ``--help`` lists them
OPTIONS: tuple[Option, ...] = (
    Option(
        "version",
        "print the version (and the commit, when run from a git checkout) and exit",
        cli=("-V", "--version"),
        action="version",
        commands=("",),
    ),
    Option(
        "cleantree",
        "check the tree against the cleantree manifest (cleantree.toml or "
        "[tool.cleantree] in pyproject.toml); implied by any --cleantree-* option",
        pytest="--cleantree",
        action="store_true",
        default=False,
    ),
    Option(
        "files",
        "check only these files, against the rules whose entries cover them (what "
        "pre-commit passes); naming the manifest itself checks everything",
        cli=("files",),
        nargs="*",
        metavar="FILE",
    ),
    Option(
        "changed_since",
        "check only the files changed since git revision REV (untracked files included)",
        cli=("--changed-since",),
        metavar="REV",
    ),
    Option(
        "manifest",
        f"the manifest (default: {_DISCOVERY})",
        cli=("--manifest",),
        pytest="--cleantree-manifest",
        path=True,
        metavar="PATH",
        commands=("check", "explain"),
        exclusive=_WHICH,
    ),
    Option(
        "reverted",
        "check that commit REV (or a range A..B) of the git repository here is fully "
        "reverted in the work tree: the manifest is derived from its diff, as "
        "`cleantree from-diff` would",
        cli=("--reverted",),
        pytest="--cleantree-reverted",
        metavar="REV",
        exclusive=_WHICH,
    ),
    Option(
        "allow_unchecked_changes",
        "with --reverted: the changes no check can see (a submodule moved, a binary file "
        "changed, a mode changed) are listed, and do not make the run incomplete",
        cli=("--allow-unchecked-changes",),
        pytest="--cleantree-allow-unchecked-changes",
        action="store_true",
        default=False,
    ),
    Option(
        "root",
        "the tree in this folder instead of the manifest's root (relative to the current folder)",
        cli=("--root",),
        pytest="--cleantree-root",
        metavar="DIR",
        commands=("check", "explain"),
    ),
    Option(
        "exclude",
        "leave out files matching this gitignore-style pattern (relative to the root), "
        "on top of the manifest's exclude; repeatable",
        cli=("--exclude",),
        pytest="--cleantree-exclude",
        action="append",
        default=(),
        metavar="PATTERN",
    ),
    Option(
        "format",
        describe_formats(),
        cli=("--format",),
        choices=FORMAT_NAMES,
        default=DEFAULT_FORMAT,
        report=True,
    ),
    Option(
        "sarif_output",
        "also write SARIF to PATH, whatever --format prints (one run, two outputs; "
        "a valid document even when the check cannot run)",
        cli=("--sarif-output",),
        path=True,
        metavar="PATH",
        report=True,
    ),
    Option(
        "json_output",
        "also write the JSON report to PATH",
        cli=("--json-output",),
        path=True,
        metavar="PATH",
        report=True,
    ),
    Option(
        "exit_zero",
        "exit 0 even when forbidden lines remain (2, the check could not run, stays 2)",
        cli=("--exit-zero",),
        action="store_true",
        default=False,
    ),
    Option(
        "quiet",
        "print the findings only: no summary line, nothing at all when clean, no progress",
        cli=("-q", "--quiet"),
        action="store_true",
        default=False,
        report=True,
    ),
    Option(
        "statistics",
        "print how many lines remain per rule and per file instead of the lines",
        cli=("--statistics",),
        action="store_true",
        default=False,
        report=True,
    ),
    Option(
        "jobs",
        "parse in N processes when many files need it (default: the CPUs available)",
        cli=("--jobs",),
        parse=int,
        metavar="N",
    ),
    Option(
        "no_cache",
        f"do not keep analyses between runs (default cache: {_CACHE})",
        cli=("--no-cache",),
        pytest="--cleantree-no-cache",
        action="store_true",
        default=False,
    ),
    Option(
        "host",
        "check the tree on this host over SSH (user@host:/path, an alias from "
        "~/.ssh/config, or a name from the manifest's [hosts]); repeat for a fleet; "
        "'local' is this machine",
        cli=("--host",),
        pytest="--cleantree-host",
        action="append",
        default=(),
        metavar="HOST",
        section=_REMOTE,
    ),
    Option(
        "inventory",
        "check the hosts of this Ansible inventory (INI or YAML: ansible_host, "
        "ansible_port, ansible_user, ansible_ssh_private_key_file, cleantree_root, "
        "groups and children)",
        cli=("--inventory",),
        path=True,
        metavar="FILE",
        section=_REMOTE,
    ),
    Option(
        "group",
        "with --inventory: only the hosts of group G (repeat for several)",
        cli=("--group",),
        action="append",
        default=(),
        metavar="G",
        section=_REMOTE,
    ),
    Option(
        "known_hosts",
        "known_hosts file to verify host keys against (default: ~/.ssh/known_hosts)",
        cli=("--known-hosts",),
        pytest="--cleantree-known-hosts",
        path=True,
        metavar="PATH",
        section=_REMOTE,
    ),
    Option(
        "accept_new_host_key",
        "accept (and record) the key of a host never seen before; a changed key is always refused",
        cli=("--accept-new-host-key",),
        pytest="--cleantree-accept-new-host-key",
        action="store_true",
        default=False,
        section=_REMOTE,
    ),
    Option(
        "ssh_config",
        "ssh client config to honour (default: ~/.ssh/config)",
        cli=("--ssh-config",),
        pytest="--cleantree-ssh-config",
        path=True,
        metavar="PATH",
        section=_REMOTE,
    ),
    Option(
        "python",
        "the remote interpreter that resolves module: roots (e.g. a venv's python)",
        cli=("--python",),
        pytest="--cleantree-python",
        default="python3",
        metavar="PYTHON",
        section=_REMOTE,
    ),
    Option(
        "timeout",
        "timeout of one remote command (default: 60)",
        cli=("--timeout",),
        pytest="--cleantree-timeout",
        parse=parse_seconds,
        default=60.0,
        metavar="SECONDS",
        section=_REMOTE,
    ),
    Option(
        "connect_timeout",
        "timeout of connecting to a host, handshake and login included (default: 10)",
        cli=("--connect-timeout",),
        pytest="--cleantree-connect-timeout",
        parse=parse_seconds,
        default=10.0,
        metavar="SECONDS",
        section=_REMOTE,
    ),
    Option(
        "forks",
        "check N hosts at once, as ansible's --forks (default: every host, up to 32); "
        "each host's results are ready as soon as it is done",
        cli=("--forks",),
        pytest="--cleantree-forks",
        parse=parse_forks,
        metavar="N",
        section=_REMOTE,
    ),
    Option(
        "qualified",
        "a dotted name: pkg.mod.f",
        cli=("qualified",),
        metavar="QUALIFIED",
        commands=("explain",),
    ),
    # -- cleantree from-diff
    Option(
        "patch",
        "a unified diff file (git diff, git format-patch, diff -u), or - for stdin",
        cli=("patch",),
        nargs="?",
        metavar="PATCH",
        commands=("from-diff",),
        exclusive=_FROM,
        required=True,
    ),
    Option(
        "rev",
        "a git range A..B (or A...B), or one commit (compared with its parent)",
        cli=("--rev",),
        metavar="RANGE",
        commands=("from-diff",),
        exclusive=_FROM,
        required=True,
    ),
    Option(
        "repo",
        "the git repository (with --rev), or the tree the patch's paths are relative to, "
        "holding the files either as changed or as before the change (default: .)",
        cli=("--repo",),
        default=".",
        metavar="DIR",
        commands=("from-diff",),
    ),
    Option(
        "diff_root",
        "keep only files under this folder (relative to the repository's top or the tree) "
        "and make it the manifest's root",
        cli=("--root",),
        default="",
        metavar="DIR",
        commands=("from-diff",),
    ),
    Option(
        "expect_removed",
        "also expect the names the change removed (checks the revert both ways)",
        cli=("--expect-removed",),
        action="store_true",
        default=False,
        commands=("from-diff",),
    ),
    Option(
        "no_text",
        "derive nothing from files that are not Python (their lines and words)",
        cli=("--no-text",),
        action="store_true",
        default=False,
        commands=("from-diff",),
    ),
    Option(
        "strip",
        "remove N leading folders from the patch's paths, as patch -pN (default: git's a/ "
        "and b/ prefixes)",
        cli=("-p", "--strip"),
        parse=int,
        metavar="N",
        commands=("from-diff",),
    ),
    Option(
        "why",
        "the reason written in each rule (default: the change)",
        cli=("--why",),
        metavar="WHY",
        commands=("from-diff",),
    ),
)

BY_DEST: dict[str, Option] = {option.dest: option for option in OPTIONS}
CLI_OPTIONS = tuple(option for option in OPTIONS if option.cli)
PYTEST_OPTIONS = tuple(option for option in OPTIONS if option.pytest)


def cli_flag(dest: str) -> str:
    """How the CLI spells option ``dest`` in a message (its long flag)."""
    return BY_DEST[dest].cli[-1]


def pytest_flag(dest: str) -> str:
    """How the plugin spells option ``dest`` in a message."""
    return str(BY_DEST[dest].pytest)


def add_cli_options(parser: argparse.ArgumentParser, command: Command) -> None:
    """Declare the table's options of ``command`` on its parser, in table order."""
    sections: dict[str, argparse._ActionsContainer] = {"": parser}
    exclusive: dict[str, argparse._ActionsContainer] = {}
    mine = [option for option in CLI_OPTIONS if command in option.commands]
    shared = {o.exclusive for o in mine if o.exclusive}
    shared = {name for name in shared if sum(o.exclusive == name for o in mine) > 1}
    for option in mine:
        if option.section not in sections:
            sections[option.section] = parser.add_argument_group(option.section)
        target = sections[option.section]
        if option.exclusive in shared:
            if option.exclusive not in exclusive:
                group = target.add_mutually_exclusive_group(required=option.required)
                exclusive[option.exclusive] = group
            target = exclusive[option.exclusive]
        kwargs = option.kwargs()
        if option.cli[0].startswith("-") and option.action != "version":
            kwargs["dest"] = option.dest  # the row's name, whatever the flag (--root twice)
        if option.path:
            kwargs["type"] = Path
        elif option.parse is not None:
            kwargs["type"] = option.parse
        target.add_argument(*option.cli, **kwargs)


class _OptionGroup(Protocol):
    """What the plugin's option group offers (pytest's ``OptionGroup``), without pytest."""

    def addoption(self, *opts: str, **attrs: Any) -> None: ...


def add_pytest_options(group: _OptionGroup) -> None:
    """Declare the table's pytest options on the plugin's option group, in table order.

    A path is kept as typed: :func:`pytest_values` takes it from the invocation folder.
    """
    for option in PYTEST_OPTIONS:
        kwargs = option.kwargs()
        if option.parse is not None and not option.path:
            kwargs["type"] = option.parse
        assert option.pytest is not None
        group.addoption(option.pytest, **kwargs)


def pytest_values(get: Callable[[str], Any], base: Path) -> dict[str, Any]:
    """The plugin's option values by table name (``get`` is ``config.getoption``); paths
    joined to ``base``, the invocation folder, as the CLI takes them from its own."""
    values: dict[str, Any] = {}
    for option in PYTEST_OPTIONS:
        value = get(option.pytest_dest)
        if option.path:
            value = base / value if value else None
        values[option.dest] = value
    return values


def pytest_options_given(get: Callable[[str], Any]) -> Iterator[str]:
    """The plugin's options (but ``--cleantree``) whose value is not their default."""
    for option in PYTEST_OPTIONS:
        if option.dest != "cleantree" and get(option.pytest_dest) != option.initial():
            yield option.pytest_dest


def session_request(
    values: Mapping[str, Any],
    base: Path,
    *,
    tree_must_exist: bool = False,
    flag: Callable[[str], str] = cli_flag,
) -> SessionRequest:
    """Either front end's values (by table name; a missing one is its default) as the one
    request of :func:`~pytest_cleantree.run.session.open_session`; ``flag`` spells an option
    as the front end's user types it, in the messages that name one."""
    from pytest_cleantree.run.session import SessionRequest
    from pytest_cleantree.sources import RemoteOptions

    def get(dest: str) -> Any:
        return values[dest] if dest in values else BY_DEST[dest].initial()

    def many(dest: str) -> tuple[str, ...]:
        found: Iterable[str] = get(dest)
        return tuple(found)

    remote = RemoteOptions(
        known_hosts=get("known_hosts"),
        accept_new_host_key=get("accept_new_host_key"),
        ssh_config=get("ssh_config"),
        connect_timeout=get("connect_timeout"),
        command_timeout=get("timeout"),
        python=get("python"),
        accept_new_flag=flag("accept_new_host_key"),
    )
    return SessionRequest(
        base=base,
        manifest=get("manifest"),
        reverted=get("reverted"),
        root=get("root"),
        exclude=many("exclude"),
        hosts=many("host"),
        inventory=get("inventory"),
        groups=many("group"),
        remote=remote,
        cache=not get("no_cache"),
        jobs=get("jobs"),
        forks=get("forks"),
        files=many("files"),
        changed_since=get("changed_since"),
        allow_unchecked_changes=get("allow_unchecked_changes"),
        tree_must_exist=tree_must_exist,
    )
