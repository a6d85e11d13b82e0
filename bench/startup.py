"""First contact: ``pytest --cleantree`` on the bundled example against its two parts.

    python bench/startup.py [--rounds 15]

Issue 36's target: ``pytest --cleantree`` on ``pytest_cleantree/examples/sm120/cleantree.toml``
within 0.1 s of bare ``pytest`` in an empty folder plus ``cleantree check`` on the same manifest
(the plugin may cost no more than the two programs it joins). The three run side by side,
interleaved, the order rotated each round, in copies outside the repository (so that no
``pyproject.toml`` of ours configures them), every pytest plugin of this machine autoloaded as a
user's pytest would. Also: what a plain pytest session (no ``--cleantree``) imports of the
package, from ``-X importtime``. Prints a Markdown table and writes bench/results-startup.md.
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from measure import interleaved, median, run_measured
from tools import tool_env

HERE = Path(__file__).resolve().parent
EXAMPLE = HERE.parent / "pytest_cleantree" / "examples" / "sm120"
TARGET = 0.1  # seconds over bare pytest + the CLI
_IMPORTTIME = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|\s*(\S+)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--output", type=Path, default=HERE / "results-startup.md")
    args = parser.parse_args()
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="cleantree-startup-") as scratch:
        text = measure(Path(scratch), args.rounds)
    text += f"\nLoad average (1 min) before {load:.2f}, after {os.getloadavg()[0]:.2f}.\n"
    print(text)
    args.output.write_text(text, encoding="utf-8")


def measure(scratch: Path, rounds: int) -> str:
    empty, example = scratch / "empty", scratch / "sm120"
    empty.mkdir()
    shutil.copytree(EXAMPLE, example)
    for folder in (empty, example):  # each its own rootdir, configured by nothing of ours
        (folder / "pytest.ini").write_text("[pytest]\n")
    env = {**tool_env(), "CLEANTREE_CACHE_DIR": str(scratch / "cache")}
    python = sys.executable
    runs = {
        "bare pytest (empty folder)": ([python, "-m", "pytest", "-q"], empty, {5}),
        "cleantree check": (
            [python, "-m", "pytest_cleantree", "check", "--manifest", "cleantree.toml"],
            example,
            {1},
        ),
        "pytest --cleantree": (
            [python, "-m", "pytest", "-q", "--cleantree", "cleantree.toml"],
            example,
            {1},
        ),
    }
    for argv, cwd, _ in runs.values():  # prime bytecode and the analysis cache
        run_measured(argv, cwd=cwd, env=env, timeout=120)
    times = interleaved(runs, rounds, env)
    labels = list(runs)
    bare, cli, plugin = (median(times[label]) for label in labels)
    imports = _plain_session_imports(empty, env)
    return _render(rounds, bare, cli, plugin, imports)


def _plain_session_imports(empty: Path, env: dict[str, str]) -> tuple[float, list[str]]:
    """Self time (s) and names of the package's modules a plain ``pytest --co`` imports."""
    argv = [sys.executable, "-X", "importtime", "-m", "pytest", "--co", "-q"]
    done = subprocess.run(argv, cwd=empty, env=env, capture_output=True, text=True, check=False)
    found = [m for m in map(_IMPORTTIME.match, done.stderr.splitlines()) if m]
    ours = [(int(m[1]), m[3]) for m in found if m[3].startswith("pytest_cleantree")]
    return sum(us for us, _ in ours) / 1e6, sorted(name for _, name in ours)


def _render(
    rounds: int, bare: float, cli: float, plugin: float, imports: tuple[float, list[str]]
) -> str:
    over = plugin - (bare + cli)
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True
    ).stdout.strip()
    seconds, modules = imports
    verdict = "yes" if over <= TARGET else "**no**"
    return "\n".join(
        [
            "# First contact: pytest --cleantree on the bundled example",
            "",
            "`python bench/startup.py` (see bench/README.md)",
            "",
            f"- cleantree at commit {commit or '?'}, {datetime.date.today().isoformat()}",
            f"- Python {sys.version.split()[0]}; {rounds} interleaved rounds, medians; "
            "every pytest plugin of this machine autoloaded; analysis cache warm",
            "",
            "| run | median | ratio |",
            "|---|---|---|",
            f"| bare `pytest -q` in an empty folder | {bare:.3f} s | |",
            f"| `cleantree check --manifest cleantree.toml` | {cli:.3f} s | |",
            f"| bare pytest + CLI | {bare + cli:.3f} s | x1.00 |",
            f"| `pytest -q --cleantree cleantree.toml` | {plugin:.3f} s | "
            f"x{plugin / (bare + cli):.2f} |",
            f"| pytest --cleantree minus (bare pytest + CLI) | {over:+.3f} s | "
            f"target <= +{TARGET} s: {verdict} |",
            f"| package modules a plain `pytest --co` imports | {seconds * 1000:.1f} ms | "
            f"{len(modules)} modules, self time: {', '.join(modules)} |",
            "",
        ]
    )


if __name__ == "__main__":
    main()
