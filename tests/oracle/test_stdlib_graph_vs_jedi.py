"""The symbol graph against jedi on the running Python's standard library (issue 22).

For each target, jedi's ``goto(follow_imports=True)`` (source preferred to typeshed
stubs; ``os.path`` is ``posixpath`` here, as on every POSIX machine) lists the lines
whose name leads to the definition; every spelling of the target, as the pattern of
a real ``cleantree check``, must report at least 98% of them, with the root at the
library's folder and at the folder above it (``import_roots`` naming the library
folder, as a repository keeping its modules in a sub-folder does).  Lines the tool
reports beyond jedi's must be string literals, or listed in :data:`KNOWN` with why.

jedi is asked about a fixed sample of files per target (it takes about a second a
file): the modules a spelling names, then the files whose text spells the target's
last name and one of its modules' names, first by path.
"""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest
from jedi_oracle import Place, jedi_uses, rebased

#: the checkout this test belongs to: the CLI runs its code, whatever is installed
REPO = Path(__file__).resolve().parents[2]
CHECK = (sys.executable, "-m", "pytest_cleantree", "check")
EVERY_KIND = '["import", "definition", "assignment", "condition", "call", "reference", "string"]'
#: files jedi is asked about per target, beyond the modules that spell it
SAMPLE = int(os.environ.get("CLEANTREE_ORACLE_SAMPLE_FILES", "12"))

#: the definition, then the other spellings, and the module words a user's import spells
TARGETS = {
    "posixpath.join": (("os.path.join",), ("posixpath", "os")),
    "_collections_abc.Mapping": (("collections.abc.Mapping",), ("collections", "_collections_abc")),
    "json.decoder.JSONDecodeError": (("json.JSONDecodeError",), ("json",)),
    "asyncio.events.get_event_loop": (("asyncio.get_event_loop",), ("asyncio", "events")),
    "warnings.warn": ((), ("warnings",)),
    "unittest.case.TestCase": (("unittest.TestCase",), ("unittest",)),
}
#: lines the tool reports and jedi does not, by what the line holds, each with its reason
KNOWN: dict[str, tuple[re.Pattern[str], str]] = {
    "warnings.warn": (
        re.compile(r"\b_warn\("),
        "a parameter default (``def __del__(self, _warn=warnings.warn)``) makes ``_warn`` an "
        "alias in its function; jedi's goto stops at the parameter",
    ),
}


def replaced_at_run_time(library: Path, target: str) -> bool:
    """Does a re-exporting module of ``target`` make itself another module at run time?

    3.13's ``collections/abc.py`` is ``sys.modules[__name__] = _collections_abc``: no import
    says so, so the graph (like every static reader) cannot link ``collections.abc`` to
    ``_collections_abc``: neither spelling reaches the other's uses.  Out of reach (README,
    "What resolution cannot see"): the case is an expected failure on such a library.
    """
    for spelling in TARGETS[target][0]:
        module = spelling.rpartition(".")[0]
        for candidate in (library / (module.replace(".", "/") + ".py"),):
            if candidate.is_file() and "sys.modules[__name__] =" in candidate.read_text():
                return True
    return False


def typing_spelt(text: str, name: str) -> bool:
    """Does the file take ``name`` from ``typing``?  jedi keeps typing's stubs on (as the
    brief configures it): there ``typing.Mapping`` is typing's own, not ``collections.abc``'s;
    the source's ``Mapping = _alias(collections.abc.Mapping, 2)`` is a value, not an alias."""
    return re.search(rf"from\s+typing\s+import[^\n]*\b{re.escape(name)}\b", text) is not None


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A copy of the standard library's Python files (site-packages and tests left out)."""
    root = tmp_path_factory.mktemp("stdlib") / "lib"
    source = Path(sysconfig.get_paths()["stdlib"])
    shutil.copytree(
        source,
        root,
        ignore=shutil.ignore_patterns(
            "site-packages",
            "test",
            "tests",
            "idlelib",
            "lib2to3",
            "__pycache__",
            "*.pyc",
            "config-*",
            "tkinter",
            "turtledemo",
            "ensurepip",
        ),
    )
    for path in root.rglob("*"):
        if path.is_file() and path.suffix != ".py":
            path.unlink()
    moves: dict[Place, Place] = {}
    for name, (line, _) in definitions(root / "ntpath.py").items():
        if name in definitions(root / "posixpath.py"):
            target = definitions(root / "posixpath.py")[name][0]
            here, there = str(root / "ntpath.py"), str(root / "posixpath.py")
            moves[Place(here, line, False)] = Place(there, target, False)
    with rebased(str(source), str(root), moves):
        yield root


def definitions(path: Path) -> dict[str, tuple[int, int]]:
    """The module's top-level functions and classes: name -> (line, column of the name)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name: (node.lineno, node.col_offset)
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }


def source_definition(library: Path, target: str) -> set[Place]:
    """Where the source defines ``target`` (jedi's typeshed may say ``typing``, ``_warnings``)."""
    module, _, name = target.rpartition(".")
    for candidate in (f"{module.replace('.', '/')}.py", f"{module.replace('.', '/')}/__init__.py"):
        path = library / candidate
        if path.is_file() and name in definitions(path):
            return {Place(str(path), definitions(path)[name][0], False)}
    return set()


def sample(library: Path, target: str) -> list[Path]:
    spellings, words = TARGETS[target]
    name = target.rpartition(".")[2]
    named = set()
    for spelling in (target, *spellings):
        module = spelling.rpartition(".")[0]
        for candidate in (
            f"{module.replace('.', '/')}.py",
            f"{module.replace('.', '/')}/__init__.py",
        ):
            if (library / candidate).is_file():
                named.add(library / candidate)
    spelt = re.compile(rf"\b{re.escape(name)}\b")
    imports = re.compile(rf"\b(?:{'|'.join(map(re.escape, words))})\b")
    others = []
    for path in sorted(library.rglob("*.py")):
        if path in named:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        if spelt.search(text) and imports.search(text):
            others.append(path)
    return sorted(named) + others[:SAMPLE]


def reported(root: Path, files: list[str], pattern: str, roots: str) -> dict[tuple[str, int], str]:
    manifest = root / "cleantree.toml"
    listed = ", ".join(json.dumps(f) for f in files)
    manifest.write_text(
        f'root = "."\n{roots}[[rule]]\nid = "r"\nfiles = [{listed}]\n'
        f'forbid = ["{pattern}"]\nkinds = {EVERY_KIND}\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [*CHECK, "--manifest", str(manifest), "--format", "json"],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(REPO), "CLEANTREE_CACHE_DIR": ""},
        timeout=600,
        check=False,
    )
    manifest.unlink()
    assert done.returncode in (0, 1), done.stderr
    document = json.loads(done.stdout)
    return {
        (hit["file"], hit["line"]): ",".join(hit["kinds"])
        for result in document["results"]
        for hit in result["hits"]
    }


def line_of(root: Path, place: tuple[str, int]) -> str:
    return (root / place[0]).read_text(encoding="utf-8").splitlines()[place[1] - 1]


@pytest.mark.slow
@pytest.mark.parametrize("target", sorted(TARGETS))
def test_every_spelling_finds_what_jedi_resolves(library: Path, target: str) -> None:
    if replaced_at_run_time(library, target):
        pytest.xfail(
            f"{target}: its re-exporting module replaces itself in sys.modules at run time"
        )
    files = sample(library, target)
    name = target.rpartition(".")[2]
    stubbed = {
        f.relative_to(library).as_posix()
        for f in files
        if typing_spelt(f.read_text(encoding="utf-8", errors="replace"), name)
    }
    uses = jedi_uses(library, target, files=files, defined=source_definition(library, target))
    oracle = {(p, n) for p, n in uses if p not in stubbed}
    assert len(oracle) >= 3, "jedi must find uses for the comparison to mean anything"
    relative = [f.relative_to(library).as_posix() for f in files]
    configurations = {
        "root at the library": (library, relative, ""),
        "root one folder above": (
            library.parent,
            [f"lib/{f}" for f in relative],
            'import_roots = ["lib"]\n',
        ),
    }
    for where, (root, paths, roots) in configurations.items():
        prefix = "" if root == library else "lib/"
        expected = {(prefix + path, line) for path, line in oracle}
        for spelling in (target, *TARGETS[target][0]):
            found = reported(root, paths, spelling, roots)
            found = {p: k for p, k in found.items() if p[0].removeprefix(prefix) not in stubbed}
            missed = sorted(expected - set(found))
            print(f"{target} [{where}] {spelling}: {len(expected) - len(missed)}/{len(expected)}")
            assert len(missed) <= 0.02 * len(expected), (where, spelling, missed)
            known = KNOWN.get(target)
            extra = {
                place: kinds
                for place, kinds in found.items()
                if place not in expected
                and kinds != "string"
                and not (known and known[0].search(line_of(root, place)))
            }
            assert extra == {}, (where, spelling)
