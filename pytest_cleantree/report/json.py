"""The versioned JSON report; ``pytest_cleantree/schemas/report-v1.json`` describes it."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from pytest_cleantree import __version__
from pytest_cleantree.core.errors import CleanTreeError
from pytest_cleantree.core.model import Hit, Result
from pytest_cleantree.report.context import PathFrame, RenderContext, error_places
from pytest_cleantree.report.fleet import count_errors, host_statuses
from pytest_cleantree.report.text import escape_json, render_summary

#: where the schema of this version's report is published (its ``$id``): the release's copy
JSON_SCHEMA_ID = (
    "https://github.com/pytest-cleantree/pytest-cleantree/raw/"
    f"v{__version__}/pytest_cleantree/schemas/report-v1.json"
)
JSON_VERSION = 1


def render(results: Sequence[Result], context: RenderContext) -> str:
    """The registry's entry: the manifest and the root absolute (one document, whichever front
    end wrote it), and each finding's ``path`` as the text report shows it."""
    frame = context.text_frame()
    manifest, root = (_absolute(path, context.cwd) for path in (context.manifest, context.root))
    return render_json(results, manifest=manifest, root=root, frame=frame)


def _absolute(path: str, cwd: str) -> str:
    """A local path made absolute from the run's folder (pytest's parts hold them as typed)."""
    if not path or "://" in path or os.path.isabs(path):
        return path
    return os.path.normpath(os.path.join(cwd or os.getcwd(), path))


def render_error(error: CleanTreeError, context: RenderContext) -> str:
    """The registry's entry for a run that could not start (a bad manifest, a root that cannot
    be read): the same document with no results, ``summary.complete`` false, and each problem
    in ``errors``, so that a step uploading the file finds one that says why.  The manifest
    is named as SARIF and github name it (relative to the workspace): both front ends write
    the same document."""
    manifest = context.workspace_manifest()
    places = error_places(error, manifest)
    document = {
        **_header(manifest, context.root),
        "summary": {
            "clean": False,
            "complete": False,
            "text": "cleantree: error: "
            + "; ".join(f"{path}: {message}" if path else message for message, path, *_ in places),
            "hits": 0,
            "missing": 0,
            "present": 0,
            "problems": len(places),
            "suppressed": 0,
        },
        "hosts": [],
        "results": [],
        "errors": [
            {"message": message, "file": path, "line": line, "column": column}
            for message, path, line, column in places
        ],
    }
    return escape_json(json.dumps(document, indent=2, ensure_ascii=False))


def _header(manifest: str, root: str) -> dict[str, Any]:
    return {
        "$schema": JSON_SCHEMA_ID,
        "version": JSON_VERSION,
        "tool": {"name": "pytest-cleantree", "version": __version__},
        "manifest": manifest,
        "root": root,
    }


def render_json(
    results: Sequence[Result], *, manifest: str, root: str, frame: PathFrame | None = None
) -> str:
    """The versioned JSON report; ``pytest_cleantree/schemas/report-v1.json`` describes it.

    ``file`` is relative to the host's root; ``path`` is the file as ``frame`` shows it (by
    default: absolute under ``root``), never with ``..``.
    Always valid UTF-8: a byte of a file name that is not UTF-8 is the text ``\\xNN``
    (see :func:`.text.escape_surrogates`)."""
    frame = frame or PathFrame(root)  # no base: absolute, as ``root`` is

    def shown(host: str, path: str) -> str:
        return frame.show(path, host)

    document = {
        **_header(manifest, root),
        "summary": {
            "clean": all(result.ok for result in results),
            "complete": all(result.complete for result in results),
            "text": render_summary(results),
            "hits": sum(len(result.hits) for result in results),
            "missing": sum(len(result.missing) for result in results),
            "present": sum(len(result.present) for result in results),
            "problems": count_errors(results),
            "suppressed": sum(len(result.suppressed) for result in results),
        },
        "hosts": [
            {
                "host": status.host,
                "status": status.status,
                "text": status.text(),
                "hits": status.hits,
                "missing": status.missing,
                "present": status.present,
                "problems": status.errors,
                **({"reason": status.reason} if status.reason else {}),
            }
            for status in host_statuses(results)
        ],
        "results": [
            {
                "rule": result.rule.id,
                "entry": result.entry,
                "host": result.host,
                "why": result.rule.why,
                "ok": result.ok,
                # a count, not the list: rules x files would grow without bound on big trees
                "checked": len(result.files),
                "hits": [_json_hit(hit, shown(result.host, hit.path)) for hit in result.hits],
                "suppressed": [
                    {**_json_hit(s.hit, shown(result.host, s.hit.path)), "reason": s.reason}
                    for s in result.suppressed
                ],
                "missing": [
                    {"file": m.path, "path": shown(result.host, m.path), "pattern": m.pattern}
                    for m in result.missing
                ],
                "present": list(result.present),
                "problems": [str(problem) for problem in result.problems],
                "problem_locations": [
                    {"file": problem.path, "line": problem.line} for problem in result.problems
                ],
            }
            for result in results
        ],
    }
    return escape_json(json.dumps(document, indent=2, ensure_ascii=False))  # any file name


def _json_hit(hit: Hit, path: str) -> dict[str, Any]:
    found: dict[str, Any] = {
        "file": hit.path,
        "path": path,
        "line": hit.line,
        "column": hit.col + 1,
        "kinds": [kind.value for kind in hit.kinds],
        "source": hit.source,
        "patterns": list(hit.patterns),
    }
    if hit.note:
        found["note"] = hit.note
    return found
