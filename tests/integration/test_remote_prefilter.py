"""The needle prefilter on the server: only files that can hold a pattern cross the link.

Differential, on a real sshd: a copy of standard-library packages plus files
that spell a forbidden name only through what Python's tokenizer does
(escapes, backslash-newlines, joined strings, NFKC names, a coding cookie),
checked over SSH with the prefilter and locally: the same results, finding for
finding.  The SFTP fallback reads everything, as before.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pytest_cleantree.config.manifest import parse_manifest
from pytest_cleantree.core.checks import iter_checks
from pytest_cleantree.core.model import Result
from pytest_cleantree.run.analyses import AnalysisCache
from pytest_cleantree.run.check import check_all
from pytest_cleantree.sources.base import NO_NEEDLE, FileRead
from pytest_cleantree.sources.local import LocalSource

pytestmark = pytest.mark.ssh
SourceFactory = Callable[..., Any]

#: files whose text spells ``sm120`` only the way their name says
TRICKY = {
    "tricky/hex_escape.py": b'x = "\\x73m120"\n',
    "tricky/octal_escape.py": b'x = "\\163m120"\n',
    "tricky/named_escape.py": b'x = "\\N{LATIN SMALL LETTER S}m120"\n',
    "tricky/continued.py": b'x = "sm\\\n120"\n',
    "tricky/joined.py": b"x = (\"sm\"\n     # why\n     '120')\n",
    "tricky/joined_escaped.py": b'x = "s" "\\x6d120"\n',
    "tricky/fullwidth.py": "is_\uff53\uff4d120 = 1\n".encode(),
    "tricky/rot13_cookie.py": b"# coding: rot13\nx = 1\n",  # not text: a problem, not clean
    "tricky/latin1.py": b"# -*- coding: latin-1 -*-\n'caf\xe9'\n",
    "tricky/plain_hit.py": b"if is_sm120_supported():\n    pass\n",
    "tricky/nothing.py": b'"""Nothing here."""\nx = "" + "\\n"\n',
    "tricky/launch.sh": b"export SM120=1\npython -m sglang  # sm120\n",
    "tricky/unparseable.py": b"def broken(:\n    sm120\n",
    "tricky/unparseable_clean.py": b"def broken(:\n    pass\n",
}

MANIFEST = """\
root = "tree"

[[rule]]
id = "substring"
files = ["**/*.py", "tricky/*.sh"]
forbid = ["sm120", "SM120"]

[[rule]]
id = "qualified"
files = ["**/*.py"]
forbid = ["email.utils.formatdate", "json.decoder.JSONDecodeError"]

[[rule]]
id = "exact-and-glob"
files = ["email/**/*.py", "json/*.py"]
forbid = ["=decode", "_parse*"]
kinds = ["import", "definition", "call", "reference", "string", "comment"]

[[rule]]
id = "lines"
files = ["json/*.py"]
forbid_lines = ["import re"]

[[rule]]
id = "expected"
files = ["json/__init__.py", "json/decoder.py"]
expect = ["JSONDecodeError", "scanstring"]

[[rule]]
id = "regex"
files = ["tricky/*.py"]
forbid = ["re:m1[0-9]+"]
"""


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("prefilter")
    tree = work / "tree"
    for package in ("json", "email"):
        origin = Path(__import__(package).__file__).parent  # type: ignore[arg-type]
        shutil.copytree(origin, tree / package, ignore=shutil.ignore_patterns("__pycache__"))
    for path, data in TRICKY.items():
        (tree / path).parent.mkdir(parents=True, exist_ok=True)
        (tree / path).write_bytes(data)
    return work


def _results(source: Any, work: Path) -> dict[tuple[str, str], Result]:
    manifest = parse_manifest(MANIFEST, str(work / "cleantree.toml"))
    checks = list(iter_checks(manifest.rules))
    found = check_all(checks, source, AnalysisCache())
    return {(check.rule.id, check.label): result for check, result in found.items()}


@pytest.mark.slow
def test_results_over_ssh_with_the_prefilter_equal_the_local_ones(
    workspace: Path, make_ssh_source: SourceFactory
) -> None:
    remote = _results(make_ssh_source(workspace / "tree"), workspace)
    local = _results(LocalSource(workspace / "tree"), workspace)
    assert remote.keys() == local.keys()
    for key, result in local.items():
        there = remote[key]
        assert (there.hits, there.missing, there.problems) == (
            result.hits,
            result.missing,
            result.problems,
        ), key
        assert there.files == result.files, key  # files left on the server were checked too
    spelt = {hit.path for hit in local["substring", "**/*.py"].hits}
    assert {
        "tricky/hex_escape.py",
        "tricky/octal_escape.py",
        "tricky/named_escape.py",
        "tricky/continued.py",
        "tricky/joined.py",
        "tricky/joined_escaped.py",
        "tricky/fullwidth.py",
        "tricky/plain_hit.py",
        "tricky/unparseable.py",
    } <= spelt
    problems = " ".join(map(str, remote["substring", "**/*.py"].problems))
    assert "tricky/rot13_cookie.py" in problems
    assert "tricky/unparseable.py" in problems
    assert local["qualified", "**/*.py"].hits
    assert local["lines", "json/*.py"].hits
    assert local["expected", "json/decoder.py"].ok
    missing = local["expected", "json/__init__.py"].missing
    assert [(m.path, m.pattern) for m in missing] == [("json/__init__.py", "scanstring")]


@pytest.mark.slow
def test_only_files_that_can_spell_a_needle_leave_the_server(
    workspace: Path, make_ssh_source: SourceFactory
) -> None:
    source = make_ssh_source(workspace / "tree")
    tree = workspace / "tree"
    paths = sorted(str(path.relative_to(tree)) for path in tree.rglob("*.py"))
    read = source.read(paths, ["sm120"])
    kept = {path for path, data in read.items() if data is not NO_NEEDLE}
    spelling = {path for path in TRICKY if path.endswith(".py")}
    spelling -= {"tricky/nothing.py", "tricky/unparseable_clean.py"}
    not_ascii = {path for path in paths if not (tree / path).read_bytes().isascii()}
    assert kept == spelling | not_ascii  # those the server cannot model are sent whole
    assert len(kept) < len(paths) / 3
    assert all(read[path] == FileRead((workspace / "tree" / path).read_bytes()) for path in kept)
    # per path, and None (send it whatever it holds) for one of them
    per_path: dict[str, list[str] | None] = {path: ["JSONDecoder"] for path in paths}
    per_path["email/utils.py"] = None
    read = source.read(paths, per_path)
    sent = {path for path, data in read.items() if data is not NO_NEEDLE}
    assert {"json/decoder.py", "json/__init__.py", "email/utils.py"} <= sent
    assert len(sent) < len(paths) / 2
    # without needles, everything as before
    assert NO_NEEDLE not in source.read(paths).values()


def test_the_sftp_fallback_sends_everything(
    workspace: Path, make_ssh_source: SourceFactory, sftp_only_setup: Any
) -> None:
    source = make_ssh_source(workspace / "tree", sftp_only_setup)
    read = source.read(["json/decoder.py", "tricky/nothing.py"], ["sm120"])
    assert read == {
        path: FileRead((workspace / "tree" / path).read_bytes())
        for path in ("json/decoder.py", "tricky/nothing.py")
    }
    assert sys.executable  # the helper never ran: SFTP only


@pytest.fixture
def counting_python(tmp_path: Path) -> tuple[Path, Path]:
    """An interpreter for the host that logs each command the check runs there."""
    log = tmp_path / "commands.log"
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\necho run >> {log}\nexec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    return wrapper, log


@pytest.mark.slow
@pytest.mark.parametrize(
    ("budget", "requests"), [(None, 1), (1, 2)], ids=["read-ahead", "over-budget"]
)
def test_listing_and_reading_take_one_request(
    workspace: Path,
    make_ssh_source: SourceFactory,
    counting_python: tuple[Path, Path],
    monkeypatch: pytest.MonkeyPatch,
    budget: int | None,
    requests: int,
) -> None:
    """The files that can matter come back with the listing; past the budget, they are read
    with a second request to the same agent (one command either way); the results are the
    local ones either way.  (Qualified patterns also read the modules on their chains and the
    package layout: more requests, counted by tests/integration/test_remote_resolution.py.)"""
    from pytest_cleantree.sources.ssh import protocol

    if budget is not None:
        monkeypatch.setattr(protocol, "READ_AHEAD_BYTES", budget)
    wrapper, log = counting_python
    manifest = MANIFEST.split('[[rule]]\nid = "regex"')[0]  # every pattern has a needle
    qualified = MANIFEST[MANIFEST.index('[[rule]]\nid = "qualified"') :]
    manifest = manifest.replace(qualified[: qualified.index("[[rule]]", 1)], "")
    source = make_ssh_source(workspace / "tree", python=str(wrapper))
    checks = list(iter_checks(parse_manifest(manifest, str(workspace / "m.toml")).rules))
    remote = check_all(checks, source, AnalysisCache())
    local = check_all(checks, LocalSource(workspace / "tree"), AnalysisCache())
    assert log.read_text().count("run") == 1
    assert source.commands == (1, requests)
    assert {c: (r.hits, r.missing, r.problems) for c, r in remote.items()} == {
        c: (r.hits, r.missing, r.problems) for c, r in local.items()
    }


#: a tree where a qualified name is imported under an alias, re-exported and star-imported
GRAPHED = {
    "pkg0/gpu.py": "def is_sm120_supported():\n    return False\n",
    "pkg0/__init__.py": "from .gpu import is_sm120_supported as supported\n",
    "pkg1/stars.py": "from pkg0.gpu import *\n",
    "pkg1/use.py": "from pkg0 import supported\nif supported():\n    pass\n",
    "pkg1/star_use.py": "from pkg1.stars import is_sm120_supported as s\ns()\n",
    "pkg1/clean.py": "import os\nx = os.sep\n",
    "pkg1/hidden.py": "from pkg1 import use\nuse.supported()\n",
    "pyproject.toml": "[project]\nname = 'graphed'\n",
}


@pytest.mark.slow
def test_a_qualified_check_reads_the_python_files_whole_with_the_listing(
    tmp_path: Path, make_ssh_source: SourceFactory
) -> None:
    """The symbol graph's reads and the analysis' are answered by the files read ahead
    (packed) with the first listing, and its lookups of files (the package layout's, the
    chains' candidates, ``pyproject.toml``) by that listing: one request to one agent, the
    local run's findings exactly."""
    for name, text in GRAPHED.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    manifest = (
        '[[rule]]\nid = "q"\nfiles = ["pkg1/*.py"]\nforbid = ["pkg0.gpu.is_sm120_supported"]\n'
    )
    checks = list(iter_checks(parse_manifest(manifest, str(tmp_path / "m.toml")).rules))
    source = make_ssh_source(tmp_path)
    remote = check_all(checks, source, AnalysisCache())
    local = check_all(checks, LocalSource(tmp_path), AnalysisCache())
    assert source.commands == (1, 1)
    assert {c: (r.hits, r.missing, r.problems) for c, r in remote.items()} == {
        c: (r.hits, r.missing, r.problems) for c, r in local.items()
    }
    (result,) = remote.values()
    assert sorted({hit.path for hit in result.hits}) == [
        "pkg1/hidden.py",
        "pkg1/star_use.py",
        "pkg1/use.py",
    ]
