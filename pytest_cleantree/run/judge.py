"""Judge every check on the run's analyses, then apply the inline allows.

The last step of :func:`~pytest_cleantree.run.check.check_all`: pure, from what the
source answered and what the analysis found.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import replace

from pytest_cleantree.config.exclusions import Scope, scope_of
from pytest_cleantree.core.checks import Check
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.findings import FileAnalysis, Finding
from pytest_cleantree.core.model import (
    CODE_KINDS,
    Hit,
    Kind,
    Missing,
    PatternTier,
    Problem,
    Result,
    Rule,
    is_python_path,
)
from pytest_cleantree.core.patterns import greps_code, is_path_glob
from pytest_cleantree.run.allows import apply_allows
from pytest_cleantree.run.plan import Plan
from pytest_cleantree.sources.base import Source

_KIND_ORDER = {kind: index for index, kind in enumerate(Kind)}

#: each file's mode as git writes it (``100644``), or why it cannot be told
Modes = Mapping[str, "str | SourceError"]


def judge_all(
    checks: Sequence[Check],
    source: Source,
    plan: Plan,
    analyses: Mapping[str, FileAnalysis | SourceError],
    unfollowed: Mapping[str, str],
    rule_ids: AbstractSet[str] | None = None,
    unnamed: Mapping[str, str] | None = None,
    modes: Modes | None = None,
) -> dict[Check, Result]:
    """Every check's result; ``unfollowed`` (path -> why) make qualified checks incomplete,
    and so does a qualified pattern in ``unnamed`` (pattern -> why: it names no module),
    unless its rule says ``missing_ok``.

    ``rule_ids`` are all the manifest's rule ids (default: the checks' own), which inline
    allows may name (see :mod:`pytest_cleantree.run.allows`).  ``modes`` are the files'
    modes, for the rules that expect one (``Rule.mode``).
    """
    found = Found(analyses, plan.scoped)
    judged: dict[Check, Result] = {}
    for check in checks:
        named = (plan.present if check.absent else plan.named)[check.entry]
        if isinstance(named, SourceError):
            judged[check] = failed(check, source, Problem.at(check.entry, str(named)))
        elif check.absent:
            judged[check] = judge(check, source, named, found)
        elif plan.scoped[scope_of(check)] or not named:
            judged[check] = judge(check, source, plan.scoped[scope_of(check)], found)
        else:  # everything it names is excluded
            judged[check] = Result(check.rule, check.label, source.host)
        if check.rule.mode and not check.absent and not isinstance(named, SourceError):
            judged[check] = _judge_mode(judged[check], plan.scoped[scope_of(check)], modes or {})
    if unfollowed:
        _add_unfollowed(judged, unfollowed)
    if unnamed:
        _add_unnamed(judged, unnamed)
    # inline allows move allowed hits to Result.suppressed
    return apply_allows(judged, rule_ids or {check.rule.id for check in checks}, analyses)


def _add_unfollowed(judged: dict[Check, Result], unfollowed: Mapping[str, str]) -> None:
    """A module on the chains could not be followed: qualified checks are incomplete,
    whatever they found."""
    problems = tuple(Problem.at(path, why) for path, why in sorted(unfollowed.items()))
    for check, result in judged.items():
        if not check.absent and any(
            p.tier is PatternTier.QUALIFIED for p in check.rule.forbid + check.rule.expect
        ):
            judged[check] = replace(result, problems=result.problems + problems)


def _add_unnamed(judged: dict[Check, Result], unnamed: Mapping[str, str]) -> None:
    """A pattern naming no module can match nothing: its check cannot say "clean".  The
    problem is the rule's, attached to its entry: not a host's (which a report would show as
    "unreachable")."""
    for check, result in judged.items():
        rule = check.rule
        if check.absent or rule.missing_ok:
            continue
        problems = tuple(
            Problem(f"{key}: {unnamed[pattern.text]}", check.entry)
            for key, patterns in (("forbid", rule.forbid), ("expect", rule.expect))
            for pattern in patterns
            if pattern.tier is PatternTier.QUALIFIED and pattern.text in unnamed
        )
        if problems:
            judged[check] = replace(result, problems=result.problems + problems)


def failed(check: Check, source: Source, problem: Problem) -> Result:
    return Result(check.rule, check.label, source.host, problems=(problem,))


class Found:
    """The analyses of one run, indexed by pattern: most rules hold in most files.

    A rule with no ``expect`` is judged on the files where one of its
    patterns was found, or that could not be read or parsed, not on every
    file it names: 2,000 rules over 20,000 files is 40 million pairs.
    """

    def __init__(
        self,
        analyses: Mapping[str, FileAnalysis | SourceError],
        scoped: Mapping[Scope, tuple[str, ...]],
    ) -> None:
        self.analyses = analyses
        self.with_pattern: dict[str, set[str]] = defaultdict(set)
        self.troubled: set[str] = set()
        for path, analysis in analyses.items():
            if isinstance(analysis, SourceError) or analysis.problem:
                self.troubled.add(path)
            else:
                for pattern in analysis.patterns_found:
                    self.with_pattern[pattern].add(path)
        self._scoped = scoped
        self._members: dict[Scope, frozenset[str]] = {}  # scopes share files: one set each

    def to_judge(self, check: Check) -> Sequence[str]:
        """The files of the check's scope whose analysis can change its result, in order."""
        scope = scope_of(check)
        paths = self._scoped[scope]
        if check.rule.expect:
            return paths
        if scope not in self._members:
            self._members[scope] = frozenset(paths)
        candidates = set(self.troubled)
        for pattern in check.rule.forbid:
            candidates |= self.with_pattern.get(pattern.text, set())
        return sorted(candidates & self._members[scope])


def judge(check: Check, source: Source, paths: tuple[str, ...], found: Found) -> Result:
    """One check's result on its files (``paths``: those an ``absent`` entry names)."""
    rule = check.rule
    if check.absent:
        return Result(rule, check.label, source.host, present=paths, files=paths)
    if not paths:
        return _nothing_named(check, source)
    hits: list[Hit] = []
    missing: list[Missing] = []
    problems: list[Problem] = []
    forbidden = frozenset(p.text for p in rule.forbid)
    for path in found.to_judge(check):
        analysis = found.analyses[path]
        if isinstance(analysis, SourceError):
            problems.append(Problem.at(path, str(analysis)))
            continue
        if analysis.problem:
            problems.append(Problem(analysis.problem, path, analysis.problem_line))
        found_here = forbidden & analysis.patterns_found
        if found_here:
            hits.extend(_hits(rule, _over_count(rule, found_here, analysis), analysis))
        if rule.expect:
            missing.extend(_missing(rule, analysis))
    return Result(
        rule,
        check.label,
        source.host,
        hits=tuple(hits),
        missing=tuple(missing),
        problems=tuple(problems),
        files=paths,
    )


def _nothing_named(check: Check, source: Source) -> Result:
    """A ``files`` entry that names no file: allowed, a violation, or a problem."""
    rule = check.rule
    if rule.missing_ok:
        return Result(rule, check.label, source.host)
    if rule.must_exist:  # the file is expected back: its absence is the violation
        expected = [p.text for p in rule.expect] or ["the file itself"]
        gone = tuple(Missing(check.entry, pattern) for pattern in expected)
        return Result(rule, check.label, source.host, missing=gone)
    what = "glob matches no file" if is_path_glob(check.entry) else "no such file"
    problem = f"{what} under {source.root} (set missing_ok = true to allow)"
    return failed(check, source, Problem(problem, check.entry))


def _allowed(rule: Rule, finding: Finding, analysis: FileAnalysis) -> bool:
    """Does the rule look where the finding stands?  A line of text always counts, but for
    the code line of a Python file a pattern no name holds was found on (see
    :mod:`pytest_cleantree.analysis.codetext`): that one counts where the rule looks at code."""
    kind = finding.occurrence.kind
    if kind is not Kind.TEXT:
        return kind in rule.kinds
    if rule.kinds & CODE_KINDS or analysis.problem is not None:
        return True  # a file read as text has its every line's text findings
    return not (is_python_path(analysis.path) and finding.pattern in _blind(rule))


@functools.lru_cache(maxsize=256)
def _blind(rule: Rule) -> frozenset[str]:
    """The rule's patterns matched on code lines as grep would (see
    :func:`~pytest_cleantree.core.patterns.greps_code`): a regex, or a substring no name
    holds."""
    return frozenset(p.text for p in rule.forbid + rule.expect if greps_code(p))


def _hits(rule: Rule, forbidden: frozenset[str], analysis: FileAnalysis) -> Iterator[Hit]:
    """Forbidden findings, one per line, with all of that line's kinds and patterns."""
    by_line: dict[int, list[tuple[Kind, int, str]]] = defaultdict(list)
    spared = {p.text for p in rule.unless}
    skip = {f.occurrence.line for f in analysis.findings if f.pattern in spared}
    for finding in analysis.findings:
        occurrence = finding.occurrence
        if occurrence.line in skip:
            continue
        if finding.pattern in forbidden and _allowed(rule, finding, analysis):
            by_line[occurrence.line].append((occurrence.kind, occurrence.col, finding.pattern))
    for line in sorted(by_line):
        found = by_line[line]
        kinds = tuple(sorted({kind for kind, _, _ in found}, key=_KIND_ORDER.__getitem__))
        patterns = tuple(sorted({pattern for _, _, pattern in found}))
        col = min(col for _, col, _ in found)
        source = analysis.source_line(line).strip()
        yield Hit(analysis.path, line, kinds, source, col, patterns)


def _judge_mode(result: Result, paths: Sequence[str], modes: Modes) -> Result:
    """A rule's ``mode`` on each of its files: another mode is missing (the file named, the
    mode expected and the mode found); a mode that cannot be told is a problem."""
    expected = result.rule.mode
    missing: list[Missing] = []
    problems: list[Problem] = []
    for path in paths:
        mode = modes.get(path, SourceError(f"{path}: its mode was not read"))
        if isinstance(mode, SourceError):
            problems.append(Problem.at(path, str(mode)))
        elif mode != expected:
            missing.append(Missing(path, f"mode {expected}, not {mode}"))
    return replace(
        result,
        missing=result.missing + tuple(missing),
        problems=result.problems + tuple(problems),
    )


def _line_counts(rule: Rule, analysis: FileAnalysis) -> dict[str, int]:
    """How many lines each pattern was found on, in the kinds the rule looks at."""
    lines: dict[str, set[int]] = defaultdict(set)
    for finding in analysis.findings:
        if _allowed(rule, finding, analysis):
            lines[finding.pattern].add(finding.occurrence.line)
    return {pattern: len(found) for pattern, found in lines.items()}


def _over_count(rule: Rule, found: frozenset[str], analysis: FileAnalysis) -> frozenset[str]:
    """The forbidden patterns found that fail: a counted line pattern (``line*N:``) only
    when the file holds more than ``N`` of its lines."""
    counted = {p.text: p.count for p in rule.forbid if p.count is not None and p.text in found}
    if not counted:
        return found
    lines = _line_counts(rule, analysis)
    return frozenset(
        text for text in found if text not in counted or lines.get(text, 0) > counted[text]
    )


def _missing(rule: Rule, analysis: FileAnalysis) -> Iterator[Missing]:
    lines = _line_counts(rule, analysis)
    for pattern in rule.expect:
        if lines.get(pattern.text, 0) < (1 if pattern.count is None else pattern.count):
            yield Missing(analysis.path, pattern.text)
