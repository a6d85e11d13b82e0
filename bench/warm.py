"""The warm answer of an unchanged tree beside a bare interpreter (issue 36: within 3x).

``cleantree check`` on a tree where nothing changed since the last check prints the answer
it kept (``pytest_cleantree/run/answers.py``); what is left is start-up.  The two commands
run in turns, the same number of times, and each pair gives a ratio: the median ratio holds
when the machine's speed drifts during the run.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from measure import median, run_measured
from report import Extra

CACHE_ENV = "CLEANTREE_CACHE_DIR"
RACY_S = 2.1  # the store keeps no answer while a file changed within 2 s of the walk


def warm_answer(
    name: str, argv: Sequence[str], cwd: Path, env: dict[str, str], cache: Path, rounds: int
) -> list[Extra]:
    """Warm answer (``argv`` with a primed answer store in ``cache``) against ``python -c pass``;
    ``name`` names the corpus."""
    shutil.rmtree(cache, ignore_errors=True)
    run_env = {**env, CACHE_ENV: str(cache)}
    first = run_measured(argv, cwd=cwd, env=run_env, timeout=600)
    if not any((cache / "answers").glob("*.json")):  # the corpus was just written: racy
        time.sleep(RACY_S)
        first = run_measured(argv, cwd=cwd, env=run_env, timeout=600)
    bare = [sys.executable, "-c", "pass"]
    warm_times: list[float] = []
    bare_times: list[float] = []
    ratios: list[float] = []
    for _ in range(max(rounds, 10)):
        warm = run_measured(argv, cwd=cwd, env=run_env, timeout=60)
        if warm.code != first.code:
            return [Extra(f"warm answer, {name}", None, "", f"failed (exit {warm.code})")]
        plain = run_measured(bare, cwd=cwd, env=env, timeout=60)
        warm_times.append(warm.wall)
        bare_times.append(plain.wall)
        ratios.append(warm.wall / plain.wall)
    ratio = median(ratios)
    return [
        Extra(
            f"warm answer, unchanged tree, {name}",
            median(warm_times),
            "s",
            f"answer kept whole; x{ratio:.2f} `python -c pass` (median of paired ratios)",
            key=f"warm-answer:{name}",
        ),
        Extra(
            f"python -c pass, paired with the warm answer, {name}",
            median(bare_times),
            "s",
            "bare interpreter, in turns with the row above",
            key=f"python-pass:{name}",
        ),
        Extra(
            f"warm answer / python -c pass, {name}",
            ratio,
            "x",
            "target (issue 36): within 3x",
            key=f"warm-answer-ratio:{name}",
        ),
    ]
