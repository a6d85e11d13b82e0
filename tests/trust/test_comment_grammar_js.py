"""JavaScript and TypeScript comments held to tree-sitter on programs drawn from a small
grammar of nested expressions and statements: divisions and regular expressions after every
kind of token, templates inside substitutions inside templates, objects, blocks, arrows,
``if`` conditions, comments between any two tokens, each literal and comment holding an
allow (``# cleantree: allow r7 -- why``) and the characters that would end it early read
wrongly (``//``, ``/*``, quotes, backquotes).

The property: no allow the model counts is in tree-sitter's data, and once the model misses
one it counts none after it (where it cannot tell a division from a regular expression it
reads the rest of the file as data, never a guess).
"""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from treesitter import comment_allows, model_allows, parse

A = "@A@"

NAMES = st.sampled_from(["a", "b", "x.y", "this", "x.return", "x.if(a)", "arr[0]", "f(a)"])
NUMBERS = st.sampled_from(["1", "2.5", "0x1F", "1e+3", ".5"])
STRINGS = st.sampled_from([f'"{A}"', f"'// {A}'", f'"/* {A} `"', f"'\\' {A} \"'", f'"a \\\n{A}"'])
REGEXES = st.sampled_from([f"/{A}/", f"/[/]{A}/g", f"/\\/\\/ {A} '/", f'/"{A}`/i'])
OPERATORS = st.sampled_from([" + ", " - ", " * ", " / ", " % ", " < ", " > ", " && ", " == "])
COMMENTS = st.sampled_from(["", "", f" /* {A} */ ", f" /* ' ` {A} */ ", f" // {A}\n"])


def template(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    parts = st.lists(st.one_of(st.just(f"x // {A} "), inner.map(lambda e: "${" + e + "}")))
    return parts.map(lambda items: "`" + "\n".join(items) + "`")


def expressions() -> st.SearchStrategy[str]:
    atoms = st.one_of(NAMES, NUMBERS, STRINGS, REGEXES)

    def extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.one_of(
            st.tuples(inner, COMMENTS, OPERATORS, COMMENTS, inner).map("".join),
            inner.map(lambda e: f"({e})"),
            inner.map(lambda e: f"[{e}]"),
            inner.map(lambda e: f"{{ k: {e} }}"),
            inner.map(lambda e: f"(() => {e})"),
            inner.map(lambda e: f"typeof {e}"),
            inner.map(lambda e: f"!{e}"),
            inner.map(lambda e: f"a ? {e} : {e}"),
            template(inner),
        )

    return st.recursive(atoms, extend, max_leaves=8)


def statements() -> st.SearchStrategy[str]:
    expression = expressions()
    simple = st.one_of(
        expression.map(lambda e: f"{e};"),
        expression.map(lambda e: f"let v = {e};"),
        st.tuples(expression, expression).map(lambda p: f"if ({p[0]}) {p[1]};"),
        st.tuples(expression, expression).map(lambda p: f"if ({p[0]}) {{ {p[1]}; }}"),
        expression.map(lambda e: f"return {e};"),
        expression.map(lambda e: f"x++; {e};"),
        st.just(f"// {A}"),
        st.just(f"/* {A}\n {A} */"),
    )
    return st.lists(st.tuples(simple, COMMENTS).map("".join), min_size=1, max_size=6)


def numbered(text: str) -> str:
    count = 0
    while A in text:
        count += 1
        text = text.replace(A, f"# cleantree: allow r{count} -- why", 1)
    return text


def check(language: str, body: list[str], newline: str) -> None:
    text = numbered("function main(a, x, arr, f) {\n" + "\n".join(body) + "\n}\n")
    text = text.replace("\n", newline)
    data = text.encode()
    assume(not parse(language, data).root_node.has_error)
    oracle = comment_allows(language, data)
    ours = model_allows(language, text)
    assert ours <= oracle, f"counted allows tree-sitter reads as data: {ours - oracle}\n{text}"
    missed = oracle - ours
    assert not ours or not missed or min(missed) > max(ours), (
        f"missed {sorted(missed)} before counting {max(ours)}\n{text}"
    )


HEALTH = [HealthCheck.too_slow, HealthCheck.filter_too_much]
NEWLINES = st.sampled_from(["\n", "\r\n"])


@settings(max_examples=150, deadline=None, suppress_health_check=HEALTH)
@given(statements(), NEWLINES)
def test_javascript_programs(body: list[str], newline: str) -> None:
    check("javascript", body, newline)


@settings(max_examples=150, deadline=None, suppress_health_check=HEALTH)
@given(statements(), NEWLINES)
def test_typescript_programs(body: list[str], newline: str) -> None:
    check("typescript", body, newline)
