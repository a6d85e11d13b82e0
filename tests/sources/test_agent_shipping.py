"""What the SSH source sends to a server is the whole agent, in an order its bootstrap loads.

The agent is split by responsibility (the walk, the read, the needle test, the server's loop);
the bootstrap executes the modules :data:`~pytest_cleantree.agent.serve.MODULES` names, one
after the other, from stdin: a module left out, or sent before a module it imports, would
make every remote run fall back or fail.  Held here without a server: the list against the
package's files and their imports, and the shipped agent run for real under this Python.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from pytest_cleantree import agent
from pytest_cleantree.agent import wire
from pytest_cleantree.agent.serve import MODULES
from pytest_cleantree.sources.ssh.protocol import _parse_records, agent_command, agent_stdin

AGENT = Path(agent.__file__).parent


def _relative_imports(path: Path) -> set[str]:
    """The package's modules a module imports (``from .x import``, ``from . import x``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module)
            else:
                found.update(alias.name for alias in node.names)
    return found


def test_every_module_of_the_agent_is_shipped_once() -> None:
    files = [file for file, _ in MODULES]
    assert sorted(files) == sorted(path.name for path in AGENT.glob("*.py"))
    assert len(set(files)) == len(files)


def test_each_module_is_shipped_after_the_modules_it_imports() -> None:
    loaded: set[str] = set()
    for file, name in MODULES:
        missing = _relative_imports(AGENT / file) - loaded
        assert not missing, f"{file} is shipped before {sorted(missing)}"
        loaded.add(name or "__init__")


def test_the_shipped_agent_answers_through_its_bootstrap(tmp_path: Path) -> None:
    """Every module's code runs on the far side: a walk, a spared read, a sent one."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "hit.py").write_text('x = "sm" "120"\n')
    (tmp_path / "pkg" / "clean.py").write_text("x = 1\n")
    request: dict[str, object] = {
        "op": "expand",
        "nonce": "0123456789abcdef",
        "root": str(tmp_path),
        "protocol": wire.PROTOCOL,
        "literals": ["pkg/hit.py", "absent.py"],
        "bases": [""],
        "needles": [["sm120"]],
        "ahead": {"entries": [["glob", r".*\.py\Z", "", 0]], "budget": 1 << 20, "pack": False},
    }
    done = subprocess.run(
        agent_command(sys.executable, str(tmp_path)),
        shell=True,
        input=agent_stdin(request),
        capture_output=True,
        check=True,
        timeout=60,
    )
    records = _parse_records(done.stdout, "0123456789abcdef")
    assert records is not None, done.stderr.decode()
    kinds = [type(record).__name__ for record in records]
    assert kinds[:3] == ["Root", "Exists", "Absent"]
    read = {
        records[i].path: type(records[i + 1]).__name__
        for i, record in enumerate(records)
        if isinstance(record, wire.Ahead)
    }
    assert read == {"pkg/clean.py": "Spared", "pkg/hit.py": "Content"}
