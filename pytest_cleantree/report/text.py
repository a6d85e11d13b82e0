"""The one renderer: the same text in pytest failures, the fixture and the CLI."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

from pytest_cleantree.core.model import Problem, Result
from pytest_cleantree.report.context import PathFrame, RenderContext
from pytest_cleantree.report.fleet import (
    count_errors,
    describe_counts,
    failed_files,
    host_statuses,
    is_host_problem,
    iter_distinct_problems,
)

#: paths shown as the results hold them, only normalised
AS_GIVEN = PathFrame()

#: lone surrogates: a name's bytes that are not UTF-8, as ``os.fsdecode`` keeps them
#: (U+DC80-U+DCFF), or a string literal's ``"\\ud800"``; no UTF-8 output can hold them
_SURROGATES = "\ud800-\udfff"
_LONE = re.compile(f"[{_SURROGATES}]")
#: C0 and C1 controls but tab, the bidirectional overrides (U+202E reverses what follows)
#: and the lone surrogates
_CONTROLS = re.compile(
    f"[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069{_SURROGATES}]"
)


def escape_controls(text: str) -> str:
    """``text`` safe for a terminal: each control character written as its escape (``\\x1b``).

    A checked line holding ``\\x1b[2K`` or ``\\r`` would otherwise erase the finding
    it is part of from the screen.  A byte of a name that is not UTF-8 is shown as
    ``\\xNN`` (see :func:`escape_surrogates`).  Machine formats keep the real value of
    what UTF-8 can hold.
    """
    return _CONTROLS.sub(_escape, text)


def escape_surrogates(text: str) -> str:
    """``text`` as UTF-8 can hold it: the one escaping model of every format.

    A byte that is not UTF-8 in a file name (``os.fsdecode`` keeps it as U+DC80 +
    byte) is written ``\\xNN``, the byte's value, as Python's ``repr`` of the bytes
    shows it: ``caf\\xe9.py``.  Any other lone surrogate is written ``\\udXXX``.
    The escape is for display: a name that truly holds ``\\xe9`` reads the same.
    """
    return _LONE.sub(_escape, text)


def escape_json(text: str) -> str:
    """A JSON document (``ensure_ascii=False``) as valid UTF-8: each lone surrogate of its
    strings written as in :func:`escape_surrogates`, the backslash escaped for JSON (the
    string's value is ``caf\\xe9.py``)."""
    return _LONE.sub(lambda match: "\\" + _escape(match), text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if 0xDC80 <= code <= 0xDCFF:  # a byte os.fsdecode could not decode
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown_root(root: str, cwd: str) -> str:
    """How a local root prefixes paths in text output: relative to the current folder when
    under it (``""`` when it is the current folder), else absolute (see :class:`.PathFrame`)."""
    return PathFrame(root, cwd).prefix()


def _where(
    host: str,
    path: str,
    line: int | None = None,
    col: int | None = None,
    frame: PathFrame = AS_GIVEN,
) -> str:
    path = frame.show(path, host)
    place = path if line is None else f"{path}:{line}" if col is None else f"{path}:{line}:{col}"
    return f"{host}:{place}" if host else place


def problem_text(problem: Problem, host: str = "", frame: PathFrame = AS_GIVEN) -> str:
    """A problem as the text report shows it: its path in the frame the findings are shown in
    (relative to the current folder, not to the root), so that it can be copied as they can."""
    if not problem.path:
        return problem.message
    place = frame.show(problem.path, host)
    return (
        f"{place}:{problem.line}: {problem.message}"
        if problem.line
        else f"{place}: {problem.message}"
    )


def render_rows(
    results: Iterable[Result],
    frame: PathFrame = AS_GIVEN,
    *,
    host_problems: bool = True,
) -> list[tuple[str, str, str]]:
    """The (where, what, detail) rows of failed results: remaining lines first, then the rest.

    ``where`` is ``path:line:col`` (1-based), the path as ``frame`` shows it.  Without
    ``host_problems``, a host's own problem (see :mod:`.fleet`) is left for its host's block.
    """
    rows: list[tuple[str, str, str]] = []
    for result in results:
        host = result.host
        for hit in result.hits:
            kinds = ",".join(kind.value for kind in hit.kinds)
            detail = f"{hit.source}  [{hit.note}]" if hit.note else hit.source
            rows.append((_where(host, hit.path, hit.line, hit.col + 1, frame), kinds, detail))
        for missing in result.missing:
            where = _where(host, missing.path, frame=frame)
            rows.append((where, "missing", f"expected {missing.pattern!r}"))
        for path in result.present:
            rows.append((_where(host, path, frame=frame), "present", "must not exist"))
        for problem in result.problems:
            if host_problems or not (host and is_host_problem(problem)):
                rows.append((host, "error", problem_text(problem, host, frame)))
    return rows


#: SGR codes of the text report on a colour terminal: paths bold, kinds by severity, the summary
#: by outcome (``--color`` is the front end's decision: see :attr:`.RenderContext.color`)
_PATH, _KIND, _ERROR = "1", "31", "33"
_SUMMARY = {"clean": "1;32", "dirty": "1;31", "incomplete": "1;33"}


def _paint(text: str, code: str, color: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if color and text else text


def render_table(rows: Sequence[tuple[str, str, str]], color: bool = False) -> str:
    """Align rows in three columns; an empty ``where`` collapses.  Controls are escaped.
    With ``color``, paths and kinds are painted (after alignment: codes take no column)."""
    shown = [(escape_controls(where), what, escape_controls(det)) for where, what, det in rows]
    width_where = max((len(where) for where, _, _ in shown), default=0)
    width_what = max((len(what) for _, what, _ in shown), default=0)
    lines = []
    for where, what, detail in shown:
        kind = _paint(what, _ERROR if what == "error" else _KIND, color)
        if where:
            pad_where = " " * (width_where - len(where))
            pad_what = " " * (width_what - len(what))
            place = _paint(where, _PATH, color)
            lines.append(f"{place}{pad_where}  {kind}{pad_what}  {detail}".rstrip())
        else:
            lines.append(f"{kind}: {detail}")
    return "\n".join(lines)


def _why(text: str) -> str:
    """A rule's ``why`` for a terminal: its own line breaks kept, other controls escaped."""
    return "\n".join(escape_controls(line) for line in text.split("\n"))


def render_result(result: Result, frame: PathFrame = AS_GIVEN) -> str:
    """A failed check as shown to the user: the rule's ``why``, then one line per finding."""
    body = render_table(render_rows([result], frame))
    return f"{_why(result.rule.why)}\n{body}" if result.rule.why else body


def render(results: Sequence[Result], context: RenderContext) -> str:
    """The registry's entry (the CLI's text): the report, or the statistics with
    ``statistics``; with ``quiet`` the findings only (``""`` when clean)."""
    frame = context.text_frame()
    clean = all(result.ok for result in results)
    if context.statistics:
        text = render_statistics(results, frame) + "\n\n" + render_summary(results)
    else:
        text = render_report(results, frame, color=context.color)
    if not context.quiet:
        text = _with_uncovered(text, results, context.uncovered)
        body, newline, summary = text.rpartition("\n")
        complete = all(result.complete for result in results) and bool(results)
        outcome = "clean" if clean and complete else "dirty" if complete else "incomplete"
        return body + newline + _paint(summary, _SUMMARY[outcome], context.color)
    if clean:
        return ""
    return text.rpartition("\n\n")[0]  # the findings, without the summary line


def _with_uncovered(text: str, results: Sequence[Result], uncovered: Sequence[str]) -> str:
    """The report with a line per named file no rule covers, before the summary line; when
    no rule covers any, the summary says that nothing was checked, never "clean"."""
    if not uncovered:
        return text
    notes = [f"cleantree: no rule covers {escape_controls(name)}" for name in uncovered]
    body, _, summary = text.rpartition("\n")
    if not results:
        count = len(uncovered)
        summary = (
            f"cleantree: nothing checked: no rule covers the {count} file"
            + ("s named" if count != 1 else " named")
            + " (0 rules, 0 files)"
        )
    return "\n".join([*([body] if body else []), *notes, summary])


def render_report(
    results: Sequence[Result], frame: PathFrame = AS_GIVEN, *, color: bool = False
) -> str:
    """The CLI's text report: each failed rule's id and why, its rows, then for a fleet a
    status line per host, then a summary line.  A host's own error (it could not be reached)
    is said once, under its host, not one per rule nor under a rule it has nothing to do
    with: in the fleet's status lines, or alone in a ``host NAME`` block."""
    blocks: list[str] = []
    failed = [result for result in results if not result.ok]
    by_rule: dict[str, list[Result]] = {}
    for result in failed:
        by_rule.setdefault(result.rule.id, []).append(result)
    statuses = host_statuses(results)
    fleet = len(statuses) > 1
    for rule_id, rule_results in by_rule.items():
        rows = render_rows(rule_results, frame, host_problems=False)
        if not rows:  # its only failure is a host's own error, shown in the host's block
            continue
        why = _why(rule_results[0].rule.why)
        header = f"{escape_controls(rule_id)}: {why}" if why else escape_controls(rule_id)
        blocks.append(f"{header}\n{render_table(rows, color)}")
    by_host: dict[str, list[tuple[str, str, str]]] = {}
    for result, problem in iter_distinct_problems(failed):
        if result.host and is_host_problem(problem) and not fleet:  # or its status line
            by_host.setdefault(result.host, []).append(("", "error", problem.message))
    for host, rows in by_host.items():
        blocks.append(f"host {escape_controls(host)}\n{render_table(rows, color)}")
    if fleet:
        blocks.append("\n".join(escape_controls(status.text()) for status in statuses))
    blocks.append(render_summary(results))
    return "\n\n".join(blocks)


def render_summary(results: Sequence[Result]) -> str:
    """One line, the same under both front ends: clean and what was checked, or what failed
    (``5 forbidden lines in 2 files (3 rules checked)``: the files at fault, not those read)."""
    rules = len({result.rule.id for result in results})
    hits = sum(len(result.hits) for result in results)
    missing = sum(len(result.missing) for result in results)
    present = sum(len(result.present) for result in results)
    errors = count_errors(results)
    suppressed = sum(len(result.suppressed) for result in results)
    allowed = f"; {suppressed} allowed inline" if suppressed else ""
    if hits == missing == present == errors == 0:
        per_host: dict[str, set[str]] = defaultdict(set)
        for host, paths in {(r.host, id(r.files)): (r.host, r.files) for r in results}.values():
            per_host[host].update(paths)  # many results share one tuple of files: count it once
        files = sum(len(paths) for paths in per_host.values())
        scope = f"{rules} rule{'s' * (rules != 1)}, {files} file{'s' * (files != 1)}"
        return f"cleantree: clean ({scope}{allowed})"
    parts = describe_counts(hits, missing, present, errors, *failed_files(results))
    checked = f"{rules} rule{'s' * (rules != 1)} checked"
    return f"cleantree: {'; '.join(parts)} ({checked}{allowed})"


def render_statistics(results: Sequence[Result], frame: PathFrame = AS_GIVEN) -> str:
    """How many lines remain per rule and per file, most first (``--statistics``), then the
    errors themselves: a count alone would not say what to fix."""
    per_rule: Counter[str] = Counter()
    per_file: Counter[str] = Counter()
    for result in results:
        for hit in result.hits:
            per_rule[result.rule.id] += 1
            per_file[_where(result.host, hit.path, frame=frame)] += 1
    errors = render_table(
        [
            (result.host, "error", problem_text(problem, result.host, frame))
            for result, problem in iter_distinct_problems(results)
        ]
    )
    if not per_rule:
        return "no forbidden line remains" + (f"\n{errors}" if errors else "")
    width = len(str(max(per_rule.values())))
    lines = ["lines remaining per rule:"]
    shown = [(count, escape_controls(name)) for name, count in per_rule.most_common()]
    lines += [f"  {count:>{width}}  {rule}" for count, rule in shown]
    lines.append("lines remaining per file:")
    shown = [(count, escape_controls(path)) for path, count in per_file.most_common()]
    lines += [f"  {count:>{width}}  {path}" for count, path in shown]
    return "\n".join(lines + ([errors] if errors else []))
