"""The engine on source strings: kinds, exact positions, qualified names, bad input."""

from __future__ import annotations

import sys
import textwrap

import pytest

from pytest_cleantree.analysis import (
    absolute_module,
    analyze,
    analyze_reference,
    module_name_for,
    split_lines,
)
from pytest_cleantree.core.model import Kind
from pytest_cleantree.core.patterns import parse_pattern


def found(source: str, *patterns: str, path: str = "pkg/mod.py") -> dict[int, set[str]]:
    """``{line: {kinds}}`` of every finding, for all patterns."""
    data = textwrap.dedent(source).encode()
    analysis = analyze(path, data, [parse_pattern(p) for p in patterns])
    assert analysis.problem is None, analysis.problem
    result: dict[int, set[str]] = {}
    for finding in analysis.findings:
        result.setdefault(finding.occurrence.line, set()).add(finding.occurrence.kind.value)
    return result


def test_multiline_from_import_reports_each_name_on_its_own_line() -> None:
    source = """\
        from sglang.srt.utils import (
            is_cuda,
            is_sm100_supported,
            is_sm120_supported,
        )
        """
    assert found(source, "sm120") == {4: {"import"}}
    assert found(source, "is_sm1*_supported") == {3: {"import"}, 4: {"import"}}


def test_alias_and_module_path_positions() -> None:
    source = """\
        import os.path as osp
        from x import (a as
            sm120_alias)
        from sm120.mod import thing
        """
    assert found(source, "sm120") == {3: {"import"}, 4: {"import"}}
    assert found(source, "osp") == {1: {"import"}}


def test_each_kind() -> None:
    source = '''\
        """Module docstring mentions sm120."""
        import sm120_lib
        def sm120_kernel(sm120_arg, *, flag=sm120_default):
            """Docstring sm120."""
            # a comment about sm120
            local_sm120 = 1
            if use_sm120:
                pass
            run_sm120()
            print(sm120_value)
            return "sm120 string"
        class Sm120Cls: pass
        '''
    assert found(source, "sm120") == {
        1: {"docstring"},
        2: {"import"},
        3: {"definition", "reference"},
        4: {"docstring"},
        5: {"comment"},
        6: {"assignment"},
        7: {"condition"},
        9: {"call"},
        10: {"reference"},
        11: {"string"},
    }
    assert found(source, "Sm120") == {12: {"definition"}}


@pytest.mark.parametrize(
    ("source", "line", "kind"),
    [
        ("x = a if is_sm120 else b\n", 1, "condition"),
        ("while sm120_pending():\n    pass\n", 1, "condition"),
        ("assert sm120_ok, 'message'\n", 1, "condition"),
        ("ys = [y for y in xs if y.sm120]\n", 1, "condition"),
        ("match v:\n    case 1 if sm120:\n        pass\n", 2, "condition"),
        ("if a:\n    pass\nelif b and sm120:\n    pass\n", 3, "condition"),
        ("if (sm120 := f()):\n    pass\n", 1, "assignment"),
        ("for sm120 in xs:\n    pass\n", 1, "assignment"),
        ("with f() as sm120:\n    pass\n", 1, "assignment"),
        ("try:\n    pass\nexcept E as sm120:\n    pass\n", 3, "assignment"),
        ("obj.sm120 = 1\n", 1, "assignment"),
        ("f(sm120=1)\n", 1, "reference"),
        ("global sm120\n", 1, "reference"),
        ("lambda sm120: 0\n", 1, "definition"),
        ("x = b'sm120'\n", 1, "string"),
        ("x = f'{sm120}'\n", 1, "reference"),
        ("x = f'a sm120 b {y}'\n", 1, "string"),
        ("match v:\n    case {'k': 1, **sm120}:\n        pass\n", 2, "assignment"),
        ("match v:\n    case [1, *sm120]:\n        pass\n", 2, "assignment"),
        ("match v:\n    case P(x=1) as sm120:\n        pass\n", 2, "assignment"),
        ("if x == 'sm120':\n    pass\n", 1, "string"),
    ],
)
def test_kind_by_place(source: str, line: int, kind: str) -> None:
    assert found(source, "sm120") == {line: {kind}}


def test_attribute_split_over_lines_reports_the_attribute_line() -> None:
    source = "value = (\n    torch.cuda\n    .sm120_flag\n)\n"
    assert found(source, "sm120") == {3: {"reference"}}


def test_multiline_string_reports_the_line_inside_the_string() -> None:
    source = 'x = """first\nsecond sm120\nthird"""\n'
    assert found(source, "sm120") == {2: {"string"}}


def test_escaped_string_still_found_at_its_first_line() -> None:
    assert found('x = "\\x73m120"\n', "sm120") == {1: {"string"}}


def test_glob_is_whole_name_and_substring_is_grep_like() -> None:
    source = "is_sm120_supported()\nsm120()\n"
    assert found(source, "sm1*") == {2: {"call"}}
    assert found(source, "sm120") == {1: {"call"}, 2: {"call"}}
    assert found(source, "re:^is_sm1[0-9]+") == {1: {"call"}}
    assert found(source, "=sm120") == {2: {"call"}}


def test_qualified_name_through_alias_and_module_import() -> None:
    source = """\
        from sglang.srt.utils import is_sm120_supported as fast_ok
        from sglang.srt import utils
        import sglang.srt.utils as u
        def fast_ok_unrelated(): pass
        if fast_ok():
            pass
        utils.is_sm120_supported()
        u.is_sm120_supported
        other.is_sm120_supported()
        """
    assert found(source, "sglang.srt.utils.is_sm120_supported") == {
        1: {"import"},
        5: {"condition"},
        7: {"call"},
        8: {"reference"},
    }


def test_qualified_name_respects_scopes() -> None:
    source = """\
        from sglang.srt.utils import is_sm120_supported as ok
        def f():
            ok = lambda: False
            return ok()
        def g():
            return ok()
        """
    assert found(source, "sglang.srt.utils.is_sm120_supported") == {1: {"import"}, 6: {"call"}}


def test_qualified_name_through_relative_import() -> None:
    source = "from ..utils import is_sm120_supported\nis_sm120_supported()\n"
    patterns = ("sglang.srt.utils.is_sm120_supported",)
    assert found(source, *patterns, path="srt/layers/communicator.py") == {
        1: {"import"},
        2: {"call"},
    }
    assert found(source, "sglang.other.is_sm120_supported", path="srt/layers/c.py") == {}


def test_module_names_and_relative_resolution() -> None:
    assert module_name_for("srt/layers/communicator.py") == "srt.layers.communicator"
    assert module_name_for("srt/__init__.py") == "srt"
    assert absolute_module("srt.layers.c", 2, "utils", is_package=False) == ".srt.utils"
    assert absolute_module("srt.layers", 1, "x", is_package=True) == ".srt.layers.x"
    assert absolute_module("a", 0, "b.c", is_package=False) == "b.c"


def test_non_ascii_columns_are_characters() -> None:
    analysis = analyze("m.py", "x = 'é'; sm120()\n".encode(), [parse_pattern("sm120")])
    assert [f.occurrence.col for f in analysis.findings] == [9]


def test_crlf_tabs_bom_and_coding_line() -> None:
    source = "\ufeff# -*- coding: utf-8 -*-\r\nif x:\r\n\tsm120()\r\n"
    analysis = analyze("m.py", source.encode("utf-8"), [parse_pattern("sm120")])
    assert [(f.occurrence.line, f.occurrence.kind) for f in analysis.findings] == [(3, Kind.CALL)]
    latin = "# coding: latin-1\ns = 'caf\xe9 sm120'\n".encode("latin-1")
    analysis = analyze("m.py", latin, [parse_pattern("sm120")])
    assert analysis.problem is None
    assert [f.occurrence.line for f in analysis.findings] == [2]


def test_form_feed_is_not_a_line_break() -> None:
    assert split_lines("a\fb\nc") == ("a\fb", "c")
    assert found("x = 1\n\f\nsm120()\n", "sm120") == {3: {"call"}}


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"def f(:\n    sm120()\n", "not valid Python"),
        (b"  x = 1\nsm120 = 2\n", "not valid Python"),
        (b"x = 1\x00\nsm120 = 2\n", "not valid Python"),
        (b"s = '\xff\xfe'\nsm120 = 1\n", "cannot decode"),
        (b"# coding: no-such-codec\nsm120 = 1\n", "cannot decode"),
    ],
)
def test_unparseable_files_are_problems_and_still_show_matching_lines(
    data: bytes, expected: str
) -> None:
    analysis = analyze("m.py", data, [parse_pattern("sm120")])
    assert analysis.problem is not None
    assert expected in analysis.problem
    assert [(f.occurrence.line, f.occurrence.kind) for f in analysis.findings] == [(2, Kind.TEXT)]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="PEP 695 parses on 3.12+")
def test_pep695_on_an_older_python_names_the_python_and_the_remedy() -> None:
    data = b"class _Communicator[T]:\n    sm120: T\n"
    analysis = analyze("m.py", data, [parse_pattern("sm120")])
    assert analysis.problem is not None
    assert f"Python {sys.version_info[0]}.{sys.version_info[1]}" in analysis.problem
    assert "another Python" in analysis.problem


@pytest.mark.skipif(sys.version_info < (3, 12), reason="PEP 695 needs 3.12+")
def test_pep695_type_parameters_are_definitions() -> None:
    assert found("class C[Sm120T]:\n    pass\n", "Sm120") == {1: {"definition"}}
    assert found("type Sm120Alias = int\n", "Sm120") == {1: {"assignment"}}


def test_text_files_are_matched_line_by_line() -> None:
    data = b"export NCCL_BUFFSIZE=1\n# NCCL_MIN_NCHANNELS in a comment\nok=1\n"
    analysis = analyze("env.sh", data, [parse_pattern("NCCL_"), parse_pattern("ok")])
    got = [(f.pattern, f.occurrence.line, f.occurrence.kind) for f in analysis.findings]
    assert got == [("NCCL_", 1, Kind.TEXT), ("NCCL_", 2, Kind.TEXT), ("ok", 3, Kind.TEXT)]


def test_files_without_the_needle_are_not_parsed() -> None:
    # invalid syntax, but the needle is absent: the prefilter proves no match is possible
    analysis = analyze("m.py", b"def f(:\n", [parse_pattern("sm120")])
    assert analysis.problem is None
    assert analysis.findings == ()


def test_a_definition_is_the_qualified_name_only_at_module_level() -> None:
    source = """\
        def is_sm120_supported():
            pass
        class Checker:
            def is_sm120_supported(self):
                pass
        def helper():
            pass
        """
    path = "srt/utils.py"
    assert found(source, "sglang.srt.utils.is_sm120_supported", path=path) == {1: {"definition"}}
    # a module pattern does not flag every definition of the module itself
    assert found(source, "sglang.srt.utils", path=path) == {}


@pytest.mark.parametrize(
    "literal", ['"\\x73m120"', '"\\u0073m120"', '"\\N{LATIN SMALL LETTER S}m120"', '"\\163m120"']
)
def test_names_spelt_with_escapes_are_found(literal: str) -> None:
    assert found(f"x = 1\ny = {literal}\n", "sm120") == {2: {"string"}}


def test_escapes_that_spell_no_needle_do_not_force_a_parse() -> None:
    analysis = analyze("m.py", b'x = "\\x41"\ndef f(:\n', [parse_pattern("sm120")])
    assert (analysis.problem, analysis.findings) == (None, ())


@pytest.mark.parametrize(
    "source",
    [
        "obj.sym_x()\n",
        "# 9sym_x in a comment\n",
        "s = '\\x73ym_x'\n",
        "s = 'a sym_x b'\n",
        "import pkg.sym_x\n",
        "xsym_x = sym_xy = 1\n",
        "def f(sym_x): pass\n",
    ],
)
def test_the_exact_word_prefilter_never_changes_an_answer(source: str) -> None:
    patterns = [parse_pattern("=sym_x"), parse_pattern("=pkg.sym_x")]
    filtered = analyze("m.py", source.encode(), patterns)
    unfiltered = analyze_reference("m.py", source.encode(), patterns)
    assert filtered.findings == unfiltered.findings
