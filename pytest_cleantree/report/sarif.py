"""SARIF 2.1.0 for code-scanning upload: remaining lines as results, problems as notifications."""

from __future__ import annotations

import hashlib
import json
import urllib.parse
from collections.abc import Sequence
from typing import Any

from pytest_cleantree import __version__
from pytest_cleantree.core.errors import CleanTreeError
from pytest_cleantree.core.model import Result, Rule
from pytest_cleantree.report.context import RenderContext, error_places, join_root
from pytest_cleantree.report.fleet import first_time
from pytest_cleantree.report.text import escape_json, escape_surrogates

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def render(results: Sequence[Result], context: RenderContext) -> str:
    """The registry's entry: paths relative to the workspace, the manifest's too."""
    manifest = context.workspace_manifest()
    return render_sarif(results, root=context.workspace_root(), manifest=manifest)


def render_error(error: CleanTreeError, context: RenderContext) -> str:
    """The registry's entry for a run that could not start."""
    return render_sarif_error(error, manifest=context.workspace_manifest())


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
    seen: set[tuple[str, str]] = set()
    for result in results:
        rule = result.rule
        rules.setdefault(rule.id, _sarif_rule(rule))
        host = f" on {result.host}" if result.host else ""
        allowed = [(s.hit, s.reason) for s in result.suppressed]
        for hit, reason in [(hit, None) for hit in result.hits] + allowed:
            kinds = ",".join(kind.value for kind in hit.kinds)
            note = f" [{hit.note}]" if hit.note else ""
            path = join_root(root, hit.path)
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
            path = join_root(root, missing.path)
            message = f"Expected {missing.pattern} does not occur in {path}{host}"
            fingerprint = _fingerprint(rule.id, result.host, path, f"expect {missing.pattern}")
            sarif_results.append(_sarif_rule_result(rule, message, path, manifest, fingerprint))
        for present in result.present:
            path = join_root(root, present)
            message = f"{path} must not exist{host}"
            fingerprint = _fingerprint(rule.id, result.host, path, "absent")
            sarif_results.append(_sarif_rule_result(rule, message, path, manifest, fingerprint))
        for problem in result.problems:
            if not first_time(seen, result.host, problem):  # a host's own error: once
                continue
            notification: dict[str, Any] = {
                "level": "error",
                "message": {"text": str(problem)},
                "associatedRule": {"id": rule.id},
            }
            if problem.path:  # a file's problem points to that file (and line, when known)
                uri = _uri(join_root(root, problem.path))
                location: dict[str, Any] = {"artifactLocation": {"uri": uri}}
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
    return escape_json(json.dumps(document, indent=2, ensure_ascii=False))  # any file name


def render_sarif_error(error: CleanTreeError, *, manifest: str) -> str:
    """A valid SARIF document for a run that could not start: ``executionSuccessful`` is false
    and each problem is a notification, so an upload step never uploads an empty file."""
    notifications: list[dict[str, Any]] = []
    for message, path, line, column in error_places(error, manifest):
        notification: dict[str, Any] = {"level": "error", "message": {"text": message}}
        if path:
            location: dict[str, Any] = {"artifactLocation": {"uri": _uri(path)}}
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
    digest = hashlib.sha256(material.encode("utf-8", "surrogatepass"))  # any text, same as ever
    return {"cleantree/v1": digest.hexdigest()}


def _uri(path: str) -> str:
    """A path as a URI reference: its bytes percent-encoded, those that are not UTF-8 too
    (``caf%E9.py``: the name on disk, which a message's ``caf\\xe9.py`` only shows)."""
    try:
        return urllib.parse.quote(path.encode("utf-8", "surrogateescape"))
    except UnicodeEncodeError:  # a lone surrogate no file system byte gave: shown as text
        return urllib.parse.quote(escape_surrogates(path))


def _location(uri: str, region: dict[str, int]) -> dict[str, Any]:
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": _uri(uri)},
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
