"""A kept answer as a user meets it: the console script of a regular install, on an unchanged
1,000-file tree, beside ``python -c pass`` of the same venv.

    python bench/warm_console.py [--rounds 15] [--files 1000]

Issue 47's target: ``cleantree check`` answered from its kept answer within 3x the bare
interpreter's start, on a clean tree (exit 0) and on a dirty one (exit 1, its report
printed). The package is installed the way a user has it: a fresh venv (none of this
machine's site-packages and their ``.pth`` files), this checkout installed into it by pip
as a regular wheel with its dependencies from the registry (not editable), and the
``cleantree`` script it writes. Each answer
is kept first (two runs, the racy window waited out), and the typed record that answers
it is checked to be there; then the three commands run interleaved, the order rotated
each round. Prints a Markdown table and writes bench/results-warm.md.
"""

from __future__ import annotations

import argparse
import datetime
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from measure import median, run_measured
from tools import tool_env

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
TARGET = 3.0  # times python -c pass
MANIFEST = '[[rule]]\nid = "no-sm120"\nfiles = ["pkg/**/*.py"]\nforbid = ["sm120"]\n'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--output", type=Path, default=HERE / "results-warm.md")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="cleantree-warm-") as scratch:
        text = measure(Path(scratch), args.rounds, args.files)
    text += f"\nLoad average (1 min) before {load:.2f}, after {os.getloadavg()[0]:.2f}.\n"
    print(text)
    args.output.write_text(text, encoding="utf-8")


def install(scratch: Path) -> Path:
    """A venv holding this checkout as a regular install; its ``bin`` folder."""
    venv = scratch / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, str(CHECKOUT)], check=True)  # built as pip builds it: isolated
    probe = "import pytest_cleantree as p; print(p.__file__)"
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", probe], capture_output=True, text=True, check=True
    ).stdout.strip()
    if not where.startswith(str(venv)):
        raise SystemExit(f"the venv imports {where}, not its own install")
    return venv / "bin"


def make_tree(folder: Path, files: int, dirty: bool) -> Path:
    for n in range(files):
        module = folder / "pkg" / f"sub{n % 20}" / f"m{n}.py"
        module.parent.mkdir(parents=True, exist_ok=True)
        module.write_text(f"import os\n\n\ndef f{n}(x):\n    return os.path.join(x, 'a{n}')\n")
    if dirty:
        (folder / "pkg" / "sub0" / "m0.py").write_text("is_sm120_supported = True\n")
    (folder / "cleantree.toml").write_text(MANIFEST)
    return folder


def measure(scratch: Path, rounds: int, files: int) -> str:
    bin_folder = install(scratch)
    env = {**tool_env(), "CLEANTREE_CACHE_DIR": str(scratch / "cache")}
    trees = {name: make_tree(scratch / name, files, name == "dirty") for name in ("clean", "dirty")}
    time.sleep(2.2)  # past the racy window: the next run's answer is kept
    check = [str(bin_folder / "cleantree"), "check", "--manifest", "cleantree.toml"]
    runs = {
        "`python -c pass`": ([str(bin_folder / "python"), "-c", "pass"], scratch, {0}),
        "`cleantree check`, clean, kept": (check, trees["clean"], {0}),
        "`cleantree check`, dirty, kept": (check, trees["dirty"], {1}),
    }
    for argv, cwd, codes in runs.values():  # keep each answer, prime the bytecode
        for _ in range(2):
            sample = run_measured(argv, cwd=cwd, env=env, timeout=300)
            if sample.code not in codes:
                raise SystemExit(f"{argv}: exit {sample.code}\n{sample.stdout}{sample.stderr}")
    typed = list((scratch / "cache" / "answers").glob("typed-*"))
    if len(typed) != 2:
        raise SystemExit(f"expected two typed answers kept, found {len(typed)}")
    walls, cpus = interleaved_with_cpu(runs, rounds, env)
    text = render(rounds, files, {label: median(values) for label, values in walls.items()})
    text += render_cpu({label: median(values) for label, values in cpus.items()})
    return text + render_imports(imports_of(bin_folder, trees["clean"], env, check[1:]))


def interleaved_with_cpu(
    runs: dict[str, tuple[list[str], Path, set[int]]], rounds: int, env: dict[str, str]
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """As :func:`measure.interleaved` (the order rotated each round), with each run's CPU
    seconds (user + system) beside its wall time: on a shared machine the wall time of a
    30 ms run is mostly the scheduler's, its CPU time much less so."""
    walls: dict[str, list[float]] = {label: [] for label in runs}
    cpus: dict[str, list[float]] = {label: [] for label in runs}
    labels = list(runs)
    for round_number in range(rounds):
        shift = round_number % len(labels)
        for label in labels[shift:] + labels[:shift]:
            argv, cwd, codes = runs[label]
            sample = run_measured(argv, cwd=cwd, env=env, timeout=300)
            if sample.code not in codes:
                raise SystemExit(f"{label}: exit {sample.code}\n{sample.stdout}{sample.stderr}")
            walls[label].append(sample.wall)
            cpus[label].append(sample.cpu)
    return walls, cpus


def render_cpu(medians: dict[str, float]) -> str:
    """The same runs' CPU time (user + system), medians, beside ``python -c pass``'s."""
    bare = medians["`python -c pass`"]
    rows = ["| run | CPU median | ratio to `python -c pass` |", "|---|---|---|"]
    rows += [
        f"| {label} | {cpu * 1000:.1f} ms | x{cpu / bare:.2f} |" for label, cpu in medians.items()
    ]
    return "\n".join(["", "The same runs' CPU time (user + system):", "", *rows, ""])


def imports_of(bin_folder: Path, cwd: Path, env: dict[str, str], args: list[str]) -> list[str]:
    """``-X importtime`` of the console script on its kept answer: one line per module."""
    argv = [str(bin_folder / "python"), "-X", "importtime", str(bin_folder / "cleantree"), *args]
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    return [line for line in done.stderr.splitlines() if line.startswith("import time:")]


def render_imports(lines: list[str], top: int = 12) -> str:
    """The package modules the kept answer imported, and its costliest top-level imports."""
    rows = []
    for line in lines[1:]:  # the first line is the header
        _, _own, cumulative, name = line.replace(":", "|", 1).split("|")
        top_level = name.startswith(" ") and not name.startswith("  ")  # one space: top level
        rows.append((name.strip(), int(cumulative), top_level))
    ours = sorted({name for name, _, _ in rows if name.startswith("pytest_cleantree")})
    session = "**yes**" if "pytest_cleantree.run.session" in ours else "no"
    tops = sorted(((name, micros) for name, micros, top in rows if top), key=lambda r: -r[1])
    return "\n".join(
        [
            "",
            "What the kept answer imports (`-X importtime` of the console script, clean tree; "
            "one run, so the microseconds are indicative):",
            "",
            f"- the package's modules ({len(ours)}): {', '.join(ours)}",
            f"- the run's own session imported (the kept answer missed): {session}",
            "",
            "| top-level import | cumulative |",
            "|---|---|",
            *(f"| `{name}` | {micros / 1000:.1f} ms |" for name, micros in tops[:top]),
            "",
        ]
    )


def render(rounds: int, files: int, medians: dict[str, float]) -> str:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True
    ).stdout.strip()
    bare = medians["`python -c pass`"]
    rows = ["| run | median | ratio to `python -c pass` | target |", "|---|---|---|---|"]
    for label, seconds in medians.items():
        ratio = seconds / bare
        verdict = (
            ""
            if label == "`python -c pass`"
            else (f"<= {TARGET:.0f}x: {'yes' if ratio <= TARGET else '**no**'}")
        )
        rows.append(f"| {label} | {seconds:.3f} s | x{ratio:.2f} | {verdict} |")
    return "\n".join(
        [
            "# A kept answer through the console script of a regular install",
            "",
            "`python bench/warm_console.py` (see its docstring)",
            "",
            f"- cleantree at commit {commit or '?'}, {datetime.date.today().isoformat()}",
            f"- Python {sys.version.split()[0]}; a venv with this checkout installed as a wheel; "
            f"{files} files; {rounds} interleaved rounds, medians",
            "",
            *rows,
            "",
        ]
    )


if __name__ == "__main__":
    main()
