"""Boundaries: the tool reads only the tree it was given, and only reads it.

* A manifest entry that leaves the root (``../../etc/passwd``, an absolute path, a link
  out of the tree) is refused, naming the key, unless ``allow_outside_root = true``; the
  file outside is then not even opened.
* After a CLI run and a ``pytest --cleantree`` run, on this machine and over SSH, the tree
  is byte-for-byte unchanged (contents, and the modification times of every file and
  folder, so nothing was added or removed).  Beyond the snapshot, every process that
  touches the tree (the CLI, pytest, and the remote helper on the server) runs under a
  Python audit hook (a ``sitecustomize`` on its path) that records each ``open`` under the
  tree with its flags, and each call that would change it (remove, rename, chmod, utime,
  mkdir, ...): the opens must all be read-only, the changes none.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from runs import cleantree, run_module

from pytest_cleantree.config.manifest import parse_manifest
from pytest_cleantree.core.errors import ManifestError

Snapshot = Callable[[Path], dict[str, tuple[bytes, int]]]
SSHClientSetup = Any  # tests/integration/conftest.py's SSHClientSetup
ROOT = "partial-revert/python/sglang"
OUTSIDE = "(set allow_outside_root = true to allow it)"

#: installed as ``sitecustomize`` in every audited process (locally through PYTHONPATH,
#: on the server through a wrapper interpreter that sets it)
AUDIT_HOOK = r"""
import atexit, json, os, sys

_TREE = os.path.realpath(os.environ["CLEANTREE_AUDIT_TREE"])
_LOG = os.environ["CLEANTREE_AUDIT_LOG"]
_WRITE = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
_CHANGES = {
    "os.remove", "os.rename", "os.rmdir", "os.mkdir", "os.chmod", "os.chown", "os.utime",
    "os.truncate", "os.link", "os.symlink", "os.setxattr", "os.removexattr", "os.chflags",
    "shutil.rmtree", "shutil.move", "shutil.copyfile", "shutil.copymode", "shutil.copystat",
}
_seen = []
_busy = [False]


def _inside(path):
    if not isinstance(path, (str, bytes, os.PathLike)):
        return None
    try:
        name = os.fsdecode(path)
        real = os.path.realpath(os.path.abspath(name))
    except Exception:
        return None
    return name if real == _TREE or real.startswith(_TREE + os.sep) else None


def _hook(event, args):
    if _busy[0] or (event != "open" and event not in _CHANGES):
        return
    _busy[0] = True
    try:
        if event == "open":
            path, mode, flags = args
            name = _inside(path)
            if name is not None:
                writes = bool(flags & _WRITE) or any(c in (mode or "") for c in "wax+")
                _seen.append(["open", name, writes])
        else:
            for arg in args[:2]:
                name = _inside(arg)
                if name is not None:
                    _seen.append([event, name, True])
    finally:
        _busy[0] = False


def _dump():
    _busy[0] = True
    with open(_LOG, "a", encoding="utf-8") as log:
        log.write(json.dumps({"argv": sys.argv[:1], "events": _seen}) + "\n")


sys.addaudithook(_hook)
atexit.register(_dump)
"""


@dataclass
class Audit:
    """The audit hook's files: its folder (for PYTHONPATH), its log, the tree it watches."""

    folder: Path
    log: Path
    tree: Path

    def env(self) -> dict[str, str]:
        path = os.pathsep.join(filter(None, [str(self.folder), os.environ.get("PYTHONPATH")]))
        return {
            **os.environ,
            "PYTHONPATH": path,
            "CLEANTREE_AUDIT_TREE": str(self.tree),
            "CLEANTREE_AUDIT_LOG": str(self.log),
        }

    def interpreter(self) -> str:
        """A stand-in for the server's python that runs this one under the hook."""
        wrapper = self.folder / "audited-python"
        wrapper.write_text(
            "#!/bin/sh\n"
            f"PYTHONPATH={self.folder}; export PYTHONPATH\n"
            f"CLEANTREE_AUDIT_TREE={self.tree}; export CLEANTREE_AUDIT_TREE\n"
            f"CLEANTREE_AUDIT_LOG={self.log}; export CLEANTREE_AUDIT_LOG\n"
            # the hook is a sitecustomize: keep site on (the remote helper asks for -S, which
            # changes nothing it opens in the tree)
            'for arg do shift; [ "$arg" = -S ] || set -- "$@" "$arg"; done\n'
            f'exec {sys.executable} "$@"\n'
        )
        wrapper.chmod(0o755)
        return str(wrapper)

    def events(self) -> list[tuple[str, str, bool]]:
        records = [json.loads(line) for line in self.log.read_text().splitlines()]
        assert records, "no audited process wrote its log"
        return [tuple(event) for record in records for event in record["events"]]


@pytest.fixture
def audit(tmp_path: Path) -> Callable[[Path], Audit]:
    def make(tree: Path) -> Audit:
        folder = tmp_path / "audit"
        folder.mkdir()
        (folder / "sitecustomize.py").write_text(AUDIT_HOOK)
        return Audit(folder, tmp_path / "audit.log", tree)

    return make


def remote_options(setup: SSHClientSetup, python: str, *, pytest_form: bool = False) -> list[str]:
    options = {
        "--ssh-config": str(setup.ssh_config),
        "--known-hosts": str(setup.known_hosts),
        "--python": python,
    }
    if pytest_form:
        options = {"--cleantree-" + key[2:]: value for key, value in options.items()}
    return [word for pair in options.items() for word in pair]


# -- entries that leave the root ----------------------------------------------------------


@pytest.fixture
def outside_tree(tmp_path: Path) -> Path:
    """``tmp/outside.py`` (dirty) beside ``tmp/tree`` (clean), and a link out of the tree."""
    (tmp_path / "outside.py").write_text("import os\nsm120 = 1\n")
    tree = tmp_path / "tree"
    (tree / "sub").mkdir(parents=True)
    (tree / "inside.py").write_text("x = 1\n")
    (tree / "link.py").symlink_to(tmp_path / "outside.py")
    return tree


ESCAPES = [
    ("files", "../outside.py", "goes outside the root with '..'"),
    ("files", "sub/../../outside.py", "goes outside the root with '..'"),
    ("files", "../../etc/passwd", "goes outside the root with '..'"),
    ("files", "/etc/passwd", "is absolute: paths are relative to the root"),
    ("files", "{outside}", "is absolute: paths are relative to the root"),
    ("files", "C:/Windows/win.ini", "is absolute: paths are relative to the root"),
    ("absent", "../outside.py", "goes outside the root with '..'"),
    ("absent", "/etc/passwd", "is absolute: paths are relative to the root"),
]


def manifest_text(key: str, entry: str, allow: bool) -> str:
    head = "allow_outside_root = true\n" if allow else ""
    body = f'files = ["inside.py"]\nabsent = ["{entry}"]\n' if key == "absent" else ""
    if key == "files":
        body = f'files = ["inside.py", "{entry}"]\n'
    return f'{head}root = "tree"\n\n[[rule]]\nid = "r"\n{body}forbid = ["sm120"]\n'


@pytest.mark.parametrize(("key", "entry", "why"), ESCAPES)
def test_an_entry_leaving_the_root_is_refused_unless_allowed(
    key: str, entry: str, why: str, outside_tree: Path, audit: Callable[[Path], Audit]
) -> None:
    folder = outside_tree.parent
    entry = entry.format(outside=folder / "outside.py")
    index = 0 if key == "absent" else 1
    with pytest.raises(ManifestError) as caught:
        parse_manifest(manifest_text(key, entry, allow=False), "cleantree.toml")
    line = 5 if key == "files" else 6  # the key's own line
    assert caught.value.problems == (
        f"rule 1 (line {line}): {key}[{index}]: '{entry}' {why} {OUTSIDE}",
    )
    assert parse_manifest(manifest_text(key, entry, allow=True), "cleantree.toml").rules

    (folder / "cleantree.toml").write_text(manifest_text(key, entry, allow=False))
    watched = audit(folder)  # the whole folder: the tree, and what is beside it
    refused = cleantree("check", cwd=folder, env=watched.env())
    assert refused.returncode == 2, refused.stdout
    assert f"{key}[{index}]: '{entry}' {why}" in refused.stderr
    opened = {Path(name).name for event, name, _ in watched.events() if event == "open"}
    assert opened == {"cleantree.toml"}, "a refused manifest still opened files of the tree"


@pytest.fixture
def allowed(outside_tree: Path) -> Path:
    folder = outside_tree.parent
    (folder / "cleantree.toml").write_text(
        'allow_outside_root = true\nroot = "tree"\n\n[[rule]]\nid = "r"\n'
        f'files = ["inside.py", "../outside.py", "{folder / "outside.py"}", "link.py"]\n'
        'forbid = ["sm120"]\n'
    )
    return folder


@pytest.mark.slow
@pytest.mark.parametrize("where", ["local", pytest.param("remote", marks=pytest.mark.ssh)])
def test_allowed_entries_outside_the_root_are_read(
    where: str, allowed: Path, request: pytest.FixtureRequest
) -> None:
    args = ["check", "--format", "json"]
    if where == "remote":
        setup = request.getfixturevalue("ssh_setup")
        args += ["--host", f"{setup.alias}:{allowed / 'tree'}"]
        args += remote_options(setup, sys.executable)
    completed = cleantree(*args, cwd=allowed)
    assert completed.returncode == 1, completed.stdout + completed.stderr
    results = json.loads(completed.stdout)["results"]
    assert [result["problems"] for result in results] == [[]] * 4
    rows = sorted((hit["file"], hit["line"]) for result in results for hit in result["hits"])
    outside = str(allowed / "outside.py")
    assert rows == sorted([("../outside.py", 2), (outside, 2), ("link.py", 2)])


@pytest.mark.slow
@pytest.mark.parametrize("where", ["local", pytest.param("remote", marks=pytest.mark.ssh)])
def test_a_link_out_of_the_root_is_refused_unless_allowed(
    where: str, outside_tree: Path, request: pytest.FixtureRequest
) -> None:
    folder = outside_tree.parent
    (folder / "cleantree.toml").write_text(
        'root = "tree"\n[[rule]]\nfiles = ["**/*.py"]\nforbid = ["sm120"]\n'
    )
    args = ["check"]
    if where == "remote":
        setup = request.getfixturevalue("ssh_setup")
        args += ["--host", f"{setup.alias}:{outside_tree}"]
        args += remote_options(setup, sys.executable)
    completed = cleantree(*args, cwd=folder)
    assert completed.returncode == 2, completed.stdout + completed.stderr
    assert re.search(r"link\.py: leads outside the root \(to .*outside\.py\)", completed.stdout)
    assert not re.search(r"link\.py:\d+ ", completed.stdout), "a link out of the root was read"


# -- the tree is left as it was ---------------------------------------------------------------


#: pytest's own writers kept out of the tree: its cache, and pytest-benchmark's .benchmarks
PYTEST_QUIET = ("-p", "no:cacheprovider", "-p", "no:benchmark", "-q")


def pytest_run(
    *args: str, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return run_module("pytest", "--cleantree", *PYTEST_QUIET, *args, cwd=cwd, env=env)


@pytest.mark.slow
@pytest.mark.parametrize("front", ["cli", "pytest"])
@pytest.mark.parametrize("where", ["local", pytest.param("remote", marks=pytest.mark.ssh)])
def test_a_run_leaves_the_tree_byte_for_byte_unchanged(
    front: str,
    where: str,
    example_tree: Path,
    snapshot: Snapshot,
    audit: Callable[[Path], Audit],
    request: pytest.FixtureRequest,
) -> None:
    root = example_tree / ROOT
    # every file and folder a day in the past: a run that wrote would move an mtime
    for path in [example_tree, *example_tree.rglob("*")]:
        os.utime(path, (1_600_000_000, 1_600_000_000), follow_symlinks=False)
    before = snapshot(example_tree)
    watched = audit(example_tree)
    args: list[str] = []
    if where == "remote":
        setup = request.getfixturevalue("ssh_setup")
        host = f"{setup.alias}:{root}"
        remote = remote_options(setup, watched.interpreter(), pytest_form=front == "pytest")
        args = [("--cleantree-host" if front == "pytest" else "--host"), host, *remote]
    if front == "cli":
        completed = cleantree("check", *args, cwd=example_tree, env=watched.env())
    else:
        completed = pytest_run(*args, cwd=example_tree, env=watched.env())
    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "srt/server_args.py:46" in completed.stdout

    assert snapshot(example_tree) == before
    events = watched.events()
    assert [event for event in events if event[2]] == [], "something opened the tree to write"
    read = {Path(name).name for event, name, _ in events if event == "open"}
    assert {"communicator.py", "server_args.py", "sitecustomize.py"} <= read, read


def test_the_audit_hook_sees_a_write(tmp_path: Path, audit: Callable[[Path], Audit]) -> None:
    """The hook above would notice a tool that writes: the proof is worth what it sees."""
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "a.py").write_text("x = 1\n")
    watched = audit(tree)
    script = (
        "import os, pathlib; p = pathlib.Path(os.environ['CLEANTREE_AUDIT_TREE']);"
        "(p / 'a.py').read_text(); (p / 'a.py').write_text('y'); os.utime(p / 'a.py');"
        "os.open(p / 'b.py', os.O_CREAT | os.O_RDONLY); os.remove(p / 'b.py')"
    )
    subprocess.run([sys.executable, "-c", script], env=watched.env(), check=True, timeout=60)
    assert [(event, Path(name).name, writes) for event, name, writes in watched.events()] == [
        ("open", "a.py", False),
        ("open", "a.py", True),
        ("os.utime", "a.py", True),
        ("open", "b.py", True),
        ("os.remove", "b.py", True),
    ]
