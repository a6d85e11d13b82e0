"""The coverage property (issues 34 and 42): a run over some paths reports exactly the
whole-tree findings restricted to those paths' files.

For fixture trees drawn by hypothesis (files in a few folders, dirty or clean, glob
characters ``[``, ``]``, ``*``, ``?`` in folder and file names, a link inside the root or out
of it, a submodule), and random subsets of their files and folders:

- ``cleantree check PATH...`` naming them (from the top or a subfolder, the root included);
- each named in every way a user can spell it: relative, absolute, with ``./``, with doubled
  slashes, through a link to its folder, through a link to itself (issue 42);
- ``cleantree check --changed-since HEAD`` after changing them in the git repository as git
  reports changes (content, mode, a file become a link, a rename staged; new files untracked
  or staged; deletions; from the top and from a subfolder; with ``diff.relative`` on and off;
  inside the submodule, committed there or not);

report the hits and problems of the whole-tree check on those files, no more and no fewer,
and exit 1 when there are hits.  A file is met by the whole-tree check under each path that
reaches it: a named path's findings are the whole-tree findings under its own path and the
path it leads to (a link's target).  The CLI runs in this process (``main``) so that CI can
afford enough examples to find every case of the issues on the code before them.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import posixpath
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from gitrepos import GIT_ENV, git
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_cleantree.frontends.cli.main import main

#: per parametrization; each finds its case of the issue on the code before it well within
#: this many (see docs/reliability.md, round 4)
EXAMPLES = int(os.environ.get("CLEANTREE_COVERAGE_EXAMPLES", "20"))

#: glob characters in folder and file names: a named path is a path, never a pattern
FOLDERS = ("", "src", "src/pkg", "src/[x]", "d", "other", "shared", "w*?")
NAMES = ("a.py", "b.py", "n.md", "k.sh", "[a].py", "q*?.md")
SUB_FILES = ("s.py", "t/u.py", "n.md")
MANIFEST = """root = "."
[[rule]]
id = "py"
files = ["**/*.py"]
forbid = ["sm120"]
missing_ok = true
[[rule]]
id = "text"
files = ["src/**/*.md", "d/*"]
forbid = ["sm120"]
missing_ok = true
[[rule]]
id = "literal"
files = ["other/a.py"]
forbid = ["use_sm120"]
missing_ok = true
"""
LINK_IN = "src/pkg/link.py"
LINK_OUT = "src/pkg/out.py"

ALL_FILES = tuple(posixpath.join(folder, name) for folder in FOLDERS for name in NAMES)
Finding = tuple[str, str, int]  # (rule, file from the root, line; 0 for a problem)


def content(path: str, dirty: bool, touched: bool = False) -> bytes:
    mark = "# touched\n" if touched else ""
    if path.endswith(".py"):
        return (mark + ("use_sm120()\n" if dirty else "x = 1\n")).encode()
    return (mark + ("run sm120 here\n" if dirty else "nothing\n")).encode()


@dataclass
class Tree:
    """A drawn fixture tree: top files and submodule files (path -> dirty), a link."""

    files: dict[str, bool]
    sub: dict[str, bool]
    link: str | None  # None, "in" (to shared/a.py) or "out" (out of the root)
    made: list[str] = field(default_factory=list)

    def real(self, path: str) -> set[str]:
        """The path in the root ``path`` leads to: the link in leads to ``shared/a.py``, the
        link out to no path in the root."""
        if path == LINK_IN and self.link == "in":
            return {"shared/a.py"}
        return set() if path == LINK_OUT and self.link == "out" else {path}

    def spellings(self, path: str) -> set[str]:
        """The paths in the tree by which a file named ``path`` is met: its own, and the
        one it leads to."""
        return {path, *self.real(path)}

    def paths(self) -> list[str]:
        """Every file of the tree from the top (the submodule's under ``sub/``)."""
        found = [*self.files, *(f"sub/{name}" for name in self.sub)]
        found += [LINK_IN] if self.link == "in" else [LINK_OUT] if self.link == "out" else []
        return sorted(found)

    def folders(self) -> list[str]:
        """Every folder holding a file, from the top (``.`` the root)."""
        found = {"."}
        for path in self.paths():
            parts = path.split("/")[:-1]
            found.update("/".join(parts[:end]) for end in range(1, len(parts) + 1))
        return sorted(found)


@st.composite
def trees(draw: st.DrawFn, links: tuple[str | None, ...] = (None, "in", "out")) -> Tree:
    files = draw(st.dictionaries(st.sampled_from(ALL_FILES), st.booleans(), min_size=1, max_size=8))
    sub = draw(st.dictionaries(st.sampled_from(SUB_FILES), st.booleans(), min_size=1, max_size=3))
    link = draw(st.sampled_from(links))
    if link == "in":
        files.setdefault("shared/a.py", True)
    return Tree(files, sub, link)


@contextlib.contextmanager
def environment(cwd: Path) -> Iterator[None]:
    """``cwd`` as the current folder, git isolated, no cache; all put back after."""
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    os.environ.update({**GIT_ENV, "CLEANTREE_CACHE_DIR": "", "HOME": str(cwd)})
    os.environ.pop("NO_COLOR", None)
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


def run(cwd: Path, *args: str) -> tuple[int, set[Finding], str]:
    """``cleantree check ARGS --format json`` in ``cwd``: exit code, hits and problems."""
    out, err = io.StringIO(), io.StringIO()
    manifest = str(top_of(cwd) / "cleantree.toml")  # discovery stops at a submodule's top
    with environment(cwd), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["check", "--manifest", manifest, "--format", "json", *args])
    text = out.getvalue()
    found: set[Finding] = set()
    if text.strip():
        report = json.loads(text)
        for result in report.get("results", ()):
            found.update((result["rule"], hit["file"], hit["line"]) for hit in result["hits"])
            locations = result.get("problem_locations", ())
            found.update((result["rule"], where["file"], 0) for where in locations)
    return code, found, text + err.getvalue()


def top_of(cwd: Path) -> Path:
    """The fixture's top folder, from any folder under it."""
    return next(folder for folder in (cwd, *cwd.parents) if folder.name == "top")


def build(base: Path, tree: Tree) -> Path:
    """The tree as a git repository with the submodule, committed."""
    origin = base / "sub-origin"
    origin.mkdir()
    git(origin, "init", "-q", "-b", "main")
    for name, dirty in tree.sub.items():
        write(origin / name, content(name, dirty))
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "sub")
    top = base / "top"
    top.mkdir()
    git(top, "init", "-q", "-b", "main")
    (top / "cleantree.toml").write_text(MANIFEST)
    (top / "src").mkdir()
    for name, dirty in tree.files.items():
        write(top / name, content(name, dirty))
    if tree.link == "in":
        (top / LINK_IN).parent.mkdir(parents=True, exist_ok=True)
        (top / LINK_IN).symlink_to("../../shared/a.py")
    elif tree.link == "out":
        write(base / "outside.py", b"use_sm120()\n")
        (top / LINK_OUT).parent.mkdir(parents=True, exist_ok=True)
        (top / LINK_OUT).symlink_to(base / "outside.py")
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "tree")
    git(top, "submodule", "add", "-q", str(origin), "sub")
    git(top, "commit", "-q", "-m", "submodule")
    return top


def write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def restricted(found: set[Finding], files: set[str], folders: set[str]) -> set[Finding]:
    """The findings on ``files`` or under ``folders`` (``.``: all)."""

    def kept(path: str) -> bool:
        return path in files or any(
            folder == "." or path == folder or path.startswith(folder + "/") for folder in folders
        )

    return {finding for finding in found if kept(finding[1])}


def assert_same(code: int, found: set[Finding], expected: set[Finding], said: str) -> None:
    assert found == expected, said
    if any(line == 0 for _, _, line in expected):
        assert code == 2, said
    elif code == 2:  # allowed only for a named folder under which nothing was checked
        assert "nothing checked under" in said, said
    else:
        assert code == (1 if expected else 0), said


SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["files", "link-in", "link-out", "folders", "root"])
@SETTINGS
@given(data=st.data())
def test_a_run_naming_paths_reports_the_whole_tree_findings_on_them(
    kind: str, data: st.DataObject
) -> None:
    """``link-in``, ``link-out``: the tree has that link, and it is named."""
    links = {"link-in": ("in",), "link-out": ("out",)}.get(kind, (None, "in", "out"))
    tree = data.draw(trees(links))
    with tempfile.TemporaryDirectory() as folder:
        top = build(Path(folder), tree)
        code, whole, said = run(top)
        assert code in (0, 1, 2), said
        files = set(data.draw(st.lists(st.sampled_from(tree.paths()), min_size=1, unique=True)))
        folders: set[str] = set()
        if kind.startswith("link-"):
            files.add(LINK_IN if tree.link == "in" else LINK_OUT)
        elif kind == "folders":
            choices = [f for f in tree.folders() if f != "."]
            folders = set(data.draw(st.lists(st.sampled_from(choices), min_size=1, unique=True)))
            files = set(data.draw(st.lists(st.sampled_from(sorted(files)), unique=True)))
        elif kind == "root":
            folders = {"."}
        cwd = data.draw(st.sampled_from([".", *(f for f in tree.folders() if f != ".")]))
        named = [posixpath.relpath(path, cwd) for path in sorted(files | folders)]
        code, found, said = run(top / cwd, *named)
        files = {spelt for path in files for spelt in tree.spellings(path)}
        assert_same(code, found, restricted(whole, files, folders), f"{named} from {cwd}\n{said}")


@pytest.mark.slow
@pytest.mark.parametrize("where", ["tree", "submodule"])
@pytest.mark.parametrize("relative", [False, True])
@pytest.mark.parametrize("start", ["top", "subfolder"])
@SETTINGS
@given(data=st.data())
def test_a_changed_since_run_reports_the_whole_tree_findings_on_the_changed_files(
    where: str, relative: bool, start: str, data: st.DataObject
) -> None:
    tree = data.draw(trees())
    with tempfile.TemporaryDirectory() as folder:
        top = build(Path(folder), tree)
        git(top, "config", "diff.relative", str(relative).lower())
        touched = _touch(top, tree, where, data)
        code, whole, said = run(top)
        assert code in (0, 1, 2), said
        cwd = "." if start == "top" else data.draw(st.sampled_from(["src", "d", "other"]))
        (top / cwd).mkdir(parents=True, exist_ok=True)
        code, found, said = run(top / cwd, "--changed-since", "HEAD")
        assert_same(code, found, restricted(whole, touched, set()), f"{touched} from {cwd}\n{said}")


#: what may happen to a tracked file, each a kind of change git reports (``M`` content,
#: ``M`` mode, ``T`` a file become a link, ``D`` + ``A`` a rename staged) besides deletion
CHANGES = ("content", "mode", "type", "rename")


def _touch(top: Path, tree: Tree, where: str, data: st.DataObject) -> set[str]:
    """Change (see ``CHANGES``), add (untracked or staged) and delete some files of
    ``where``: the paths to read now (a link's target among them)."""
    existing, prefix, pool = (
        (sorted(tree.files), "", [f for f in ALL_FILES if f not in tree.files])
        if where == "tree"
        else (sorted(tree.sub), "sub/", [f for f in SUB_FILES if f not in tree.sub])
    )
    changed = set(data.draw(st.lists(st.sampled_from(existing), unique=True)))
    added = set(data.draw(st.lists(st.sampled_from(pool), unique=True))) if pool else set()
    if not changed and not added:
        changed = {existing[0]}
    rest = [f for f in existing if f not in changed]
    deleted = set(data.draw(st.lists(st.sampled_from(rest), unique=True))) if rest else set()
    kept = [f for f in rest if f not in deleted]
    free = [f for f in pool if f not in added]
    read: set[str] = set()
    repo = top / prefix
    for name in sorted(changed):
        change = data.draw(st.sampled_from(CHANGES))
        if change == "mode":
            (repo / name).chmod(0o755)
        elif change == "type" and kept:
            target = data.draw(st.sampled_from(kept))
            (repo / name).unlink()
            (repo / name).symlink_to(os.path.relpath(repo / target, (repo / name).parent))
            read.add(target)
        elif change == "rename" and free:
            new = data.draw(st.sampled_from(free))
            free.remove(new)
            (repo / new).parent.mkdir(parents=True, exist_ok=True)
            git(repo, "--literal-pathspecs", "mv", "--", name, new)
            read.add(new)
            continue
        else:
            write(repo / name, content(name, data.draw(st.booleans()), touched=True))
        read.add(name)
    for name in sorted(added):
        write(repo / name, content(name, data.draw(st.booleans()), touched=True))
        if data.draw(st.booleans()):
            git(repo, "--literal-pathspecs", "add", "--", name)
    for name in deleted:
        (repo / name).unlink()
    if where == "submodule" and data.draw(st.booleans()):
        git(top / "sub", "add", "-A")
        git(top / "sub", "commit", "-q", "-m", "moved")
    return {prefix + name for name in read | added}


#: every way a user can spell a named path (see :func:`spell`)
SPELLINGS = ("relative", "absolute", "dot", "doubled", "via-folder", "via-parent", "via-self")
VIA = "via"  # a link at the top to a folder of the tree


def spell(path: str, how: str, cwd: str, top: Path, via: str) -> str:
    """``path`` (from the top, ``.`` the root) as a user in ``cwd`` may name it; through
    ``VIA`` (a link to the folder ``via``) when ``path`` is under it, or through ``VIA/..``
    (the system opens the parent of ``via``, where the text names the top)."""
    parent = posixpath.dirname(via)
    if how == "via-parent" and parent and path.startswith(parent + "/"):
        up = posixpath.relpath(".", cwd)  # from cwd to the top, then down as written
        return posixpath.join(up, VIA, "..", posixpath.relpath(path, parent))
    if how == "via-folder" and (path == via or path.startswith(via + "/")):
        path = VIA + path[len(via) :]
    relative = posixpath.relpath(path, cwd)
    if how == "absolute":
        return str(top / path)
    if how == "dot":
        return "./" + relative
    if how == "doubled":
        return relative.replace("/", "//") + ("//" if path in ("", ".") else "")
    return relative


@pytest.mark.slow
@pytest.mark.parametrize("named", ["files", "folders"])
@SETTINGS
@given(data=st.data())
def test_every_spelling_of_a_named_path_reports_the_whole_tree_findings_on_it(
    named: str, data: st.DataObject
) -> None:
    """Each named file (or folder) spelt relative, absolute, with ``./``, with doubled
    slashes, through a link to its folder or a link to itself: the whole-tree findings on
    each path in the tree that reaches it (the link's and the file's)."""
    tree = data.draw(trees())
    choices = tree.paths() if named == "files" else [f for f in tree.folders() if f != "."]
    chosen = sorted(set(data.draw(st.lists(st.sampled_from(choices), min_size=1, max_size=4))))
    hows = [data.draw(st.sampled_from(SPELLINGS)) for _ in chosen]
    vias = {posixpath.dirname(p) or ("src" if named == "files" else p) for p in chosen}
    via = max(vias, key=lambda v: (v.count("/"), v))  # the deepest: it has a parent
    cwd = data.draw(st.sampled_from([".", *(f for f in tree.folders() if f != ".")]))
    with tempfile.TemporaryDirectory() as folder:
        top = build(Path(folder), tree)
        (top / VIA).symlink_to(via)
        args: list[str] = []
        files: set[str] = set()
        folders: set[str] = set()
        for index, (path, how) in enumerate(zip(chosen, hows, strict=True)):
            if how == "via-self":  # a link at the top to the file or folder itself
                alias = f"alias{index}{posixpath.splitext(path)[1]}"
                (top / alias).symlink_to(path)
                reaches = {alias, *tree.real(path)}
                args.append(posixpath.relpath(alias, cwd))
            else:
                args.append(spell(path, how, cwd, top, via))
                reaches = {spell(path, how, ".", top, via) if how == "via-folder" else path}
                reaches |= tree.spellings(path)
            (files if named == "files" else folders).update(reaches)
        code, whole, said = run(top)
        assert code in (0, 1, 2), said
        code, found, said = run(top / cwd, *args)
        assert_same(code, found, restricted(whole, files, folders), f"{args} from {cwd}\n{said}")
