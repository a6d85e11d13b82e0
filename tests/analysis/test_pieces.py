"""The partial parse's cut, stated directly: where the pieces of a module start, which
are kept, and what a left-out piece leaves behind (see :mod:`.analysis.pieces`)."""

from __future__ import annotations

import ast
import gc

import pytest

from pytest_cleantree.analysis.aliases import AliasBinders
from pytest_cleantree.analysis.pieces import (
    Layout,
    layout,
    loaded_name_offsets,
    parse_needed,
    parse_python,
    top_level_units,
)
from pytest_cleantree.analysis.text import PatternSet, split_lines
from pytest_cleantree.core.patterns import parse_pattern

MODULE = """import os

def f():
    def inner():
        pass
    return inner

class C:
    x = 1
    @property
    def a(self):
        def nested():
            pass
        return nested

    def b(self):
        return 2
y = 2

@deco
@deco2
def g():
    pass
"""


def test_a_module_is_cut_at_its_top_level_blocks_and_its_classes_at_their_members() -> None:
    assert layout(MODULE) == Layout(
        starts=[1, 3, 8, 10, 16, 18, 20],
        top=[0, 1, 2, 2, 2, 2, 6],
        indent=[None, None, None, "    ", "    ", None, None],
        classes=(8,),
    )
    assert top_level_units(MODULE) == [1, 3, 8, 20]


def test_a_module_without_blocks_is_one_piece() -> None:
    assert layout("import os\nx = os.sep\n") == Layout([1], [0], [None])
    assert layout("if x:\n    def f():\n        pass\n") == Layout([1], [0], [None])


def test_a_block_on_the_second_line() -> None:
    assert layout("\ndef f():\n    pass\n") == Layout([1, 2], [0, 1], [None, None])


def test_a_class_at_the_end_and_at_the_start() -> None:
    source = "class D:\n    def a(self): pass\n    def b(self): pass\n"

    assert layout(source) == Layout([1, 2, 3], [0, 0, 0], [None, "    ", "    "], (1,))


def test_a_decorated_class_is_cut_at_its_members() -> None:
    source = "@dataclass\n@frozen\nclass D:\n    def a(self): pass\n    def b(self): pass\n"

    assert layout(source) == Layout([1, 4, 5], [0, 0, 0], [None, "    ", "    "], (3,))


def test_only_a_class_is_cut_at_its_members() -> None:
    source = "class A:\n    pass\n\ndef f():\n    def inner(): pass\n    return inner\n"

    assert layout(source) == Layout([1, 4], [0, 1], [None, None])


def test_a_class_body_ends_at_the_first_line_of_code_at_column_zero() -> None:
    commented = "class C:\n    def a(self): pass\n    # trailing\ny = 2\ndef h(): pass\n"
    bracket = 'class C:\n    def a(self): pass\n("x")\ndef h(): pass\n'

    assert layout(commented) == Layout([1, 2, 4, 5], [0, 0, 0, 3], [None, "    ", None, None], (1,))
    assert layout(bracket) == Layout([1, 2, 3, 4], [0, 0, 0, 3], [None, "    ", None, None], (1,))


def test_a_class_body_ending_at_a_last_line_of_one_character() -> None:
    source = "class C:\n    def a(self): pass\nx"

    assert layout(source) == Layout([1, 2, 3], [0, 0, 0], [None, "    ", None], (1,))


def test_the_members_are_the_shallowest_blocks_that_are_code() -> None:
    # a continuation line that starts with ``@`` is no decorator, however it is indented
    source = "class C:\n x = (a\n\t\t@ b)\n def f(self): pass\n"

    assert layout(source) == Layout([1, 4], [0, 0], [None, " "], (1,))


def test_a_text_the_lexer_does_not_model_is_one_unit() -> None:
    source = 'x = f"{x:{y}}"\ndef f(): pass\n'

    assert layout(source) is None
    assert top_level_units(source) == [1]


def test_the_names_loaded_somewhere_are_found_wherever_they_are_spelt() -> None:
    text = "a = 1\nb()\na()\nc = 2\n"

    assert sorted(loaded_name_offsets(text, ["a", "b", "c"])) == [0, 6, 10]


# ---------------------------------------------------------------- parse_needed


def lines_of(tree: ast.Module) -> dict[str, int]:
    """Each def and class of the tree, with its line."""
    out: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.ClassDef):
            out[node.name] = node.lineno
    return out


def test_the_pieces_that_spell_nothing_are_left_out_the_others_keep_their_lines() -> None:
    # line 17 (``return 2``, in member ``b``) and line 23 (in ``g``)
    tree = parse_needed(MODULE, split_lines(MODULE), "m.py", {17, 23})

    assert lines_of(tree) == {"C": 8, "b": 16, "g": 22}
    passes = [
        (s.lineno, s.col_offset)
        for c in tree.body
        if isinstance(c, ast.ClassDef)
        for s in c.body
        if isinstance(s, ast.Pass)
    ]
    assert passes == [(10, 4)]  # member ``a`` left out, its ``pass`` in its place
    assert isinstance(tree.body[0], ast.Import)


def test_every_piece_kept_is_the_whole_module() -> None:
    tree = parse_needed(MODULE, split_lines(MODULE), "m.py", set(range(1, 25)))

    assert lines_of(tree) == {"f": 3, "inner": 4, "C": 8, "a": 11, "nested": 12, "b": 16, "g": 22}


@pytest.mark.parametrize("spelling", [None, {3}])
def test_without_spelling_lines_or_with_a_cr_the_module_is_parsed_whole(
    spelling: set[int] | None,
) -> None:
    text = MODULE if spelling is None else MODULE.replace("\n", "\r\n")

    tree = parse_needed(text, split_lines(text), "m.py", spelling)

    assert set(lines_of(tree)) == {"f", "inner", "C", "a", "nested", "b", "g"}


def test_pieces_that_do_not_parse_as_cut_give_the_whole_module() -> None:
    # the kept piece ``b`` does not parse: the whole file is, and its first error is reported
    text = "import os\n\ndef a():\n    x = = 1\n\ndef b():\n    y = = 2\n"
    with pytest.raises(SyntaxError) as raised:
        parse_needed(text, split_lines(text), "pkg/m.py", {7})
    assert (raised.value.filename, raised.value.lineno) == ("pkg/m.py", 4)


def test_with_binders_the_imports_and_every_use_of_what_they_bind_are_kept() -> None:
    text = (
        "'''Doc.'''\n\ndef setup():\n    import os\n    global P\n    P = os.path\n\n"
        "def other():\n    return 1\n\ndef use():\n    return P.join('a')\n"
    )
    binders = AliasBinders(PatternSet.of([parse_pattern("os.path.join")]), "m", is_package=False)

    tree = parse_needed(text, split_lines(text), "m.py", {12}, binders)

    assert lines_of(tree) == {"setup": 3, "use": 11}


def test_names_are_looked_for_in_the_normalised_text() -> None:
    # the use spells ``j`` in fullwidth (U+FF4A): Python reads it as ``j``
    text = (
        "import os\nj = os.path.join\n\ndef other():\n    return 1\n\n"
        "def use():\n    return \uff4a('a')\n"
    )
    norm = text.replace("\uff4a", "j")
    binders = AliasBinders(PatternSet.of([parse_pattern("os.path.join")]), "m", is_package=False)

    tree = parse_needed(text, split_lines(text), "m.py", {2}, binders, norm)

    assert lines_of(tree) == {"use": 7}


# ---------------------------------------------------------------- parse_python


def test_parse_python_names_the_file_and_leaves_the_collector_on() -> None:
    assert gc.isenabled()
    parse_python("x = 1\n", "m.py")
    assert gc.isenabled()
    with pytest.raises(SyntaxError) as raised:
        parse_python("def (:\n", "pkg/bad.py")
    assert raised.value.filename == "pkg/bad.py"
    assert gc.isenabled()


def test_parse_python_reads_type_comments_as_comments() -> None:
    tree = parse_python("a = 1\n# type: int\n", "m.py")

    assert isinstance(tree.body[0], ast.Assign)
    assert tree.body[0].type_comment is None
