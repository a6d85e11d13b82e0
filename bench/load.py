"""Load: a 20,000-file tree and a 2,000-rule manifest, with peak memory.

    python bench/load.py [--files 20000] [--rules 2000]

Every file holds one of the rules' symbols, so every file is read, parsed and
judged; the point is that memory stays bounded.  Prints a Markdown table and
writes bench/results-load.md.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20_000)
    parser.add_argument("--rules", type=int, default=2_000)
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="cleantree-load-") as scratch:
        work = Path(scratch)
        for files in sorted({args.files // 10, args.files}):
            tree = work / f"tree-{files}"
            for index in range(files):
                folder = tree / f"pkg{index // 100}"
                folder.mkdir(parents=True, exist_ok=True)
                (folder / f"m{index}.py").write_text(
                    f'"""Module {index}."""\nimport os\n\n\ndef run(x):\n'
                    f"    if sym{index % args.rules}_x(x):\n        return os.sep\n    return x\n"
                )
            manifest = work / f"cleantree-{files}.toml"
            manifest.write_text(
                f'root = "{tree.name}"\n'
                + "".join(
                    f'[[rule]]\nid = "r{i}"\nfiles = ["**/*.py"]\nforbid = ["=sym{i}_x"]\n'
                    for i in range(args.rules)
                )
            )
            before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            start = time.perf_counter()
            done = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "pytest_cleantree",
                    "check",
                    "--manifest",
                    str(manifest),
                    "--no-cache",
                    "--format",
                    "json",
                ],
                capture_output=True,
                text=True,
                env={**os.environ},
                check=False,
            )
            elapsed = time.perf_counter() - start
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
            if done.returncode != 1:
                sys.exit(f"unexpected exit {done.returncode}: {done.stderr[-500:]}")
            hits = done.stdout.count('"line":')
            rows.append((files, args.rules, elapsed, max(peak, before) / 1024, hits))
    lines = [
        "# Load",
        "",
        f"`python bench/load.py --files {args.files} --rules {args.rules}`; every file holds one "
        "rule's symbol, so every file is read, parsed and judged; no analysis cache; "
        f"{os.cpu_count()} CPUs.",
        "",
        "| files | rules | wall time | peak RSS (largest process) | lines found |",
        "|---|---|---|---|---|",
    ]
    lines += [f"| {f:,} | {r:,} | {t:.1f} s | {m:.0f} MiB | {h:,} |" for f, r, t, m, h in rows]
    report = "\n".join(lines) + "\n"
    print(report)
    (HERE / "results-load.md").write_text(report)


if __name__ == "__main__":
    main()
