"""The graph's prefilter is sound on every spelling of an import Python accepts.

Import statements are generated in every spelling the grammar allows: spaces, tabs and
backslash-newlines around every dot and keyword, comments and newlines inside brackets,
trailing commas, ``as`` renames, relative levels (dots apart too), ``from .import x``,
stars, NFKC letters (fullwidth, ligatures) in module and imported names, statements after
a semicolon, after ``if x:`` on the same line or in a block, in a function; files with LF,
CRLF, lone CR or mixed line ends.  Two properties:

- the text's reading (:func:`~pytest_cleantree.names.imports.import_summary`) equals the
  parser's (:func:`~pytest_cleantree.names.imports.parsed_summary`) on such files, and
  covers it when comments and strings that read like imports are added;
- the graph grown through the prefilter gives the same spellings as the graph that parses
  every module (``CLEANTREE_ENGINE=reference``), on packages whose modules re-export a
  target through such statements, in cycles too.

Small in the default suite, wide in the slow tier.  Then one CLI run per spelling that the
text's reading of the last round missed (each gave ``clean`` on a dirty tree).
"""

from __future__ import annotations

import ast
import contextlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_cleantree.analysis import ENGINE_ENV
from pytest_cleantree.names.imports import (
    UNKNOWN_STAR,
    ImportSummary,
    import_summary,
    parsed_summary,
)
from pytest_cleantree.names.modules import name_tree
from pytest_cleantree.names.spellings import Spellings, pattern_spellings
from pytest_cleantree.sources.local import LocalSource

REPO = Path(__file__).resolve().parents[2]

#: gaps between the tokens of a statement outside brackets (may be empty, must not be)
GAP = st.sampled_from(["", " ", "\t", "  ", " \\\n", "\\\n  ", " \\\n\t ", "\f"])
SPACE = st.sampled_from([" ", "\t", "  ", " \\\n", "\\\n  ", " \\\n\t ", " \\\n \\\n "])
#: gaps inside brackets: newlines and comments too
INNER = st.sampled_from(["", " ", "\n", "  # note\n", "\n    ", " \\\n", "\t# a.b, c\n  "])
INNER_SPACE = st.sampled_from([" ", "\n", "  # note\n", "\n    ", " \\\n"])


def fullwidth(word: str) -> str:
    """``mod`` in fullwidth letters (U+FF4D...): Python reads it as ``mod`` (NFKC)."""
    return "".join(chr(ord(c) - ord("a") + 0xFF41) if "a" <= c <= "z" else c for c in word)


@st.composite
def spelt(draw: st.DrawFn, word: str) -> str:
    """``word`` as written: plain, fullwidth (in part), or with the ``ﬁ`` ligature."""
    how = draw(st.sampled_from(["plain", "plain", "fullwidth", "first", "ligature"]))
    if how == "fullwidth":
        return fullwidth(word)
    if how == "first":
        return fullwidth(word[0]) + word[1:]
    if how == "ligature" and "fi" in word:
        return word.replace("fi", "\ufb01")
    return word


@st.composite
def dotted(draw: st.DrawFn, parts: list[str]) -> str:
    out = draw(spelt(parts[0]))
    for part in parts[1:]:
        out += draw(GAP) + "." + draw(GAP) + draw(spelt(part))
    return out


@st.composite
def from_import(
    draw: st.DrawFn, level: int, module: list[str], names: list[tuple[str, str]]
) -> str:
    """``from <level dots><module> import <names>``; ``names`` empty: a star."""
    text = "from"
    if level:
        text += draw(GAP) + "".join("." + draw(GAP) for _ in range(level))
        if module:
            text += draw(dotted(module))
    else:
        text += draw(SPACE) + draw(dotted(module))
    text += (draw(SPACE) if module else draw(GAP)) + "import"
    if not names:
        return text + draw(GAP) + "*"
    bracketed = draw(st.booleans())
    sep, space = (INNER, INNER_SPACE) if bracketed else (GAP, SPACE)
    items = []
    for name, alias in names:
        item = draw(spelt(name))
        if alias:
            item += draw(space) + "as" + draw(space) + draw(spelt(alias))
        items.append(item)
    body = "".join(
        (draw(sep) + "," + draw(sep) if i else "") + item for i, item in enumerate(items)
    )
    if bracketed:
        trailing = "," if draw(st.booleans()) else ""
        return text + draw(GAP) + "(" + draw(INNER) + body + trailing + draw(INNER) + ")"
    return text + draw(SPACE) + body


@st.composite
def plain_import(draw: st.DrawFn, modules: list[tuple[list[str], str]]) -> str:
    """``import a.b as c, d``."""
    items = []
    for parts, alias in modules:
        item = draw(dotted(parts))
        if alias:
            item += draw(SPACE) + "as" + draw(SPACE) + draw(spelt(alias))
        items.append(item)
    return (
        "import"
        + draw(SPACE)
        + "".join((draw(GAP) + "," + draw(GAP) if i else "") + item for i, item in enumerate(items))
    )


@st.composite
def placed(draw: st.DrawFn, statement: str, star: bool) -> str:
    """The statement where a statement may stand, as lines ending in ``\\n``."""
    where = draw(
        st.sampled_from(["top", "after ;", "before ;", "if block", "if line", "def", "try"])
    )
    if star and where in ("def",):
        where = "top"  # Python refuses a star import in a function
    if where == "after ;":
        return "x = 1;" + draw(GAP) + statement + "\n"
    if where == "before ;":
        return statement + draw(GAP) + ";" + " y = 2\n"
    if where == "if block":
        return "if True:\n    " + statement + "\n"
    if where == "if line":
        return "if True:" + draw(GAP) + statement + "\n"
    if where == "def":
        return "def g():\n    " + statement + "\n"
    if where == "try":
        return "try:\n    " + statement + "\nexcept ImportError:\n    pass\n"
    return statement + "\n"


@st.composite
def line_ends(draw: st.DrawFn, text: str) -> str:
    """LF, CRLF, a lone CR, or each line its own."""
    style = draw(st.sampled_from(["\n", "\r\n", "\r", "mixed"]))
    if style != "mixed":
        return text.replace("\n", style)
    lines = text.split("\n")
    ends = [draw(st.sampled_from(["\n", "\r\n", "\r"])) for _ in lines[1:]]
    return lines[0] + "".join(end + line for end, line in zip(ends, lines[1:], strict=True))


WORDS = ["pkg", "core", "mod", "name", "fine", "util", "alias", "x"]
NAME = st.sampled_from(WORDS)
ALIAS = st.one_of(st.just(""), NAME)


@st.composite
def any_statement(draw: st.DrawFn) -> str:
    """One import statement of any shape, placed."""
    if draw(st.booleans()):
        modules = draw(
            st.lists(
                st.tuples(st.lists(NAME, min_size=1, max_size=3), ALIAS), min_size=1, max_size=3
            )
        )
        return draw(placed(draw(plain_import(modules)), star=False))
    level = draw(st.integers(0, 3))
    module = draw(st.lists(NAME, min_size=0 if level else 1, max_size=3))
    names = draw(st.lists(st.tuples(NAME, ALIAS), max_size=3))
    return draw(placed(draw(from_import(level, module, names)), star=not names))


#: lines that read like imports but bind nothing: the text's reading may take more
NOISE = [
    "# from pkg.core import name\n",
    "s = 'import alias as x'\n",
    '"""from . import *\n"""\n',
    "# note \\\nimport x as name\n",
]


@st.composite
def module_text(draw: st.DrawFn) -> tuple[str, bool]:
    """A file of import statements (with filler between); whether noise reads like one."""
    parts = draw(st.lists(any_statement(), min_size=1, max_size=4))
    noisy = draw(st.booleans())
    if noisy:
        parts.insert(draw(st.integers(0, len(parts))), draw(st.sampled_from(NOISE)))
    filler = draw(st.sampled_from(["", "\n", "z = 3\n", "# a comment\n", "\\\n"]))
    return draw(line_ends(filler.join(parts))), noisy


def covered(text: ImportSummary, parsed: ImportSummary) -> list[str]:
    """What the parser reads that the text's reading does not cover (it must be nothing)."""
    if UNKNOWN_STAR in text.stars:
        return []
    missing = [
        f"name {pair}" for pair in parsed.names - text.names if ("", pair[1]) not in text.names
    ]
    missing += [f"star {star}" for star in parsed.stars - text.stars]
    missing += [f"module {module}" for module in parsed.modules - text.modules]
    return missing


def check_summary(case: tuple[str, bool]) -> None:
    text, noisy = case
    parsed = parsed_summary(ast.parse(text))  # generated valid: the parser must accept it
    summary = import_summary(text)
    assert covered(summary, parsed) == [], repr(text)
    if not noisy:
        assert summary == parsed, repr(text)


@settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(module_text())
def test_the_text_reads_every_spelling_as_the_parser_does(case: tuple[str, bool]) -> None:
    check_summary(case)


@pytest.mark.slow
@settings(max_examples=3_000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(module_text())
def test_the_text_reads_every_spelling_as_the_parser_does_wide(case: tuple[str, bool]) -> None:
    check_summary(case)


# ------------------------------------------------------------------ the graph, both ways

#: the modules of the generated package, beside ``core`` (which defines ``f``)
MODULES = ["m0", "m1", "m2", "m3"]
BOUND = ["f", "g", "h"]


@st.composite
def reexport(draw: st.DrawFn, here: str) -> str:
    """One statement of ``pkg/<here>.py`` that may re-export a name of another module."""
    source = draw(st.sampled_from([m for m in ["core", *MODULES] if m != here]))
    kind = draw(st.sampled_from(["from", "from", "star", "module", "submodule"]))
    level = draw(st.integers(0, 1))
    module = [source] if level else ["pkg", source]
    alias = draw(st.sampled_from(["", *BOUND]))
    if kind == "star":
        statement = draw(from_import(level, module, []))
    elif kind == "from":
        statement = draw(from_import(level, module, [(draw(st.sampled_from(BOUND)), alias)]))
    elif kind == "submodule":  # from pkg import core as h
        statement = draw(from_import(level, [] if level else ["pkg"], [(source, alias)]))
    else:  # import pkg.core as h
        statement = draw(plain_import([(["pkg", source], draw(st.sampled_from(BOUND)))]))
    return draw(placed(statement, star=kind == "star"))


@st.composite
def package(draw: st.DrawFn) -> tuple[dict[str, str], bool]:
    """A package whose modules re-export ``pkg.core.f`` (or not) in generated spellings;
    whether a comment or string in one reads like an import of its names."""
    files = {"pkg/core.py": "def f(): ...\n", "pkg/__init__.py": ""}
    noisy = draw(st.booleans())
    for here in MODULES:
        parts = draw(st.lists(reexport(here), min_size=0, max_size=2))
        if noisy and draw(st.booleans()):
            parts.insert(draw(st.integers(0, len(parts))), draw(st.sampled_from(PACKAGE_NOISE)))
        files[f"pkg/{here}.py"] = draw(line_ends("".join(parts)))
    if draw(st.booleans()):
        files["pkg/__init__.py"] = draw(line_ends(draw(reexport("__init__"))))
    used = draw(st.sampled_from(MODULES))
    files["use.py"] = draw(
        line_ends(
            draw(
                placed(
                    draw(from_import(0, ["pkg", used], [(draw(st.sampled_from(BOUND)), "")])),
                    star=False,
                )
            )
        )
    )
    return files, noisy


#: lines of the package's modules that read like its imports but bind nothing
PACKAGE_NOISE = [
    "# from pkg.core import f as g\n",
    '"""from pkg.m1 import *"""\n',
    "s = 'import pkg.m2 as h'\n",
    "# from . import core \\\nimport os\n",
]


@contextlib.contextmanager
def engine(name: str) -> Iterator[None]:
    saved = os.environ.get(ENGINE_ENV)
    os.environ[ENGINE_ENV] = name
    try:
        yield
    finally:
        if saved is None:
            del os.environ[ENGINE_ENV]
        else:
            os.environ[ENGINE_ENV] = saved


def spellings_both_ways(files: dict[str, str], patterns: list[str]) -> tuple[Spellings, Spellings]:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for path, text in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_bytes(text.encode("utf-8"))
        source = LocalSource(root)
        naming = name_tree(source, sorted(files), ())
        with engine("fast"):
            through = pattern_spellings(source, patterns, naming.bases, naming.tree)
        with engine("reference"):
            every = pattern_spellings(source, patterns, naming.bases, naming.tree)
    return through, every


def check_graph(case: tuple[dict[str, str], bool]) -> None:
    """Without look-alikes, one answer; with them, the same graph, and the spellings an
    import can reach may be more through the text's reading, never fewer."""
    files, noisy = case
    patterns = ["pkg.core.f", "pkg.\uff43ore.f"]
    through, every = spellings_both_ways(files, patterns)
    shown = "\n".join(f"--- {path}\n{text!r}" for path, text in sorted(files.items()))
    if noisy:
        assert through.emap is not None
        assert every.emap is not None
        for pattern in patterns:
            targets = through.targets[pattern]
            assert set(through.emap.reach(targets)) == set(every.emap.reach(targets)), shown
            assert every.names[pattern] <= through.names[pattern], shown
            assert every.ways[pattern] <= through.ways[pattern], shown
        assert through.problems == every.problems, shown
        return
    assert through.names == every.names, shown
    assert through.ways == every.ways, shown
    assert through.binds == every.binds, shown
    assert through.stars == every.stars, shown
    assert through.problems == every.problems, shown


@settings(
    max_examples=60, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(package())
def test_the_graph_through_the_prefilter_is_the_graph_of_every_module(
    case: tuple[dict[str, str], bool],
) -> None:
    check_graph(case)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(package())
def test_the_graph_through_the_prefilter_is_the_graph_of_every_module_wide(
    case: tuple[dict[str, str], bool],
) -> None:
    check_graph(case)


# ------------------------------------------------------------------ through the CLI

#: the re-exporting module in each spelling the last round's text reading missed, and the
#: pattern as the manifest writes it: each gave ``clean`` on this dirty tree
SPELLINGS = {
    "spaces around the dots": (b"from pkg . mod import name\n", "pkg.mod.name"),
    "a module in fullwidth letters": (
        "from pkg.\uff4d\uff4f\uff44 import name\n".encode(),
        "pkg.mod.name",
    ),
    "CRLF, a continued name list": (
        b"from pkg.mod import other, \\\r\n    name\r\n",
        "pkg.mod.name",
    ),
    "CRLF, a continued from": (b"from pkg.mod \\\r\n    import name\r\n", "pkg.mod.name"),
    "a lone CR, spaces and a continuation": (b"from pkg . mod \\\rimport name\r", "pkg.mod.name"),
    "the pattern in fullwidth letters": (
        b"from pkg.mod import name\n",
        "pkg.\uff4d\uff4f\uff44.name",
    ),
}


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_check_follows_a_re_export_in_every_spelling(tmp_path: Path, spelling: str) -> None:
    api, pattern = SPELLINGS[spelling]
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_bytes(b"")
    (tmp_path / "pkg" / "mod.py").write_bytes(b"def name(): ...\ndef other(): ...\n")
    (tmp_path / "pkg" / "api.py").write_bytes(api)
    (tmp_path / "use.py").write_bytes(b"from pkg.api import name\n\nname()\n")
    (tmp_path / "cleantree.toml").write_text(
        f'root = "."\n[[rule]]\nid = "r"\nfiles = ["use.py"]\nforbid = ["{pattern}"]\n'
        'kinds = ["import", "call"]\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", "check", "--format", "json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO), "CLEANTREE_CACHE_DIR": ""},
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    hits = [hit for result in json.loads(done.stdout)["results"] for hit in result["hits"]]
    assert sorted((h["file"], h["line"]) for h in hits) == [("use.py", 1), ("use.py", 3)]


def test_check_knows_what_a_star_import_binds_through_a_module_that_imports_nothing(
    tmp_path: Path,
) -> None:
    """Found by the graph property: ``m0`` imports nothing, so the prefilter left it unread,
    and ``from pkg.m2 import *`` (which star-imports it) bound nothing known: ``f()`` was
    clean (on ``main`` too), while the graph of every module found it."""
    files = {
        "pkg/__init__.py": "",
        "pkg/core.py": "def f(): ...\n",
        "pkg/m0.py": "",
        "pkg/m2.py": "from pkg.core import *\nfrom pkg.m0 import *\n",
        "use.py": "from pkg.m2 import *\n\nf()\n",
    }
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text, encoding="utf-8")
    (tmp_path / "cleantree.toml").write_text(
        'root = "."\n[[rule]]\nid = "r"\nfiles = ["use.py"]\nforbid = ["pkg.core.f"]\n'
        'kinds = ["import", "call"]\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", "check", "--format", "json"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(REPO), "CLEANTREE_CACHE_DIR": ""},
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    hits = [hit for result in json.loads(done.stdout)["results"] for hit in result["hits"]]
    assert sorted((h["file"], h["line"]) for h in hits) == [("use.py", 3)]
