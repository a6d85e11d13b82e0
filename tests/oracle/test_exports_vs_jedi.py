"""The export map against jedi, on real packages nobody here wrote.

For every ``from X import Y`` inside a package (X in the package), jedi's
``goto(follow_imports=True)`` on Y and :meth:`ExportMap.canonical` of ``X.Y``
must land on the same statement.  The map is built twice: from every module
of the package, and from only the files :func:`modules_to_read` and
:func:`next_reads` ask for, round by round (what a remote Source would read);
both must agree.  A fixed-seed sample of the names keeps the run short;
``CLEANTREE_ORACLE_SAMPLE=0`` asks about every one.
"""

from __future__ import annotations

import os
import random
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

import astroid
import jedi
import pytest
from jedi_oracle import ImportedName, Place, goto, imported_names, jedi_uses, open_project

from pytest_cleantree.config.layout import Layout, parse_layout
from pytest_cleantree.names.exports import (
    ModuleExports,
    parse_module_exports,
)
from pytest_cleantree.names.spellings import modules_to_read, next_reads
from pytest_cleantree.names.symbol_graph import ExportMap, build_export_map

PACKAGES = {
    "astroid": Path(astroid.__file__).parent,
    "jedi": Path(jedi.__file__).parent,
}
SAMPLE = int(os.environ.get("CLEANTREE_ORACLE_SAMPLE", "45"))


@dataclass
class Corpus:
    tree: Path  # the folder holding the package (site-packages): only read
    texts: dict[str, str]  # path relative to the tree -> text
    layout: Layout
    full: ExportMap
    project: jedi.Project

    parsed: dict[str, ModuleExports] = field(default_factory=dict)

    def export_map(self, paths: set[str]) -> ExportMap:
        """The map of these files only (each file parsed once per corpus)."""
        for path in paths - set(self.parsed):
            name = self.layout.module_name(path)
            assert name is not None
            self.parsed[path] = parse_module_exports(
                name, self.texts[path], is_package=self.layout.is_package(path)
            )
        modules = {self.parsed[path].name: self.parsed[path] for path in paths}
        return ExportMap(modules, known_modules=self.layout.modules())

    def place(self, emap: ExportMap, imported: ImportedName) -> Place | None:
        spelling = f"{imported.module}.{imported.name}"
        where = emap.definition(emap.canonical(spelling, module=imported.module))
        if where is None:
            return None
        module, line = where
        path = str(self.tree / self.layout.paths_for(module)[0])
        return Place(path, max(line, 1), line == 0)

    def imported_names(self) -> list[ImportedName]:
        found: list[ImportedName] = []
        top = next(iter(self.layout.modules())).split(".")[0]
        for path, text in sorted(self.texts.items()):
            module = self.layout.module_name(path)
            assert module is not None
            for imported in imported_names(
                self.tree / path, module, self.layout.is_package(path), text
            ):
                if imported.module.split(".")[0] == top:
                    found.append(imported)
        return found


@pytest.fixture(scope="module", params=sorted(PACKAGES))
def corpus(request: pytest.FixtureRequest) -> Corpus:
    folder: Path = PACKAGES[request.param]
    tree = folder.parent
    texts = {
        path.relative_to(tree).as_posix(): path.read_text(encoding="utf-8")
        for path in sorted(folder.rglob("*.py"))
        if "__pycache__" not in path.parts
    }
    layout = parse_layout(texts)
    corpus = Corpus(tree, texts, layout, build_export_map({}, {}), open_project(tree))
    corpus.full = corpus.export_map(set(texts))
    return corpus


def sample(corpus: Corpus) -> list[ImportedName]:
    """A fixed-seed sample, two thirds of it names taken from packages (where re-exports live)."""
    names = corpus.imported_names()
    if not SAMPLE or len(names) <= SAMPLE:
        return names
    from_packages = [
        name
        for name in names
        if any(corpus.layout.is_package(path) for path in corpus.layout.paths_for(name.module))
    ]
    others = [name for name in names if name not in from_packages]
    generator = random.Random(12)
    first = generator.sample(from_packages, min(len(from_packages), SAMPLE * 2 // 3))
    return first + generator.sample(others, min(len(others), SAMPLE - len(first)))


@pytest.mark.slow
def test_canonical_lands_where_jedi_goes(corpus: Corpus) -> None:
    disagreements: list[str] = []
    asked = 0
    for imported in sample(corpus):
        text = corpus.texts[imported.path.relative_to(corpus.tree).as_posix()]
        expected = goto(corpus.project, imported.path, text, imported.line, imported.column)
        if not expected:
            continue  # jedi cannot follow it either (a name made at run time)
        asked += 1
        ours = corpus.place(corpus.full, imported)
        if ours not in expected:
            disagreements.append(f"{imported}: ours {ours}, jedi {expected}")
    assert disagreements == []
    assert asked >= min(SAMPLE or 1, len(corpus.imported_names())) // 2


@pytest.mark.slow
def test_reading_in_rounds_answers_as_the_whole_package(corpus: Corpus) -> None:
    for imported in sample(corpus):
        spelling = f"{imported.module}.{imported.name}"
        read: set[str] = set()
        wanted = modules_to_read([spelling], corpus.layout)
        rounds = 0
        while wanted:
            rounds += 1
            read |= wanted
            emap = corpus.export_map(read)
            wanted = next_reads(emap, [spelling], corpus.layout) - read
        assert emap.canonical(spelling) == corpus.full.canonical(spelling), spelling
        split = {"module": imported.module}
        assert emap.canonical(spelling, **split) == corpus.full.canonical(spelling, **split)
        assert len(read) < len(corpus.texts)


def test_jedi_uses_finds_renamed_re_exports(tmp_path: Path) -> None:
    """The oracle helper on a small tree: the names to ask about come from the export map."""
    files = {
        "pkg/__init__.py": "from .kernel import qmm as quantized_matmul\n",
        "pkg/kernel.py": "def qmm():\n    return 1\n\n\nqmm()\n",
        "user.py": textwrap.dedent(
            """\
            from pkg import quantized_matmul
            import pkg.kernel

            quantized_matmul()
            pkg.kernel.qmm()
            pkg.quantized_matmul()
            qmm = 3
            """
        ),
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    layout = parse_layout(files)
    emap = build_export_map(
        {layout.module_name(p) or "": t for p, t in files.items()},
        {layout.module_name(p) or "": layout.is_package(p) for p in files},
    )
    spellings = emap.spellings("pkg.kernel.qmm")
    assert [s.spelling for s in spellings] == [
        "pkg.kernel.qmm",
        "pkg.quantized_matmul",
        "user.quantized_matmul",
    ]
    uses = jedi_uses(
        tmp_path, "pkg.kernel.qmm", names={s.spelling.rsplit(".")[-1] for s in spellings}
    )
    assert uses == {
        ("pkg/kernel.py", 1),
        ("pkg/kernel.py", 5),
        ("pkg/__init__.py", 1),
        ("user.py", 1),
        ("user.py", 4),
        ("user.py", 5),
        ("user.py", 6),
    }
