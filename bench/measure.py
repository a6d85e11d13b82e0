"""Timing one process: wall time, CPU time and peak memory, from the kernel's own accounting.

Each run is a child process reaped with ``os.wait4``, whose resource usage covers the child
and every descendant it waited for (semgrep's ``semgrep-core``): CPU time is their sum, peak
RSS the largest of them.  Descendants the child did not wait for (the workers of a
``forkserver`` process pool belong to the fork server, which outlives its parent for a moment)
are caught too: the benchmark makes itself their "subreaper" (Linux ``PR_SET_CHILD_SUBREAPER``),
so that they are handed to it when orphaned, and reaps them after the child.  Wall time ends
when the child exits.  Output goes to files, never to pipes, so that a tool that prints
megabytes is not slowed by (or deadlocked on) the benchmark reading it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Sample:
    wall: float  # seconds
    cpu: float  # user + system seconds, children included
    rss: int  # peak resident set size, bytes
    code: int  # exit code (negative: killed by that signal)
    stdout: str
    stderr: str
    timed_out: bool = False


_PR_SET_CHILD_SUBREAPER = 36
_subreaper: bool | None = None


def _become_subreaper() -> bool:
    """Make orphaned descendants this process's children (Linux); False where unsupported."""
    global _subreaper
    if _subreaper is None:
        _subreaper = False
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                _subreaper = libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
            except (OSError, AttributeError):
                _subreaper = False
    return _subreaper


def _reap_orphans(deadline: float) -> tuple[float, int]:
    """Reap descendants handed to us after the child exited: (their CPU seconds, peak RSS)."""
    cpu, rss = 0.0, 0
    while True:
        try:
            pid, _, usage = os.wait4(-1, os.WNOHANG)
        except ChildProcessError:
            return cpu, rss  # none left
        if pid == 0:
            if time.monotonic() > deadline:
                return cpu, rss  # still running: give up on them
            time.sleep(0.01)
            continue
        cpu += usage.ru_utime + usage.ru_stime
        rss = max(rss, usage.ru_maxrss * 1024)


def run_measured(argv: Sequence[str], *, cwd: Path, env: dict[str, str], timeout: float) -> Sample:
    """Run ``argv`` once; a run over ``timeout`` seconds is killed with its process group."""
    _become_subreaper()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=err,
            start_new_session=True,  # its own process group, so that a timeout kills it all
        )
        expired = threading.Event()

        def kill() -> None:
            expired.set()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, kill)
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        orphan_cpu, orphan_rss = _reap_orphans(time.monotonic() + 10)
        out.seek(0)
        err.seek(0)
        return Sample(
            wall=wall,
            cpu=usage.ru_utime + usage.ru_stime + orphan_cpu,
            rss=max(usage.ru_maxrss * 1024, orphan_rss),  # Linux reports KiB
            code=process.returncode,
            stdout=out.read().decode("utf-8", errors="replace"),
            stderr=err.read().decode("utf-8", errors="replace"),
            timed_out=expired.is_set(),
        )


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def evict_from_page_cache(paths: Sequence[Path]) -> bool:
    """Ask the kernel to drop these files' cached pages (``POSIX_FADV_DONTNEED``), so that the
    next read comes from the disk: a cold run, without dropping every other process's cache.
    Returns False where the call does not exist.  The corpus is never written, so its pages
    are clean and the advice is followed."""
    advise = getattr(os, "posix_fadvise", None)
    dont_need = getattr(os, "POSIX_FADV_DONTNEED", None)
    if advise is None or dont_need is None:
        return False
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            advise(fd, 0, 0, dont_need)
        finally:
            os.close(fd)
    return True


def warm_page_cache(paths: Sequence[Path]) -> None:
    """Read every file once, so that no tool pays for the disk on behalf of the others."""
    for path in paths:
        try:
            with open(path, "rb") as handle:
                while handle.read(1 << 20):
                    pass
        except OSError:
            continue


def interleaved(
    runs: dict[str, tuple[Sequence[str], Path, set[int]]],
    rounds: int,
    env: dict[str, str],
    timeout: float = 120,
) -> dict[str, list[float]]:
    """Each labelled command ``rounds`` times, the order rotated each round (so that no run
    always follows the same one); wall times by label. An exit code not among a run's
    expected ones stops the benchmark, naming it."""
    times: dict[str, list[float]] = {label: [] for label in runs}
    labels = list(runs)
    for round_number in range(rounds):
        shift = round_number % len(labels)
        for label in labels[shift:] + labels[:shift]:
            argv, cwd, codes = runs[label]
            sample = run_measured(argv, cwd=cwd, env=env, timeout=timeout)
            if sample.code not in codes:
                raise SystemExit(f"{label}: exit {sample.code}\n{sample.stdout}{sample.stderr}")
            times[label].append(sample.wall)
    return times
