"""A literal answered from the planned listing is what the agent's lexists says, or unasked.

Generated trees with dot folders, links inside, out of the root, back up their own path and
dangling, files where folders are looked for, empty folders and odd names; every path of the
tree, and names beside and below them, looked up both ways.  Never a wrong "absent" (nor a
wrong "present"): where the snapshot answers, it answers as ``lexists``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_cleantree import agent
from pytest_cleantree.sources.base import listing_of, literal_answer
from pytest_cleantree.sources.ssh.snapshot import WalkSnapshot

SEGMENTS = ["a", "b", ".dot", "pkg", "__init__.py", "m.py", "x y", "ü"]
FOLDERS = st.lists(
    st.lists(st.sampled_from([*SEGMENTS[:4], "x y", "ü"]), min_size=1, max_size=3).map("/".join),
    max_size=6,
)
FILES = st.lists(
    st.tuples(FOLDERS.map(lambda f: f[0] if f else ""), st.sampled_from(SEGMENTS)), max_size=10
)
LINKS = st.lists(
    st.tuples(
        st.sampled_from(["a/l", "l", "pkg/up", ".dot/l", "b/c/l"]),
        st.sampled_from(["in", "up", "out", "dangling", "file"]),
    ),
    max_size=4,
)


def _build(root: Path, outside: Path, folders: list[str], files, links) -> None:  # type: ignore[no-untyped-def]
    for folder in folders:
        if not (root / folder).exists():
            (root / folder).mkdir(parents=True, exist_ok=True)
    for folder, name in files:
        path = root / folder / name if folder else root / name
        if path.exists() or any(p.is_file() for p in path.parents):
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")
    for where, kind in links:
        path = root / where
        if path.exists() or path.is_symlink() or any(p.is_file() for p in path.parents):
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        target = {
            "in": root / "pkg",
            "up": path.parent,
            "out": outside,
            "dangling": root / "nowhere",
            "file": outside / "far.py",
        }[kind]
        path.symlink_to(target)


def _lookups(root: Path) -> set[str]:
    """Every path of the tree (links followed once), and names beside and below each."""
    found: set[str] = {"", "."}
    for folder, dirs, names in os.walk(root):
        rel = os.path.relpath(folder, root)
        rel = "" if rel == "." else rel
        for name in [*dirs, *names, "absent.py", "__init__.py", "m.py"]:
            path = f"{rel}/{name}" if rel else name
            found.update({path, f"{path}/__init__.py", f"{path}/m.py", f"{path}/../m.py"})
    return found


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(folders=FOLDERS, files=FILES, links=LINKS, base=st.sampled_from(["", "a", "pkg"]))
def test_a_lookup_the_listing_answers_is_the_agents(folders, files, links, base) -> None:  # type: ignore[no-untyped-def]
    with tempfile.TemporaryDirectory() as scratch:
        root, outside = Path(scratch) / "root", Path(scratch) / "outside"
        root.mkdir()
        (root / "pkg").mkdir()
        outside.mkdir()
        (outside / "far.py").write_text("x = 1\n")
        _build(root, outside, folders, files, links)
        real_root = os.path.realpath(root)
        snapshot = WalkSnapshot()
        snapshot.add(listing_of(agent.walk(str(root), base, real_root)))
        answered = 0
        for entry in sorted(_lookups(root)):
            mine = snapshot.lookup(entry)
            if mine is None:
                continue
            answered += 1
            assert mine == literal_answer(entry, agent.lexists(str(root), entry)), entry
        assert answered or base != ""  # the root's own entries at least
