"""Writing the planned rules as a manifest's TOML text, for review and commit."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from pytest_cleantree.config.entries import escape_line

from .apply import ChangedFile
from .diff import FromDiffError
from .names import CODE_KINDS
from .plan import Plan, PlannedRule, literal_path, plan_changes, unique_id
from .text import unrepresentable

__all__ = ["derive_manifest", "render_manifest"]


def derive_manifest(
    changes: Sequence[ChangedFile],
    *,
    expect_removed: bool,
    text_rules: bool,
    why: str,
    root: str = "",
    under: str = "",
) -> str:
    """Render the manifest that says what a complete revert of ``changes`` means.

    Per changed file, its experiment lines (``forbid_lines``) and its introduced names,
    sorted by path, patterns sorted.  ``under`` (a folder relative to the diff's paths)
    keeps only the files inside it, with paths made relative to it; ``root`` is written
    as the manifest's ``root``.  ``why`` names the change (its commit or range and
    subject).  Raises :class:`FromDiffError` when nothing can be checked (every change
    binary, outside ``under``, ...).
    """
    plan = plan_changes(
        changes, expect_removed=expect_removed, text_rules=text_rules, under=under, blame=None
    )
    return render_manifest(_unwritten_noted(plan), why=why, root=root)


_NOT_HERE = "not checked here (`cleantree check --reverted` checks it)"


def _unwritten(rule: PlannedRule) -> str:
    """Why a planned rule has no manifest text (a file expected without anything to expect
    in it), or ``""``: it has one."""
    if rule.action == "restore" and not rule.expect:
        return f"{rule.why}; {_NOT_HERE}"
    return ""


def _unwritten_noted(plan: Plan) -> Plan:
    """The plan with the rules a manifest cannot write as notes (``check --reverted``
    checks them); nothing left to check is an error, as for a plan."""
    notes = [(rule.path, _unwritten(rule)) for rule in plan.rules if _unwritten(rule)]
    if not notes:
        return plan
    kept = [rule for rule in plan.rules if not _unwritten(rule)]
    if not kept:
        details = "; ".join(f"{path}: {note}" for path, note in sorted({*plan.notes, *notes}))
        raise FromDiffError(f"the change leaves nothing a manifest can check ({details})")
    return Plan(kept, [*plan.notes, *notes])


_FILES_KEY = {
    "lines": "files",
    "repeated": "files",
    "names": "files",
    "removed": "files",
    "restore": "files",
    "mode": "files",
    "absent": "absent",
}
#: rules whose patterns are written as planned (``line:``, ``line*N:``), not as names
_LINE_ACTIONS = frozenset({"removed", "repeated"})
_CODE_KINDS_TOML = sorted(kind.value for kind in CODE_KINDS)


def render_manifest(plan: Plan, *, why: str, root: str) -> str:
    """The plan as a manifest's text: a header saying what it means and what is not checked,
    then one ``[[rule]]`` table per planned rule."""
    out = [
        "# What a complete revert of this change means, derived by `cleantree from-diff`:",
        f"#   {_comment(why)}",
        "# experiment-lines: the lines it added (whole lines, compared stripped); none was in",
        "# its file before.  introduced-names: the names it introduced into a file's code",
        "# (`=name` is that whole name); none was a name there before.  removed-lines: the",
        "# lines it removed, expected back as many times as before (`line*N:`); repeated-lines:",
        "# a line it wrote again, no more often than before.  Review, then commit.",
    ]
    if plan.notes:
        out += ["#", "# Not checked:"]
        notes = sorted(set(plan.notes))
        out += [f"#   {_comment(path)}: {_comment(note)}" for path, note in notes]
    out.append("")
    if root:
        out += [f"root = {_toml_string(root)}", ""]
    used: set[str] = set()
    experiment = {rule.path: rule.lines for rule in plan.rules if rule.action == "lines"}
    for rule in plan.rules:
        out.append("[[rule]]")
        out.append(f"id = {_toml_string(unique_id(rule, used))}")
        out.append(f"{_FILES_KEY[rule.action]} = [{_toml_string(literal_path(rule.path))}]")
        out += _lines_arrays("forbid_lines", rule.lines)
        if rule.forbid:
            out.append(_toml_array("forbid", _patterns(rule, rule.forbid)))
        if rule.action == "mode":
            out.append(f"mode = {_toml_string(rule.expect[0])}")
        elif rule.expect:
            out.append(_toml_array("expect", _patterns(rule, rule.expect)))
        if rule.code:
            out.append(f"kinds = [{', '.join(_toml_string(k) for k in _CODE_KINDS_TOML)}]")
        out += _lines_arrays("unless_lines", _spared(rule, experiment.get(rule.path, ())))
        if rule.action in ("restore", "removed", "mode"):
            out.append("must_exist = true")
        out.append(f"why = {_toml_string(f'{why}: {rule.why}')}")
        out.append("")
    return "\n".join(out)


def _patterns(rule: PlannedRule, texts: Sequence[str]) -> list[str]:
    """Names as exact patterns (``=name``); expected and counted lines as planned."""
    return list(texts) if rule.action in _LINE_ACTIONS else [f"={text}" for text in texts]


def _spared(rule: PlannedRule, lines: Sequence[str]) -> list[str]:
    """The experiment lines a names rule must not report again: those that spell one of its
    names (a superset of those where it matches one)."""
    if rule.action != "names":
        return []
    return [line for line in lines if any(name in line for name in rule.forbid)]


def _lines_arrays(key: str, lines: Sequence[str]) -> list[str]:
    """Whole lines as ``key``, and those holding bytes that are not UTF-8 as ``key_escaped``."""
    plain = [line for line in lines if not unrepresentable(line)]
    escaped = [escape_line(line) for line in lines if unrepresentable(line)]
    arrays = [_toml_array(key, plain)] if plain else []
    return arrays + ([_toml_array(f"{key}_escaped", escaped)] if escaped else [])


def _toml_array(key: str, items: Iterable[str]) -> str:
    body = "".join(f"    {_toml_string(item)},\n" for item in items)
    return f"{key} = [\n{body}]"


def _toml_string(text: str) -> str:
    """A TOML basic string."""
    out = ['"']
    for char in text:
        if char in ('"', "\\"):
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif char == "\t":
            out.append("\\t")
        elif char < " " or char == "\x7f":
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def _comment(text: str) -> str:
    """Text safe inside a TOML comment: no line breaks, control characters or surrogates."""
    out = []
    for char in text:
        if "\udc80" <= char <= "\udcff":  # an undecodable byte, kept by surrogateescape
            out.append(f"\\x{ord(char) - 0xDC00:02x}")
        elif char < " " or char == "\x7f" or "\ud800" <= char <= "\udfff":
            out.append(f"\\x{ord(char):02x}" if ord(char) < 256 else f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return "".join(out)
