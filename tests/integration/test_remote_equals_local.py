"""Local and remote hold one answer: generated trees checked over a real sshd and here.

Every decision the agent takes on the server (which files may hold a needle, how bytes
decode, which are text, links, odd names) must be the one the local source takes: the
local run is the oracle.  Trees mix encodings with and without a BOM, NUL bytes, CRLF,
links (inside, dangling, out of the root), odd names, empty and largish files; the rules
are a substring one on every file, alone (every file needle-tested on the server) or with a
qualified one on the Python files (which reads them whole with the first listing, for the
symbol graph), each checked cold and then twice with a store (the second run is sent only
what changed: nothing).  A few dozen trees in the default suite, hundreds in the slow tier.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_cleantree.config.hosts import parse_host_spec
from pytest_cleantree.config.manifest import parse_manifest
from pytest_cleantree.core.checks import iter_checks
from pytest_cleantree.run.analyses import AnalysisCache
from pytest_cleantree.run.cache import AnalysisStore
from pytest_cleantree.run.check import check_all
from pytest_cleantree.sources import RemoteOptions
from pytest_cleantree.sources.local import LocalSource
from pytest_cleantree.sources.ssh import SSHSource

pytestmark = pytest.mark.ssh

MANIFEST = """\
[[rule]]
id = "word"
files = ["**/*"]
forbid = ["sm120"]

[[rule]]
id = "qualified"
files = ["**/*.py"]
forbid = ["pkg.gpu.target"]
"""
#: without a qualified rule the Python files are needle-tested on the server too (a qualified
#: one reads them whole with the listing, for the symbol graph)
MANIFESTS = [MANIFEST, MANIFEST.split("\n\n")[0] + "\n"]

NAMES = [
    "a.py",
    "b c.py",
    "ünï.py",
    "x'y.py",
    "$(touch nope).py",
    "-dash.py",
    "deep/sub/m.py",
    "pkg/use.py",
    "pkg/__init__.py",
    "data.yaml",
    "notes.txt",
    "conf/launch.sh",
    "conf/values.yml",
    ".hidden/h.py",
    "deep/.cfg",
]
LINES = [
    "x = 1",
    "sm120 = True",
    "from pkg.gpu import target as t",
    "t()",
    "import pkg.gpu as g",
    "g.target()",
    "from pkg import gpu",
    "# sm120 in a comment",
    's = "s" "m120"',
    's = "\\x73m120"',
    "from pkg.gpu import *",
    "target()",
    "é = 'café sm120'",
    "def broken(:",
]
ENCODINGS = ["utf-8", "utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-le", "latin-1"]

FILES = st.fixed_dictionaries(
    {
        "lines": st.lists(st.sampled_from(LINES), max_size=5)
        | st.lists(st.sampled_from(LINES), max_size=3).map(lambda lines: [*lines, "sm120 = 1"]),
        "encoding": st.sampled_from(ENCODINGS),
        "crlf": st.booleans(),
        "nul": st.booleans(),
        "repeat": st.sampled_from([0, 1, 1, 1, 2000]),  # 0: empty; 2000: largish
    }
)
LINKS = st.sampled_from(["inside", "dangling", "outside", "folder"])
TREES = st.fixed_dictionaries(
    {
        "files": st.dictionaries(st.sampled_from(NAMES), FILES, min_size=1, max_size=6),
        "links": st.dictionaries(st.sampled_from(["l1.py", "sub/l2.py"]), LINKS, max_size=2),
        "manifest": st.sampled_from(MANIFESTS),
    }
)


def _bytes(spec: dict[str, Any]) -> bytes:
    newline = "\r\n" if spec["crlf"] else "\n"
    text = newline.join(spec["lines"]) + newline if spec["lines"] else ""
    text *= spec["repeat"]
    data = text.encode(spec["encoding"])
    if spec["encoding"] == "latin-1" and data:
        data = b"# -*- coding: latin-1 -*-" + newline.encode() + data
    return data.replace(b"=", b"=\0", 1) if spec["nul"] else data


def _build(root: Path, tree: dict[str, Any], outside: Path) -> None:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "gpu.py").write_text("def target():\n    return 1\n")
    for name, spec in tree["files"].items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(_bytes(spec))
    outside.write_text("sm120 = 'outside'\n")
    targets = {
        "inside": root / "pkg" / "gpu.py",
        "dangling": root / "nowhere.py",
        "outside": outside,
        "folder": root / "pkg",
    }
    for name, kind in tree["links"].items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).symlink_to(targets[kind])


def _answers(results: dict[Any, Any]) -> dict[tuple[str, str], tuple[object, ...]]:
    return {
        (check.rule.id, check.entry): (r.hits, r.missing, r.present, r.problems, r.suppressed)
        for check, r in results.items()
    }


def held_to_local(tree: dict[str, Any], setup: Any) -> None:
    checks = list(iter_checks(parse_manifest(tree["manifest"], "cleantree.toml").rules))
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "tree"
        _build(root, tree, Path(folder) / "outside.py")
        local = check_all(checks, LocalSource(root), AnalysisCache())
        options = RemoteOptions(
            known_hosts=setup.known_hosts, ssh_config=setup.ssh_config, python=sys.executable
        )
        with SSHSource(parse_host_spec(setup.alias), str(root), options) as source:
            remote = check_all(checks, source, AnalysisCache())
        assert _answers(remote) == _answers(local)
        # with a store: the Python files sent whole are kept, and a second run is answered
        # from what was kept (the agent's Kept) and from the analyses stored; each source
        # started ahead, as a run opens it (connected and its agent started in the background)
        store = AnalysisStore(Path(folder) / "cache")
        for _ in range(2):
            with SSHSource(parse_host_spec(setup.alias), str(root), options) as source:
                source.start()
                remote = check_all(checks, source, AnalysisCache(store))
            assert _answers(remote) == _answers(local)


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(tree=TREES)
def test_a_remote_check_answers_as_the_local_one(tree: dict[str, Any], ssh_setup: Any) -> None:
    held_to_local(tree, ssh_setup)


@pytest.mark.slow
@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(tree=TREES)
def test_many_remote_checks_answer_as_the_local_ones(tree: dict[str, Any], ssh_setup: Any) -> None:
    held_to_local(tree, ssh_setup)
