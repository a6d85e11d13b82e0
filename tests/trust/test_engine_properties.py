"""Ground truth by construction: generated modules place a marker at known places.

Each snippet knows the line (relative to itself) and kind of every occurrence
of the marker it contains.  Hypothesis composes snippets, indents them with
spaces or tabs, picks LF, CRLF or lone CR line endings, and adds a BOM and a PEP 263
coding line; the engine must report exactly the placed occurrences.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_cleantree.analysis import Finding, analyze, analyze_reference
from pytest_cleantree.core.patterns import parse_pattern

M = "sm120x"


@dataclass(frozen=True)
class Snippet:
    lines: tuple[str, ...]
    #: (line index within the snippet, kind) of every occurrence of the marker
    expected: tuple[tuple[int, str], ...]
    #: the lines that continue a string literal: indenting them would change the string
    verbatim: tuple[int, ...] = ()
    #: a form feed resets indentation: only at the top level
    top_level_only: bool = False


SNIPPETS = (
    Snippet(("from pkg.mod import (", "    alpha,", f"    {M},", ")"), ((2, "import"),)),
    Snippet(("from pkg.mod import (", f"    thing as {M}_alias,", ")"), ((1, "import"),)),
    Snippet((f"import {M}.sub as other",), ((0, "import"),)),
    Snippet((f"from {M}_pkg import name",), ((0, "import"),)),
    Snippet(
        (
            "def outer():",
            f"    def {M}_inner(a, b={M}_default):",
            "        return a",
            "    return 0",
        ),
        ((1, "definition"), (1, "reference")),
    ),
    Snippet(("@decorator", f"class {M}Class:", "    pass"), ((1, "definition"),)),
    Snippet((f"call(arg, {M}=1)",), ((0, "reference"),)),
    Snippet((f"fn = lambda {M}: {M}",), ((0, "definition"), (0, "reference"))),
    Snippet((f"vals = [x for x in xs if x.{M}]",), ((0, "condition"),)),
    Snippet(("match value:", f"    case [*{M}]:", "        pass"), ((1, "assignment"),)),
    Snippet((f'text = f"{{{M}}} and more"',), ((0, "reference"),)),
    Snippet((f"if ({M} := compute()):", "    pass"), ((0, "assignment"),)),
    Snippet(("def g():", f"    global {M}", "    return 1"), ((1, "reference"),)),
    Snippet(("try:", "    pass", f"except ValueError as {M}:", "    pass"), ((2, "assignment"),)),
    Snippet((f"value: {M}Type = 1",), ((0, "reference"),)),
    Snippet((f'label = "{M} text"',), ((0, "string"),)),
    Snippet((f"blob = b'{M}'",), ((0, "string"),)),
    Snippet((f"x = 1  # {M} note",), ((0, "comment"),)),
    Snippet(("def h():", f'    """{M} docs."""', "    return 0"), ((1, "docstring"),)),
    Snippet(("total = first + \\", f"    {M}_second"), ((1, "reference"),)),
    Snippet(("if (alpha and", f"        {M}_check()):", "    pass"), ((1, "condition"),)),
    Snippet(("value = (obj", f"         .{M})"), ((1, "reference"),)),
    Snippet(("run(", "    1,", f"    key={M}_value,", ")"), ((2, "reference"),)),
    Snippet((f"{M}_result = compute()",), ((0, "assignment"),)),
    Snippet((f"obj.{M}_attr = 1",), ((0, "assignment"),)),
    Snippet((f"for {M}_item in items:", "    pass"), ((0, "assignment"),)),
    Snippet((f"with open(p) as {M}_handle:", "    pass"), ((0, "assignment"),)),
    Snippet((f"assert {M}_ok",), ((0, "condition"),)),
    Snippet((f"y = a if {M}_flag else b",), ((0, "condition"),)),
    Snippet(("while (", f"    {M}_busy()", "):", "    break"), ((1, "condition"),)),
    Snippet(("s = '''first", f"second {M}", "third'''"), ((1, "string"),)),
    Snippet(("def typed(", f"    arg: {M}T,", ") -> None:", "    pass"), ((1, "reference"),)),
    Snippet(("filler = 1",), ()),
    # what the tokenizer does to text before it reaches the tree (issue 11): each spells the
    # marker only once decoded, normalised or joined
    Snippet(('esc = "\\x73m120x"',), ((0, "string"),)),
    Snippet(('cont = "sm\\', '120x"'), ((0, "string"),), verbatim=(1,)),
    Snippet(('joined = ("sm"', '          "120x")'), ((0, "string"),)),
    Snippet(("\uff53\uff4d120x_call()",), ((0, "call"),)),
    Snippet(("import os.\\", f"    {M}"), ((1, "import"),)),
    Snippet(("\fdef fed():", f"    return {M}_fed"), ((1, "reference"),), top_level_only=True),
)


@st.composite
def modules(draw: st.DrawFn) -> tuple[bytes, set[tuple[int, str]]]:
    # at top level, in a block, or in a class body: the partial parse leaves out the
    # fillers (they spell no marker), as whole top-level pieces or as class members
    wrapper = draw(st.sampled_from(["", "if True:", "class Holder:"]))
    usable = [s for s in SNIPPETS if not (wrapper and s.top_level_only)]
    chosen = draw(st.lists(st.sampled_from(usable), min_size=1, max_size=6))
    indent = draw(st.sampled_from(["    ", "\t"])) if wrapper else ""
    fillers = draw(st.lists(st.booleans(), min_size=len(chosen) + 1, max_size=len(chosen) + 1))
    newline = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    bom = draw(st.booleans())
    coding = draw(st.sampled_from([None, "utf-8", "latin-1"]))
    if coding == "latin-1" and (bom or any(not line.isascii() for s in chosen for line in s.lines)):
        coding = "utf-8"  # a BOM says UTF-8, and latin-1 has no fullwidth letters
    lines: list[str] = []
    if coding:
        lines.append(f"# -*- coding: {coding} -*-")
    if wrapper:
        lines.append(wrapper)
    expected: set[tuple[int, str]] = set()
    for number, (snippet, filler) in enumerate(zip([*chosen, None], fillers, strict=True)):
        if filler:
            lines += [f"{indent}def filler_{number}(self):", f"{indent}    return {number}"]
        if snippet is None:
            break
        base = len(lines) + 1
        lines.extend(
            line if index in snippet.verbatim else indent + line
            for index, line in enumerate(snippet.lines)
        )
        expected |= {(base + offset, kind) for offset, kind in snippet.expected}
    text = newline.join(lines) + newline
    data = text.encode(coding or "utf-8")
    return (b"\xef\xbb\xbf" if bom else b"") + data, expected


@pytest.mark.slow
@given(modules())
def test_engine_reports_exactly_the_placed_occurrences(
    module: tuple[bytes, set[tuple[int, str]]],
) -> None:
    data, expected = module
    analysis = analyze("generated.py", data, [parse_pattern(M)])
    assert analysis.problem is None
    found = {(f.occurrence.line, f.occurrence.kind.value) for f in analysis.findings}
    assert found == expected
    # and the fast path is the reference path, finding for finding
    reference = analyze_reference("generated.py", data, [parse_pattern(M)])
    assert sorted(map(_placed, analysis.findings)) == sorted(map(_placed, reference.findings))


def _placed(finding: Finding) -> tuple[int, int, str]:
    return (finding.occurrence.line, finding.occurrence.col, finding.occurrence.kind.value)
