"""GitHub Actions workflow commands: the remaining lines annotated on the PR diff.

``root`` is the checked folder relative to the repository (the workspace), so that each
annotation's ``file`` is a path of the diff.
"""

from __future__ import annotations

from collections.abc import Sequence

from pytest_cleantree.core.errors import CleanTreeError
from pytest_cleantree.core.model import Result
from pytest_cleantree.report.context import RenderContext, error_places, join_root
from pytest_cleantree.report.fleet import first_time
from pytest_cleantree.report.text import escape_controls, escape_surrogates, render_summary


def render(results: Sequence[Result], context: RenderContext) -> str:
    """The registry's entry: paths relative to the workspace."""
    return render_github(results, root=context.workspace_root())


def render_error(error: CleanTreeError, context: RenderContext) -> str:
    """The registry's entry for a run that could not start."""
    return render_github_error(error, manifest=context.workspace_manifest())


def _escape_data(text: str) -> str:
    """A workflow command's data as GitHub reads it; a name's bytes that are not UTF-8 shown
    as ``\\xNN`` (see :func:`.text.escape_surrogates`)."""
    return escape_surrogates(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


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
    seen: set[tuple[str, str]] = set()
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
                    file=join_root(root, hit.path),
                    line=hit.line,
                    col=hit.col + 1,
                    title=title,
                )
            )
        for missing in result.missing:
            message = f"expected {missing.pattern!r} does not occur{why}"
            lines.append(_command(message, file=join_root(root, missing.path), title=title))
        for path in result.present:
            lines.append(_command(f"must not exist{why}", file=join_root(root, path), title=title))
        for problem in result.problems:  # attached to its file (and line) when it has one
            if not first_time(seen, result.host, problem):  # a host's own error: once
                continue
            where = {
                "file": join_root(root, problem.path) if problem.path else "",
                "line": problem.line or "",
            }
            lines.append(_command(str(problem), **where, title=title))
    lines.append(f"::notice title=cleantree::{_escape_data(render_summary(results))}")
    return "\n".join(lines)


def render_github_error(error: CleanTreeError, *, manifest: str) -> str:
    """A run that could not start, as workflow commands: the job's log and the PR show why."""
    lines = []
    for message, path, line, column in error_places(error, manifest):
        place: dict[str, object] = {"file": path, "line": line or "", "col": column or ""}
        lines.append(_command(message, **place, title="cleantree could not check"))
    return "\n".join(lines)
