"""Real git repositories for the trust tests, isolated from the machine's git configuration,
and the CLI run in them in a process of its own."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from runs import REPO, run_module

#: git never reads the machine's configuration; commits have an identity and a fixed date
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@t",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@t",
    "GIT_AUTHOR_DATE": "2025-01-01T00:00:00+0000",
    "GIT_COMMITTER_DATE": "2025-01-01T00:00:00+0000",
}

#: a manifest forbidding ``sm120`` in every Python file of the tree
ALL_PY = 'root = "."\n[[rule]]\nid = "gone"\nfiles = ["**/*.py"]\nforbid = ["sm120"]\n'


def git(repo: Path, *args: str) -> str:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(repo), **GIT_ENV}
    done = subprocess.run(
        ["git", "-c", "protocol.file.allow=always", "-C", str(repo), *args],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
    return done.stdout


def write(tree: Path, files: dict[str, bytes | None]) -> None:
    """Write (``None``: delete) each file under ``tree``."""
    for name, data in files.items():
        path = tree / name
        if data is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def new_repo(path: Path, files: dict[str, bytes | None]) -> Path:
    """A repository at ``path`` with one commit of ``files``."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    write(path, files)
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "base")
    return path


def add_submodule(top: Path, name: str, files: dict[str, bytes | None]) -> Path:
    """A repository of ``files`` beside ``top``, added to it as the submodule ``name``."""
    origin = new_repo(top.parent / f"{top.name}-{name.replace('/', '-')}-origin", files)
    git(top, "submodule", "add", "-q", str(origin), name)
    git(top, "commit", "-q", "-m", f"submodule {name}")
    return top / name


def cleantree(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``cleantree ARGS`` in ``cwd`` as a user runs it (no cache, this checkout)."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": REPO,
        "CLEANTREE_CACHE_DIR": "",
        "HOME": str(cwd),
        **GIT_ENV,
    }
    done = run_module("pytest_cleantree", *args, cwd=cwd, env=env)
    assert "Traceback" not in done.stderr, done.stderr
    return done
