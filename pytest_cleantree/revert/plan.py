"""What a complete revert of a change means, file by file: the rules planned from the diff.

Per file the change modified, its experiment lines (``lines``: added lines, or the lines
git blame still gives to it) and its introduced names (``names``); a file it added must be
``absent``; a file it deleted or renamed away must be there again (``restore``).  What
cannot be checked becomes a note, never a silent omission.  Pure: git blame is passed in.
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from pytest_cleantree.analysis import decode_python, is_python_path, split_lines
from pytest_cleantree.config.manifest import id_slug
from pytest_cleantree.core.model import DEFAULT_KINDS, Rule
from pytest_cleantree.core.patterns import line_pattern, parse_pattern

from .apply import ChangedFile
from .diff import FileChange, FromDiffError, Status, special_file
from .names import (
    CODE_KINDS,
    FINGERPRINT_SIZE,
    IntroducedNames,
    fingerprint,
    introduced_names,
    introduced_tokens,
    tokenizer_for,
)
from .text import checked_text, decode_text, unrepresentable

__all__ = [
    "Blame",
    "Plan",
    "PlannedRule",
    "line_counts",
    "literal_path",
    "plan_changes",
    "root_folder",
    "rules_from_plan",
    "unique_id",
]


@dataclass(frozen=True)
class PlannedRule:
    """One rule to write (or to build): what it checks in which file, as pattern texts."""

    path: str
    #: "lines", "names", "removed" (lines expected back), "repeated" (a line's count
    #: expected down again), "mode" (the mode before the change, in ``expect``), "absent"
    #: or "restore"
    action: str
    #: name bodies, or pattern texts: ``line@N:...`` for an experiment line pinned by git
    #: blame, ``line:...`` or ``line*N:...`` for a removed line expected back (``N`` of
    #: them), ``line*N:...`` for a line of which no more than ``N`` may stand
    forbid: tuple[str, ...] = ()
    expect: tuple[str, ...] = ()
    #: whole lines (``forbid_lines``)
    lines: tuple[str, ...] = ()
    why: str = ""
    #: the names of a Python file: looked for in code, not in strings or comments
    code: bool = False


#: Each rule's id starts with what it checks: an "experiment line" and an "introduced
#: name" are different findings, and every output format shows the id.
_ID_PREFIX = {
    "lines": "experiment-lines",
    "repeated": "repeated-lines",
    "names": "introduced-names",
    "mode": "mode",
    "removed": "removed-lines",
    "absent": "absent",
    "restore": "restore",
}
_ORDER = {action: index for index, action in enumerate(_ID_PREFIX)}
_LINES_WHY = "an experiment line: the change added it"
_BLAMED_WHY = "an experiment line: git blame gives it to the change"
_NAMES_WHY = "an introduced name: new in this file's code"
_UNVERIFIED = (
    "Not verified: derived from the diff alone, its lines are checked, not its names "
    "(--rev BASE..EXPERIMENT checks both)"
)
_REMOVED_WHY = "a line the change removed: a complete revert brings it back"
_NOTHING_CHANGED_COUNT = (
    "changed, but no line's count and no name changed (lines moved, or whitespace inside "
    "lines changed): not checked (`check --reverted` sees moved lines by git blame)"
)
_REPEATED_WHY = (
    "a line the change wrote again (its text stood in the file before): a complete revert "
    "brings its count back"
)

#: What one file's experiment lines are now, as ``(line, text)``: from git blame, given the
#: file's path, the texts the experiment introduced there, the file's bytes before it, and
#: whether its blank lines count (a change of blank lines alone).
Blame = Callable[[str, frozenset[str], "bytes | None", bool], "list[tuple[int, str]]"]


@dataclass
class Plan:
    """The rules planned, sorted by path, and ``(path, note)`` for what cannot be checked."""

    rules: list[PlannedRule] = field(default_factory=list)
    notes: list[tuple[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class _Options:
    """How every file of one change is planned."""

    expect_removed: bool
    text_rules: bool
    #: ``None``: experiment lines are the added lines; else they are what blame gives
    blame: Blame | None


def plan_changes(
    changes: Sequence[ChangedFile],
    *,
    expect_removed: bool,
    text_rules: bool,
    under: str,
    blame: Blame | None,
    allow_empty: bool = False,
) -> Plan:
    """Plan the rules for ``changes``; raises :class:`FromDiffError` when none can be,
    unless ``allow_empty`` (its notes then say why)."""
    plan = Plan()
    prefix = root_folder(under)
    options = _Options(expect_removed, text_rules, blame)
    for changed in changes:
        _plan_file(plan, changed, prefix, options)
    if not plan.rules and not allow_empty:
        details = "; ".join(f"{path}: {note}" for path, note in sorted(set(plan.notes)))
        raise FromDiffError(
            "the change leaves nothing a manifest can check" + (f" ({details})" if details else "")
        )
    plan.rules.sort(key=lambda rule: (rule.path, _ORDER[rule.action]))
    return plan


def root_folder(under: str) -> str:
    """``under`` as a path prefix (``pkg/``), or ``""`` for the whole tree."""
    folder = under.replace("\\", "/").strip("/")
    while folder.startswith("./"):
        folder = folder[2:]
    return "" if folder in ("", ".") else folder + "/"


def _plan_file(plan: Plan, changed: ChangedFile, prefix: str, options: _Options) -> None:
    change = changed.change
    old = _relative(plan, change.old_path, prefix)
    new = _relative(plan, change.new_path, prefix)
    special = special_file(change)
    if change.status in (Status.ADDED, Status.COPIED):
        if new is not None:
            plan.rules.append(PlannedRule(new, "absent", why="the change added this file"))
    elif change.status is Status.DELETED:
        if old is not None:
            _plan_restore(plan, old, changed, special, "the change deleted this file")
    elif change.status is Status.RENAMED:
        _plan_renamed(plan, changed, old, new, special)
    elif new is not None and not _unchecked(plan, change, new, special, options):
        _plan_contents(plan, changed, new, options)


def _plan_renamed(
    plan: Plan, changed: ChangedFile, old: str | None, new: str | None, special: str | None
) -> None:
    """The old name must be there again, the new one gone."""
    change = changed.change
    if old is not None:
        renamed_to = new or change.new_path
        _plan_restore(plan, old, changed, special, f"the change renamed it to {renamed_to}")
    if new is not None:
        renamed_from = old or change.old_path
        why = f"the change renamed {renamed_from} to it"
        plan.rules.append(PlannedRule(new, "absent", why=why))


def _unchecked(
    plan: Plan, change: FileChange, new: str, special: str | None, options: _Options
) -> bool:
    """Note what of a modified file cannot be checked; true when its contents cannot be."""
    if change.old_mode and change.new_mode and change.old_mode != change.new_mode and not special:
        why = f"the change made its mode {change.new_mode}: a complete revert gives it back"
        plan.rules.append(PlannedRule(new, "mode", expect=(change.old_mode,), why=why))
    if special:
        plan.notes.append((new, f"{special} changed: its target cannot be checked"))
        return True
    if change.binary:
        plan.notes.append((new, "a binary file changed: its contents cannot be checked"))
        return True
    if not change.hunks:
        return True
    if not is_python_path(new) and not options.text_rules:
        plan.notes.append((new, "not Python: not checked (--no-text)"))
        return True
    return False


def _plan_contents(plan: Plan, changed: ChangedFile, new: str, options: _Options) -> None:
    """A modified file's experiment lines and introduced names (or a note: none)."""
    if changed.unverified:
        _plan_unverified(plan, changed, new)
        return
    python = is_python_path(new)
    names, kind_note = _introduced(new, changed.before, changed.after)
    if kind_note:
        plan.notes.append((new, kind_note))
    planned = len(plan.rules)
    _plan_lines(plan, changed, new, options.blame)
    _plan_counts(plan, changed, new, blamed=options.blame is not None)
    expect = names.removed if names and options.expect_removed else ()
    if names and (names.added or expect):
        why = _NAMES_WHY + ("; removed names expected back" if expect else "")
        code = python and not kind_note
        plan.rules.append(PlannedRule(new, "names", names.added, expect, why=why, code=code))
    if len(plan.rules) == planned:
        plan.notes.append((new, _NOTHING_CHANGED_COUNT))


def _plan_lines(plan: Plan, changed: ChangedFile, new: str, blame: Blame | None) -> None:
    """The experiment lines: pinned where blame gives them, else the added lines' texts
    the file did not have before."""
    change = changed.change
    added = _hunk_lines(changed, "+", new)
    known = _stripped_lines(new, changed.before)
    if blame is not None:
        # blank lines alone (added, and removed if any): they are what it wrote
        blanks = bool(added) and not any(added) and not any(_hunk_lines(changed, "-", new))
        if any(added) or blanks:  # checked even when none is left: clean
            introduced = frozenset(_experiment_lines(added, known))
            found = blame(change.path, introduced, changed.before, blanks)
            pinned = [f"line@{number}:{text}" for number, text in found]
            plan.rules.append(PlannedRule(new, "lines", tuple(pinned), why=_BLAMED_WHY))
        return
    lines = _experiment_lines(added, known)
    if lines:
        plan.rules.append(PlannedRule(new, "lines", lines=lines, why=_LINES_WHY))


def _plan_counts(plan: Plan, changed: ChangedFile, new: str, *, blamed: bool) -> None:
    """The lines whose count the change moved, expected back at their count before it.

    A text it took lines of away must have that many again (``removed``: ``line:TEXT``
    for one, ``line*N:TEXT`` for more).  A text it wrote again (the file had it before)
    may stand no more often than before (``repeated``), unless blame pins the change's
    own lines (``blamed``: a later commit's line of that text is not the change's).  Blank
    lines are counted only in a change of whitespace alone, where nothing else is left to
    check (a revert by hand may well keep a blank line of the experiment's function).
    """
    before = line_counts(new, changed.before)
    after = line_counts(new, changed.after)
    counted = _count_changed(before, after)
    removed = _in_hunk_order(changed, "-", new)
    fewer = [text for text in removed if text in counted and before[text] > after[text]]
    back = tuple(_counted(text, before[text]) for text in fewer)
    if back:
        plan.rules.append(PlannedRule(new, "removed", expect=back, why=_REMOVED_WHY))
    added = _in_hunk_order(changed, "+", new)
    again = [text for text in added if text in counted and _repeated(text, before, after, blamed)]
    over = tuple(f"line*{before[text]}:{text}" for text in again)
    if over:
        plan.rules.append(PlannedRule(new, "repeated", over, why=_REPEATED_WHY))


def _count_changed(before: Counter[str], after: Counter[str]) -> set[str]:
    """The texts (stripped) whose count the change moved, that a pattern can spell: blank
    lines only when no other text's count moved."""
    counted = {text for text in before.keys() | after.keys() if before[text] != after[text]}
    if counted - {""}:
        counted.discard("")
    return {text for text in counted if "\r" not in text and not unrepresentable(text)}


def _repeated(text: str, before: Counter[str], after: Counter[str], blamed: bool) -> bool:
    """Is ``text`` one the change wrote again, its count to be checked (blame pins it
    otherwise: the change's own lines, a blank one too)?"""
    return after[text] > before[text] and (before[text] > 0 or not text) and not blamed


def _counted(text: str, count: int) -> str:
    """The pattern expecting ``count`` lines of ``text`` (``line:`` for one)."""
    return f"line:{text}" if count == 1 and text else f"line*{count}:{text}"


def _in_hunk_order(changed: ChangedFile, op: str, path: str) -> list[str]:
    """The texts of the diff's added or removed lines, each once, as they come."""
    return list(dict.fromkeys(_hunk_lines(changed, op, path)))


def _plan_unverified(plan: Plan, changed: ChangedFile, new: str) -> None:
    """A file the diff does not apply to (partly reverted): its experiment lines are the
    added lines that no removed or context line of the diff holds; its names cannot be
    told (the file's other lines are unknown)."""
    hunks = changed.change.hunks
    added = [text for hunk in hunks for op, text in hunk.lines if op == "+"]
    known = {text.strip() for hunk in hunks for op, text in hunk.lines if op != "+"}
    lines = _experiment_lines(added, known)
    if lines:
        plan.rules.append(PlannedRule(new, "lines", lines=lines, why=_LINES_WHY))
    plan.notes.append((new, f"{changed.unverified}. {_UNVERIFIED}"))


def _stripped_lines(path: str, data: bytes | None) -> set[str]:
    """The texts (stripped) of a file's lines as the check reads them: what experiment
    lines are compared with."""
    return {line.strip() for line in split_lines(checked_text(path, data))} if data else set()


def line_counts(path: str, data: bytes | None) -> Counter[str]:
    """How many lines of each text (stripped) a file holds, as the check reads it."""
    return (
        Counter(line.strip() for line in split_lines(checked_text(path, data)))
        if data
        else Counter()
    )


def _hunk_lines(changed: ChangedFile, op: str, path: str) -> list[str]:
    """The diff's added (``+``, from the file after) or removed (``-``, from the file before)
    lines, stripped, as the check decodes that file (a Python file by its coding line)."""
    texts = [
        text.strip() for hunk in changed.change.hunks for kind, text in hunk.lines if kind == op
    ]
    data = changed.after if op == "+" else changed.before
    if data is None:
        return texts
    checked = split_lines(checked_text(path, data))
    raw = split_lines(decode_text(data))
    if checked == raw or len(checked) != len(raw):
        return texts
    as_checked: dict[str, str] = {}
    for raw_line, checked_line in zip(raw, checked, strict=True):
        as_checked.setdefault(raw_line.strip(), checked_line.strip())
    return [as_checked.get(text, text) for text in texts]


def _experiment_lines(added: Sequence[str], known: set[str]) -> tuple[str, ...]:
    """The change's added lines, stripped, that a complete revert removes: each non-blank
    line whose text the file did not hold before (a moved line is not the experiment's)."""
    lines = (text.strip() for text in added)
    kept = (line for line in lines if line and line not in known and "\r" not in line)
    return tuple(dict.fromkeys(kept))


def _relative(plan: Plan, path: str | None, prefix: str) -> str | None:
    """``path`` relative to the root, or ``None`` (with a note) when it cannot be checked."""
    if path is None:
        return None
    if prefix and not path.startswith(prefix):
        plan.notes.append((path, f"outside the root {prefix.rstrip('/')!r}: not checked"))
        return None
    relative = path[len(prefix) :]
    if "\\" in relative or unrepresentable(relative):
        plan.notes.append((relative, "a path a manifest cannot name: not checked"))
        return None
    return relative


def _introduced(
    path: str, before: bytes | None, after: bytes | None
) -> tuple[IntroducedNames | None, str]:
    """The file's introduced names, and a note on why they could not be found.  A file no
    tokenizer fits (prose: documentation, changelogs) has none, and needs no note."""
    if is_python_path(path):
        try:
            return _clean(introduced_names(_python_text(before), _python_text(after))), ""
        except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError) as exc:
            if isinstance(exc, SyntaxError):
                reason = exc.msg + (f" at line {exc.lineno}" if exc.lineno else "")
            else:
                reason = str(exc)
            version = f"{sys.version_info.major}.{sys.version_info.minor}"
            checked = "its lines are checked, not its names"
            return None, f"not valid Python {version} syntax ({reason}): {checked}"
    tokenizer = tokenizer_for(path)
    if tokenizer is None:
        return None, ""
    return _clean(introduced_tokens(_text(before), _text(after), tokenizer=tokenizer)), ""


def _python_text(data: bytes | None) -> str | None:
    return decode_python(data) if data is not None else None


def _text(data: bytes | None) -> str | None:
    return decode_text(data) if data is not None else None


def _clean(names: IntroducedNames) -> IntroducedNames:
    return IntroducedNames(
        tuple(n for n in names.added if not unrepresentable(n)),
        tuple(n for n in names.removed if not unrepresentable(n)),
    )


def _plan_restore(
    plan: Plan, path: str, changed: ChangedFile, special: str | None, why: str
) -> None:
    if special or changed.change.binary or changed.before is None:
        what = special or "a binary file"
        plan.notes.append((path, f"{why}; {what} cannot be expected by its contents"))
        return
    names = fingerprint(path, changed.before)
    if names:
        plan.rules.append(PlannedRule(path, "restore", expect=tuple(sorted(names)), why=why))
        return
    # no name: its lines are expected back (a file deleted is lines removed), and a file
    # without any, an empty one, is expected to exist (a manifest cannot say that alone)
    counts = line_counts(path, changed.before)
    texts = [text for text in counts if text and "\r" not in text and not unrepresentable(text)]
    back = tuple(_counted(text, counts[text]) for text in texts[:FINGERPRINT_SIZE])
    if back:
        plan.rules.append(PlannedRule(path, "removed", expect=back, why=f"{why}; {_REMOVED_WHY}"))
    else:
        plan.rules.append(PlannedRule(path, "restore", why=f"{why}; it was empty: it must exist"))


def rules_from_plan(plan: Plan, *, why: str) -> tuple[Rule, ...]:
    """The plan as rules, without a manifest's text: pinned lines are not written down."""
    used: set[str] = set()
    rules = []
    experiment = {rule.path: rule.forbid for rule in plan.rules if rule.action == "lines"}
    for rule in plan.rules:
        path = literal_path(rule.path)
        pinned = rule.action in ("lines", "repeated")  # pattern texts, not names
        forbid = [parse_pattern(text if pinned else f"={text}") for text in rule.forbid]
        lines_back = rule.action == "removed"  # expected whole lines, as pattern texts
        expected = rule.expect if rule.action != "mode" else ()
        expect = [parse_pattern(text if lines_back else f"={text}") for text in expected]
        # an experiment line is reported once, as such, even when it holds introduced names
        unless = experiment.get(rule.path, ()) if rule.action == "names" else ()
        rules.append(
            Rule(
                id=unique_id(rule, used),
                files=(path,) if rule.action != "absent" else (),
                absent=(path,) if rule.action == "absent" else (),
                forbid=tuple(forbid) + tuple(line_pattern(line) for line in rule.lines),
                expect=tuple(expect),
                kinds=CODE_KINDS if rule.code else DEFAULT_KINDS,
                why=f"{why}: {rule.why}",
                must_exist=rule.action in ("restore", "removed", "mode"),
                unless=tuple(parse_pattern(text) for text in unless),
                mode=rule.expect[0] if rule.action == "mode" else "",
            )
        )
    return tuple(rules)


def unique_id(rule: PlannedRule, used: set[str]) -> str:
    """The rule's id, ``PREFIX-path-slug``, numbered when ``used`` already holds it."""
    base = f"{_ID_PREFIX[rule.action]}-{id_slug(rule.path, None) or 'file'}"
    rule_id, counter = base, 1
    while rule_id in used:
        counter += 1
        rule_id = f"{base}-{counter}"
    used.add(rule_id)
    return rule_id


def literal_path(path: str) -> str:
    """A path as a manifest entry: glob characters bracketed, so it matches only itself."""
    return re.sub(r"([*?\[])", r"[\1]", path)
