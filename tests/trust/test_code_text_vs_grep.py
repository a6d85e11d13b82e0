"""A substring no name holds, and a regex, are found as grep finds them, held to ``grep -rnF``
and ``grep -rnE`` on real code.

With every kind selected, the lines ``cleantree check`` reports for such a pattern
(``(self)``: code, strings, docstrings and comments alike) must be exactly the lines
``grep -F`` prints, on the standard library of the running Python: a line grep finds and the
tool does not is the false clean :mod:`pytest_cleantree.analysis.codetext` closes; one the
tool adds would be a line no grep shows.  The default tier reads a few packages, the slow
tier the whole library.  Files Python cannot decode or parse under this version are left
out (the tool reports them as errors).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from tests.needs import missing

STDLIB = Path(sysconfig.get_paths()["stdlib"])
KINDS = (
    '["import", "definition", "assignment", "condition", "call", "reference", "string", '
    '"docstring", "comment"]'
)
#: Python 2 and bad-coding fixtures, which no Python 3 reads as the file's text
LEFT_OUT = ("lib2to3/tests/data", "test/tokenizedata", "test/test_lib2to3/data", "site-packages")
PATTERNS = ("(self)", "!= None", "):", "{}", ", 0)", "\\n")
#: regexes, searched by ``grep -E`` (the syntax RE2 and POSIX ERE share): some matches hold a
#: character no name holds, some stand in a keyword, some in names, strings and comments
REGEXES = ("re:\\(self\\)", "re:!= ?None", "re:lambda", "re:return [A-Z]", "re:[a-z]\\[0\\]")


def tool_lines(tmp: Path, root: Path, pattern: str) -> set[str]:
    exclude = ", ".join(f'"{folder}/**"' for folder in LEFT_OUT)
    (tmp / "cleantree.toml").write_text(
        f'root = "{root}"\n[[rule]]\nid = "r"\nfiles = ["**/*.py"]\nexclude = [{exclude}]\n'
        f"kinds = {KINDS}\nforbid = [{pattern!r}]\n".replace("'", '"')
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", "check", "--no-cache", "--format", "json"],
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert done.returncode in (0, 1), done.stdout[-2000:] + done.stderr[-2000:]
    results = json.loads(done.stdout)["results"]
    hits = [hit for result in results for hit in result["hits"]]
    return {f"{Path(hit['path']).relative_to(root)}:{hit['line']}" for hit in hits}


def grep_lines(root: Path, pattern: str) -> set[str]:
    regex = pattern.startswith("re:")
    flags, needle = ("-rnEa", pattern[3:]) if regex else ("-rnFa", pattern)
    done = subprocess.run(
        ["grep", flags, "--include=*.py", "--", needle, "."],
        cwd=root,
        capture_output=True,
        timeout=900,
        check=False,
    )
    found = set()
    for line in done.stdout.decode("utf-8", "surrogateescape").splitlines():
        path, number, _ = line.split(":", 2)
        path = path.removeprefix("./")
        if not any(path.startswith(folder + "/") for folder in LEFT_OUT):
            found.add(f"{path}:{number}")
    return found


def roots(slow: bool) -> list[Path]:
    return [STDLIB] if slow else [STDLIB / name for name in ("json", "email", "asyncio")]


def check(tmp: Path, slow: bool) -> None:
    if shutil.which("grep") is None:
        missing("grep", "apt-get install grep")
    for root in roots(slow):
        seen = 0
        for pattern in PATTERNS + REGEXES:
            tool, grep = tool_lines(tmp, root, pattern), grep_lines(root, pattern)
            assert tool == grep, (root, pattern, sorted(tool - grep)[:5], sorted(grep - tool)[:5])
            seen += len(grep)
        assert seen > 50, (root, seen)  # the patterns stand there: not vacuous


def test_code_text_equals_grep_on_some_packages(tmp_path: Path) -> None:
    check(tmp_path, slow=False)


@pytest.mark.slow
def test_code_text_equals_grep_on_the_standard_library(tmp_path: Path) -> None:
    check(tmp_path, slow=True)
