"""Evaluate rules over a source: read each file once, analyse it once, judge every rule.

The unit of work is a :class:`Check`: one rule on one manifest entry (a path
or glob from ``files``, or a path from ``absent``).  Checks are what pytest
collects, so they are derived from the manifest alone, without I/O; the
source is asked for files only when checks run, all at once.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from pytest_cleantree.analysis import FileAnalysis, analyze
from pytest_cleantree.errors import SourceError
from pytest_cleantree.model import Hit, Kind, Missing, Pattern, Result, Rule
from pytest_cleantree.patterns import is_path_glob
from pytest_cleantree.sources.base import Source

_KIND_ORDER = {kind: index for index, kind in enumerate(Kind)}


@dataclass(frozen=True)
class Check:
    """One rule on one manifest entry; ``absent`` checks that the entry does *not* exist."""

    rule: Rule
    entry: str
    absent: bool = False

    @property
    def label(self) -> str:
        """The entry as shown in test ids: ``srt/x.py``, or ``absent:srt/x.py``."""
        return f"absent:{self.entry}" if self.absent else self.entry


def iter_checks(rules: Iterable[Rule]) -> Iterator[Check]:
    """Every check a manifest asks for, in manifest order."""
    for rule in rules:
        for entry in rule.files:
            yield Check(rule, entry)
        for entry in rule.absent:
            yield Check(rule, entry, absent=True)


class AnalysisCache:
    """Analyses keyed by file content and the patterns asked for: a file is parsed once per run."""

    def __init__(self) -> None:
        self._store: dict[tuple[str, str, tuple[str, ...], bool], FileAnalysis] = {}

    def analyze(
        self, path: str, data: bytes, patterns: Sequence[Pattern], *, comments: bool
    ) -> FileAnalysis:
        digest = hashlib.blake2b(data, digest_size=16).hexdigest()
        key = (path, digest, tuple(sorted(p.text for p in patterns)), comments)
        found = self._store.get(key)
        if found is None:
            found = self._store[key] = analyze(path, data, patterns, comments=comments)
        return found


def check_all(
    checks: Sequence[Check], source: Source, cache: AnalysisCache | None = None
) -> dict[Check, Result]:
    """Run checks against one source, reading every needed file once.

    A source that cannot be reached at all makes every check an error; a file
    that cannot be read or parsed makes the checks that name it errors.
    """
    cache = cache or AnalysisCache()
    try:
        expanded = source.expand(sorted({check.entry for check in checks}))
        wanted = _patterns_per_path(checks, expanded)
        contents = source.read(sorted(wanted)) if wanted else {}
    except SourceError as exc:
        return {check: _failed(check, source, str(exc)) for check in checks}
    analyses: dict[str, FileAnalysis | SourceError] = {}
    for path, (patterns, comments) in wanted.items():
        data = contents.get(path, SourceError(f"{path}: the source returned nothing"))
        if isinstance(data, SourceError):
            analyses[path] = data
        else:
            analyses[path] = cache.analyze(path, data, patterns, comments=comments)
    return {check: _judge(check, source, expanded[check.entry], analyses) for check in checks}


def _patterns_per_path(
    checks: Sequence[Check], expanded: Mapping[str, tuple[str, ...]]
) -> dict[str, tuple[list[Pattern], bool]]:
    """For each file to read, the union of the patterns of the rules naming it."""
    patterns: dict[str, dict[str, Pattern]] = defaultdict(dict)
    comments: dict[str, bool] = defaultdict(bool)
    for check in checks:
        if check.absent:
            continue
        for path in expanded.get(check.entry, ()):
            for pattern in check.rule.patterns:
                patterns[path][pattern.text] = pattern
            comments[path] |= Kind.COMMENT in check.rule.kinds
    return {path: (list(found.values()), comments[path]) for path, found in patterns.items()}


def _failed(check: Check, source: Source, problem: str) -> Result:
    return Result(check.rule, check.label, source.host, problems=(problem,))


def _judge(
    check: Check,
    source: Source,
    paths: tuple[str, ...],
    analyses: Mapping[str, FileAnalysis | SourceError],
) -> Result:
    rule = check.rule
    if check.absent:
        return Result(rule, check.label, source.host, present=paths, files=paths)
    if not paths:
        if rule.missing_ok:
            return Result(rule, check.label, source.host)
        what = "glob matches no file" if is_path_glob(check.entry) else "no such file"
        problem = f"{check.entry}: {what} under {source.root} (set missing_ok = true to allow)"
        return _failed(check, source, problem)
    hits: list[Hit] = []
    missing: list[Missing] = []
    problems: list[str] = []
    for path in paths:
        analysis = analyses[path]
        if isinstance(analysis, SourceError):
            problems.append(str(analysis))
            continue
        if analysis.problem:
            problems.append(f"{path}: {analysis.problem}")
        hits.extend(_hits(rule, analysis))
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


def _allowed(rule: Rule, kind: Kind) -> bool:
    return kind is Kind.TEXT or kind in rule.kinds


def _hits(rule: Rule, analysis: FileAnalysis) -> Iterator[Hit]:
    """Forbidden findings, one per line, with all of that line's kinds and patterns."""
    forbidden = {p.text for p in rule.forbid}
    by_line: dict[int, list[tuple[Kind, int, str]]] = defaultdict(list)
    for finding in analysis.findings:
        occurrence = finding.occurrence
        if finding.pattern in forbidden and _allowed(rule, occurrence.kind):
            by_line[occurrence.line].append((occurrence.kind, occurrence.col, finding.pattern))
    for line in sorted(by_line):
        found = by_line[line]
        kinds = tuple(sorted({kind for kind, _, _ in found}, key=_KIND_ORDER.__getitem__))
        patterns = tuple(sorted({pattern for _, _, pattern in found}))
        col = min(col for _, col, _ in found)
        source = analysis.source_line(line).strip()
        yield Hit(analysis.path, line, kinds, source, col, patterns)


def _missing(rule: Rule, analysis: FileAnalysis) -> Iterator[Missing]:
    present = {
        finding.pattern for finding in analysis.findings if _allowed(rule, finding.occurrence.kind)
    }
    for pattern in rule.expect:
        if pattern.text not in present:
            yield Missing(analysis.path, pattern.text)
