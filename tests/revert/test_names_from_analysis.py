"""The guard's names of a Python file are the check's own (issue 35, names from the analysis).

A name is introduced exactly when ``=name`` restricted to code kinds matches it after the
experiment and not before: so the guard's names of a file must be what the check matches
there, no more (a derived pattern that finds nothing checks nothing) and no fewer (a name
the check matches that the guard does not know makes an old line look new).
"""

from __future__ import annotations

import sysconfig
from pathlib import Path

import pytest
from gitrepo import EXPERIMENT, Repo, reported

from pytest_cleantree.analysis import analyze, code_names, decode_python
from pytest_cleantree.core.model import CODE_KINDS, Kind
from pytest_cleantree.core.patterns import parse_pattern
from pytest_cleantree.revert.names import introduced_names, python_fingerprint

STDLIB = Path(sysconfig.get_paths()["stdlib"])
STDLIB_FILES = sorted(
    path
    for path in STDLIB.rglob("*.py")
    if path.is_file()
    and not {"site-packages", "lib2to3", "__pycache__"} & set(path.relative_to(STDLIB).parts)
)
CHUNKS = 4

OLD = "from pkg.utils.helpers import is_tpu\n\n\ndef run():\n    return is_tpu()\n"
NEW = (
    "from pkg.utils.helpers import is_tpu\nfrom pkg.utils import helpers as _h\n\n\n"
    "def run():\n    return is_tpu() or _h.is_gpu()\n"
)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path / "repo")


def test_a_module_segment_the_file_already_imported_through_is_not_introduced() -> None:
    """``helpers`` was a name of the old import's path: the check matches ``=helpers`` there,
    so it is not new, and a complete revert leaves no line to flag."""
    assert introduced_names(OLD, NEW).added == ("is_gpu", "pkg.utils")  # `_h`: too short


def test_a_complete_revert_of_an_import_through_an_old_path_segment_is_clean(repo: Repo) -> None:
    repo.commit("Helpers", {"pkg/mod.py": OLD})
    repo.commit("Import the helpers module", {"pkg/mod.py": NEW}, tag=EXPERIMENT)
    code, out, _ = repo.check()
    assert code == 1
    assert reported(out) == {
        "experiment-lines-pkg-mod.py": {("pkg/mod.py", 2), ("pkg/mod.py", 6)},
        "removed-lines-pkg-mod.py": set(),  # `return is_tpu()` is missing
    }
    repo.commit("Revert the helpers module", {"pkg/mod.py": OLD})
    assert repo.check() == (0, "cleantree: clean (3 rules, 1 file)\n", "")


def test_the_fingerprint_of_a_module_is_its_own_definitions_then_its_first_names() -> None:
    text = (
        "import os\nif os.name:\n    LIMIT: int = 3\n"
        "class Box:\n    size = 1\ndef run():\n    pass\n"
        "low, high = 0, 9\nfor each in []:\n    pass\n"
    )
    assert python_fingerprint(text) == ["LIMIT", "Box", "run", "low", "high"]
    assert python_fingerprint("import os.path\nos.path.join('a')\n") == [
        "os.path",
        "os",
        "path",
        "join",
    ]


def test_a_deeply_nested_file_has_its_names_as_the_check_has_them() -> None:
    """A long ``elif`` chain nests as deep as it is long: the walk recurses past Python's
    default limit, and is run again on a deep stack, as the check's is (analysis/deep.py)."""
    chain = "".join(f"elif mode == {n}:\n    turbo_{n} = 1\n" for n in range(1, 600))
    after = "mode = 0\nif mode == 0:\n    pass\n" + chain
    added = introduced_names("mode = 0\n", after).added
    assert added == tuple(sorted(f"turbo_{n}" for n in range(1, 600)))
    assert set(checker_finds("deep.py", after.encode(), ["turbo_599"])) == {"turbo_599"}


def checker_code_names(path: str, data: bytes) -> set[str]:
    """Every body ``=body`` that the check finds in code here, asked of the check itself.

    ``*`` matches every name the scan hands a pattern, so its findings name every one an
    exact pattern can match, but for a segment of a dotted module path (the scan reports a
    segment only for a pattern the whole path does not match): those are asked ``=segment``
    by ``=segment``."""
    found = analyze(path, data, [parse_pattern("*")], comments=False)
    assert found.problem is None, found.problem
    names = {f.occurrence.name for f in found.findings if f.occurrence.kind in CODE_KINDS}
    dotted = {
        f.occurrence.name
        for f in found.findings
        if f.occurrence.kind is Kind.IMPORT and "." in f.occurrence.name
    }
    segments = sorted({part for name in dotted for part in name.split(".")} - names)
    if segments:
        exact = analyze(path, data, [parse_pattern("=" + s) for s in segments], comments=False)
        names |= {f.pattern[1:] for f in exact.findings if f.occurrence.kind in CODE_KINDS}
    return names


def checker_finds(path: str, data: bytes, names: list[str]) -> set[str]:
    """Which of ``names`` the check finds in code here, each as ``=name``."""
    found = analyze(path, data, [parse_pattern("=" + n) for n in names], comments=False)
    return {f.pattern[1:] for f in found.findings if f.occurrence.kind in CODE_KINDS}


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_the_guards_names_are_the_checks_matches_on_the_standard_library(chunk: int) -> None:
    """On every file of the standard library: every name the guard derives from the file is
    one the check matches there, and every code name the check matches is the guard's.
    Each file's rarest names (a segment, an alias, a keyword) are also asked one by one as
    ``=name``, as a derived rule asks them."""
    out: list[str] = []
    compared = 0
    for file in STDLIB_FILES[chunk::CHUNKS]:
        rel, data = file.relative_to(STDLIB).as_posix(), file.read_bytes()
        try:
            guard = code_names(decode_python(data), rel).names
        except (SyntaxError, ValueError, UnicodeDecodeError):
            continue  # the check reads it as text: no code names either side
        compared += 1
        checker = checker_code_names(rel, data)
        if set(guard) != checker:
            out.append(
                f"{rel}: guard only {sorted(set(guard) - checker)[:5]}, "
                f"check only {sorted(checker - set(guard))[:5]}"
            )
            continue
        # the last names in source order hold the most unusual places; ask each as =name
        asked = list(guard)[-8:]
        if checker_finds(rel, data, asked) != set(asked):
            out.append(
                f"{rel}: =name misses {sorted(set(asked) - checker_finds(rel, data, asked))}"
            )
    assert compared >= len(STDLIB_FILES[chunk::CHUNKS]) * 9 // 10
    assert out == []
