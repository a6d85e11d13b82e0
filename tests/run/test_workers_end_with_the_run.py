"""Workers end with their run (issue 44): a run killed mid-analysis leaves no process behind.

The real CLI, on a tree big enough for worker processes, is killed (SIGKILL: nothing of it
can clean up) while its workers analyse; every process of the run, found by a mark in its
environment, must then end.  Both start methods the pool uses are driven: ``fork`` (a run
with no other thread) and ``forkserver`` (the pool's choice beside paramiko's threads).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from pytest_cleantree.run import parallel

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")

#: how long the processes of a killed run may take to notice (a liveness bound, not a speed
#: claim: they poll every PARENT_POLL seconds, and the kernel's SIGKILL is immediate)
BOUND = 60.0


def marked(mark: str) -> set[int]:
    """The pids of live processes whose environment holds ``mark`` (zombies are not live)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if f"CLEANTREE_TEST_MARK={mark}".encode() not in (entry / "environ").read_bytes():
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            found.add(int(entry.name))
    return found


def big_tree(root: Path) -> None:
    body = "".join(f"def f{i}(x):\n    return sm120_{i}(x) + {i}\n" for i in range(120))
    for index in range(200):
        (root / f"m{index}.py").write_text(body)
    (root / "cleantree.toml").write_text('[[rule]]\nfiles = ["*.py"]\nforbid = ["sm120"]\n')


@pytest.mark.parametrize("method", ["fork", "forkserver"])
def test_a_killed_run_leaves_no_worker_behind(tmp_path: Path, method: str) -> None:
    big_tree(tmp_path)
    mark = uuid.uuid4().hex
    env = {
        **os.environ,
        "CLEANTREE_TEST_MARK": mark,
        "CLEANTREE_CACHE_DIR": "",
        "CLEANTREE_TEST_START_METHOD": method,
    }
    run = subprocess.Popen(
        [sys.executable, "-m", "pytest_cleantree", "check", "--jobs", "2"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + BOUND
        while len(marked(mark) - {run.pid}) < 2 and run.poll() is None:
            assert time.monotonic() < deadline, "the run never started its workers"
            time.sleep(0.02)
        assert run.poll() is None, "the run ended before it could be killed mid-analysis"
        workers = marked(mark) - {run.pid}
        assert workers  # caught mid-analysis
        run.send_signal(signal.SIGKILL)
        run.wait()
        deadline = time.monotonic() + BOUND
        while marked(mark) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = marked(mark)
    finally:
        if run.poll() is None:
            run.kill()
            run.wait()
    for pid in left:  # do not leave them to the next test either
        os.kill(pid, signal.SIGKILL)
    assert not left, f"processes of the killed run are still alive: {sorted(left)}"


def test_the_watch_ends_a_worker_whose_run_is_gone() -> None:
    """The portable half (no PR_SET_PDEATHSIG): a process told to watch a pid that has ended
    exits at once, with the worker's exit code."""
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    code = (
        "import time, pytest_cleantree.run.parallel as p\n"
        f"p.end_with_parent({gone.pid})\n"
        "time.sleep(30)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], timeout=BOUND, check=False)
    assert done.returncode == 1
    assert parallel.PARENT_POLL <= 1
