"""The one option table against the two parsers built from it: a row claimed by a front end
is declared there, with the table's default, help and choices, and nothing is declared
outside the table (an option added to one front end by hand would miss the other)."""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import pytest

from pytest_cleantree.frontends.cli.main import build_parser
from pytest_cleantree.frontends.options import BY_DEST, OPTIONS, Option, parse_seconds
from pytest_cleantree.report.registry import FORMAT_NAMES
from pytest_cleantree.sources import RemoteOptions


def command_parser(name: str) -> argparse.ArgumentParser:
    parser = build_parser()
    (commands,) = (a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found: argparse.ArgumentParser = commands.choices[name]
    return found


def cli_actions(name: str) -> dict[str, argparse.Action]:
    """The command's arguments by table name, ``--help`` aside."""
    actions = command_parser(name)._actions
    return {a.dest: a for a in actions if not isinstance(a, argparse._HelpAction)}


@pytest.mark.parametrize("command", ["check", "explain", "init", "from-diff"])
def test_the_cli_declares_exactly_the_rows_of_each_command(command: str) -> None:
    rows = {o.dest: o for o in OPTIONS if o.cli and command in o.commands}
    actions = cli_actions(command)
    assert set(actions) == set(rows)
    for dest, action in actions.items():
        row = rows[dest]
        flags = list(row.cli) if row.cli[0].startswith("-") else []
        assert action.option_strings == flags, dest
        assert action.default == row.initial(), dest
        assert action.help == row.help, dest
        assert action.choices == row.choices, dest
        if row.path:
            assert action.type is Path, dest
        elif row.parse is not None:
            assert action.type is row.parse, dest


def test_the_plugin_declares_exactly_the_pytest_rows(pytestconfig: pytest.Config) -> None:
    """This very session loaded the plugin: its option group is the real one."""
    group = pytestconfig._parser.getgroup("cleantree")
    declared = {option.names()[0]: option for option in group.options}
    rows = {o.pytest: o for o in OPTIONS if o.pytest}
    assert set(declared) == set(rows)
    for name, option in declared.items():
        row = rows[name]
        assert option.dest == row.pytest_dest
        assert getattr(option, "default", None) == row.initial(), name
        assert option.attrs()["help"] == row.help, name
        if row.parse is not None:
            assert option.type is row.parse, name


def test_each_row_belongs_to_a_front_end_and_names_are_unique() -> None:
    assert all(o.cli or o.pytest for o in OPTIONS)
    assert len(BY_DEST) == len(OPTIONS)
    pytest_names = [o.pytest for o in OPTIONS if o.pytest]
    assert len(set(pytest_names)) == len(pytest_names)
    assert all(name.startswith("--cleantree") for name in pytest_names)


def test_the_options_shared_by_both_front_ends() -> None:
    """The set of options each front end has alone is a decision: changing it is a change here."""
    cli_only = {o.dest for o in OPTIONS if not o.pytest}
    pytest_only = {o.dest for o in OPTIONS if not o.cli}
    assert pytest_only == {"cleantree"}
    assert cli_only == {
        "version",
        "files",
        "changed_since",
        "exit_zero",
        "jobs",
        "inventory",
        "group",
        "qualified",
        # from-diff prints a manifest; the plugin checks one (--cleantree-reverted derives it)
        "patch",
        "rev",
        "repo",
        "diff_root",
        "expect_removed",
        "no_text",
        "strip",
        "why",
    }


def test_the_remote_defaults_are_the_sources_own() -> None:
    """The table's defaults and :class:`RemoteOptions`' must not drift apart."""
    defaults = {f.name: f.default for f in dataclasses.fields(RemoteOptions)}
    assert BY_DEST["timeout"].default == defaults["command_timeout"]
    assert BY_DEST["connect_timeout"].default == defaults["connect_timeout"]
    assert BY_DEST["python"].default == defaults["python"]
    assert BY_DEST["accept_new_host_key"].default == defaults["accept_new_host_key"]


def test_format_choices_come_from_the_report_registry() -> None:
    assert BY_DEST["format"].choices == FORMAT_NAMES
    assert cli_actions("check")["format"].default == FORMAT_NAMES[0] == "text"


def test_an_append_row_gives_each_parser_a_fresh_list() -> None:
    row = Option("x", "help", cli=("--x",), action="append", default=())
    first, second = row.initial(), row.initial()
    assert first == second == []
    assert first is not second


def test_from_diff_takes_a_patch_or_a_revision_not_both_nor_neither(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = command_parser("from-diff")
    assert parser.parse_args(["--rev", "HEAD~1", "--root", "src"]).diff_root == "src"
    assert parser.parse_args(["x.patch", "-p", "1"]).strip == 1
    for wrong in ([], ["x.patch", "--rev", "HEAD"]):
        with pytest.raises(SystemExit):
            parser.parse_args(wrong)
    assert "one of the arguments PATCH --rev is required" in capsys.readouterr().err


def test_a_cli_timeout_is_parsed_by_the_shared_parser() -> None:
    args = build_parser().parse_args(["check", "--timeout", "5", "--connect-timeout=2.5"])
    assert (args.timeout, args.connect_timeout) == (5.0, 2.5)
    assert BY_DEST["timeout"].parse is parse_seconds


def test_every_report_option_of_check_has_a_pytest_name_made_from_its_flag() -> None:
    """No report the CLI can write is out of pytest's reach, and no pytest name is typed by
    hand for one: ``--format`` is ``--cleantree-format``, ``--sarif-output`` is
    ``--cleantree-sarif-output``."""
    report = {o.dest for o in OPTIONS if o.report}
    assert report == {"format", "sarif_output", "json_output", "quiet", "statistics"}
    for dest in report:
        row = BY_DEST[dest]
        assert "check" in row.commands
        assert row.pytest == "--cleantree-" + row.cli[-1].removeprefix("--"), dest
    outputs = {o.dest for o in OPTIONS if o.dest.endswith("_output")}
    assert outputs <= report
