"""Go, Rust, Java, JavaScript and TypeScript files: an allow counts only inside a comment,
held to tree-sitter's grammars (``treesitter.py``) on generated and on real files.

Generated: each file is a function whose statements are drawn from pieces that place
numbered allows (``# cleantree: allow r7 -- why``) in comments (line, block, nested, doc)
and in data (strings with escapes, raw strings, Go's backquotes, Rust's ``r#"..."#`` and
lifetimes, Java's text blocks, JavaScript's templates with nested substitutions and regular
expressions), with ``\\n`` or ``\\r\\n`` line ends.  Tree-sitter must parse it without error
(else the generator is wrong), and the allows the model counts must be exactly those inside
tree-sitter's comment nodes, or, where a piece is one the model reads as data to the end (a
``/`` after ``}``, JSX), a subset of them.

Real: files shipped by installed packages (coverage's HTML report script, which the test
extra installs; others where present), each read twice: the model's comment lines must be
tree-sitter's, and with an allow placed at the start of each of tree-sitter's comments and
literals, the model must count those in comments only, missing none before it last counts
one (what it cannot read it reads as data to the end).
"""

from __future__ import annotations

import glob
import html
import importlib.util
import os
import re
import sysconfig
import zipfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from treesitter import (
    GRAMMARS,
    comment_allows,
    comment_lines,
    model_allows,
    model_comments,
    parse,
    seeded,
)

QUICK, WIDE = 60, 600
A = "{A}"
#: a piece read as data from where it stands to the end (``/`` after ``}``; JSX)
TO_END = "!"

GO = (
    "a{n} := 1 // {A}",
    "b{n} := 2 /* {A} */",
    "/* one\n   {A}\n*/",
    'c{n} := "{A}"',
    'd{n} := "x \\" // {A}"',
    "e{n} := `\n{A} // {A}\n`",
    "f{n} := '\\'' // {A}",
    'g{n} := \'"\'; h{n} := "{A}"',
    'i{n} := "/*"; j{n} := "{A} */"',
    "k{n} := 4 / 2 // {A}",
)
RUST = (
    "let a{n} = 1; // {A}",
    "let b{n} = 2; /* {A} */",
    "/* outer /* {A} */ {A} */",
    "/// {A}\nlet c{n} = 3;",
    'let d{n} = "{A}";',
    'let e{n} = "x \\" // {A}";',
    'let f{n} = "over\n{A}\nlines";',
    'let g{n} = r"{A} \\";',
    'let h{n} = r#"say "x {A}" // x"#;',
    'let i{n} = br##"{A} "# still"##;',
    'let j{n} = b"{A}";',
    'let k{n} = \'"\'; let k2{n} = "{A}";',
    "let l{n} = '\\''; // {A}",
    'let m{n}: &\'static str = "{A}"; // {A}',
    "fn n{n}<'a>(x: &'a str) -> &'a str {{ x }} // {A}",
    "'o{n}: loop {{ break 'o{n}; }} // {A}",
    "let p{n} = b'\\''; // {A}",
    "let q{n} = '\\u{{1F600}}'; /* {A} */",
)
JAVA = (
    "int a{n} = 1; // {A}",
    "int b{n} = 2; /* {A} */",
    "/** {A}\n * {A}\n */",
    'String c{n} = "{A}";',
    'String d{n} = "x \\" // {A}";',
    'String e{n} = """\n    {A} // {A}\n    "quoted" \\""" {A}\n    """;',
    "char f{n} = '\\''; // {A}",
    'char g{n} = \'"\'; String g2{n} = "{A}";',
    'String h{n} = "/*"; String h2{n} = "{A} */";',
    "int i{n} = 4 / 2; // {A}",
)
JAVASCRIPT = (
    "let a{n} = 1; // {A}",
    "let b{n} = 2; /* {A} */",
    "/* one\n   {A}\n*/",
    "let c{n} = '{A}';",
    'let d{n} = "x \\" // {A}";',
    "let e{n} = `\n{A} // {A}\n${{ 1 /* {A} */ }} ${{ `inner ${{ '{A}' }}` }}\n`;",
    "let f{n} = /\\/\\/ {A}[/]/g; // {A}",
    "let g{n} = 4 / 2 / 1; // {A}",
    "let h{n} = (1 + 2) / 3; // {A}",
    "if (a{n}) /[/]{A}/.test('x'); // {A}",
    "let i{n} = [1][0] / 2; // {A}",
    "let j{n} = x.return / 2; // {A}",
    "let k{n} = typeof /x/; // {A}",
    "let l{n} = {{ a: '{A}' }}; // {A}",
    "let m{n} = 'line \\\n{A}';",
    "let o{n} = a{n} ? /{A}/ : 1;",
    "let u{n} = x.if(1) / 2 / [1][0]; // {A}",
    "let v{n} = x.return / 2; // {A}",
    TO_END + "let w{n} = a{n}-->0; // {A}",
    TO_END + "{{}}\n/ {A} /; // {A}",
    TO_END + "let p{n} = x++ / 2; // {A}",
)
TSX = (*JAVASCRIPT, TO_END + "let q{n} = <div>// {A}</div>; // {A}")
TYPESCRIPT = (
    *JAVASCRIPT,
    "let r{n}: Array<number> = [1]; // {A}",
    "let s{n} = <T,>(x: T): T => x; // {A}",
    TO_END + "let t{n} = y! / 2; // {A}",
)

PIECES = {
    "go": ("package m\n\nfunc main() {\n", "}\n", GO),
    "rust": ("fn main() {\n", "}\n", RUST),
    "java": ("class M {\n  void m() {\n", "  }\n}\n", JAVA),
    "javascript": ("function main(a, x, y) {\n", "}\n", JAVASCRIPT),
    "typescript": ("function main(x: any, y: any) {\n", "}\n", TYPESCRIPT),
    "tsx": ("function main(x: any, y: any) {\n", "}\n", TSX),
}


def unit(language: str, chosen: list[str], newline: str) -> tuple[str, int, bool]:
    """The file of ``chosen`` pieces: its text, how many allows, whether all read exactly."""
    head, tail, _ = PIECES[language]
    count, body = 0, []
    for n, piece in enumerate(chosen):
        piece = piece.removeprefix(TO_END).replace("{n}", str(n))
        while A in piece:
            count += 1
            piece = piece.replace(A, f"# cleantree: allow r{count} -- why", 1)
        body.append("    " + piece.replace("{{", "{").replace("}}", "}"))
    lines = (head + "\n".join(body) + "\n" + tail).split("\n")
    exact = not any(piece.startswith(TO_END) for piece in chosen)
    return newline.join(lines), count, exact


def holds(language: str, chosen: list[str], newline: str) -> None:
    text, count, exact = unit(language, chosen, newline)
    data = text.encode()
    assert not parse(language, data).root_node.has_error, f"the generator wrote bad code:\n{text}"
    oracle = comment_allows(language, data)
    ours = model_allows(language, text)
    assert ours <= oracle, f"counted allows tree-sitter reads as data: {ours - oracle}\n{text}"
    if exact:
        assert ours == oracle, f"allows in comments not counted: {oracle - ours}\n{text}"
    assert count >= len(oracle)


def both_tiers(language: str) -> tuple[object, object]:
    pieces = PIECES[language][2]
    strategy = st.tuples(
        st.lists(st.sampled_from(pieces), min_size=1, max_size=8),
        st.sampled_from(["\n", "\r\n"]),
    )

    def build(count: int) -> object:
        def test(drawn: tuple[list[str], str]) -> None:
            holds(language, *drawn)

        test = example(([p for p in pieces if not p.startswith(TO_END)], "\n"))(test)
        health = [HealthCheck.too_slow]
        return settings(max_examples=count, deadline=None, suppress_health_check=health)(
            given(strategy)(test)
        )

    return build(QUICK), pytest.mark.slow(build(WIDE))


test_go_comments_are_tree_sitter_s, test_go_comments_are_tree_sitter_s_wide = both_tiers("go")
test_rust_comments_are_tree_sitter_s, test_rust_comments_are_tree_sitter_s_wide = both_tiers("rust")
test_java_comments_are_tree_sitter_s, test_java_comments_are_tree_sitter_s_wide = both_tiers("java")
test_js_comments_are_tree_sitter_s, test_js_comments_are_tree_sitter_s_wide = both_tiers(
    "javascript"
)
test_ts_comments_are_tree_sitter_s, test_ts_comments_are_tree_sitter_s_wide = both_tiers(
    "typescript"
)
test_tsx_comments_are_tree_sitter_s, test_tsx_comments_are_tree_sitter_s_wide = both_tiers("tsx")


@pytest.mark.parametrize("language", sorted(PIECES))
def test_every_piece_is_read_as_tree_sitter_reads_it(language: str) -> None:
    """Each piece alone, so a failure names the construct."""
    for piece in PIECES[language][2]:
        holds(language, [piece], "\n")


# ------------------------------------------------------------------------ real files


def _site(*parts: str) -> list[str]:
    return sorted(glob.glob(os.path.join(sysconfig.get_paths()["purelib"], *parts)))


def _module_files(module: str, pattern: str) -> list[str]:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return []
    return sorted(glob.glob(os.path.join(os.path.dirname(spec.origin), pattern), recursive=True))


def real_files() -> list[tuple[str, str]]:
    """(language, source) of real files on this machine: coverage's script (the test extra
    installs it) first, then what other installed packages and tools ship: a path, or
    ``zip:ARCHIVE!MEMBER`` (the JDK's sources), or ``rustdoc:PAGE`` (a source page of the
    Rust documentation)."""
    found = [("javascript", path) for path in _module_files("coverage", "htmlfiles/*.js")]
    for module in ("werkzeug", "docutils", "urllib3", "importlinter", "moto"):
        found += [
            ("javascript", path)
            for path in _module_files(module, "**/*.js")
            if not path.endswith(".min.js") and os.path.getsize(path) < 200_000
        ]
    npm = sorted(glob.glob("/usr/lib/node_modules/npm/lib/**/*.js", recursive=True))
    found += [("javascript", path) for path in npm[:40]]
    found += [("go", path) for path in sorted(glob.glob("/usr/share/doc/git/contrib/**/*.go"))]
    archives = [path for path in glob.glob("/usr/lib/jvm/*/lib/src.zip") if os.path.isfile(path)]
    for archive in sorted(archives)[:1]:
        with zipfile.ZipFile(archive) as zipped:
            members = [
                name
                for name in zipped.namelist()
                if name.startswith("java.base/java/util/") and name.endswith(".java")
            ]
        found += [("java", f"zip:{archive}!{name}") for name in sorted(members)[:40]]
    pages = glob.glob(os.path.expanduser("~/.rustup/toolchains/*/share/doc/rust/html/src/core"))
    for folder in sorted(pages)[:1]:
        rust = sorted(glob.glob(f"{folder}/**/*.rs.html", recursive=True))
        found += [("rust", f"rustdoc:{page}") for page in rust[:40]]
    return found


_LINE_NUMBER = re.compile(r"<a [^>]*data-nosnippet>\d+</a>")


def _real_bytes(source: str) -> bytes:
    kind, _, where = source.partition(":")
    if kind == "zip":
        archive, _, member = where.partition("!")
        with zipfile.ZipFile(archive) as zipped:
            return zipped.read(member)
    if kind == "rustdoc":
        page = Path(where).read_text(encoding="utf-8")
        code = re.search(r'<pre class="rust"><code>(.*?)</code></pre>', page, re.DOTALL)
        assert code is not None, where
        text = html.unescape(re.sub(r"<[^>]+>", "", _LINE_NUMBER.sub("", code.group(1))))
        return text.encode()
    return Path(source).read_bytes()


def _oracle_reads(language: str, source: str) -> bool:
    """Does tree-sitter read this file without an error (else it is no oracle for it)?  With
    a grammar missing the file is kept: its test then says so (and fails under ``CI=true``)."""
    module = GRAMMARS[language][1]
    if any(importlib.util.find_spec(name) is None for name in ("tree_sitter", module)):
        return True
    return not parse(language, _real_bytes(source)).root_node.has_error


#: the real files tree-sitter reads without error (a rustdoc page of nightly syntax is left out)
REAL = [(language, path) for language, path in real_files() if _oracle_reads(language, path)]


def test_coverage_s_script_is_among_the_real_files() -> None:
    """The one real file CI always has (the ``test`` extra installs coverage), and one
    tree-sitter reads without error: the real-file tests leave out only files it cannot read."""
    scripts = [path for _, path in REAL if path.endswith("coverage_html.js")]
    assert scripts, REAL
    assert not parse("javascript", Path(scripts[0]).read_bytes()).root_node.has_error


def _exact(language: str, data: bytes) -> bool:
    """Does the model read this file exactly (not JavaScript, not Java's Unicode escapes)?"""
    return language not in ("javascript", "java") or (language == "java" and b"\\u" not in data)


@pytest.mark.parametrize(("language", "path"), REAL, ids=[p for _, p in REAL])
def test_real_comment_lines_are_tree_sitter_s(language: str, path: str) -> None:
    data = _real_bytes(path)
    text = data.decode("utf-8")
    ours = {line for line, _ in model_comments(language, text)}
    theirs = comment_lines(language, data)
    assert ours <= theirs, (
        f"comment lines tree-sitter reads as code or data: {sorted(ours - theirs)[:10]}"
    )
    if _exact(language, data):
        assert ours == theirs, sorted(theirs - ours)[:10]


@pytest.mark.parametrize(("language", "path"), REAL, ids=[p for _, p in REAL])
def test_real_files_seeded_with_allows(language: str, path: str) -> None:
    data = _real_bytes(path)
    seeded_data, count = seeded(language, data)
    assert count, "a real file with neither a comment nor a literal"
    oracle = comment_allows(language, seeded_data)
    ours = model_allows(language, seeded_data.decode("utf-8"))
    assert ours <= oracle, f"counted allows tree-sitter reads as data: {sorted(ours - oracle)}"
    missed = oracle - ours
    assert not ours or not missed or min(missed) > max(ours), (
        f"allows in comments missed before the model last counts one: {sorted(missed)[:10]}"
    )
    if _exact(language, data):
        assert not missed, sorted(missed)[:10]
