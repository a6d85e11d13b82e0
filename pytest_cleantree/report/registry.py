"""The report formats, by name: what ``--format`` accepts and what both front ends render with.

Each format is a module of this package with ``render(results, context) -> str`` and, when
the format can say why a run could not start, ``render_error(error, context) -> str``.  A
module is imported only when its format is asked for: a text run loads no JSON or SARIF code.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, cast

if TYPE_CHECKING:  # the plugin imports this module in every pytest session: keep it bare
    from pytest_cleantree.core.errors import CleanTreeError
    from pytest_cleantree.core.model import Result
    from pytest_cleantree.report.context import RenderContext


@dataclass(frozen=True)
class Format:
    """A format's registration: its module (imported on use) and the words ``--help`` shows."""

    module: str
    summary: str
    #: whether the format has its own way to report a run that could not start
    renders_errors: bool = False


class _Renderer(Protocol):
    def render(self, results: Sequence[Result], context: RenderContext) -> str: ...

    def render_error(self, error: CleanTreeError, context: RenderContext) -> str: ...


#: the formats, the default first; a new format is one module and one row here
FORMATS: dict[str, Format] = {
    "text": Format("pytest_cleantree.report.text", "default"),
    "json": Format("pytest_cleantree.report.json", "schemas/report-v1.json", True),
    "github": Format("pytest_cleantree.report.github", "workflow annotations", True),
    "sarif": Format("pytest_cleantree.report.sarif", "2.1.0, for code scanning", True),
}
FORMAT_NAMES = tuple(FORMATS)
DEFAULT_FORMAT = FORMAT_NAMES[0]


def _renderer(name: str) -> _Renderer:
    try:
        module = FORMATS[name].module
    except KeyError:
        raise ValueError(f"unknown report format {name!r} (one of {', '.join(FORMATS)})") from None
    return cast(_Renderer, importlib.import_module(module))


def render(name: str, results: Sequence[Result], context: RenderContext) -> str:
    """``results`` in format ``name``."""
    return _renderer(name).render(results, context)


def render_error(name: str, error: CleanTreeError, context: RenderContext) -> str | None:
    """A run that could not start, in format ``name``; ``None`` when the format has no such
    report (the front end's message on stderr is all there is)."""
    if not FORMATS[name].renders_errors:
        return None
    return _renderer(name).render_error(error, context)


def describe_formats() -> str:
    """The formats as ``--format``'s help lists them."""
    return ", ".join(f"{name} ({fmt.summary})" for name, fmt in FORMATS.items())
