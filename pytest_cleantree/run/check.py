"""Evaluate rules over a source: read each file once, analyse it once, judge every rule.

The unit of work is a :class:`~pytest_cleantree.core.checks.Check`: one rule on one
manifest entry.  Checks are what pytest collects, so they are derived from the manifest
alone, without I/O; the source is asked for files only when checks run, in a few large
batches.  A run is five steps: plan (:mod:`.plan`, and the spellings of qualified
patterns, :mod:`.rewrite`) -> read -> analyse (:mod:`.analyses`) -> rewrite the findings
as the manifest wrote them -> judge (:mod:`.judge`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet

from pytest_cleantree.config.exclusions import scope_of
from pytest_cleantree.core.checks import Check
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.findings import FileAnalysis
from pytest_cleantree.core.model import Problem, Result
from pytest_cleantree.run.analyses import AnalysisCache
from pytest_cleantree.run.judge import Modes, failed, judge_all
from pytest_cleantree.run.parallel import FileWork
from pytest_cleantree.run.plan import READ_BATCH_FILES, Plan, plan_checks
from pytest_cleantree.run.rewrite import Analyses, Spelt, rewrite_findings, spell
from pytest_cleantree.sources.base import FileRead, NoNeedle, ReadAnswer, ReadsModes, Source


def check_all(
    checks: Sequence[Check],
    source: Source,
    cache: AnalysisCache | None = None,
    *,
    rule_ids: AbstractSet[str] | None = None,
    import_roots: Sequence[str] = (),
    graph_budget: int | None = None,
) -> dict[Check, Result]:
    """Run checks against one source, reading every needed file once.

    A source that cannot be reached at all makes every check an error; a file
    that cannot be read or parsed makes the checks that name it errors.
    ``rule_ids`` are all the manifest's rule ids (default: the checks' own), which inline
    allows may name (see :mod:`pytest_cleantree.run.allows`).
    ``import_roots`` are the manifest's folders on ``sys.path`` (see
    :mod:`pytest_cleantree.config.layout`); ``graph_budget`` bounds the symbol graph's work.
    """
    cache = cache or AnalysisCache()
    try:
        plan = plan_checks(checks, source, cache.store)
        plan, spelt = spell(checks, plan, source, import_roots, cache.store, graph_budget)
        analyses = read_and_analyse(plan, spelt, source, cache)
        analyses = rewrite_findings(analyses, plan.wanted, spelt)
    except SourceError as exc:  # the source as a whole: no file to attach it to
        return {check: failed(check, source, Problem(str(exc))) for check in checks}
    finally:
        cache.flush()
    spellings = spelt.spellings
    unfollowed = spellings.problems if spellings is not None else {}
    unnamed = spellings.unnamed if spellings is not None else {}
    modes = read_modes(checks, plan, source)
    return judge_all(checks, source, plan, analyses, unfollowed, rule_ids, unnamed, modes)


def read_modes(checks: Sequence[Check], plan: Plan, source: Source) -> Modes:
    """The mode of each file a rule with a ``mode`` names (none read when no rule has one);
    a source that cannot tell modes says so for each of them."""
    paths = sorted(
        {path for check in checks if check.rule.mode for path in plan.scoped[scope_of(check)]}
    )
    if not paths:
        return {}
    if not isinstance(source, ReadsModes):
        why = f"{source.host or 'this source'} cannot report file modes: the mode is not checked"
        return {path: SourceError(f"{path}: {why}") for path in paths}
    try:
        return source.modes(paths)
    except SourceError as exc:
        return {path: exc for path in paths}


def read_and_analyse(plan: Plan, spelt: Spelt, source: Source, cache: AnalysisCache) -> Analyses:
    """Each planned file's analysis, or why it has none.

    Files are read and analysed in batches, and only their findings kept: memory
    stays bounded on huge trees, and a remote source still answers in few requests.
    A file unchanged since a run that stored its analysis is not read at all.
    """
    analyses: Analyses = {}
    paths = plan.paths
    cache.planned(len(paths))
    for start in range(0, len(paths), READ_BATCH_FILES):
        batch = paths[start : start + READ_BATCH_FILES]
        # what a file's star imports bind is in its key, and depends on its content: with
        # star-bound names in play, an unread file's key cannot be known, so all are read
        known, stats = (
            ({}, None)
            if spelt.binds
            else cache.unchanged(source, batch, plan.wanted, spelt.modules)
        )
        analyses.update(known)
        batch = [path for path in batch if path not in known]
        needles = plan.needles_for(batch)
        contents = source.read(batch) if needles is None else source.read(batch, needles)
        work = _to_analyse(batch, contents, plan, spelt, analyses)
        cache.analysed(len(batch) - len(work))  # unreadable, or no needle: judged already
        del contents
        analyses.update(cache.analyze_many(work, stats))
    return analyses


def _to_analyse(
    batch: Sequence[str],
    contents: Mapping[str, ReadAnswer],
    plan: Plan,
    spelt: Spelt,
    analyses: Analyses,
) -> list[FileWork]:
    """What was read, as work for the analysis (each file's record passed on whole); what
    has no analysis goes to ``analyses``."""
    work: list[FileWork] = []
    for path in batch:
        read = contents.get(path, SourceError(f"{path}: the source returned nothing"))
        if isinstance(read, SourceError):
            analyses[path] = read
        elif isinstance(read, NoNeedle):  # the local prefilter's answer, given remotely
            analyses[path] = FileAnalysis(path, (), ())
        elif not isinstance(read, FileRead):  # a source of another shape: never a pass
            analyses[path] = SourceError(
                f"{path}: the source answered {type(read).__name__}, not a file read"
            )
        else:
            # only a file that holds a ``*`` can star-import
            stars = spelt.binds if b"*" in read.data else None
            # the run's budget covers the analysis too
            spelt.charge(path, plan.wanted[path], read.data)
            patterns, comments = plan.wanted[path]
            module = spelt.modules.get(path)
            work.append(FileWork(path, read, patterns, comments, module, stars or None))
    return work
