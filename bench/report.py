"""The Markdown the benchmark prints and writes to ``bench/results.md`` (pure functions)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from tools import Lines

REFERENCE = "cleantree"  # the tool whose lines the others are compared with
BASELINE = "rg"  # the tool times are divided by


class _Corpus(Protocol):
    name: str
    files: int

    @property
    def mib(self) -> float: ...


@dataclass(frozen=True)
class Cell:
    """One tool on one question and corpus: medians over its runs, or why there are none."""

    wall: float = 0.0
    cpu: float = 0.0
    rss: int = 0
    lines: Lines | None = None
    runs: int = 0
    failure: str = ""
    #: cleantree exited 2: some file could not be parsed (reported, matched as text)
    incomplete: bool = False


@dataclass(frozen=True)
class Extra:
    """A measurement outside the matrix: ``value`` in ``unit`` (``None``: see ``note``)."""

    what: str
    value: float | None
    unit: str
    note: str
    #: what the targets look it up by ("" for none)
    key: str = ""


def render_seconds(value: float) -> str:
    if value < 0.095:
        return f"{value * 1000:.0f} ms"
    if value < 9.95:
        return f"{value:.2f} s"
    return f"{value:.1f} s"


def render_ratio(value: float, baseline: float) -> str:
    if baseline <= 0:
        return ""
    ratio = value / baseline
    return f"x{ratio:.1f}" if ratio < 99.5 else f"x{ratio:.0f}"


def render_agreement(lines: Lines, reference: Lines | None) -> str:
    """``=`` when the same lines as the reference; else ``+found only here/-missed here``."""
    if reference is None:
        return ""
    extra = len(lines - reference)
    missed = len(reference - lines)
    if not extra and not missed:
        return "="
    return f"+{extra}/-{missed}"


def render_cell(cell: Cell, baseline: Cell | None, reference: Cell | None, *, is_ref: bool) -> str:
    if cell.failure:
        return cell.failure
    parts = [render_seconds(cell.wall)]
    if baseline is not None and not baseline.failure and baseline.runs:
        parts[0] += f" {render_ratio(cell.wall, baseline.wall)}"
    parts.append(f"cpu {render_seconds(cell.cpu)}")
    parts.append(f"{cell.rss / 2**20:.0f} MiB")
    if cell.lines is not None:
        count = f"{len(cell.lines)}"
        if cell.incomplete:
            count += "!"
        ref_lines = reference.lines if reference is not None and not is_ref else None
        agreement = render_agreement(cell.lines, ref_lines)
        parts.append(f"{count} {agreement}".strip())
    return " · ".join(parts)


def render_matrix(
    corpora: Sequence[_Corpus],
    questions: Sequence[str],
    tools: Sequence[str],
    cells: Mapping[tuple[str, str, str], Cell],
) -> str:
    header = ["corpus", "question", *tools]
    rows = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for corpus in corpora:
        label = f"{corpus.name} ({corpus.files:,} files, {corpus.mib:.0f} MiB)"
        for question in questions:
            baseline = cells.get((corpus.name, question, BASELINE))
            reference = cells.get((corpus.name, question, REFERENCE))
            row = [label, question]
            for tool in tools:
                cell = cells.get((corpus.name, question, tool), Cell(failure="not run"))
                row.append(render_cell(cell, baseline, reference, is_ref=tool == REFERENCE))
            rows.append("| " + " | ".join(row) + " |")
    return "\n".join(rows)


def render_extras(extras: Sequence[Extra]) -> str:
    rows = ["| measurement | median | note |", "|---|---|---|"]
    for extra in extras:
        if extra.value is None:
            value = ""
        elif extra.unit == "s":
            value = (
                render_seconds(extra.value)
                if extra.value >= 0
                else "-" + render_seconds(-extra.value)
            )
        else:
            value = f"{extra.value:g} {extra.unit}"
        rows.append(f"| {extra.what} | {value} | {extra.note} |")
    return "\n".join(rows)


@dataclass(frozen=True)
class Target:
    """One of issue 6's targets, as measured in this run (reported, never asserted)."""

    what: str
    measured: str
    met: bool | None  # None: not measured in this run


def _wall(cells: Mapping[tuple[str, str, str], Cell], key: tuple[str, str, str]) -> float | None:
    cell = cells.get(key)
    if cell is None or cell.failure or not cell.runs:
        return None
    return cell.wall


def _compare(
    what: str, ours: float | None, theirs: float | None, peer: str, limit: float, *, at_most: bool
) -> Target:
    """cleantree's time against a peer's: ``ours/theirs <= limit`` when ``at_most``, else
    ``theirs/ours >= limit`` (cleantree that many times faster)."""
    if ours is None or theirs is None:
        return Target(what, "not measured", None)
    times = f"cleantree {render_seconds(ours)}, {peer} {render_seconds(theirs)}"
    if at_most:
        ratio = ours / theirs
        return Target(what, f"{times}: cleantree/{peer} = {ratio:.2f}", ratio <= limit)
    ratio = theirs / ours
    return Target(what, f"{times}: {peer}/cleantree = {ratio:.2f}", ratio >= limit)


def evaluate_targets(
    corpora: Sequence[_Corpus],
    cells: Mapping[tuple[str, str, str], Cell],
    extras: Sequence[Extra],
) -> list[Target]:
    by_key = {extra.key: extra for extra in extras if extra.key}
    out: list[Target] = []
    for corpus in corpora:
        name = corpus.name
        for q in ("substring-20", "qualified-20"):
            ct = _wall(cells, (name, q, REFERENCE))
            out.append(
                _compare(
                    f"{name}, {q}: faster than ast-grep",
                    ct,
                    _wall(cells, (name, q, "ast-grep")),
                    "ast-grep",
                    1.0,
                    at_most=False,
                )
            )
            out.append(
                _compare(
                    f"{name}, {q}: at least 7x faster than semgrep",
                    ct,
                    _wall(cells, (name, q, "semgrep")),
                    "semgrep",
                    7.0,
                    at_most=False,
                )
            )
        out.append(
            _compare(
                f"{name}, qualified-20: within 3x of ruff",
                _wall(cells, (name, "qualified-20", REFERENCE)),
                _wall(cells, (name, "qualified-20", "ruff")),
                "ruff",
                3.0,
                at_most=True,
            )
        )
        warm = by_key.get(f"cleantree-warm:{name}")
        ruff_warm = by_key.get(f"ruff-warm:{name}")
        out.append(
            _compare(
                f"{name}, warm run: no slower than ruff's warm run",
                warm.value if warm else None,
                ruff_warm.value if ruff_warm else None,
                "ruff",
                1.0,
                at_most=True,
            )
        )
        for q in ("substring-20", "qualified-20"):
            ct = _wall(cells, (name, q, REFERENCE))
            py = _wall(cells, (name, q, "pytest --cleantree"))
            if ct is None or py is None:
                out.append(Target(f"{name}, {q}: pytest --cleantree <= CLI + 0.3 s", "-", None))
            else:
                extra = py - ct
                out.append(
                    Target(
                        f"{name}, {q}: pytest --cleantree <= CLI + 0.3 s",
                        f"{extra:+.2f} s",
                        extra <= 0.3,
                    )
                )
    out += _growth(corpora, cells)
    out += _against_baseline(corpora, cells)
    for key, what in (
        ("pytest-overhead:example", "example: pytest --cleantree <= CLI + 0.3 s"),
        ("pytest-overhead-alone:example", "the same, only this plugin loaded"),
    ):
        overhead = by_key.get(key)
        if overhead is not None and overhead.value is not None:
            out.append(Target(what, f"{overhead.value:+.2f} s", overhead.value <= 0.3))
    for corpus in corpora:
        ratio = by_key.get(f"warm-answer-ratio:{corpus.name}")
        if ratio is not None and ratio.value is not None:
            what = f"{corpus.name}, warm answer of an unchanged tree: within 3x `python -c pass`"
            out.append(Target(what, f"x{ratio.value:.2f}", ratio.value <= 3.0))
    plugin = by_key.get("plugin-import")
    if plugin is not None and plugin.value is not None:
        out.append(
            Target(
                "plugin import without --cleantree < 5 ms",
                render_seconds(plugin.value),
                plugin.value < 0.005,
            )
        )
    heavy = [key for key in by_key if key.startswith("heavy-imports:")]
    if heavy:
        loaded = heavy[0].partition(":")[2]
        out.append(
            Target("no astroid or paramiko import at start-up", loaded or "none", loaded == "")
        )
    return out


#: how much slower than a baseline commit a row may be (issue 11: "the figures hold within 10%")
BASELINE_LIMIT = 1.10


def _against_baseline(
    corpora: Sequence[_Corpus], cells: Mapping[tuple[str, str, str], Cell]
) -> list[Target]:
    """Each row's time against the same tool at the ``--baseline`` commit, in the same run."""
    out: list[Target] = []
    order = {corpus.name: index for index, corpus in enumerate(corpora)}
    baselines = sorted(
        (key for key in cells if "@" in key[2]), key=lambda k: (order.get(k[0], 0), k[1], k[2])
    )
    for corpus, question, tool in baselines:
        kind = tool.partition("@")[0]
        ours = _wall(cells, (corpus, question, kind))
        theirs = _wall(cells, (corpus, question, tool))
        what = f"{corpus}, {question}: {kind} within 10% of {tool}"
        if ours is None or theirs is None:
            out.append(Target(what, "not measured", None))
            continue
        ratio = ours / theirs
        measured = f"{render_seconds(ours)} against {render_seconds(theirs)}: x{ratio:.2f}"
        out.append(Target(what, measured, ratio <= BASELINE_LIMIT))
    return out


def _growth(corpora: Sequence[_Corpus], cells: Mapping[tuple[str, str, str], Cell]) -> list[Target]:
    """Linear cost and flat memory over the generated trees (smallest to largest)."""
    generated = sorted(
        (c for c in corpora if c.name.startswith("gen-")), key=lambda corpus: corpus.files
    )
    if len(generated) < 2:
        return []
    out: list[Target] = []
    for q in ("substring-20", "qualified-20"):
        points = []
        for corpus in generated:
            cell = cells.get((corpus.name, q, REFERENCE))
            if cell is not None and not cell.failure and cell.runs:
                points.append((corpus, cell))
        if len(points) < 2:
            out.append(Target(f"{q}: cost linear in tree size", "not measured", None))
            continue
        per_k = [cell.wall / corpus.files * 1000 for corpus, cell in points]
        text = ", ".join(
            f"{corpus.name} {cost:.2f} s/1k files"
            for (corpus, _), cost in zip(points, per_k, strict=True)
        )
        # linear: the largest tree costs no more per file than 1.5x the smallest
        out.append(Target(f"{q}: cost linear in tree size", text, per_k[-1] <= 1.5 * per_k[0]))
        rss = [cell.rss for _, cell in points]
        text = ", ".join(f"{corpus.name} {cell.rss / 2**20:.0f} MiB" for corpus, cell in points)
        out.append(Target(f"{q}: peak memory flat", text, rss[-1] <= 1.5 * rss[0]))
    return out


def render_targets(targets: Sequence[Target]) -> str:
    rows = ["| target (issue 6, reported, not asserted) | measured | met |", "|---|---|---|"]
    for target in targets:
        met = "?" if target.met is None else ("yes" if target.met else "**no**")
        rows.append(f"| {target.what} | {target.measured} | {met} |")
    return "\n".join(rows)


def render_results(
    *,
    command: str,
    facts: Sequence[str],
    corpora: Sequence[_Corpus],
    questions: Sequence[str],
    tools: Sequence[str],
    cells: Mapping[tuple[str, str, str], Cell],
    extras: Sequence[Extra],
) -> str:
    out = [
        "# cleantree benchmark",
        "",
        f"`{command}`",
        "",
        *[f"- {fact}" for fact in facts],
        "",
        "Each cell: median wall time, xrg (that time over rg's on the same row), CPU time "
        "(user + system, all processes: above the wall time when several cores work), peak RSS, "
        "matching lines, and how they compare with cleantree's: `=` the same lines, "
        "`+a/-b` a lines cleantree does not report and b it does that this tool misses "
        "(`!`: cleantree also reported files it could not parse). See bench/README.md.",
        "",
        render_matrix(corpora, questions, tools, cells),
    ]
    if extras:
        out += ["", "## Other measurements", "", render_extras(extras)]
    targets = evaluate_targets(corpora, cells, extras)
    if targets:
        out += ["", "## Targets", "", render_targets(targets)]
    return "\n".join(out) + "\n"
