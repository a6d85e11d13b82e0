"""Fail closed, round 5 (issue 42): an allow counts only in a comment as the file's own
language defines it.

Each case ended ``clean (1 allowed inline)`` before: the allow stood where the language
reads data (a string spanning lines, a here-document, a block scalar), so the word on its
line must stay a finding, exit 1, on both engines.  The generated differential tests (the
language's own parser as the oracle) are in ``tests/analysis/test_comment_grammar.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from runs import check_tree as check
from runs import one_rule as rule

ENGINES = ["fast", "reference"]
ALLOW = "run sm120 # cleantree: allow gone -- r"

#: (id, file name, its text: the allow on a line the language reads as data)
DATA = [
    ("toml basic multi-line string", "c.toml", f'cmd = """\n{ALLOW}\n"""\n'),
    ("toml literal multi-line string", "c.toml", f"cmd = '''\n{ALLOW}\n'''\n"),
    ("shell single quotes over lines", "run.sh", f"echo 'a\n{ALLOW}'\n"),
    ("shell double quotes over lines", "run.sh", f'echo "a\n{ALLOW}"\n'),
    ("shell ansi-c quotes over lines", "run.sh", f"echo $'a\n{ALLOW}'\n"),
    ("shell here-document", "run.sh", f"cat <<EOF\n{ALLOW}\nEOF\n"),
    ("shell here-document, tabs stripped", "run.sh", f"cat <<-EOF\n\t{ALLOW}\n\tEOF\n"),
    ("shell here-document, quoted word", "run.sh", f"cat <<'EOF'\n{ALLOW}\nEOF\n"),
    ("shell here-document, double-quoted word", "run.sh", f'cat <<"EOF"\n{ALLOW}\nEOF\n'),
    ("yaml literal block scalar", "ci.yaml", f"run: |\n  echo\n  {ALLOW}\n"),
    ("yaml folded block scalar", "ci.yaml", f"run: >-\n  echo\n  {ALLOW}\n"),
    ("yaml block scalar in a sequence", "ci.yaml", f"steps:\n  - run: |\n      {ALLOW}\n"),
    ("yaml double-quoted scalar over lines", "ci.yaml", f'run: "echo\n  {ALLOW}"\n'),
    ("yaml single-quoted scalar over lines", "ci.yaml", f"run: 'echo\n  {ALLOW}'\n"),
    ("ini value", "setup.cfg", f"[tool]\ncmd = {ALLOW}\n"),
    ("ini continued value", "setup.cfg", f"[tool]\ncmd =\n    {ALLOW}\n"),
    ("makefile define", "Makefile", f"define CMD\n{ALLOW}\nendef\n"),
    ("makefile recipe quotes", "Makefile", f"all:\n\techo '{ALLOW}'\n"),
    ("dockerfile here-document", "Dockerfile", f"FROM x\nCOPY <<EOF /a\n{ALLOW}\nEOF\n"),
    ("r string over lines", "a.r", f'x <- "a\n{ALLOW}"\n'),
    ("cmake quoted argument over lines", "CMakeLists.txt", f'set(X "a\n{ALLOW}")\n'),
    ("cmake bracket argument", "CMakeLists.txt", f"set(X [[\n{ALLOW}\n]])\n"),
    ("ruby here-document", "a.rb", f"x = <<~EOS\n  {ALLOW}\n  EOS\n"),
    ("ruby percent literal", "a.rb", f"x = %q(\n{ALLOW}\n)\n"),
    ("perl here-document", "a.pl", f"print <<EOF;\n{ALLOW}\nEOF\n"),
    ("perl quote-like operator", "a.pl", f"my $x = q{{\n{ALLOW}\n}};\n"),
    ("cuda string literal", "k.cu", f'const char* s = "{ALLOW}";\n'),
    ("c++ raw string over lines", "k.cpp", f'auto s = R"x(\n{ALLOW}\n)x";\n'),
    ("c string holding //", "k.h", f'const char* s = "// {ALLOW}";\n'),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("name", "text"), [c[1:] for c in DATA], ids=[c[0] for c in DATA])
def test_an_allow_where_the_language_reads_data_allows_nothing(
    tmp_path: Path, engine: str, name: str, text: str
) -> None:
    done = check(tmp_path, rule('"sm120"', name), {name: text.encode()}, engine=engine)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "allowed inline" not in done.stdout, done.stdout


#: (id, file name, its text: the allow in a real comment, after data spanning lines)
COMMENTS = [
    (
        "toml after multi-line strings",
        "c.toml",
        f"a = \"\"\"\nx\n\"\"\"\nb = '''\ny'''\nc = 1 # {ALLOW}\n",
    ),
    ("shell after a here-document", "run.sh", f"cat <<EOF\nx\nEOF\n{ALLOW}\n"),
    ("yaml after a block scalar", "ci.yaml", f"a: |\n  x\nb: 1  # {ALLOW}\n"),
    ("ini comment line", "setup.cfg", f"[tool]\nk = v\n  # {ALLOW}\n"),
    ("makefile after define", "Makefile", f"define X\ny\nendef\nall: ; {ALLOW}\n"),
    ("dockerfile after a here-document", "Dockerfile", f"COPY <<EOF /a\nx\nEOF\nRUN {ALLOW}\n"),
    ("ruby after a here-document", "a.rb", f"x = <<~EOS\n  y\n  EOS\n# {ALLOW}\n"),
    ("cuda // comment", "k.cuh", f"int sm120 = 1; // {ALLOW}\n"),
    ("c block comment after a string", "k.c", f'char* s = "x"; int sm120; /* {ALLOW} */\n'),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("name", "text"), [c[1:] for c in COMMENTS], ids=[c[0] for c in COMMENTS])
def test_an_allow_in_a_real_comment_still_allows(
    tmp_path: Path, engine: str, name: str, text: str
) -> None:
    done = check(tmp_path, rule('"sm120"', name), {name: text.encode()}, engine=engine)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 allowed inline" in done.stdout, done.stdout
