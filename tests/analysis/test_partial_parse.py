"""Partial parsing: only the top-level units that can hold an occurrence are parsed.

The answer must be the one a whole-file parse gives; these tests pin down
where units start, what is kept, and that every way of getting it wrong
falls back to the whole file.
"""

from __future__ import annotations

import ast
import textwrap
from collections.abc import Iterable
from pathlib import Path

import pytest

from pytest_cleantree.analysis import Finding, analyze, analyze_reference, split_lines
from pytest_cleantree.analysis.aliases import AliasBinders
from pytest_cleantree.analysis.pieces import layout, parse_needed, top_level_units
from pytest_cleantree.analysis.text import PatternSet, TextViews
from pytest_cleantree.analysis.text import spelling_lines as _spelling_lines
from pytest_cleantree.core.model import Pattern
from pytest_cleantree.core.patterns import parse_pattern


def placed(findings: Iterable[Finding]) -> list[tuple[object, ...]]:
    """Findings as the differential tests compare them: what, where, and of which kind.

    (What a name resolves to is informational: a path that resolves more names, for
    patterns the file cannot spell, fills it in more often.)
    """
    return sorted(
        (f.pattern, f.occurrence.line, f.occurrence.col, f.occurrence.kind.value, f.occurrence.name)
        for f in findings
    )


def spelling_lines(text: str, patterns: list[Pattern]) -> set[int] | None:
    return _spelling_lines(TextViews(text, split_lines(text)), PatternSet.of(patterns))


def units(source: str) -> list[int]:
    return top_level_units(textwrap.dedent(source))


def parsed_lines(source: str, *patterns: str) -> set[int]:
    """The lines of the top-level statements that the partial parse kept."""
    text = textwrap.dedent(source)
    parsed = [parse_pattern(p) for p in patterns]
    binders = AliasBinders(PatternSet.of(parsed), "m", is_package=False)
    spelling = spelling_lines(text, parsed)
    tree = parse_needed(text, split_lines(text), "m.py", spelling, binders)
    return {stmt.lineno for stmt in tree.body}


def test_units_start_at_defs_classes_and_the_first_decorator() -> None:
    source = """\
        import os
        x = 1
        @deco
        @deco2(
            arg,
        )
        def f():
            pass
        y = 2
        class C:
            def method(self):
                pass
        async def g():
            pass
        """
    assert units(source) == [1, 3, 10, 13]


def test_starts_inside_strings_and_comments_are_not_units() -> None:
    source = '''\
        x = """
        def not_a_function():
        """
        y = 'a' # def nor this
        z = """escaped \\"""
        class NotAClass: pass
        """
        def real():
            pass
        '''
    assert units(source) == [1, 8]


def test_only_units_spelling_a_needle_are_parsed() -> None:
    source = """\
        import os
        def a():
            return 1
        def b():
            return sm120()
        class C:
            pass
        """
    assert parsed_lines(source, "sm120") == {1, 4}


def test_a_file_whose_kept_units_do_not_parse_is_parsed_whole() -> None:
    text = "import os\ndef a(:\n    sm120\ndef b():\n    pass\n"
    with pytest.raises(SyntaxError) as raised:
        parse_needed(
            text, split_lines(text), "m.py", spelling_lines(text, [parse_pattern("sm120")])
        )
    assert raised.value.lineno == 2


def test_a_syntax_error_elsewhere_is_reported_when_the_whole_file_is_needed() -> None:
    # the error stands in a unit that spells nothing: that unit is not parsed, as a file
    # that spells nothing is not parsed; the lines that spell the needle are still judged
    data = b"def a():\n    return sm120\ndef b(:\n    pass\n"
    result = analyze("m.py", data, [parse_pattern("sm120")])
    assert result.problem is None
    assert [(f.occurrence.line, f.occurrence.kind.value) for f in result.findings] == [
        (2, "reference")
    ]


def test_aliases_pull_in_the_units_that_use_them() -> None:
    source = """\
        def setup():
            pass
        from subprocess import Popen as launch
        def a():
            return 1
        def b():
            return launch()
        def c():
            launch = None
            return launch
        """
    assert parsed_lines(source, "subprocess.Popen") == {1, 3, 6, 8}
    found = analyze("m.py", textwrap.dedent(source).encode(), [parse_pattern("subprocess.Popen")])
    assert {(f.occurrence.line, f.occurrence.kind.value) for f in found.findings} == {
        (3, "import"),
        (7, "call"),
    }


def test_an_import_in_a_unit_that_spells_no_needle_is_still_seen() -> None:
    source = """\
        def helper():
            from sglang.srt import utils as u
            return u
        def use():
            return u.is_sm120_supported()
        """
    # ``u`` is bound in helper's scope only: use() does not see it, whatever is parsed
    assert parsed_lines(source, "sglang.srt.utils.is_sm120_supported") == {1, 4}


def test_a_module_on_the_way_is_followed_only_where_a_value_starts_with_it() -> None:
    source = """\
        import os
        def uses():
            return os.getcwd()
        p = os
        def more():
            return os.sep
        def other():
            return 1
        env = p.environ
        def reads():
            return env["HOME"]
        """
    # ``os`` spells the rest of ``os.environ`` wherever it is used for it, so more() is left
    # out; ``p = os`` (in uses()'s piece) is where a value starts with it, and then ``env``
    # stands for the pattern itself: reads() is kept though it spells no needle
    assert parsed_lines(source, "os.environ") == {1, 2, 4, 7, 9, 10}
    data = textwrap.dedent(source).encode()
    found = analyze("m.py", data, [parse_pattern("os.environ")])
    reference = analyze_reference("m.py", data, [parse_pattern("os.environ")])
    assert placed(found.findings) == placed(reference.findings)
    assert (11, "reference") in {
        (f.occurrence.line, f.occurrence.kind.value) for f in found.findings
    }


def test_an_alias_whose_value_leaves_the_patterns_path_is_not_followed() -> None:
    source = """\
        import subprocess
        pipe = subprocess.PIPE
        def a():
            return pipe
        def b():
            return subprocess.Popen
        """
    assert parsed_lines(source, "subprocess.Popen") == {1, 2, 5}


def test_a_name_that_is_only_ever_assigned_to_pulls_in_no_piece() -> None:
    source = """\
        import subprocess
        def a():
            return subprocess.Popen
        def b():
            handle = None
            return f(handle=1)
        def c():
            handle = subprocess.Popen
        """
    # ``handle`` stands for the pattern, but no spelling of it is a load: b() is left out
    assert parsed_lines(source, "subprocess.Popen") == {1, 2, 7}


@pytest.mark.parametrize("use", ["f'{handle=}'", "f'{handle = !r}'", "handle == 1", "handle"])
def test_one_spelling_that_may_load_the_name_pulls_in_every_piece(use: str) -> None:
    source = f"""\
        import subprocess
        handle = subprocess.Popen
        def a():
            return {use}
        def b():
            handle = None
        def c():
            return 1
        """
    assert parsed_lines(source, "subprocess.Popen") == {1, 2, 3, 5}
    data = textwrap.dedent(source).encode()
    found = analyze("m.py", data, [parse_pattern("subprocess.Popen")])
    reference = analyze_reference("m.py", data, [parse_pattern("subprocess.Popen")])
    assert placed(found.findings) == placed(reference.findings)
    assert 4 in {f.occurrence.line for f in found.findings}


STDLIB = Path(ast.__file__).parent
#: real code nobody here wrote: big classes, decorators, nested imports, odd strings
REAL_FILES = sorted(STDLIB.glob("[a-f]*.py")) + sorted((STDLIB / "unittest").glob("*.py"))
REAL_PATTERNS = ("warnings.warn", "os.path.join", "sys.exc_info", "Error", "_fields", "encod")


@pytest.mark.slow
@pytest.mark.parametrize("path", REAL_FILES, ids=lambda p: str(p.relative_to(STDLIB)))
def test_partial_equals_whole_on_real_files(path: Path) -> None:
    patterns = [parse_pattern(p) for p in REAL_PATTERNS]
    data = path.read_bytes()
    partial = analyze(path.name, data, patterns)
    whole = analyze_reference(path.name, data, patterns)
    assert partial.problem == whole.problem
    assert placed(partial.findings) == placed(whole.findings)


def test_class_members_are_pieces_and_a_left_out_member_leaves_a_pass() -> None:
    source = """\
        class C:
            \"\"\"The docstring.\"\"\"
            def a(self):
                return 1
            "sm120 in a string after a member"
            def b(self):
                return sm120()
        if True:
            def helper():
                return 2
        """
    text = textwrap.dedent(source)
    cut = layout(text)
    assert cut.starts == [1, 3, 6, 8]
    assert cut.indent == [None, "    ", "    ", None]
    assert cut.classes == (1,)
    found = analyze("m.py", text.encode(), [parse_pattern("sm120")])
    # not promoted to a docstring by the member left out before it
    assert {(f.occurrence.line, f.occurrence.kind.value) for f in found.findings} == {
        (5, "string"),
        (7, "call"),
    }


def test_a_class_ends_at_its_first_line_of_code_at_column_zero() -> None:
    source = '''\
        class C:
            x = """
        def inside_a_string(): pass
        """
            def a(self):
                pass
        if sm120:
            def b():
                pass
        '''
    cut = layout(textwrap.dedent(source))
    assert cut.starts == [1, 5, 7]
    assert cut.indent == [None, "    ", None]


def test_members_found_only_inside_nested_blocks_fall_back_to_the_whole_file() -> None:
    source = """\
        class C:
            if True:
                def a(self):
                    pass
                def b(self):
                    return sm120
        """
    text = textwrap.dedent(source)
    # the pieces are cut at the deeper level; the ``pass`` left for ``a`` would not be a
    # statement of the class body, so the cut is refused and the whole file is parsed
    spelling = spelling_lines(text, [parse_pattern("sm120")])
    tree = parse_needed(text, split_lines(text), "m.py", spelling)
    assert ast.dump(tree) == ast.dump(ast.parse(text))
