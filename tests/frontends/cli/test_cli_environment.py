"""A qualified pattern on a module outside the tree finds every spelling (issue 48).

``os.path`` is ``posixpath`` (``os`` does ``import posixpath as path``): neither is in the
tree, both are read from the environment, so either spelling of the pattern finds both.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from test_cli_resolution import check

pytestmark = pytest.mark.skipif(os.name != "posix", reason="os.path is posixpath on posix")

USE = """\
import os
import posixpath
from os import path

os.path.join("a")
posixpath.join("b")
path.join("c")
"""


@pytest.mark.parametrize("pattern", ["posixpath.join", "os.path.join"])
def test_either_spelling_of_an_aliased_module_finds_both(tmp_path: Path, pattern: str) -> None:
    (tmp_path / "python").mkdir()
    (tmp_path / "python/use.py").write_text(USE)
    (tmp_path / "cleantree.toml").write_text(
        f'[[rule]]\nid = "r"\nfiles = ["python/*.py"]\nforbid = ["{pattern}"]\n'
    )

    code, rows, err = check(tmp_path)

    assert (code, err) == (1, "")
    assert rows == {"python/use.py:5", "python/use.py:6", "python/use.py:7"}


def test_explain_says_which_modules_came_from_the_environment(tmp_path: Path) -> None:
    (tmp_path / "use.py").write_text(USE)
    (tmp_path / "cleantree.toml").write_text(
        '[[rule]]\nid = "r"\nfiles = ["*.py"]\nforbid = ["posixpath.join"]\n'
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", "explain", "posixpath.join"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert f"  os.path.join    {os.__file__}:" in done.stdout
    last = done.stdout.splitlines()[-1]
    assert last.startswith("  from the environment (not the tree): ")
    assert {"os", "posixpath"} <= set(last.split(": ", 1)[1].split(", "))
