"""Re-exports and module names over SSH (issue 12): the export map is read through the
same Source, and a real sshd tree answers as the local one does, line for line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.ssh
Fleet = Any  # the ``fleet`` fixture's object (tests/integration/conftest.py)

TREE = {
    "python/sglang/__init__.py": "",
    "python/sglang/srt/__init__.py": "",
    "python/sglang/srt/utils/__init__.py": "from sglang.srt.utils.common import *\n",
    "python/sglang/srt/utils/common.py": "def is_sm120_supported():\n    return 1\n",
    "python/sglang/srt/layers/__init__.py": "",
    "python/sglang/srt/layers/a.py": (
        "from sglang.srt.utils import is_sm120_supported\n\nif is_sm120_supported():\n    pass\n"
    ),
}
#: the rule names the layers only: utils/__init__.py is read for the map, never reported
MANIFEST = (
    'root = "tree"\n[[rule]]\nid = "r"\nfiles = ["python/sglang/srt/layers/*.py"]\n'
    'forbid = ["sglang.srt.utils.common.is_sm120_supported"]\n'
)


def rows(stdout: str) -> list[tuple[str, int]]:
    document = json.loads(stdout)
    return sorted(
        (hit["file"], hit["line"]) for result in document["results"] for hit in result["hits"]
    )


def check_here_and_there(
    tmp_path: Path, fleet: Fleet, files: dict[str, str], manifest: str
) -> tuple[subprocess.CompletedProcess[str], subprocess.CompletedProcess[str]]:
    """The real CLI on the tree written from ``files``: locally, then over the real sshd."""
    tree = tmp_path / "tree"
    for name, text in files.items():
        (tree / name).parent.mkdir(parents=True, exist_ok=True)
        (tree / name).write_text(text)
    (tmp_path / "cleantree.toml").write_text(manifest)

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pytest_cleantree", "check", "--format", "json", *extra],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=120,
            check=False,
        )

    return run(), run("--host", f"gpu-a:{tree}", *fleet.cli_options())


@pytest.mark.slow
def test_re_exports_resolve_remotely_as_locally(tmp_path: Path, fleet: Fleet) -> None:
    local, remote = check_here_and_there(tmp_path, fleet, TREE, MANIFEST)

    assert (local.returncode, remote.returncode) == (1, 1), remote.stderr
    expected = [("python/sglang/srt/layers/a.py", 1), ("python/sglang/srt/layers/a.py", 3)]
    assert rows(local.stdout) == expected
    assert rows(remote.stdout) == expected


#: ``pkg/mod.py`` holds no word of the pattern, only ``from . import *``: the graph must
#: admit it wherever it reads (the needle test's part is held in
#: ``tests/names/test_modules_to_read_prefilter.py``; this is the whole run over a real sshd)
UNNAMED_STAR_TREE = {
    "python/pkg/__init__.py": "from subprocess import Popen\n",
    "python/pkg/mod.py": "from . import *\n",
    "python/pkg/use.py": "from pkg.mod import Popen\n\nPopen(['true'])\n",
}
UNNAMED_STAR_MANIFEST = (
    'root = "tree"\n[[rule]]\nid = "r"\nfiles = ["python/pkg/use.py"]\n'
    'forbid = ["subprocess.Popen"]\n'
)


@pytest.mark.slow
def test_an_unnamed_relative_star_import_is_followed_remotely_as_locally(
    tmp_path: Path, fleet: Fleet
) -> None:
    files, manifest = UNNAMED_STAR_TREE, UNNAMED_STAR_MANIFEST
    local, remote = check_here_and_there(tmp_path, fleet, files, manifest)

    expected = [("python/pkg/use.py", 1), ("python/pkg/use.py", 3)]
    assert rows(local.stdout) == expected, local.stderr
    assert rows(remote.stdout) == expected, remote.stderr
