"""The session's report under pytest: what ``--cleantree-format`` and the output files hold.

pytest shows each failed check as it runs; the report formats need every check's result at
once.  Each item's result travels on its pytest report (a string, so that pytest-xdist carries
it from the worker that ran it to the controller), and the controller renders the chosen
format once at the end of the session, through the same registry and with the same frame as
``cleantree check``, so that the two front ends write the same SARIF and JSON for one manifest.

Imported only when ``--cleantree`` (or a ``--cleantree-*`` option) is given.
"""

from __future__ import annotations

import base64
import os
import pickle
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pytest_cleantree.core.errors import CleanTreeError
    from pytest_cleantree.core.model import Result
    from pytest_cleantree.report.context import RenderContext

#: the report attribute carrying an item's result (see :func:`encode_part`)
RESULT_ATTRIBUTE = "cleantree_result"
#: the collect report attribute carrying why a manifest's checks could not start
ERROR_ATTRIBUTE = "cleantree_error"


@dataclass(frozen=True)
class Part:
    """One item's result and where it was computed: its manifest (as the report names it),
    its position among the session's items, this machine's root and its host's root."""

    manifest: str
    index: int
    result: Result
    root: str = ""
    host_root: str = ""
    mirror: str = ""


def encode_part(part: Part) -> str:
    """``part`` as a string for a report attribute: pytest-xdist serialises plain values only.
    (Read back by the same code in the controller of the same session.)"""
    return base64.b64encode(pickle.dumps(part)).decode("ascii")


def decode_part(text: str) -> Part:
    found = pickle.loads(base64.b64decode(text))  # our own worker's value, this session's code
    assert isinstance(found, Part)
    return found


def error_payload(error: CleanTreeError) -> list[str]:
    """Why a manifest's checks could not start, as plain strings (pytest-xdist carries them
    from the worker that collected the manifest); a manifest's problems one by one, as SARIF
    places each."""
    from pytest_cleantree.core.errors import ManifestError

    if isinstance(error, ManifestError):
        return ["manifest", error.source, *error.problems]
    return ["error", str(error)]


def error_of(payload: Sequence[str]) -> CleanTreeError:
    """The error :func:`error_payload` wrote."""
    from pytest_cleantree.core.errors import CleanTreeError, ManifestError

    if payload[0] == "manifest":
        return ManifestError(payload[1], payload[2:])
    return CleanTreeError(payload[1])


@dataclass
class SessionReport:
    """The results of a session, by manifest, in collection order, and why a manifest's
    checks could not start (its collection error)."""

    parts: dict[int, Part] = field(default_factory=dict)
    errors: list[CleanTreeError] = field(default_factory=list)

    def add(self, part: Part) -> None:
        self.parts[part.index] = part  # a rerun item (pytest-rerunfailures) counts once

    def manifests(self) -> list[str]:
        return list(dict.fromkeys(part.manifest for part in self.ordered()))

    def ordered(self) -> list[Part]:
        return [self.parts[index] for index in sorted(self.parts)]

    def results(self) -> list[Result]:
        return [part.result for part in self.ordered()]

    def context(self, options: Mapping[str, Any], base: Path) -> RenderContext:
        """The frame ``cleantree check`` would render these results with, run from ``base``."""
        from pytest_cleantree.report.context import RenderContext

        parts = self.ordered()
        local = next((part.root for part in parts if not part.result.host), "")
        remote = {part.result.host: part.host_root for part in parts if part.result.host}
        return RenderContext(
            manifest=parts[0].manifest if parts else "",
            root=local,
            cwd=str(base),
            workspace=os.environ.get("GITHUB_WORKSPACE") or str(base),
            statistics=bool(options.get("statistics")),
            quiet=bool(options.get("quiet")),
            remote_roots=tuple(sorted(remote.items())),
            mirror=parts[0].mirror if parts else "",
        )


def as_typed(path: Path | str, base: Path) -> str:
    """A manifest or a root as the report names it: from the invocation folder when under it,
    as ``cleantree check --manifest cleantree.toml`` shows the paths it was given there."""
    if not path:
        return ""
    relative = os.path.relpath(path, base)
    return str(path) if relative == ".." or relative.startswith("../") else relative


def render_terminal(fmt: str, results: Sequence[Result], context: RenderContext) -> str:
    """What the terminal summary shows: pytest has shown each failed check already, so the text
    format adds its summary line (the statistics first with ``--cleantree-statistics``, nothing
    with ``--cleantree-quiet``); any other format is its whole report, as the CLI prints it."""
    from pytest_cleantree.report.registry import render

    if fmt != "text":
        return render(fmt, results, context)
    if context.quiet:
        return ""
    from pytest_cleantree.report.text import render_statistics, render_summary

    summary = render_summary(results)
    if context.statistics:
        return render_statistics(results, context.text_frame()) + "\n\n" + summary
    return summary


def error_context(error: CleanTreeError, base: Path) -> RenderContext:
    """The frame of a run that could not start (as ``cleantree check`` renders it)."""
    from pytest_cleantree.report.context import RenderContext

    workspace = os.environ.get("GITHUB_WORKSPACE") or str(base)
    manifest = str(getattr(error, "source", ""))
    return RenderContext(manifest=manifest, cwd=str(base), workspace=workspace)


def write_error_outputs(
    outputs: Mapping[str, Path | None], error: CleanTreeError, base: Path
) -> list[str]:
    """Each output file (format -> path) of a run that could not start: a valid document
    saying why, as the CLI writes (an empty or missing file would fail its upload for
    another reason); the problems writing them, one line each."""
    from pytest_cleantree.report.registry import render_error

    problems = []
    for fmt, path in outputs.items():
        if path is None:
            continue
        try:
            text = render_error(fmt, error, error_context(error, base))
            path.write_text(f"{text}\n", encoding="utf-8")
        except OSError as exc:
            problems.append(f"--cleantree-{fmt}-output: cannot write {path}: {exc.strerror or exc}")
    return problems


def write_outputs(
    outputs: Mapping[str, Path | None], results: Sequence[Result], context: RenderContext
) -> list[str]:
    """Write each requested file (format -> path); the problems, one line each, naming the
    option and the file (an unwritable output must fail the run, never vanish)."""
    from pytest_cleantree.report.registry import render

    problems = []
    for fmt, path in outputs.items():
        if path is None:
            continue
        try:
            path.write_text(render(fmt, results, context) + "\n", encoding="utf-8")
        except OSError as exc:
            problems.append(f"--cleantree-{fmt}-output: cannot write {path}: {exc.strerror or exc}")
    return problems
