"""C, C++ and CUDA files: an allow counts only inside a comment, held to the compiler's own
reading on generated files (issue 42's class, for the GPU sources this tool's users edit).

Each generated translation unit places numbered allows (``# cleantree: allow r7 -- why``) in
``//`` comments (continued by a backslash or not), ``/* */`` comments over lines, and in data:
string literals (escaped quotes, prefixes ``u8``/``L``, a ``//`` inside), raw strings
``R"d(...)d"`` over lines, next to character literals and digit separators (``1'000``).  The
oracle is ``g++ -E`` (lines spliced, comments removed, literals kept): an allow it still
prints is data.  The property: the allows the model's comments hold are exactly the
others.
"""

from __future__ import annotations

import random
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from needs import missing

from pytest_cleantree.analysis.text import split_lines
from pytest_cleantree.analysis.textfiles import text_comments

QUICK, WIDE = 30, 300
_ID = re.compile(r"cleantree: allow r(\d+) -- why")

#: where an allow may stand: ``{A}`` is the allow; each line is a statement of a function
PIECES = (
    "int a{n} = 1; // {A}",
    "int b{n} = 2; // note \\\n    {A}",
    "/* {A} */ int c{n} = 3;",
    "/* one\n   {A}\n*/ int d{n} = 4;",
    'const char* e{n} = "{A}";',
    'const char* f{n} = "x \\" {A}";',
    'const char* g{n} = "// {A}";',
    'auto h{n} = u8"{A}";',
    'auto i{n} = L"{A}";',
    "char j{n} = '\\''; // {A}",
    'char k{n} = \'"\'; const char* k2{n} = "{A}";',
    "int l{n} = 1'000'000; // {A}",
    'auto m{n} = R"d(\n{A}\n)d";',
    'auto o{n} = R"(// {A})"; // {A}',
    "int p{n} = 4 / 2; /* {A} */",
)


def generated(rng: random.Random) -> tuple[str, int]:
    count = 0
    lines = ["int main() {"]
    for n in range(rng.randint(1, 8)):
        piece = rng.choice(PIECES)
        while "{A}" in piece:
            count += 1
            piece = piece.replace("{A}", f"# cleantree: allow r{count} -- why", 1)
        lines.append("  " + piece.replace("{n}", str(n)))
    lines.append("  return 0;\n}")
    newline = rng.choice(["\n", "\r\n"])
    return newline.join(lines) + newline, count


def compiler() -> str:
    found = shutil.which("g++")
    if found is None:
        missing("g++", "apt-get install g++")
    return str(found)


def data_ids(source: Path) -> set[int]:
    """The allows ``g++`` keeps once comments are removed: those in literals."""
    done = subprocess.run(
        [compiler(), "-x", "c++", "-std=c++17", "-E", "-P", str(source)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return {int(found) for found in _ID.findall(done.stdout)}


def model_ids(source: Path) -> set[int]:
    lines = split_lines(source.read_text(encoding="utf-8"))
    comments = text_comments(source.name, lines)
    assert comments is not None, "C++ is a language the model reads"
    return {int(found) for _, text in comments for found in _ID.findall(text)}


def holds(seed: int, tmp_path: Path) -> None:
    text, count = generated(random.Random(seed))
    source = tmp_path / f"unit{seed}.cu"
    source.write_bytes(text.encode())
    data = data_ids(source)
    assert model_ids(source) == set(range(1, count + 1)) - data, text


@pytest.mark.parametrize("seed", range(QUICK))
def test_c_family_comments_are_the_compiler_s(seed: int, tmp_path: Path) -> None:
    holds(seed, tmp_path)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(QUICK, WIDE))
def test_c_family_comments_are_the_compiler_s_wide(seed: int, tmp_path: Path) -> None:
    holds(seed, tmp_path)


def test_every_piece_is_read_as_the_compiler_reads_it(tmp_path: Path) -> None:
    """Each piece alone, so a failure names the construct."""
    for index, piece in enumerate(PIECES):
        count = piece.count("{A}")
        numbered = piece
        for number in range(1, count + 1):
            numbered = numbered.replace("{A}", f"# cleantree: allow r{number} -- why", 1)
        source = tmp_path / f"piece{index}.cpp"
        source.write_text("int main() {\n  " + numbered.replace("{n}", "0") + "\n}\n")
        assert model_ids(source) == set(range(1, count + 1)) - data_ids(source), piece
