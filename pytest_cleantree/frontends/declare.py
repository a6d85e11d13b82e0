"""The option table declared on each front end, and either front end's values read back.

:func:`add_cli_options` builds the CLI's argparse parsers and :func:`add_pytest_options` the
plugin's option group from :data:`.options.OPTIONS`; :func:`pytest_values` reads the plugin's
values back by table name, and :func:`session_request` turns either front end's values into
the one :class:`~pytest_cleantree.run.session.SessionRequest`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pytest_cleantree.frontends.options import BY_DEST, CLI_OPTIONS, PYTEST_OPTIONS, cli_flag

if TYPE_CHECKING:
    import argparse

    from pytest_cleantree.frontends.option_row import Command
    from pytest_cleantree.run.session import SessionRequest


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
