"""The one way the trust tests run a front end in a process of its own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from needs import unavailable


def run_module(
    module: str, *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``python -m module args`` in ``cwd``: output as text, any exit code returned."""
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
        check=False,
    )


def cleantree(
    *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """The CLI; a traceback on either stream fails the test, whatever the exit code."""
    completed = run_module("pytest_cleantree", *args, cwd=cwd, env=env, timeout=timeout)
    assert "Traceback" not in completed.stderr + completed.stdout, completed.stderr
    return completed


#: this checkout, first on the path of every CLI subprocess that replaces the environment
REPO = str(Path(__file__).resolve().parents[2])


def check_tree(
    tree: Path,
    manifest: str,
    files: dict[str, bytes],
    *args: str,
    engine: str = "fast",
    env: dict[str, str | None] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Write ``files`` and ``manifest`` into ``tree`` and run ``cleantree check`` there, on
    ``engine``, without a cache, in an environment of its own (``env`` adds to it; a value of
    ``None`` unsets a variable)."""
    for name, data in files.items():
        path = tree / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    (tree / "cleantree.toml").write_text(manifest, encoding="utf-8")
    base: dict[str, str | None] = {
        "PATH": "/usr/bin:/bin",
        "PYTHONPATH": REPO,
        "CLEANTREE_CACHE_DIR": "",
        "CLEANTREE_ENGINE": engine,
    }
    merged = {key: value for key, value in {**base, **(env or {})}.items() if value is not None}
    return run_module(
        "pytest_cleantree", "check", "--manifest", "cleantree.toml", *args, cwd=tree, env=merged
    )


def one_rule(forbid: str, files: str = "m.py") -> str:
    """A manifest of one rule ``gone`` forbidding ``forbid`` (TOML array items) in ``files``."""
    return f'root = "."\n[[rule]]\nid = "gone"\nfiles = ["{files}"]\nforbid = [{forbid}]\n'


def unprivileged() -> list[str]:
    """A command prefix under which permission bits hold: empty for a user, and for root
    ``setpriv`` with the file-permission capabilities dropped (root reads everything).

    Tests of unreadable folders need it; without ``setpriv`` they skip, except under
    ``CI=true``, where they fail rather than pass having run nothing.
    """
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        unavailable("root needs setpriv (util-linux) to make a folder unreadable")
    return [setpriv, "--bounding-set=-dac_override,-dac_read_search", "--"]
