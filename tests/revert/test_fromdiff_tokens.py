"""The names of files that are not Python (a tokenizer per language, none for prose), and
the manifest keys issue 24 added: ``unless_lines`` and the ``_escaped`` lines."""

from __future__ import annotations

import pytest

from pytest_cleantree.config.entries import escape_line, unescape_line
from pytest_cleantree.config.manifest import ManifestError, parse_manifest
from pytest_cleantree.core.patterns import line_pattern
from pytest_cleantree.revert.names import introduced_tokens, tokenizer_for


@pytest.mark.parametrize(
    ("path", "before", "after", "added"),
    [
        (
            "run.sh",
            "exec x\n",
            'export TURBO_MODE=1  # "quoted_words" here\nexec x\n',
            ("TURBO_MODE",),
        ),
        ("ci.yml", "jobs:\n", "jobs:\n  turbo_cache: the words of a value\n", ("turbo_cache",)),
        (
            "pyproject.toml",
            "[tool]\n",
            "[tool.turbo]\nfast_path = 'words here'\n",
            ("fast_path", "tool.turbo"),
        ),
        ("setup.cfg", "[metadata]\n", "[metadata]\nturbo_flag: prose value\n", ("turbo_flag",)),
        (
            "kernel.cu",
            "int main() {}\n",
            'void turbo_kernel() { // comment_word\n  puts("string_word");\n}\n',
            ("puts", "turbo_kernel"),
        ),
        ("Makefile", "all:\n", "TURBO_FLAGS := -O3\nall:\n", ("TURBO_FLAGS",)),
        ("Dockerfile", "FROM x\n", "FROM x\nENV TURBO_HOME=/opt\n", ("TURBO_HOME",)),
        ("package.json", "{}\n", '{"turbo_script": "some words"}\n', ("turbo_script",)),
    ],
)
def test_each_language_gives_its_own_names(
    path: str, before: str, after: str, added: tuple[str, ...]
) -> None:
    tokenizer = tokenizer_for(path)
    assert tokenizer is not None
    assert introduced_tokens(before, after, tokenizer=tokenizer).added == added


@pytest.mark.parametrize(
    ("line", "words"),
    [
        (
            "fn parse<'a>(input: &'a str) -> Result<&'a str, ParseError> {",
            ["fn", "parse", "input", "str", "Result", "str", "ParseError"],
        ),
        ('static NAME: &\'static str = "turbo words";', ["NAME", "str"]),
        ("'outer: for item in items { break 'outer; }", ["for", "item", "in", "items"]),
        ("let c = 'x'; let q = '\\''; let t = turbo_mode;", ["let", "let", "let", "turbo_mode"]),
    ],
)
def test_rust_lifetimes_and_labels_are_not_character_literals(line: str, words: list[str]) -> None:
    tokenizer = tokenizer_for("src/lib.rs")
    assert tokenizer is not None
    assert [word for word in tokenizer(line) if word not in ("c", "q", "t")] == words


def test_a_name_after_a_rust_lifetime_is_introduced() -> None:
    before = "fn parse(text: &str) {}\n"
    after = "fn parse<'a>(turbo_input: &'a [u8], text: &'a str) {}\n"
    tokenizer = tokenizer_for("src/parse.rs")
    assert introduced_tokens(before, after, tokenizer=tokenizer).added == ("turbo_input",)


@pytest.mark.parametrize(
    "path", ["CHANGELOG.rst", "doc/en/deprecations.rst", "README.md", "NEWS", "notes.txt"]
)
def test_prose_has_no_tokenizer(path: str) -> None:
    assert tokenizer_for(path) is None


@pytest.mark.parametrize("line", ["caf\udce9 = 1", "a\\b \\x41 \\\\", "plain", "\udcff\udc80"])
def test_an_escaped_line_round_trips(line: str) -> None:
    assert unescape_line(escape_line(line)) == line


def test_unless_lines_and_escaped_lines_are_read_into_the_rule() -> None:
    manifest = parse_manifest(
        '[[rule]]\nfiles = ["a.txt"]\nforbid_lines_escaped = ["caf\\\\xe9 \\\\\\\\ 1"]\n'
        'forbid = ["=TURBO"]\nunless_lines = ["TURBO = 1"]\n',
        "cleantree.toml",
    )
    (rule,) = manifest.rules
    assert rule.forbid[1] == line_pattern("caf\udce9 \\ 1")
    assert rule.unless == (line_pattern("TURBO = 1"),)


def test_a_bad_escape_is_a_problem_naming_the_entry() -> None:
    with pytest.raises(ManifestError) as info:
        parse_manifest(
            '[[rule]]\nfiles = ["a.txt"]\nforbid_lines_escaped = ["x \\\\n"]\n', "cleantree.toml"
        )
    assert "forbid_lines_escaped[0]: unknown escape '\\\\n'" in str(info.value)
