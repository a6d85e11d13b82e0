"""Table tests of the pattern tiers: classification, matching names and text, path globs."""

from __future__ import annotations

import ast
import dataclasses
import re
import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_cleantree.core.model import Pattern, PatternTier
from pytest_cleantree.core.patterns import (
    as_name,
    code_blind,
    compile_path_glob,
    glob_base,
    greps_code,
    is_path_glob,
    line_pattern,
    match_name,
    match_text,
    parse_pattern,
    prefilter_needle,
    prefilter_needles,
    regex_spans,
    written,
)

SUBSTRING = PatternTier.SUBSTRING
GLOB = PatternTier.GLOB
REGEX = PatternTier.REGEX
QUALIFIED = PatternTier.QUALIFIED
EXACT = PatternTier.EXACT


@pytest.mark.parametrize(
    ("text", "tier", "body"),
    [
        pytest.param("sm120", SUBSTRING, "sm120", id="substring"),
        pytest.param("_x", SUBSTRING, "_x", id="substring-underscore"),
        pytest.param("a.", SUBSTRING, "a.", id="trailing-dot-is-not-qualified"),
        pytest.param(".a", SUBSTRING, ".a", id="leading-dot-is-not-qualified"),
        pytest.param("a..b", SUBSTRING, "a..b", id="empty-segment-is-not-qualified"),
        pytest.param("a.1b", SUBSTRING, "a.1b", id="digit-segment-is-not-qualified"),
        pytest.param("a b", SUBSTRING, "a b", id="inner-space"),
        pytest.param("a*_b?", GLOB, "a*_b?", id="glob-star-question"),
        pytest.param("sm[0-9]", GLOB, "sm[0-9]", id="glob-class"),
        pytest.param("torch.*", GLOB, "torch.*", id="glob-beats-qualified"),
        pytest.param("re:sm1[0-9]+", REGEX, "sm1[0-9]+", id="regex"),
        pytest.param("re:a*", REGEX, "a*", id="regex-beats-glob"),
        pytest.param("re:re:x", REGEX, "re:x", id="regex-prefix-once"),
        pytest.param("torch.cuda", QUALIFIED, "torch.cuda", id="qualified"),
        pytest.param("a.b_c.D1", QUALIFIED, "a.b_c.D1", id="qualified-three"),
        pytest.param("é.ü", QUALIFIED, "é.ü", id="qualified-unicode"),
        pytest.param("=flag", EXACT, "flag", id="exact"),
        pytest.param("=a.b", EXACT, "a.b", id="exact-beats-qualified"),
        pytest.param("=a*", EXACT, "a*", id="exact-beats-glob"),
        pytest.param("==", EXACT, "=", id="exact-equals"),
        pytest.param("RE:x", SUBSTRING, "RE:x", id="prefix-is-case-sensitive"),
        pytest.param("line:x = 1", PatternTier.LINE, "x = 1", id="line"),
        pytest.param("line:  x = 1", PatternTier.LINE, "x = 1", id="line-stripped"),
        pytest.param("line:=a", PatternTier.LINE, "=a", id="line-beats-exact"),
    ],
)
def test_parse_pattern(text: str, tier: PatternTier, body: str) -> None:
    assert parse_pattern(text) == Pattern(text, tier, body)


def test_a_pinned_line_pattern_and_a_forbid_lines_entry() -> None:
    assert parse_pattern("line@12:  f(x)") == Pattern(
        "line@12:  f(x)", PatternTier.LINE, "f(x)", 12
    )
    line = Pattern("line:return f(x)", PatternTier.LINE, "return f(x)")
    assert line_pattern("    return f(x)  ") == line
    assert not match_name(line, "return f(x)")  # never a name


def test_a_counted_line_pattern_may_count_blank_lines() -> None:
    """``line*N:`` (issue 43): the count of a line, blank lines included."""
    assert parse_pattern("line*6:  block.sync();") == Pattern(
        "line*6:  block.sync();", PatternTier.LINE, "block.sync();", count=6
    )
    blank = parse_pattern("line*0:")
    assert blank == Pattern("line*0:", PatternTier.LINE, "", count=0)
    assert match_text(blank, "   ")
    assert not match_text(blank, "x")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        pytest.param("", "empty pattern", id="empty"),
        pytest.param("  ", "empty pattern", id="blank"),
        pytest.param("\t", "empty pattern", id="tab"),
        pytest.param(" x", "pattern ' x' has leading or trailing whitespace", id="leading"),
        pytest.param("x\n", "pattern 'x\\n' has leading or trailing whitespace", id="trailing"),
        pytest.param("re:", "empty regular expression after 're:'", id="empty-regex"),
        pytest.param(
            "re:(",
            "bad regular expression '(': missing ), unterminated subpattern at position 0",
            id="bad-regex",
        ),
        pytest.param(
            "re:a{2,1}",
            "bad regular expression 'a{2,1}': min repeat greater than max repeat at position 2",
            id="bad-repeat",
        ),
        pytest.param("=", "empty name after '='", id="empty-exact"),
        pytest.param(
            "line:",
            "pattern 'line:': empty line (blank lines cannot be told apart; 'line*N:' counts them)",
            id="empty-line",
        ),
        pytest.param(
            "line*x:y",
            "pattern 'line*x:y': write 'line*N:TEXT' with N a count from 0",
            id="counted-without-number",
        ),
        pytest.param(
            "line*01:y",
            "pattern 'line*01:y': write 'line*N:TEXT' with N a count from 0",
            id="counted-with-a-leading-zero",
        ),
        pytest.param(
            "line@0:x",
            "pattern 'line@0:x': write 'line@N:TEXT' with N a line number from 1",
            id="pinned-at-zero",
        ),
        pytest.param(
            "line@x",
            "pattern 'line@x': write 'line@N:TEXT' with N a line number from 1",
            id="pinned-without-number",
        ),
    ],
)
def test_parse_pattern_rejects(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        parse_pattern(text)


@pytest.mark.parametrize(
    ("pattern", "name", "qualified", "expected"),
    [
        pytest.param("sm120", "enable_sm120", (), True, id="substring-inside"),
        pytest.param("sm120", "SM120", (), False, id="substring-case-sensitive"),
        pytest.param("sm120", "sm12", (), False, id="substring-shorter"),
        pytest.param("sm_*", "sm_90", (), True, id="glob-whole"),
        pytest.param("sm_*", "use_sm_90", (), False, id="glob-anchored-start"),
        pytest.param("*_90", "sm_90_x", (), False, id="glob-anchored-end"),
        pytest.param("sm?0", "sm90", (), True, id="glob-question"),
        pytest.param("sm?0", "sm900", (), False, id="glob-question-one-char"),
        pytest.param("sm[89]0", "sm80", (), True, id="glob-class"),
        pytest.param("sm[!89]0", "sm80", (), False, id="glob-negated-class"),
        pytest.param("sm[!89]0", "sm70", (), True, id="glob-negated-class-other"),
        pytest.param("Sm*", "sm90", (), False, id="glob-case-sensitive"),
        pytest.param("a.*", "a.b.c", (), True, id="glob-star-crosses-dots"),
        pytest.param("re:sm1[0-9]{2}", "use_sm120", (), True, id="regex-search"),
        pytest.param("re:^sm", "use_sm120", (), False, id="regex-anchor"),
        pytest.param("re:SM", "sm", (), False, id="regex-case-sensitive"),
        pytest.param("=flag", "flag", (), True, id="exact"),
        pytest.param("=flag", "flags", (), False, id="exact-longer"),
        pytest.param("=flag", "my_flag", (), False, id="exact-inside"),
        pytest.param("torch.cuda", "cuda", ("torch.cuda",), True, id="qualified-same"),
        pytest.param("torch.cuda", "sync", ("torch.cuda.sync",), True, id="qualified-inside"),
        pytest.param("torch.cuda", "x", ("torch.cudax",), False, id="qualified-not-prefix-word"),
        pytest.param("torch.cuda", "torch", ("torch",), False, id="qualified-parent"),
        pytest.param("torch.cuda", "torch.cuda", (), False, id="qualified-needs-resolution"),
        pytest.param("torch.cuda", "c", ("os.path", "torch.cuda.c"), True, id="qualified-any"),
        pytest.param("a.b.c", "c", (".b.c",), True, id="relative-completes-to-it"),
        pytest.param("a.b.c", "d", (".c.d",), True, id="relative-inside-it"),
        pytest.param("a.b.c", "x", (".b.x",), False, id="relative-other-leaf"),
        pytest.param("a.b.c", "c", (".x.c",), False, id="relative-other-parent"),
        pytest.param("a.b", "b", (".b",), True, id="relative-last-part"),
        pytest.param("a.b", "a", (".a",), False, id="relative-first-part-only"),
    ],
)
def test_match_name(pattern: str, name: str, qualified: tuple[str, ...], expected: bool) -> None:
    assert match_name(parse_pattern(pattern), name, qualified) is expected


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        pytest.param("sm120", "# enable sm120 later", True, id="substring"),
        pytest.param("sm120", "SM120", False, id="substring-case"),
        pytest.param("torch.cuda", "see torch.cuda.sync()", True, id="qualified-literally"),
        pytest.param("torch.cuda", "see torch . cuda", False, id="qualified-spelt-otherwise"),
        pytest.param("re:sm1\\d\\d", "arch = 'sm120'", True, id="regex"),
        pytest.param("re:^x", "a x", False, id="regex-anchored"),
        pytest.param("=flag", "set flag here", True, id="exact-word"),
        pytest.param("=flag", "set flags here", False, id="exact-not-part-of-word"),
        pytest.param("=flag", "flag_x", False, id="exact-underscore-joins-word"),
        pytest.param("=flag", "x(flag)", True, id="exact-punctuation-splits"),
        pytest.param("=a.b", "use a.b now", True, id="exact-dotted-word"),
        pytest.param("=b", "use a.b now", True, id="exact-dot-splits-identifiers"),
        pytest.param("=is_x", 'python -c "m.is_x()"', True, id="exact-attribute-in-a-command"),
        pytest.param("is_sm1*_y", "v: a.b.is_sm120_y", True, id="glob-last-part-of-dotted"),
        pytest.param("=--fast", "run --fast now", True, id="exact-whitespace-word"),
        pytest.param("sm_*", "arch sm_90 here", True, id="glob-word"),
        pytest.param("sm_*", "arch use_sm_90 here", False, id="glob-whole-word"),
        pytest.param("*.cu", "build k.cu now", True, id="glob-dotted-word"),
        pytest.param("--f*", "run --fast", True, id="glob-whitespace-word"),
        pytest.param("line:f(x)", "    f(x)  ", True, id="line-stripped"),
        pytest.param("line:f(x)", "    f(x) # note", False, id="line-whole"),
        pytest.param("line:f(x)", "g(f(x))", False, id="line-not-part-of-one"),
    ],
)
def test_match_text(pattern: str, text: str, expected: bool) -> None:
    assert match_text(parse_pattern(pattern), text) is expected


@pytest.mark.parametrize(
    ("pattern", "needle"),
    [
        pytest.param("sm120", "sm120", id="substring"),
        pytest.param("=flag", "flag", id="exact"),
        pytest.param("torch.cuda.sync", "sync", id="qualified-last-part"),
        pytest.param("re:sm120", None, id="regex"),
        pytest.param("sm_*_x", "sm_", id="glob-longest-run"),
        pytest.param("a*long_part?b", "long_part", id="glob-middle"),
        pytest.param("[ab]x", "x", id="glob-class-dropped"),
        pytest.param("*", None, id="glob-nothing-literal"),
        pytest.param("?[ab]*", None, id="glob-only-wildcards"),
    ],
)
def test_prefilter_needle(pattern: str, needle: str | None) -> None:
    assert prefilter_needle(parse_pattern(pattern)) == needle


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        pytest.param("sm_*_x", "k = sm_90_x", id="glob"),
        pytest.param("a*long_part?b", "a_long_part_b = 1", id="glob-middle"),
        pytest.param("torch.cuda.sync", "from torch.cuda import sync", id="from-import"),
        pytest.param("torch.cuda.sync", "import torch\ntorch.cuda.sync()", id="attribute"),
        pytest.param("torch.cuda.sync", "import torch.cuda.sync as s", id="import-as"),
        pytest.param("=flag", "x = flag", id="exact"),
        pytest.param("line:x = flag", "if a:\n    x = flag\n", id="line"),
    ],
)
def test_prefilter_needle_is_in_matching_text(pattern: str, text: str) -> None:
    needle = prefilter_needle(parse_pattern(pattern))
    assert needle is not None
    assert needle in text


@pytest.mark.parametrize(
    ("glob", "path", "expected"),
    [
        pytest.param("a.py", "a.py", True, id="literal"),
        pytest.param("a.py", "b/a.py", False, id="literal-anchored"),
        pytest.param("a.py", "a.pyc", False, id="literal-whole"),
        pytest.param("a.py", "aXpy", False, id="dot-is-literal"),
        pytest.param("*.py", "a.py", True, id="star"),
        pytest.param("*.py", "src/a.py", False, id="star-one-segment"),
        pytest.param("*.py", ".hidden.py", False, id="star-skips-hidden"),
        pytest.param(".*.py", ".hidden.py", True, id="hidden-spelt"),
        pytest.param("src/*", "src/a.py", True, id="star-segment"),
        pytest.param("src/*", "src/a/b.py", False, id="star-segment-not-deeper"),
        pytest.param("src/*", "src/.env", False, id="star-segment-skips-hidden"),
        pytest.param("src/a*", "src/a.py", True, id="star-after-literal"),
        pytest.param("a?.py", "ab.py", True, id="question"),
        pytest.param("a?.py", "a/.py", False, id="question-not-slash"),
        pytest.param("?.py", ".py", False, id="question-skips-hidden"),
        pytest.param("sm[89]0.py", "sm80.py", True, id="class"),
        pytest.param("sm[89]0.py", "sm70.py", False, id="class-miss"),
        pytest.param("sm[!89]0.py", "sm70.py", True, id="negated-class"),
        pytest.param("sm[!89]0.py", "sm80.py", False, id="negated-class-miss"),
        pytest.param("a[!x]b", "a/b", False, id="negated-class-not-slash"),
        pytest.param("sm[0-9].py", "sm5.py", True, id="class-range"),
        pytest.param("sm[0-9].py", "sm-.py", False, id="class-range-not-dash"),
        pytest.param("a[.py", "a[.py", True, id="unclosed-bracket-literal"),
        pytest.param("**", "a.py", True, id="doublestar-file"),
        pytest.param("**", "a/b/c.py", True, id="doublestar-deep"),
        pytest.param("**", ".git/config", False, id="doublestar-skips-hidden-dir"),
        pytest.param("**", "a/.env", False, id="doublestar-skips-hidden-file"),
        pytest.param("src/**", "src/a/b.py", True, id="doublestar-under"),
        pytest.param("src/**", "src", False, id="doublestar-under-needs-something"),
        pytest.param("src/**", "lib/a.py", False, id="doublestar-under-other"),
        pytest.param("src/**/*.py", "src/a.py", True, id="doublestar-zero-segments"),
        pytest.param("src/**/*.py", "src/a/b/c.py", True, id="doublestar-many-segments"),
        pytest.param("src/**/*.py", "src/a/b/c.pyi", False, id="doublestar-anchored-end"),
        pytest.param("src/**/*.py", "src/.venv/x.py", False, id="doublestar-skips-hidden"),
        pytest.param("src/**/*.py", "srcx/a.py", False, id="doublestar-literal-prefix"),
        pytest.param(".venv/**/*.py", ".venv/lib/x.py", True, id="hidden-root-spelt"),
        pytest.param("**/test_*.py", "tests/unit/test_a.py", True, id="leading-doublestar"),
        pytest.param("**/test_*.py", "test_a.py", True, id="leading-doublestar-zero"),
    ],
)
def test_compile_path_glob(glob: str, path: str, expected: bool) -> None:
    assert (compile_path_glob(glob).match(path) is not None) is expected


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        pytest.param("a.py", False, id="literal"),
        pytest.param("src/a.b.py", False, id="literal-dots"),
        pytest.param("*.py", True, id="star"),
        pytest.param("a?.py", True, id="question"),
        pytest.param("a[0].py", True, id="bracket"),
        pytest.param("src/**", True, id="doublestar"),
    ],
)
def test_is_path_glob(entry: str, expected: bool) -> None:
    assert is_path_glob(entry) is expected


@pytest.mark.parametrize(
    ("entry", "base"),
    [
        pytest.param("*.py", "", id="root"),
        pytest.param("src/*.py", "src", id="one"),
        pytest.param("src/pkg/**/*.py", "src/pkg", id="stops-at-doublestar"),
        pytest.param("src/p*/a/*.py", "src", id="stops-at-first-glob"),
        pytest.param("src/a.py", "src", id="literal"),
    ],
)
def test_glob_base(entry: str, base: str) -> None:
    assert glob_base(entry) == base


@pytest.mark.parametrize(
    ("body", "why"),
    [
        pytest.param("(sm)\\1", "invalid escape sequence: \\1", id="backreference"),
        pytest.param("sm(?=120)", "invalid perl operator: (?=", id="lookahead"),
        pytest.param("(?<!x)sm", "invalid perl operator: (?<!", id="lookbehind"),
    ],
)
def test_parse_pattern_rejects_what_re2_cannot_run(body: str, why: str) -> None:
    message = (
        f"regular expression {body!r} cannot run on RE2 ({why}): re: patterns use RE2 syntax, "
        "which runs in linear time but has no backreferences nor lookaround"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        parse_pattern("re:" + body)


def test_a_backtracking_regex_matches_in_linear_time() -> None:
    """RE2 answers at once where ``re`` would backtrack 2**40 times."""
    pattern = parse_pattern("re:(a+)+$")
    assert not match_name(pattern, "a" * 40 + "b")
    assert not match_text(pattern, "x = '" + "a" * 40 + "b'")
    assert match_name(pattern, "b" + "a" * 40)


@pytest.mark.parametrize(
    ("glob", "matching", "not_matching"),
    [
        pytest.param("[]a]x", ("]x", "ax"), ("bx", "[]a]x", "]ax"), id="bracket-first-in-class"),
        pytest.param("a]b[cd]", ("a]bc", "a]bd"), ("a]b[cd]", "abc", "a]be"), id="bracket-before"),
        pytest.param("[ab][cd]", ("ac", "bd"), ("ab", "cd", "a", "acd"), id="two-classes"),
        pytest.param("a[b].py", ("ab.py",), ("a[b].py", "a.py", "ac.py"), id="one-char-class"),
        pytest.param("[!a].py", ("!.py", "b.py"), ("a.py", "/.py"), id="negated-matches-bang"),
        pytest.param("a[-]b", ("a-b",), ("a\\b", "ab"), id="dash-alone"),
        pytest.param("x[a-c]", ("xb",), ("x-", "xd"), id="range"),
        pytest.param("[.]x", (), (".x", "ax"), id="class-of-dot-is-hidden"),
        pytest.param("?py", ("xpy",), (".py",), id="question-skips-hidden"),
        pytest.param("[!a]*", ("env", "b"), (".env", "a"), id="negated-class-skips-hidden"),
        pytest.param("[.e]*", ("env",), (".env",), id="class-skips-hidden"),
        pytest.param("d/?py", ("d/xpy",), ("d/.py",), id="question-skips-hidden-below"),
        pytest.param("x?", ("x.",), ("x/",), id="question-after-literal-takes-a-dot"),
        pytest.param("a.*", ("a.b",), ("a.b/c",), id="star-after-literal"),
        pytest.param("*", ("a",), (".a", "a/b"), id="star-alone"),
        pytest.param("a+b", ("a+b",), ("aab", "ab"), id="regex-characters-are-literal"),
    ],
)
def test_compile_path_glob_classes_and_hidden_files(
    glob: str, matching: tuple[str, ...], not_matching: tuple[str, ...]
) -> None:
    compiled = compile_path_glob(glob)
    assert [path for path in matching if compiled.match(path) is None] == []
    assert [path for path in not_matching if compiled.match(path) is not None] == []


def test_compile_path_glob_of_a_class_at_the_end_of_a_folder() -> None:
    compiled = compile_path_glob("s[rc]/[ab]*.py")
    assert compiled.match("sr/a.py")
    assert compiled.match("sc/b1.py")
    assert not compiled.match("sr/c.py")
    assert not compiled.match("sr/.a.py")
    assert not compiled.match("sr/a.pyc")


@pytest.mark.parametrize(
    ("pattern", "qualified", "expected"),
    [
        pytest.param("a.b.c", ("a.b.c",), True, id="the-name-itself"),
        pytest.param("a.b.c", ("a.b.c.d",), False, id="not-inside-it"),
        pytest.param("a.b.c", ("a.b",), False, id="not-its-parent"),
        pytest.param("a.b.c", ("a.b.cx",), False, id="not-a-longer-word"),
        pytest.param("a.b.c", ("x.a.b.c",), False, id="not-below-another"),
        pytest.param("a.b.c", (".b.c",), True, id="relative-completes-to-it"),
        pytest.param("a.b.c", (".c",), True, id="relative-last-part"),
        pytest.param("a.b.c", (".a.b.c",), True, id="relative-whole"),
        pytest.param("a.b.c", (".x.c",), False, id="relative-other-parent"),
        pytest.param("a.b.c", (".b",), False, id="relative-not-its-parent"),
        pytest.param("a.b.c", (".c.d",), False, id="relative-not-inside-it"),
        pytest.param("a.b.c", (".bc",), False, id="relative-not-a-longer-word"),
        pytest.param("a.b.c", ("o.p", "a.b.c"), True, id="any-target"),
        pytest.param("a.b.c", ("a.b.c.d", ".c.d"), False, id="no-target"),
        pytest.param("a.b.c", (), False, id="unresolved"),
    ],
)
def test_match_name_of_a_definition(
    pattern: str, qualified: tuple[str, ...], expected: bool
) -> None:
    """Without ``inside`` (a definition) only the pattern's own name matches."""
    assert match_name(parse_pattern(pattern), "c", qualified, inside=False) is expected


def test_inside_is_the_only_difference_for_a_name_within_the_pattern() -> None:
    pattern = parse_pattern("a.b")
    assert match_name(pattern, "c", ("a.b.c",))
    assert match_name(pattern, "c", ("a.b.c",), inside=True)
    assert not match_name(pattern, "c", ("a.b.c",), inside=False)
    for other in ("sm*", "sm", "=sm", "re:sm", "line:sm"):
        # the other tiers look at the name, not at what it resolves to
        assert match_name(parse_pattern(other), "sm", (), inside=False) is (other != "line:sm")


@pytest.mark.parametrize(
    ("pattern", "needle"),
    [
        pytest.param("ab*z", "ab", id="longest-run-first"),
        pytest.param("z*ab", "ab", id="longest-run-last"),
        pytest.param("a?bcd[xy]ef", "bcd", id="longest-run-between"),
        pytest.param("[xyz]ab", "ab", id="class-is-no-literal"),
        pytest.param("ab[xyzw]", "ab", id="class-at-the-end"),
        pytest.param("a[]b]cd", "cd", id="bracket-first-in-class"),
        pytest.param("a[!]b]cd", "cd", id="bracket-first-in-negated-class"),
        pytest.param("ab[!x]", "ab", id="negated-class"),
        pytest.param("a[bcd", "a", id="unclosed-class-dropped-to-the-end"),
        pytest.param("x*y", "x", id="a-tie-takes-the-first"),
        pytest.param("**", None, id="stars"),
    ],
)
def test_prefilter_needle_of_a_glob(pattern: str, needle: str | None) -> None:
    assert prefilter_needle(parse_pattern(pattern)) == needle


@pytest.mark.parametrize(
    ("pattern", "name"),
    [
        pytest.param("a[]b]cd", "abcd", id="bracket-member"),
        pytest.param("a[]b]cd", "a]cd", id="bracket-itself"),
        pytest.param("a[!]b]cd", "a!cd", id="negated"),
        pytest.param("x[ab]yz[", "xayz[", id="unclosed-is-literal"),
    ],
)
def test_a_glob_needle_is_in_every_name_it_matches(pattern: str, name: str) -> None:
    """A needle that a matching name lacks would skip the file: a false clean."""
    parsed = parse_pattern(pattern)
    assert match_name(parsed, name)
    needle = prefilter_needle(parsed)
    assert needle is None or needle in name


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("a{4294967296}", id="overflow"),
        pytest.param("(" * 2000 + ")" * 2000, id="recursion"),
    ],
)
def test_parse_pattern_rejects_a_regex_too_large_for_re(body: str) -> None:
    message = f"regular expression {body!r} is too large to compile"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        parse_pattern("re:" + body)


def test_a_regex_re2_refuses_is_reported_once_and_not_logged(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """RE2 logs a refused pattern to the process's stderr unless told not to: the manifest's
    message is the one report (a CI log would show both)."""
    with pytest.raises(ValueError, match="cannot run on RE2"):
        parse_pattern("re:(?=only-here-1)")
    assert match_name(parse_pattern("re:only-here-2"), "x_only-here-2")
    assert capfd.readouterr().err == ""


@pytest.mark.parametrize("code", [0xD800, 0xDBFF, 0xDC80, 0xDFFF], ids=hex)
def test_a_lone_surrogate_reaches_re2_as_one_replacement_character(code: int) -> None:
    lone = chr(code)  # "\ud800" is a valid literal: RE2 matches UTF-8, which cannot encode it
    assert match_text(parse_pattern("re:^a.b$"), f"a{lone}b")
    assert match_text(parse_pattern("re:^a\ufffdb$"), f"a{lone}b")
    assert not match_text(parse_pattern("re:^ab$"), f"a{lone}b")


@pytest.mark.parametrize(
    ("text", "expected"), [("a\u00e9b", True), ("a-b", True), ("a\ud7ffb", True), ("ab", False)]
)
def test_text_without_a_surrogate_reaches_re2_as_it_is(text: str, expected: bool) -> None:
    assert match_text(parse_pattern("re:^a.b$"), text) is expected
    assert not match_text(parse_pattern("re:\ufffd"), text)


@pytest.mark.parametrize(
    ("text", "body", "as_written"),
    [
        ("ab\u2070", "ab0", "ab\u2070"),  # superscript zero: NFKC makes it a digit
        ("=\ufb01le", "file", "\ufb01le"),  # the fi ligature; '=' is not written text
        ("m.\ufb01*", "m.fi*", "m.\ufb01*"),
        ("=plain", "plain", "plain"),
        ("os.path", "os.path", "os.path"),
    ],
)
def test_a_name_pattern_is_read_as_python_reads_a_name_and_kept_as_written(
    text: str, body: str, as_written: str
) -> None:
    pattern = parse_pattern(text)
    assert (pattern.body, written(pattern)) == (body, as_written)
    assert as_name(as_written) == body.removeprefix("=")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("x = 'ab\u2070'", True),  # free text holds the pattern as written
        ("x = ab0", True),  # and as Python reads the name
        ("x = '\u00e9'", False),  # text that is not ASCII holds neither
        ("x = 'ab'", False),
    ],
)
def test_free_text_matches_a_pattern_as_written_or_as_read(text: str, expected: bool) -> None:
    assert match_text(parse_pattern("ab\u2070"), text) is expected


@pytest.mark.parametrize(
    ("pattern", "needles"),
    [
        (parse_pattern("foo"), ("foo",)),
        (parse_pattern("a.b.c"), ("c",)),
        (parse_pattern("re:fo+"), (None,)),
        (parse_pattern("ab\u2070"), ("ab0", "ab\u2070")),  # as read, and as written
        (parse_pattern("=ab\u2070"), ("ab0", "ab\u2070")),
        (parse_pattern("*ab\u2070*"), ("ab0", "ab\u2070")),
        # a qualified name spelt through a module alias: the last names it may be used by
        (dataclasses.replace(parse_pattern("a.b.c"), needles=("c", "alias")), ("c", "alias")),
        # only a qualified pattern has such needles
        (dataclasses.replace(parse_pattern("foo"), needles=("x",)), ("foo",)),
    ],
)
def test_prefilter_needles_as_read_and_as_written(
    pattern: Pattern, needles: tuple[str | None, ...]
) -> None:
    assert prefilter_needles(pattern) == needles


@given(st.characters(exclude_characters="*?[."))
def test_a_pattern_is_code_blind_exactly_where_python_reads_no_single_name(char: str) -> None:
    """Python's parser is the oracle: ``a<char>b`` (NFKC-normalised, as a pattern is) is one
    name, or a pattern holding it matches no name of code (a glob's wildcards and a module
    path's dots aside)."""
    text = f"a{char}b"
    read_as = unicodedata.normalize("NFKC", text)
    try:
        read = ast.parse(read_as, mode="eval").body
        one_name = isinstance(read, ast.Name) and read.id == read_as
    except (SyntaxError, ValueError):  # ValueError: a NUL byte
        one_name = False
    for spelt in (text, f"={text}", f"{text}*"):
        try:
            pattern = parse_pattern(spelt)
        except ValueError:  # whitespace at an end: refused before any check
            continue
        assert (code_blind(pattern) == "") == one_name, (spelt, pattern.tier)


@pytest.mark.parametrize(
    ("text", "greps"),
    [
        ("re:sm120", True),  # every regex: its matches are not guessed
        ("re:f\\(", True),
        ("is_sm120_supported()", True),
        ("x = 1", True),
        ("sm120", False),  # a name holds it: the scan's
        ("one\ntwo", False),  # no line holds it
        ("one\rtwo", False),
        ("=f()", False),  # exact and glob patterns match whole words only
        ("f*()", False),
        ("line:f()", False),
        ("a.f", False),  # qualified
    ],
)
def test_which_patterns_are_searched_on_code_lines(text: str, greps: bool) -> None:
    assert greps_code(parse_pattern(text)) is greps


@pytest.mark.parametrize(
    ("body", "text", "spans"),
    [
        ("ab", "ab ab", [(0, 2), (3, 5)]),
        ("a+", "aaa a", [(0, 3), (4, 5)]),  # no overlap: the longest, then on
        ("x*", "ab", [(0, 0), (1, 1), (2, 2)]),  # an empty match steps one on, the end too
        ("b", "", []),
        ("\\(", "f(a(b))", [(1, 2), (3, 4)]),
        (".", "\ud800b", [(0, 1), (1, 2)]),  # a lone surrogate: one column, no crash
    ],
)
def test_a_regex_s_spans_are_grep_o_s(body: str, text: str, spans: list[tuple[int, int]]) -> None:
    assert list(regex_spans(parse_pattern("re:" + body), text)) == spans
