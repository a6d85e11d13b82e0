"""Inline allows: ``# cleantree: allow RULE_ID -- reason`` on a reported line.

The comment suppresses the named rule on that line only, and only with a reason, as
``# noqa: X`` and ``# nosemgrep: X`` do (with the reason they do not ask for).  An allow
that gives no reason, or names a rule the manifest does not have, suppresses nothing: the
line stays a finding, with a note that says why the allow was refused.  Suppressed lines
are kept in :attr:`~pytest_cleantree.core.model.Result.suppressed`, so that every format counts
and shows them.  An allow must be a comment: in a Python file it is read from the comment
tokens on the hit's line (:attr:`~pytest_cleantree.core.findings.FileAnalysis.allows`), so
that ``note="# cleantree: allow ..."`` in a string allows nothing; in other files, from the
line.  Pure.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping, Set
from dataclasses import dataclass
from typing import TypeVar

from pytest_cleantree.config.entries import suggest
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.findings import FileAnalysis
from pytest_cleantree.core.model import Hit, Result, Suppressed

__all__ = ["Allow", "apply_allows", "parse_allow"]

_ALLOW = re.compile(r"#\s*cleantree\s*:\s*allow\b(?P<rest>.*)$")
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_HOW = "write '# cleantree: allow RULE_ID -- reason'"

_K = TypeVar("_K")


@dataclass(frozen=True)
class Allow:
    """An allow comment as written: the rule ids it names, its reason, what is wrong."""

    ids: tuple[str, ...]
    reason: str
    #: "" when well formed
    problem: str = ""


def parse_allow(source: str) -> Allow | None:
    """The allow comment of a source line, or ``None`` when it has none."""
    found = _ALLOW.search(source)
    if found is None:
        return None
    names, dashes, reason = found["rest"].partition("--")
    ids = tuple(name for name in re.split(r"[,\s]+", names.strip()) if name)
    reason = reason.strip()
    if not ids:
        return Allow(ids, reason, f"the allow names no rule: {_HOW}")
    bad = [name for name in ids if not _ID.fullmatch(name)]
    if bad:
        return Allow(ids, reason, f"the allow names {bad[0]!r}, which is not a rule id: {_HOW}")
    if not dashes or not reason:
        return Allow(ids, reason, f"the allow gives no reason: {_HOW}")
    return Allow(ids, reason)


def _judge_hit(hit: Hit, rule_id: str, rule_ids: Set[str], written: str) -> Hit | Suppressed:
    allow = parse_allow(written)
    if allow is None:
        return hit
    if allow.problem:
        return dataclasses.replace(hit, note=allow.problem)
    unknown = [name for name in allow.ids if name not in rule_ids]
    if unknown:
        close = suggest(unknown[0], sorted(rule_ids), "rule ids")
        near = f" ({close})" if close.startswith("did you mean") else ""
        return dataclasses.replace(
            hit, note=f"the allow names {unknown[0]!r}, which is no rule of the manifest{near}"
        )
    if rule_id not in allow.ids:
        return hit  # it allows another rule on this line, not this one
    return Suppressed(hit, allow.reason)


def apply_allows(
    results: Mapping[_K, Result],
    rule_ids: Set[str],
    analyses: Mapping[str, FileAnalysis | SourceError] | None = None,
) -> dict[_K, Result]:
    """``results`` with each validly allowed hit moved to ``suppressed``; ``rule_ids`` are
    the ids of the whole manifest (an allow naming another of them is no error).

    ``analyses`` (by path) say where each hit's allow is read from (see the module doc);
    a hit whose file has none is read from its source line.
    """
    analyses = analyses or {}
    applied: dict[_K, Result] = {}
    for key, result in results.items():
        if not result.hits:
            applied[key] = result
            continue
        hits: list[Hit] = []
        suppressed: list[Suppressed] = list(result.suppressed)
        for hit in result.hits:
            analysis = analyses.get(hit.path)
            written = (
                analysis.allow_text(hit.line) if isinstance(analysis, FileAnalysis) else hit.source
            )
            judged = _judge_hit(hit, result.rule.id, rule_ids, written)
            if isinstance(judged, Suppressed):
                suppressed.append(judged)
            else:
                hits.append(judged)
        if len(hits) == len(result.hits) and all(
            a is b for a, b in zip(hits, result.hits, strict=True)
        ):
            applied[key] = result
        else:
            applied[key] = dataclasses.replace(
                result, hits=tuple(hits), suppressed=tuple(suppressed)
            )
    return applied
