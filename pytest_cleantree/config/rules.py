"""One ``[[rule]]`` table of a manifest, read into a :class:`~pytest_cleantree.core.model.Rule`,
and the ids of rules written without one.

:func:`read_rule` checks the table's keys (each value by :mod:`.entries`) and what they say
together (a rule checks something; what looks in files has files), reporting every problem
with where it is; :func:`with_default_ids` names the rules that have no id.  Pure.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from pytest_cleantree.config.entries import (
    Report,
    nearest,
    read_excludes,
    read_forbid_lines,
    read_kinds,
    read_optional,
    read_paths,
    read_patterns,
    suggest,
)
from pytest_cleantree.core.model import Rule

RULE_KEYS = (
    "id",
    "files",
    "forbid",
    "forbid_lines",
    "forbid_lines_escaped",
    "expect",
    "absent",
    "kinds",
    "why",
    "missing_ok",
    "must_exist",
    "exclude",
    "unless_lines",
    "unless_lines_escaped",
    "mode",
)
#: the modes a ``mode`` key may expect, as git writes them: a regular file, executable or not
_MODES = ("100644", "100755")

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_NOT_ID = re.compile(r"[^A-Za-z0-9_.-]+")
_SLUG_LENGTH = 40
#: the key a rule's problem is about: ``forbid[0]: ...``, ``unknown key 'x' ...``
_PROBLEM_KEY = re.compile(r"(?:unknown key '([^']+)'|([A-Za-z_]+)(?:\[\d+\])?:)")


@dataclass(frozen=True)
class RuleAt:
    """Where a rule is: its label in messages (``rule 2 (line 14)``), its header's line
    (0: not found), and the line of each of its keys."""

    label: str
    line: int = 0
    key_lines: Mapping[str, int] = field(default_factory=dict)


def read_rule(
    table: Mapping[str, object],
    at: RuleAt,
    seen_ids: dict[str, str],
    send: Report,
    *,
    allow_outside_root: bool,
) -> Rule | None:
    """One ``[[rule]]`` table as a :class:`Rule`, or ``None`` when it has a problem; every
    problem is sent to ``send``, starting with where it is (``rule 2 (line 14): ...``).
    ``seen_ids``: the ids of the rules before it (this rule's is added)."""
    sent: list[str] = []
    label, line, key_lines = at.label, at.line, at.key_lines
    index_label = label.partition(" (")[0]

    def report(problem: str) -> None:
        sent.append(problem)
        key = _PROBLEM_KEY.match(problem)
        where = key_lines.get(key[1] or key[2]) if key else None
        send(f"{index_label} (line {where}): {problem}" if where else f"{label}: {problem}")

    meant = set(table)  # the keys as the user meant them: one mistake, one problem
    for key in table:
        if key not in RULE_KEYS:
            report(f"unknown key '{key}' ({suggest(key, RULE_KEYS, 'keys')})")
            meant.add(nearest(key, RULE_KEYS) or key)

    rule_id = read_optional(table, "id", str, "", "", report)
    if "id" in table and isinstance(table["id"], str):
        if not _ID.fullmatch(rule_id):
            report(
                f"id: '{rule_id}' is not a valid id: use letters, digits, '_', '.' and '-', "
                "starting with a letter or digit"
            )
        elif rule_id in seen_ids:
            report(f"id: '{rule_id}' is already the id of {seen_ids[rule_id]}")
        else:
            seen_ids[rule_id] = label

    files = read_paths(table, "files", report, allow_outside_root=allow_outside_root)
    forbid = read_patterns(table, "forbid", report) + read_forbid_lines(table, report)
    expect = read_patterns(table, "expect", report)
    absent = read_paths(table, "absent", report, allow_outside_root=allow_outside_root)
    kinds = read_kinds(table, report)
    why = read_optional(table, "why", str, "", "", report)
    missing_ok = read_optional(table, "missing_ok", bool, False, "", report)
    must_exist = read_optional(table, "must_exist", bool, False, "", report)
    if missing_ok and must_exist:
        report("missing_ok and must_exist contradict each other: keep one")
    exclude = read_excludes(table, "", report)
    mode = _read_mode(table, report)

    unless = read_forbid_lines(table, report, "unless_lines")
    _check_coverage(meant, report)
    for both in sorted(set(files) & set(absent)):
        report(f"'{both}' is in both files and absent")

    if sent:
        return None
    return Rule(
        id=rule_id,
        files=files,
        forbid=forbid,
        expect=expect,
        absent=absent,
        kinds=kinds,
        why=why,
        missing_ok=missing_ok,
        must_exist=must_exist,
        line=line,
        exclude=exclude,
        unless=unless,
        mode=mode,
    )


def _read_mode(table: Mapping[str, object], report: Report) -> str:
    """The rule's ``mode``: one git writes for a regular file, or ``""``."""
    mode = read_optional(table, "mode", str, "", "", report)
    if mode and mode not in _MODES:
        report(f"mode: '{mode}' is not a file mode git writes: use {' or '.join(_MODES)}")
    return mode


def _check_coverage(meant: AbstractSet[str], report: Report) -> None:
    """A rule checks something, and what looks in files has files to look in (``meant``:
    its keys as the user meant them, a misspelt one as the key it is nearest)."""
    lined = ("forbid_lines", "forbid_lines_escaped")
    searched = [key for key in ("forbid", *lined, "expect", "mode") if key in meant]
    if not searched and "absent" not in meant:
        report("nothing to check: give forbid, expect or absent")
    if searched and "files" not in meant:
        report(f"{' and '.join(searched)} need{'s' * (len(searched) == 1)} files to look in")
    if not searched and "files" in meant:
        report("files: has no effect without forbid or expect")


def with_default_ids(rules: Sequence[Rule]) -> list[Rule]:
    """Give each rule without an id a readable one, unique among all the manifest's ids."""
    used = {rule.id for rule in rules if rule.id}
    named: list[Rule] = []
    for rule in rules:
        if not rule.id:
            base = _default_id(rule)
            rule_id, counter = base, 1
            while rule_id in used:
                counter += 1
                rule_id = f"{base}-{counter}"
            used.add(rule_id)
            rule = dataclasses.replace(rule, id=rule_id)
        named.append(rule)
    return named


def _default_id(rule: Rule) -> str:
    if rule.forbid:
        verb, subject = "forbid", rule.forbid[0].text
    elif rule.expect:
        verb, subject = "expect", rule.expect[0].text
    elif rule.absent:
        verb, subject = "absent", rule.absent[0]
    else:  # a mode alone
        verb, subject = "mode", rule.files[0]
    slug = id_slug(subject)
    return f"{verb}-{slug}" if slug else verb


def id_slug(text: str, length: int | None = _SLUG_LENGTH) -> str:
    """``text`` as the tail of a rule id: runs of other characters become one ``-``."""
    slug = re.sub(r"-{2,}", "-", _NOT_ID.sub("-", text)).strip("-")
    return slug[:length].rstrip("-")
