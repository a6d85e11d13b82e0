"""Go, Rust, Java, JavaScript, TypeScript and Markdown files through the CLI: an allow
counts only inside a comment of the file's language (and in a language with strings whose
grammar is not read here, Kotlin, SQL, HTML and the rest, nowhere).

Each data case ended ``clean (1 allowed inline)`` before these languages had a grammar: their
allows were read from anywhere on the line, a string literal included, so the forbidden call
beside it went unreported.  The generated and real-file differential tests against
tree-sitter are in ``test_comment_grammar_braces.py``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from runs import check_tree as check
from runs import one_rule as rule

ENGINES = ["fast", "reference"]
ALLOW = "# cleantree: allow gone -- r"

#: (id, file name, its text: the allow where the language reads data, sm120 beside it)
DATA = [
    ("go string", "m.go", f'package m\n\nfunc f() {{\n\ts := "{ALLOW}"; sm120()\n}}\n'),
    ("go raw string", "m.go", f"package m\n\nvar s = `\n{ALLOW}` + sm120()\n"),
    ("rust string", "m.rs", f'fn f() {{ let s = "{ALLOW}"; sm120(); }}\n'),
    ("rust raw string", "m.rs", f'fn f() {{ let s = r#"x // {ALLOW}"#; sm120(); }}\n'),
    ("rust string over lines", "m.rs", f'fn f() {{ let s = "a\n{ALLOW}"; sm120(); }}\n'),
    ("java string", "M.java", f'class M {{ String s = "{ALLOW}" + sm120(); }}\n'),
    ("java text block", "M.java", f'class M {{ String s = """\n  {ALLOW}""" + sm120(); }}\n'),
    ("javascript string", "m.js", f'const s = "// {ALLOW}"; sm120()\n'),
    ("javascript template", "m.mjs", f"const s = `\n// {ALLOW}`; sm120()\n"),
    ("javascript regex", "m.cjs", f"const r = /[/]/; r.test('{ALLOW}') && sm120()\n"),
    (
        "javascript regex after a no-break space",
        "m.js",
        f'function f() {{ return\u00a0/[//]"/.test("{ALLOW}") && sm120() }}\n',
    ),
    ("javascript division after U+FEFF", "m.js", f'x\ufeff/ 2 + "/ // {ALLOW}"; sm120()\n'),
    (
        "javascript regex after for await",
        "m.mjs",
        f'for await (const x of y) /[//]"/.test("{ALLOW}") && sm120()\n',
    ),
    ("javascript regex after default", "m.mjs", f'export default /[//]"/; f("{ALLOW}"); sm120()\n'),
    (
        "java string template",
        "M.java",
        f'class M {{ String s = STR."\\{{ "//" }} {ALLOW}" + sm120(); }}\n',
    ),
    ("rust inner attribute, spaced", "m.rs", f'#! [doc = "a\n// {ALLOW}"] fn f() {{ sm120(); }}\n'),
    ("typescript string", "m.ts", f"const s: string = '{ALLOW}'; sm120()\n"),
    ("tsx text", "m.tsx", f"const e = <p>// {ALLOW}</p>; sm120()\n"),
    ("markdown code span", "README.md", f"Run `sm120 {ALLOW}` first.\n"),
    ("markdown html comment (none read)", "README.md", f"Run sm120 first. <!-- {ALLOW} -->\n"),
    # languages with strings whose grammar is not read here: no line is a comment
    ("kotlin string (none read)", "m.kt", f'val s = "{ALLOW}"; sm120()\n'),
    ("sql string (none read)", "q.sql", f"SELECT '{ALLOW}', sm120();\n"),
    ("html attribute (none read)", "p.html", f'<a title="{ALLOW}">sm120</a>\n'),
    ("lua string (none read)", "m.lua", f'local s = "{ALLOW}"; sm120()\n'),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("name", "text"), [c[1:] for c in DATA], ids=[c[0] for c in DATA])
def test_an_allow_in_data_allows_nothing(tmp_path: Path, engine: str, name: str, text: str) -> None:
    done = check(tmp_path, rule('"sm120"', name), {name: text.encode()}, engine=engine)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "allowed inline" not in done.stdout, done.stdout


#: (id, file name, its text: the allow in a real comment, after data that spans lines)
COMMENTS = [
    ("go // comment", "m.go", f"package m\n\nvar s = `\nx`\nvar t = sm120() // {ALLOW}\n"),
    ("go /* */ comment", "m.go", f'package m\n\nvar t = "/*" + sm120() /* {ALLOW} */\n'),
    ("rust nested comment", "m.rs", f"fn f<'a>() {{ sm120(); /* /* x */ {ALLOW} */ }}\n"),
    (
        "java after a text block",
        "M.java",
        f'class M {{ String s = """\n  x\n  """; int sm120; // {ALLOW}\n}}\n',
    ),
    ("javascript after a template", "m.js", f"const s = `\n${{ {{}} }}`; sm120() // {ALLOW}\n"),
    ("typescript after a regex", "m.ts", f"const r = /\\/\\//g; sm120() /* {ALLOW} */\n"),
]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(("name", "text"), [c[1:] for c in COMMENTS], ids=[c[0] for c in COMMENTS])
def test_an_allow_in_a_comment_still_allows(
    tmp_path: Path, engine: str, name: str, text: str
) -> None:
    done = check(tmp_path, rule('"sm120"', name), {name: text.encode()}, engine=engine)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 allowed inline" in done.stdout, done.stdout
