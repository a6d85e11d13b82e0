"""The engine against an independent oracle, on real code nobody here wrote.

For code kinds (everything but strings, docstrings and comments), the lines
where a substring pattern occurs in a name are exactly the lines of the
``NAME`` tokens that contain it.  The oracle is the standard library's
``tokenize``; the engine uses ``ast`` (and astroid for qualified names), so
they share no code.  On 3.12+ names inside f-strings are NAME tokens too.
"""

from __future__ import annotations

import io
import keyword
import shutil
import sys
import tokenize
from pathlib import Path

import pytest

from pytest_cleantree.core.checks import iter_checks
from pytest_cleantree.core.model import DEFAULT_KINDS, Kind, Rule
from pytest_cleantree.core.patterns import parse_pattern
from pytest_cleantree.run.check import check_all
from pytest_cleantree.sources.local import LocalSource

CODE_KINDS = DEFAULT_KINDS - {Kind.STRING, Kind.TEXT}
NAMES = ("encod", "buffer", "_fields", "Error", "self")


CORPORA = {
    "stdlib-json": Path(__import__("json").__file__).parent,  # type: ignore[arg-type]
    "stdlib-email": Path(__import__("email").__file__).parent,  # type: ignore[arg-type]
    "stdlib-asyncio": Path(__import__("asyncio").__file__).parent,  # type: ignore[arg-type]
    "site-packages-_pytest": Path(__import__("_pytest").__file__).parent,  # type: ignore[arg-type]
}


def oracle_lines(text: str, needle: str) -> set[int]:
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.NAME and needle in token.string:
            if keyword.iskeyword(token.string) or keyword.issoftkeyword(token.string):
                continue
            lines.add(token.start[0])
    return lines


@pytest.fixture(scope="module", params=sorted(CORPORA))
def corpus(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of a real package: the engine reads the copy, never the installed files."""
    target = tmp_path_factory.mktemp(request.param) / "tree"
    shutil.copytree(CORPORA[request.param], target, ignore=shutil.ignore_patterns("__pycache__"))
    return target


@pytest.mark.slow
@pytest.mark.parametrize("needle", NAMES)
def test_code_lines_equal_name_tokens(corpus: Path, needle: str) -> None:
    assert_engine_equals_oracle(corpus, needle)


@pytest.mark.slow
def test_every_module_of_the_standard_library(tmp_path: Path) -> None:
    """The whole standard library (its own test suites and site-packages left out)."""
    stdlib = Path(keyword.__file__).parent
    skip = shutil.ignore_patterns("__pycache__", "site-packages", "test", "tests", "idle_test")
    shutil.copytree(stdlib, tmp_path / "stdlib", ignore=skip)
    files = assert_engine_equals_oracle(tmp_path / "stdlib", "encod")
    assert files > 500


def assert_engine_equals_oracle(corpus: Path, needle: str) -> int:
    """Check code lines against NAME tokens in every file; return how many files were read."""
    rule = Rule(id="oracle", files=("**/*.py",), forbid=(parse_pattern(needle),), kinds=CODE_KINDS)
    results = check_all(list(iter_checks([rule])), LocalSource(corpus))
    (result,) = results.values()
    assert result.problems == ()
    engine: dict[str, set[int]] = {}
    for hit in result.hits:
        engine.setdefault(hit.path, set()).add(hit.line)
    oracle: dict[str, set[int]] = {}
    for path in result.files:
        with tokenize.open(corpus / path) as handle:
            text = handle.read()
        found = oracle_lines(text, needle)
        if sys.version_info < (3, 12):
            # before PEP 701 (3.12) names inside f-string fields are not NAME tokens:
            # the lines those f-strings span are left out on both sides
            hidden = _fstring_lines(text, needle)
            found -= hidden
            engine[path] = engine.get(path, set()) - hidden
        if found:
            oracle[path] = found
    for path in set(oracle) | set(engine):
        engine_only = engine.get(path, set()) - oracle.get(path, set())
        oracle_only = oracle.get(path, set()) - engine.get(path, set())
        assert (path, engine_only, oracle_only) == (path, set(), set())
    assert len(result.files) >= 5
    return len(result.files)


def _fstring_lines(text: str, needle: str) -> set[int]:
    lines: set[int] = set()
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type == tokenize.STRING and needle in token.string:
            prefix = token.string[: len(token.string) - len(token.string.lstrip("rRbBuUfF"))]
            if "f" in prefix.lower():
                lines.update(range(token.start[0], token.end[0] + 1))
    return lines
