"""Machine-readable renderers: JSON (versioned, with a JSON Schema), GitHub annotations, SARIF.

Every renderer takes the same :class:`~pytest_cleantree.core.model.Result` list as the
text report in :mod:`pytest_cleantree.report.text`; none does I/O.  ``root`` is the
checked folder as the reader should see it (relative to the repository for
GitHub and SARIF, so annotations land on the PR diff).
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
import urllib.parse
from collections.abc import Sequence
from typing import Any

from pytest_cleantree import __version__
from pytest_cleantree.core.errors import CleanTreeError, ManifestError
from pytest_cleantree.core.model import Hit, Result, Rule
from pytest_cleantree.report import FORMATS as FORMATS  # re-exported: a text run loads no renderer
from pytest_cleantree.report.text import escape_controls, render_summary

JSON_SCHEMA_ID = "https://pytest-cleantree.invalid/schemas/report-v1.json"
JSON_VERSION = 1
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _join(root: str, path: str) -> str:
    return posixpath.normpath(posixpath.join(root, path)) if root not in ("", ".") else path


def render_json(results: Sequence[Result], *, manifest: str, root: str) -> str:
    """The versioned JSON report; ``pytest_cleantree/schemas/report-v1.json`` describes it."""
    document = {
        "$schema": JSON_SCHEMA_ID,
        "version": JSON_VERSION,
        "tool": {"name": "pytest-cleantree", "version": __version__},
        "manifest": manifest,
        "root": root,
        "summary": {
            "clean": all(result.ok for result in results),
            "complete": all(result.complete for result in results),
            "text": render_summary(results),
            "hits": sum(len(result.hits) for result in results),
            "missing": sum(len(result.missing) for result in results),
            "present": sum(len(result.present) for result in results),
            "problems": sum(len(result.problems) for result in results),
            "suppressed": sum(len(result.suppressed) for result in results),
        },
        "results": [
            {
                "rule": result.rule.id,
                "entry": result.entry,
                "host": result.host,
                "why": result.rule.why,
                "ok": result.ok,
                # a count, not the list: rules x files would grow without bound on big trees
                "checked": len(result.files),
                "hits": [_json_hit(hit) for hit in result.hits],
                "suppressed": [{**_json_hit(s.hit), "reason": s.reason} for s in result.suppressed],
                "missing": [{"file": m.path, "pattern": m.pattern} for m in result.missing],
                "present": list(result.present),
                "problems": [str(problem) for problem in result.problems],
                "problem_locations": [
                    {"file": problem.path, "line": problem.line} for problem in result.problems
                ],
            }
            for result in results
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


def _json_hit(hit: Hit) -> dict[str, Any]:
    found: dict[str, Any] = {
        "file": hit.path,
        "line": hit.line,
        "column": hit.col + 1,
        "kinds": [kind.value for kind in hit.kinds],
        "source": hit.source,
        "patterns": list(hit.patterns),
    }
    if hit.note:
        found["note"] = hit.note
    return found


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _command(message: str, **properties: object) -> str:
    props = ",".join(
        f"{key}={_escape_property(str(value))}" for key, value in properties.items() if value != ""
    )
    return (
        f"::error {props}::{_escape_data(message)}"
        if props
        else f"::error::{_escape_data(message)}"
    )


def render_github(results: Sequence[Result], *, root: str) -> str:
    """GitHub Actions workflow commands: one ``::error`` per remaining line, problem or file."""
    lines: list[str] = []
    for result in results:
        if result.ok:
            continue
        rule = result.rule
        title = f"cleantree {rule.id}" + (f" @{result.host}" if result.host else "")
        why = f" ({rule.why})" if rule.why else ""
        for hit in result.hits:
            kinds = ",".join(kind.value for kind in hit.kinds)
            # the log shows annotations as text: a line's ESC [2K must not erase it there
            note = f" [{hit.note}]" if hit.note else ""
            message = f"{kinds}: {escape_controls(hit.source)}{note}{why}"
            lines.append(
                _command(
                    message,
                    file=_join(root, hit.path),
                    line=hit.line,
                    col=hit.col + 1,
                    title=title,
                )
            )
        for missing in result.missing:
            message = f"expected {missing.pattern!r} does not occur{why}"
            lines.append(_command(message, file=_join(root, missing.path), title=title))
        for path in result.present:
            lines.append(_command(f"must not exist{why}", file=_join(root, path), title=title))
        for problem in result.problems:  # attached to its file (and line) when it has one
            where = {
                "file": _join(root, problem.path) if problem.path else "",
                "line": problem.line or "",
            }
            lines.append(_command(str(problem), **where, title=title))
    lines.append(f"::notice title=cleantree::{_escape_data(render_summary(results))}")
    return "\n".join(lines)


def render_sarif(results: Sequence[Result], *, root: str, manifest: str = "") -> str:
    """SARIF 2.1.0 for code-scanning upload; problems become tool notifications.

    Every result has a region: a remaining line its own; a missing expected name, or a
    present ``absent`` path, the manifest's line of its rule (``manifest`` is the manifest's
    path as code scanning should see it), the file itself a related location.  Fingerprints
    hold the rule, the file and the line's text, not its number, so a finding keeps its
    identity when lines above it move.
    """
    rules: dict[str, dict[str, Any]] = {}
    sarif_results: list[dict[str, Any]] = []
    notifications: list[dict[str, Any]] = []
    for result in results:
        rule = result.rule
        rules.setdefault(rule.id, _sarif_rule(rule))
        host = f" on {result.host}" if result.host else ""
        allowed = [(s.hit, s.reason) for s in result.suppressed]
        for hit, reason in [(hit, None) for hit in result.hits] + allowed:
            kinds = ",".join(kind.value for kind in hit.kinds)
            note = f" [{hit.note}]" if hit.note else ""
            path = _join(root, hit.path)
            found = _sarif_result(
                rule.id,
                f"Forbidden {', '.join(hit.patterns)} remains ({kinds}){host}: {hit.source}{note}",
                path,
                {"startLine": hit.line, "startColumn": hit.col + 1},
                _fingerprint(rule.id, result.host, path, hit.source),
            )
            if reason is not None:  # allowed inline: code scanning shows it as suppressed
                found["suppressions"] = [{"kind": "inSource", "justification": reason}]
            sarif_results.append(found)
        for missing in result.missing:
            path = _join(root, missing.path)
            message = f"Expected {missing.pattern} does not occur in {path}{host}"
            fingerprint = _fingerprint(rule.id, result.host, path, f"expect {missing.pattern}")
            sarif_results.append(_sarif_rule_result(rule, message, path, manifest, fingerprint))
        for present in result.present:
            path = _join(root, present)
            message = f"{path} must not exist{host}"
            fingerprint = _fingerprint(rule.id, result.host, path, "absent")
            sarif_results.append(_sarif_rule_result(rule, message, path, manifest, fingerprint))
        for problem in result.problems:
            notification: dict[str, Any] = {
                "level": "error",
                "message": {"text": str(problem)},
                "associatedRule": {"id": rule.id},
            }
            if problem.path:  # a file's problem points to that file (and line, when known)
                location: dict[str, Any] = {"artifactLocation": {"uri": _join(root, problem.path)}}
                if problem.line:
                    location["region"] = {"startLine": problem.line}
                notification["locations"] = [{"physicalLocation": location}]
            notifications.append(notification)
    return _sarif_document(list(rules.values()), sarif_results, notifications)


def _sarif_document(
    rules: list[dict[str, Any]],
    results: list[dict[str, Any]],
    notifications: list[dict[str, Any]],
) -> str:
    document = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "pytest-cleantree",
                        "version": __version__,
                        "informationUri": "https://pypi.org/project/pytest-cleantree/",
                        "rules": rules,
                    }
                },
                "invocations": [
                    {
                        "executionSuccessful": not notifications,
                        "toolExecutionNotifications": notifications,
                    }
                ],
                "results": results,
            }
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False)


#: where a manifest problem or a TOML syntax error says it is: "(line 14)", "(at line 3, column 5)"
_PROBLEM_LINE = re.compile(r"\((?:at )?line (\d+)(?:, column (\d+))?\)")


def _error_places(error: CleanTreeError, manifest: str) -> list[tuple[str, str, int, int]]:
    """(message, file, line, column) of each problem of a run that could not start; a line or
    column of 0 is unknown.  Manifest problems point into the manifest."""
    if isinstance(error, ManifestError):
        places = []
        for problem in error.problems:
            found = _PROBLEM_LINE.search(problem)
            line, column = (int(found[1]), int(found[2] or 0)) if found else (0, 0)
            places.append((problem, manifest, line, column))
        return places
    return [(str(error), "", 0, 0)]


def render_github_error(error: CleanTreeError, *, manifest: str) -> str:
    """A run that could not start, as workflow commands: the job's log and the PR show why."""
    lines = []
    for message, path, line, column in _error_places(error, manifest):
        place: dict[str, object] = {"file": path, "line": line or "", "col": column or ""}
        lines.append(_command(message, **place, title="cleantree could not check"))
    return "\n".join(lines)


def render_sarif_error(error: CleanTreeError, *, manifest: str) -> str:
    """A valid SARIF document for a run that could not start: ``executionSuccessful`` is false
    and each problem is a notification, so an upload step never uploads an empty file."""
    notifications: list[dict[str, Any]] = []
    for message, path, line, column in _error_places(error, manifest):
        notification: dict[str, Any] = {"level": "error", "message": {"text": message}}
        if path:
            location: dict[str, Any] = {"artifactLocation": {"uri": urllib.parse.quote(path)}}
            if line:
                location["region"] = {"startLine": line} | (
                    {"startColumn": column} if column else {}
                )
            notification["locations"] = [{"physicalLocation": location}]
        notifications.append(notification)
    return _sarif_document([], [], notifications)


def _sarif_rule(rule: Rule) -> dict[str, Any]:
    """A rule's descriptor: its ``why`` is what code scanning shows as the rule's help."""
    what = []
    if rule.forbid:
        what.append("forbids " + ", ".join(p.text for p in rule.forbid))
    if rule.expect:
        what.append("expects " + ", ".join(p.text for p in rule.expect))
    if rule.absent:
        what.append("requires absent " + ", ".join(rule.absent))
    summary = "; ".join(what) or "cleantree rule"
    if rule.files:
        summary += " in " + ", ".join(rule.files)
    why = rule.why or f"cleantree rule {rule.id}"
    return {
        "id": rule.id,
        "shortDescription": {"text": why},
        "fullDescription": {"text": f"{why} (the rule {summary})"},
        "help": {
            "text": f"{why}\n\nThe rule {summary}. Remove what remains, or allow one line "
            f"with a trailing comment: # cleantree: allow {rule.id} -- reason",
        },
        "defaultConfiguration": {"level": "error"},
    }


def _fingerprint(rule_id: str, host: str, path: str, text: str) -> dict[str, str]:
    material = "\0".join((rule_id, host, path, " ".join(text.split())))
    return {"cleantree/v1": hashlib.sha256(material.encode()).hexdigest()}


def _location(uri: str, region: dict[str, int]) -> dict[str, Any]:
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": urllib.parse.quote(uri)},
            "region": region,
        }
    }


def _sarif_result(
    rule_id: str,
    message: str,
    uri: str,
    region: dict[str, int],
    fingerprint: dict[str, str],
) -> dict[str, Any]:
    return {
        "ruleId": rule_id,
        "level": "error",
        "message": {"text": message},
        "locations": [_location(uri, region)],
        "partialFingerprints": fingerprint,
    }


def _sarif_rule_result(
    rule: Rule, message: str, path: str, manifest: str, fingerprint: dict[str, str]
) -> dict[str, Any]:
    """A finding about a whole file: located at its rule's line in the manifest."""
    if not manifest:  # no manifest to point at (checks written in code): the file itself
        return _sarif_result(rule.id, message, path, {"startLine": 1}, fingerprint)
    found = _sarif_result(rule.id, message, manifest, {"startLine": max(rule.line, 1)}, fingerprint)
    found["relatedLocations"] = [{"id": 0, **_location(path, {"startLine": 1})}]
    return found
