"""Every option of the ``cleantree`` commands and of ``pytest --cleantree-*``, declared once.

:data:`OPTIONS` is the one table: each row (an :class:`~.option_row.Option`) names its CLI
flag(s) and its pytest option, and either may be absent (an option of one front end only).
The argparse parsers of the CLI and the plugin's ``pytest_addoption`` are both built from it
(:mod:`.declare`), so a default or a help text is written in one place.

Imported by the plugin in every pytest session: it stays cheap (no host-spec regexes, no
source or engine code until a run is asked for).
"""

from __future__ import annotations

from pytest_cleantree.frontends.option_row import (
    Action,
    Command,
    Option,
    parse_forks,
    parse_seconds,
)
from pytest_cleantree.report.registry import DEFAULT_FORMAT, FORMAT_NAMES, describe_formats

__all__ = [
    "BY_DEST",
    "CLI_OPTIONS",
    "OPTIONS",
    "PYTEST_OPTIONS",
    "Action",
    "Command",
    "Option",
    "cli_flag",
    "parse_forks",
    "parse_seconds",
    "pytest_flag",
]

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
