"""The agent runs on servers under Python 3.6: it compiles there, and answers there as here.

The same walk, read and needle test run under Python 3.6 (the oldest a server may have)
and in this process, on one small tree with the cases they must agree on (links in and
out of the root, a cycle, a dangling link, a FIFO, a hidden folder, a needle spelt only
through an escape); then the whole request, through the bootstrap the SSH source sends.
Under ``CI=true`` a missing Python 3.6 fails the test: CI must not pass having run nothing.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from pytest_cleantree import agent
from pytest_cleantree.agent import wire
from pytest_cleantree.sources.ssh.protocol import _parse_records, agent_command, agent_stdin

AGENT = Path(agent.__file__).parent


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "tree"
    (root / "pkg" / "sub").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("import sm120\n")
    (root / "pkg" / "escaped.py").write_text('x = "\\x73m120"\n')
    (root / "pkg" / "joined.py").write_text('x = ("sm"\n     "120")\n')
    (root / "pkg" / "clean.py").write_text("x = 1\n")
    (root / "pkg" / "sub" / "deep.py").write_text("# sm120 here\n")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "skipped.py").write_text("sm120\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "far.py").write_text("sm120\n")
    (root / "inner_link").symlink_to(root / "pkg")
    (root / "outer_link").symlink_to(outside)
    (root / "pkg" / "sub" / "cycle").symlink_to(root / "pkg")
    (root / "file_out.py").symlink_to(outside / "far.py")
    (root / "dangling.py").symlink_to(root / "nowhere.py")
    os.mkfifo(root / "fifo.py")
    return root


#: runs under either Python: the walk, every read, and the needle test, printed as JSON
DRIVER = """
import json, os, sys
sys.path.insert(0, sys.argv[1])
import agent

root = os.fsencode(sys.argv[2])
real_root = os.path.realpath(root)
text = lambda value: value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else value
met = agent.walk(root, b"", real_root)
named = lambda kind: sorted(r.path for r in met if type(r).__name__ == kind)
reads = {}
for path in named("Listed") + ["missing.py", "pkg", "dangling.py", "fifo.py"]:
    record = agent.read_one(os.path.join(root, os.fsencode(path)), real_root, {})
    needles = [(b"sm120", "sm120")]
    data = getattr(record, "data", None)
    spelt = agent.could_spell(data, needles) if data is not None else None
    shown = [text(value).replace(sys.argv[2], "<root>") for value in record.values()]
    reads[path] = [type(record).__name__, shown, spelt]
print(json.dumps({
    "files": sorted(set(named("Listed"))),
    "others": named("Other"),
    "blocked": [
        [type(r).__name__] + list(r.values())
        for r in met if type(r).__name__ in ("Unlisted", "LinkOut")
    ],
    "reads": reads,
}, sort_keys=True))
"""


def _copy_agent(folder: Path) -> Path:
    """The agent's package, copied as a package named ``agent`` into ``folder``."""
    copy = folder / "agent"
    copy.mkdir()
    for module in AGENT.glob("*.py"):
        (copy / module.name).write_bytes(module.read_bytes())
    return copy


def _driven(python: str, tree: Path, folder: Path) -> Any:
    _copy_agent(folder)
    done = subprocess.run(
        [python, "-B", "-S", "-c", DRIVER, str(folder), str(tree)],
        capture_output=True,
        check=True,
        timeout=60,
    )
    return json.loads(done.stdout)


def test_python36_compiles_the_agent(python36: Path, tmp_path: Path) -> None:
    copy = _copy_agent(tmp_path)  # a copy: compileall writes __pycache__ beside its files
    done = subprocess.run(
        [str(python36), "-m", "compileall", "-q", str(copy)], capture_output=True, check=False
    )
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
    built = (copy / "__pycache__").glob("*.cpython-36*.pyc")
    compiled = {path.name.split(".")[0] for path in built}
    assert compiled == {path.stem for path in AGENT.glob("*.py")}


def test_the_walk_read_and_needle_test_agree_under_python36(
    python36: Path, tree: Path, tmp_path: Path
) -> None:
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    old = _driven(str(python36), tree, tmp_path / "old")
    new = _driven(sys.executable, tree, tmp_path / "new")
    assert old == new
    # the premises: the tree holds what the agent must tell apart
    assert "pkg/sub/deep.py" in new["files"]
    assert "inner_link/clean.py" in new["files"]
    assert not any(path.startswith(".hidden/") for path in new["files"])
    assert [kind for kind, *_ in new["blocked"]] == ["LinkOut"]  # the link out of the root
    reads = new["reads"]
    assert reads["pkg/escaped.py"][2] is True
    assert reads["pkg/joined.py"][2] is True
    assert reads["pkg/clean.py"][2] is False
    assert reads["file_out.py"][0] == "Outside"
    assert reads["dangling.py"][0] == "Missing"
    assert reads["fifo.py"][0] == "Special"
    assert reads["pkg"][0] == "Folder"


def _answer(python: str, request: dict[str, object]) -> list[wire.Record] | None:
    done = subprocess.run(
        agent_command(python, str(request["root"])),
        shell=True,
        input=agent_stdin(request),
        capture_output=True,
        check=True,
        timeout=60,
    )
    return _parse_records(done.stdout, str(request["nonce"]))


@pytest.mark.parametrize("op", ["expand", "read"])
def test_a_request_is_answered_alike_under_python36(python36: Path, tree: Path, op: str) -> None:
    """The whole agent, as the SSH source runs it: the bootstrap, the source on stdin."""
    request: dict[str, object] = {
        "op": op,
        "nonce": "0123456789abcdef",
        "root": str(tree),
        "protocol": wire.PROTOCOL,
    }
    if op == "expand":
        request.update(
            literals=["pkg/clean.py", "absent.py"],
            bases=["", "pkg"],
            needles=[["sm120"]],
            ahead={
                "entries": [["glob", r"pkg/.*\.py\Z", "pkg", 0]],
                "budget": 1 << 20,
                "pack": True,
            },
        )
    else:
        paths = ["pkg/escaped.py", "pkg/clean.py", "file_out.py", "fifo.py", "missing.py"]
        request.update(paths=paths, needles=[["sm120"]], needle_of=[0, 0, None, 0, 0])
    old = _answer(str(python36), request)
    new = _answer(sys.executable, request)
    assert old is not None
    assert len(old) > 3
    assert old == new
