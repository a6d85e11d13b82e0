"""Warm equals cold, as a property (issue 42): after any sequence of edits, a run that may
answer from the whole-answer store and the analysis cache prints what a cold run prints.

For a drawn sequence of edits to a fixture tree (the root's link retargeted to another
release, content changed with its size and mtime put back, files added and deleted, a link to
a file and a link to a folder retargeted (into a dot folder the run reads only through it,
too), two folders swapped, files changed in folders the run walks but no rule names, an edit
of nothing), a warm ``cleantree check --format json`` after each edit, on one cache, must give
the exit code and the document of a ``--no-cache`` run on the same tree.  The racy window
is 0 here (every edit comes after the previous run ended, never in its tick), so that answers
are kept and the warm runs really answer from the store: the test counts the runs answered
so.  The CLI runs in this process, so that CI can afford many sequences.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from budget import examples
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pytest_cleantree.frontends.cli.main import main
from pytest_cleantree.run import answers

#: the tree is reached through the link ``current`` (a release folder), which an edit retargets
MANIFEST = """root = "current"
[[rule]]
id = "py"
files = ["pkg/**/*.py", "top.py"]
forbid = ["sm120"]
[[rule]]
id = "docs"
files = ["docs/*.md"]
forbid = ["sm120"]
missing_ok = true
"""
#: ``.store`` is read only through the link ``pkg/lnkdir`` (a walk enters no dot folder)
FOLDERS = ("pkg", "pkg/a", "pkg/b", "docs", ".store")
#: where no rule looks, though the run walks there
UNNAMED = ("pkg/notes.txt", "pkg/a/data.json", "other/x.py", "other/deep/y.md")

EDITS = (
    "flip",  # same size, mtime put back: only ctime and the bytes tell
    "add",
    "delete",
    "relink-file",
    "relink-folder",
    "swap-folders",
    "unnamed",
    "none",
    "relink-root",
)


def body(dirty: bool, suffix: str) -> bytes:
    word = "sm120" if dirty else "sm121"
    return (f"x = '{word}'\n" if suffix == ".py" else f"run {word} here\n").encode()


def build(outer: Path) -> Path:
    """The tree in ``outer/v0``, reached through ``outer/current``; returns the latter."""
    (outer / "cleantree.toml").write_text(MANIFEST)
    (outer / "v0").mkdir()
    (outer / "current").symlink_to("v0")
    top = outer / "current"
    for folder in FOLDERS:
        (top / folder).mkdir(parents=True, exist_ok=True)
    (top / "top.py").write_bytes(body(False, ".py"))
    (top / "pkg" / "a" / "m.py").write_bytes(body(True, ".py"))
    (top / "pkg" / "b" / "m.py").write_bytes(body(False, ".py"))
    (top / "pkg" / "b" / "n.py").write_bytes(body(False, ".py"))
    (top / "docs" / "r.md").write_bytes(body(False, ".md"))
    (top / ".store" / "s.py").write_bytes(body(False, ".py"))
    (top / "pkg" / "lnk.py").symlink_to("a/m.py")
    (top / "pkg" / "lnkdir").symlink_to("b")
    return top


def files_of(top: Path) -> list[Path]:
    """The regular files a rule may name (not links), in a stable order."""
    found = [p for f in FOLDERS for p in sorted((top / f).glob("*")) if p.is_file()]
    return [p for p in found if not p.is_symlink() and p.suffix in (".py", ".md")]


def relink(link: Path, target: str) -> None:
    """Point ``link`` at ``target`` in one step (a new link renamed over the old one)."""
    fresh = link.with_name(link.name + ".new")
    fresh.symlink_to(target)
    os.replace(fresh, link)


def edit(top: Path, kind: str, n: int, dirty: bool) -> None:
    files = files_of(top)
    target = files[n % len(files)] if files else None
    if kind == "flip" and target is not None:
        before = target.stat()
        text = target.read_bytes()
        flipped = text.replace(b"sm121", b"sm12x").replace(b"sm120", b"sm121")
        target.write_bytes(flipped.replace(b"sm12x", b"sm120"))
        os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    elif kind == "add":
        folder = top / FOLDERS[n % len(FOLDERS)]
        suffix = ".md" if folder.name == "docs" else ".py"
        (folder / f"new{n}{suffix}").write_bytes(body(dirty, suffix))
    elif kind == "delete" and target is not None and len(files) > 1:
        target.unlink()
    elif kind == "relink-file":
        choices = [p for p in files if p.suffix == ".py" and p.parent != top / "docs"]
        if choices:
            relink(top / "pkg" / "lnk.py", os.path.relpath(choices[n % len(choices)], top / "pkg"))
    elif kind == "relink-folder":
        relink(top / "pkg" / "lnkdir", ["a", "b", "../docs", "../other", "../.store"][n % 5])
    elif kind == "swap-folders":
        os.rename(top / "pkg" / "a", top / "pkg" / "swap")
        os.rename(top / "pkg" / "b", top / "pkg" / "a")
        os.rename(top / "pkg" / "swap", top / "pkg" / "b")
    elif kind == "relink-root":  # another release: a copy, one file flipped or not
        release = top.parent / f"v{n}-{len(os.listdir(top.parent))}"
        shutil.copytree(top, release, symlinks=True)
        copied = files_of(release)
        if dirty and copied:
            changed = copied[n % len(copied)]
            changed.write_bytes(changed.read_bytes().replace(b"sm121", b"sm120"))
        relink(top, release.name)
    elif kind == "unnamed":
        path = top / UNNAMED[n % len(UNNAMED)]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(body(dirty, path.suffix) * (1 + n % 2))


@contextlib.contextmanager
def environment(cwd: Path, cache: Path) -> Iterator[None]:
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    os.environ["CLEANTREE_CACHE_DIR"] = str(cache)
    os.environ.pop("NO_COLOR", None)
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


class Runs:
    """``cleantree check --format json`` in this process, counting the runs answered whole."""

    def __init__(self) -> None:
        self.answered = 0

    def check(self, top: Path, cache: Path, *args: str) -> tuple[int, object]:
        out = io.StringIO()
        full_runs = _FULL_RUNS[0]
        with environment(top, cache), contextlib.redirect_stdout(out):
            code = main(["check", "--manifest", "cleantree.toml", "--format", "json", *args])
        if _FULL_RUNS[0] == full_runs:
            self.answered += 1
        return code, json.loads(out.getvalue())


#: how many runs went past the store (``open_session`` called); a list to be changed in place
_FULL_RUNS = [0]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """Answers kept with no racy window (see the module's docstring), full runs counted."""
    from pytest_cleantree.run import session

    monkeypatch.setattr(answers, "RACY_NS", 0)
    monkeypatch.setattr("pytest_cleantree.run.cache.RACY_NS", 0)
    opened = session.open_session

    def counting(*args: object, **kwargs: object) -> object:
        _FULL_RUNS[0] += 1
        return opened(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(session, "open_session", counting)


@pytest.mark.slow
@settings(
    max_examples=examples(ci=25, long=500),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    edits=st.lists(
        st.tuples(st.sampled_from(EDITS), st.integers(0, 40), st.booleans()),
        min_size=1,
        max_size=6,
    )
)
# a file behind a link into a dot folder, changed: the store must have walked the link (a
# signature that does not follow links to folders answers with the old report)
@example(edits=[("relink-folder", 4, False), ("flip", 4, False)])
# the root's link retargeted to a release that differs in one file (a lookup that walks the
# link's old target answers with the old report)
@example(edits=[("relink-root", 1, True)])
def test_after_any_sequence_of_edits_a_warm_run_answers_as_a_cold_one(
    counted: None, edits: list[tuple[str, int, bool]]
) -> None:
    runs = Runs()
    with tempfile.TemporaryDirectory() as folder:
        outer, cache = Path(folder) / "work", Path(folder) / "cache"
        outer.mkdir()
        top = build(outer)
        runs.check(outer, cache)
        for step, (kind, n, dirty) in enumerate(edits):
            edit(top, kind, n, dirty)
            warm = runs.check(outer, cache)
            cold = runs.check(outer, Path(folder) / f"cold{step}", "--no-cache")
            assert warm == cold, (edits[: step + 1], warm, cold)
        again = runs.check(outer, cache)
        answered = runs.answered
        assert again == runs.check(outer, cache)
        if again[0] != 2:  # an incomplete run is never kept; a complete one is, and answers
            assert runs.answered == answered + 1, "not answered from the store: vacuous"
