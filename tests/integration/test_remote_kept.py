"""A warm qualified check over SSH is sent only the Python files whose content changed.

The tree's Python files cross the link whole with the first listing (the symbol graph's
input); the client keeps them by content digest in the analyses' store
(:class:`~pytest_cleantree.run.kept.KeptContent`) and names those digests to the agent on the
next run, which answers :class:`~pytest_cleantree.agent.wire.Kept` for a file whose content
has that digest now.  Counted through the source (the paths whose content crossed, the
requests), never by time; the findings are the local run's every time.
"""

from __future__ import annotations

import base64
import zlib
from pathlib import Path
from typing import Any

import pytest

from pytest_cleantree.config.manifest import parse_manifest
from pytest_cleantree.core.checks import iter_checks
from pytest_cleantree.run.analyses import AnalysisCache
from pytest_cleantree.run.cache import AnalysisStore
from pytest_cleantree.run.check import check_all
from pytest_cleantree.run.kept import KeptContent
from pytest_cleantree.sources.base import FileRead, content_digest
from pytest_cleantree.sources.local import LocalSource

pytestmark = pytest.mark.ssh

TREE = {
    "pkg0/__init__.py": "",
    "pkg0/gpu.py": "def is_sm120_supported():\n    return False\n",
    "pkg1/__init__.py": "",
    "pkg1/use.py": "from pkg0.gpu import is_sm120_supported as s\nif s():\n    pass\n",
    "pkg1/clean.py": "import os\nx = os.sep\n",
    "pkg1/other.py": "def f():\n    return 1\n",
}
MANIFEST = '[[rule]]\nid = "q"\nfiles = ["**/*.py"]\nforbid = ["pkg0.gpu.is_sm120_supported"]\n'


def _answers(results: dict[Any, Any]) -> dict[str, tuple[object, ...]]:
    return {c.rule.id: (r.hits, r.missing, r.problems) for c, r in results.items()}


def _run(
    make_ssh_source: Any, root: Path, cache: Path, manifest: str = MANIFEST
) -> tuple[Any, dict[str, Any]]:
    checks = list(iter_checks(parse_manifest(manifest, str(root / "m.toml")).rules))
    source = make_ssh_source(root)
    remote = check_all(checks, source, AnalysisCache(AnalysisStore(cache)))
    local = check_all(checks, LocalSource(root), AnalysisCache())
    assert _answers(remote) == _answers(local)
    return source, _answers(remote)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_a_warm_run_after_one_change_is_sent_that_file_alone(
    tmp_path: Path, make_ssh_source: Any
) -> None:
    root, cache = tmp_path / "tree", tmp_path / "cache"
    _write(root, TREE)
    cold, _ = _run(make_ssh_source, root, cache)
    assert sorted(cold.transferred) == sorted(TREE)
    warm, _ = _run(make_ssh_source, root, cache)
    assert warm.transferred == []
    assert warm.commands == (1, 1)
    # each file read is the kept content, its record saying it was read ahead with the digest
    # it was offered by (the content's own: the analyses' store is keyed by it, unhashed)
    kept = {path: (root / path).read_bytes() for path in TREE}
    assert dict(warm.read(sorted(TREE))) == {
        path: FileRead(data, content_digest(data), ahead=True) for path, data in kept.items()
    }
    assert warm.commands == (1, 1)
    _write(root, {"pkg1/clean.py": "from pkg0 import gpu\ngpu.is_sm120_supported()\n"})
    changed, answers = _run(make_ssh_source, root, cache)
    assert changed.transferred == ["pkg1/clean.py"]
    assert changed.commands == (1, 1)
    sent = changed.read(["pkg1/clean.py", "pkg1/use.py"])
    assert [(read.ahead, read.digest is None) for read in sent.values()] == [
        (True, True),  # sent: its digest is not held, it is hashed when needed
        (True, False),
    ]
    assert {hit.path for hit in answers["q"][0]} >= {"pkg1/clean.py", "pkg1/use.py"}


def test_a_kept_entry_that_is_not_its_content_is_never_used(
    tmp_path: Path, make_ssh_source: Any
) -> None:
    """The store's copy is checked against its digest: a spoilt one makes the file asked for
    again (one more request), never stand in for it."""
    root, cache = tmp_path / "tree", tmp_path / "cache"
    _write(root, TREE)
    cold, _ = _run(make_ssh_source, root, cache)
    store = AnalysisStore(cache)
    spoilt = base64.b64encode(zlib.compress(b"x = 1\n")).decode("ascii")
    for digest in KeptContent(store).offered(cold._kept_where).values():
        store.put_graph(f"5:c:{digest}", spoilt)
    store.flush()
    warm, _ = _run(make_ssh_source, root, cache)  # the local run's answers, as always
    assert warm.transferred == []  # the agent said "kept" for every file...
    assert warm.commands[1] > 1  # ...and the client asked for them again


def test_a_warm_run_parses_no_module_for_the_graph(
    tmp_path: Path, make_ssh_source: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The graph's parts kept by digest are found from the digests of what the source holds
    (:meth:`SSHSource.digests`): no file is summarised or parsed again."""
    from pytest_cleantree.names import modules_to_read, spellings

    root, cache = tmp_path / "tree", tmp_path / "cache"
    _write(root, TREE)
    _, cold = _run(make_ssh_source, root, cache)

    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("a warm run parsed a module")

    checks = list(iter_checks(parse_manifest(MANIFEST, str(root / "m.toml")).rules))
    with monkeypatch.context() as patched:
        patched.setattr(modules_to_read, "parse_module_exports", refuse)
        patched.setattr(modules_to_read, "import_summary", refuse)
        patched.setattr(spellings, "parse_module_exports", refuse)
        warm = check_all(checks, make_ssh_source(root), AnalysisCache(AnalysisStore(cache)))
    assert _answers(warm) == cold


def test_an_exact_check_keeps_what_it_was_sent_too(tmp_path: Path, make_ssh_source: Any) -> None:
    """An exact check is sent the files that may hold its needle: a warm one is sent none of
    them unchanged, and a qualified check after it none of those either."""
    exact = '[[rule]]\nid = "e"\nfiles = ["**/*.py"]\nforbid = ["sm120"]\n'
    root, cache = tmp_path / "tree", tmp_path / "cache"
    _write(root, TREE)
    cold, _ = _run(make_ssh_source, root, cache, exact)
    assert sorted(cold.transferred) == ["pkg0/gpu.py", "pkg1/use.py"]  # the others: spared
    warm, _ = _run(make_ssh_source, root, cache, exact)
    assert warm.transferred == []
    qualified, _ = _run(make_ssh_source, root, cache)
    assert sorted(qualified.transferred) == sorted(set(TREE) - {"pkg0/gpu.py", "pkg1/use.py"})
    again, _ = _run(make_ssh_source, root, cache, exact)
    assert again.transferred == []
