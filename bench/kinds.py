"""Qualified patterns by kind on a real package, beside the same names as substrings.

``python bench/kinds.py [--rounds N] [--site-packages]`` installs pinned wheels from the
registry with ``pip install --target`` under ``bench/.work/`` (gitignored) and times
``cleantree check --no-cache`` on each question in interleaved rounds:

* the real package (networkx, 566 files): a function defined in the tree, a class the whole
  tree imports, and a name in a module outside the tree, each alone, beside its last name
  as a substring, and the three substrings together;
* ``--site-packages``: ``os.path.join`` on numpy, scipy, pandas and networkx as one root,
  beside a plain ``join`` (issue 44: it did not finish in 10 minutes).

Prints a Markdown table (median seconds, the ratio to the substring of the same name, and
the lines found); ``bench/run.py`` puts the real package's rows among the extras of
``bench/results.md`` (:func:`extras`).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from measure import Sample, median, run_measured
from report import Extra

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
WORK = BENCH / ".work"

#: the real package, pinned: a pure-Python wheel of about 500 files
PACKAGE = ("networkx==3.3",)
#: the site-packages root, pinned
SITE_PACKAGES = ("numpy==2.0.2", "scipy==1.14.1", "pandas==2.2.3", "networkx==3.3")

#: (label, qualified pattern, the same name as a substring)
KINDS = (
    ("in-tree function", "networkx.algorithms.dag.topological_sort", "topological_sort"),
    ("widely imported class", "networkx.classes.graph.Graph", "Graph"),
    ("outside the tree", "numpy.zeros", "zeros"),
)
TIMEOUT = 600.0
#: a line of cleantree's text report that names a hit: ``path:line:col``
_HIT = re.compile(r"\S+:\d+:\d+\s")


def installed(specs: Sequence[str]) -> Path:
    """The pinned wheels installed (once) with ``pip install --target``."""
    folder = WORK / ("wheels-" + "-".join(spec.replace("==", "_") for spec in specs))
    stamp = folder / ".cleantree-bench"
    if not stamp.is_file():
        print(f"bench: installing {' '.join(specs)} into {folder}", file=sys.stderr)
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "install",
                "--quiet",
                "--no-deps",
                "--target",
                str(folder),
                *specs,
            ],
            check=True,
        )
        stamp.write_text("\n".join(specs) + "\n")
    return folder


def manifest(patterns: Sequence[str]) -> str:
    forbid = ", ".join(f'"{p}"' for p in patterns)
    return f'root = "."\n\n[[rule]]\nid = "k"\nfiles = ["**/*.py"]\nforbid = [{forbid}]\n'


def run_once(root: Path, patterns: Sequence[str], folder: Path) -> Sample:
    path = folder / f"m{abs(hash(tuple(patterns)))}.toml"
    path.write_text(manifest(patterns))
    argv = [
        sys.executable,
        "-m",
        "pytest_cleantree",
        "check",
        "--no-cache",
        "-q",
        "--manifest",
        str(path),
        "--root",
        str(root),
    ]
    env = {**os.environ, "PYTHONPATH": str(REPO), "CLEANTREE_CACHE_DIR": ""}
    return run_measured(argv, cwd=folder, env=env, timeout=TIMEOUT)


def lines(sample: Sample) -> str:
    if sample.timed_out:
        return "timed out"
    if sample.code not in (0, 1):
        return f"exit {sample.code}"
    return str(sum(1 for line in sample.stdout.splitlines() if _HIT.match(line)))


Questions = Sequence[tuple[str, Sequence[str], str]]


def measure(root: Path, questions: Questions, rounds: int) -> dict[str, tuple[float, str, str]]:
    """Each question ``(label, patterns, baseline label)`` timed in interleaved rounds: per
    label, the median seconds, the ratio to its baseline's ("" without one), the lines."""
    samples: dict[str, list[Sample]] = {label: [] for label, _, _ in questions}
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(rounds):
            for label, patterns, _ in questions:
                samples[label].append(run_once(root, patterns, Path(folder)))
    seconds = {label: median([s.wall for s in runs]) for label, runs in samples.items()}
    return {
        label: (
            seconds[label],
            f"{seconds[label] / seconds[baseline]:.2f}" if baseline else "",
            lines(samples[label][-1]),
        )
        for label, _, baseline in questions
    }


def table(root: Path, questions: Questions, rounds: int) -> str:
    """The questions' :func:`measure` as a Markdown table."""
    measured = measure(root, questions, rounds)
    out = ["| question | patterns | seconds | x its substring | lines |", "|---|---|---|---|---|"]
    for label, patterns, _ in questions:
        seconds, ratio, found = measured[label]
        out.append(f"| {label} | {', '.join(patterns)} | {seconds:.2f} | {ratio} | {found} |")
    return "\n".join(out)


def package_questions() -> list[tuple[str, Sequence[str], str]]:
    """The real package's questions: the substrings together, then each kind beside its
    substring."""
    questions: list[tuple[str, Sequence[str], str]] = [
        ("substrings together", [s for _, _, s in KINDS], "")
    ]
    for label, qualified, substring in KINDS:
        questions.append((f"substring: {label}", [substring], ""))
        questions.append((f"qualified: {label}", [qualified], f"substring: {label}"))
    return questions


def extras(rounds: int) -> list[Extra]:
    """The real package's rows for ``bench/results.md`` (``bench/run.py``'s extras): each
    question's median seconds, with its ratio to the same name as a substring."""
    try:
        root = installed(PACKAGE)
    except (OSError, subprocess.CalledProcessError) as exc:
        return [Extra("networkx 3.3: qualified by kind", None, "", f"not installed ({exc})")]
    rows = []
    for label, (seconds, ratio, found) in measure(root, package_questions(), rounds).items():
        note = f"{found} lines" if not ratio else f"{ratio}x its substring; {found} lines"
        rows.append(Extra(f"networkx 3.3, {label}", seconds, "s", note))
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python bench/kinds.py", description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--site-packages", action="store_true")
    args = parser.parse_args(argv)
    root = installed(PACKAGE)
    print(f"networkx 3.3 ({root}), {args.rounds} interleaved rounds, no cache\n")
    print(table(root, package_questions(), args.rounds))
    if args.site_packages:
        big = installed(SITE_PACKAGES)
        print(f"\nnumpy, scipy, pandas, networkx ({big}), 1 round, {TIMEOUT:g} s limit\n")
        print(table(big, [("join", ["join"], ""), ("os.path.join", ["os.path.join"], "join")], 1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
