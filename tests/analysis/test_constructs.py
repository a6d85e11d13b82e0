"""The constructs' text tests on source strings: what a file must spell for resolution to run."""

from __future__ import annotations

import pytest

from pytest_cleantree.analysis.constructs import (
    CONSTRUCTS,
    FROM_AN_IMPORT,
    GETATTR,
    RELATIVE,
    SPELLS_FIRST,
    TEXT_TESTS,
    USE_SPELLS_LAST,
    Construct,
    _refuse_untested,
    _relative_import,
    _Text,
    needs_resolution,
)
from pytest_cleantree.analysis.text import PatternSet
from pytest_cleantree.core.patterns import parse_pattern


@pytest.mark.parametrize(
    ("text", "relative"),
    [
        ("from . import x", True),
        ("from .x import y", True),
        ("from..x import y", True),
        ("from \\\n  .x import y", True),
        ("from  \t. import x", True),
        ("y = 1\nfrom . import x", True),
        ("afrom . import x; from . import y", True),
        ("from x import y", False),
        ("x.from . import", False),
        ("afrom . import x", False),
        ("_from . x", False),
        ("frm . import", False),
        ("", False),
    ],
)
def test_a_relative_import_however_spaced_and_not_inside_a_word(text: str, relative: bool) -> None:
    assert _relative_import(text) is relative
    assert _Text(text).relative is relative


def test_the_relative_question_is_asked_once_per_text() -> None:
    text = _Text("from . import x")
    assert text.relative
    text.norm = "nothing relative"
    assert text.relative  # kept from the first answer


def test_spells_first_needs_the_last_part_and_the_first_as_a_word() -> None:
    check = SPELLS_FIRST.check
    assert check is not None
    text = _Text("import os\nos.path.join")
    assert check(text, "os", "join")
    assert not check(text, "sys", "join")
    assert not check(text, "os", "exit")
    assert not check(_Text("import pos\njoin"), "os", "join")


def test_relative_needs_the_last_part_and_a_relative_import() -> None:
    check = RELATIVE.check
    assert check is not None
    assert check(_Text("from . import join"), "x", "join")
    assert not check(_Text("from . import jo"), "x", "join")
    assert not check(_Text("import join"), "x", "join")


def test_getattr_needs_the_word_getattr_and_an_import_of_the_first_part_or_a_relative_one() -> None:
    """Not the last part: ``getattr(os.path, "j\\x6fin")`` spells no ``join`` but its literal."""
    check = GETATTR.check
    assert check is not None
    assert check(_Text('import os\ng = getattr(os.path, "j\\x6fin")'), "os", "join")
    assert check(_Text('from . import p\ngetattr(p, "j\\x6fin")'), "os", "join")
    assert not check(_Text("import os\ng = os.path"), "os", "join")  # no getattr
    assert not check(_Text('import sys\ngetattr(sys, "x")'), "os", "join")  # no import of os
    assert not check(_Text('import os\nmy_getattr(os, "x")'), "os", "join")  # not the word
    assert not check(_Text('import pos\ngetattr(pos, "x")'), "os", "join")  # nor os


def test_needs_resolution_asks_getattr_where_no_text_spells_the_last_part() -> None:
    escaped = 'import os\ng = getattr(os.path, "j\\x6fin")\ng(1)\n'
    assert _needs(escaped, "os.path.join")
    assert not _needs(escaped.replace("getattr", "get"), "os.path.join")


def test_the_tests_and_the_constructs_that_use_them() -> None:
    assert TEXT_TESTS == (SPELLS_FIRST, RELATIVE, USE_SPELLS_LAST, GETATTR)
    assert FROM_AN_IMPORT == (SPELLS_FIRST, RELATIVE)
    assert USE_SPELLS_LAST.check is None
    by_name = {c.name: c for c in CONSTRUCTS}
    assert by_name["relative import-from"].text == (RELATIVE,)
    assert by_name["getattr alias"].text == (GETATTR,)
    assert [c.name for c in CONSTRUCTS if not c.resolves] == ["star import", "module binding"]


def _needs(text: str, *patterns: str) -> bool:
    return needs_resolution(text, text, PatternSet.of([parse_pattern(p) for p in patterns]))


def test_needs_resolution_asks_each_qualified_pattern_s_first_and_last_parts() -> None:
    assert _needs("import os\nos.path.join\n", "os.path.join")
    assert not _needs("import os\nos.path.join\n", "sys.exit")
    assert _needs("import os\nos.path.join\n", "sys.exit", "os.path.join")
    assert not _needs("import os\npath\n", "os.path.join")  # the last part, not the middle
    assert _needs("import os\njoin\n", "os.path.join")
    assert _needs("import os\njoin\n", "os.a.path.join")  # the last part alone
    assert _needs("import os\nos.sep\n", "os.sep")
    assert not _needs("import osx\nos_sep\n", "os.sep")
    assert _needs("from . import sep\n", "os.sep")
    # plain patterns resolve nothing
    assert not _needs("import os\nos.path.join\n", "join", "=os")


def test_needs_resolution_reads_the_normalised_text() -> None:
    patterns = PatternSet.of([parse_pattern("os.sep")])
    wide = "import \uff4fs\n\uff4fs.sep\n"  # a fullwidth o: NFKC reads os
    assert needs_resolution(wide, "import os\nos.sep\n", patterns)
    assert not needs_resolution("import os\nos.sep\n", "import x\n", patterns)


class _Reading:
    """A callable without a ``__name__``: no function of the reader."""

    def __call__(self) -> None: ...


def test_a_reading_without_a_name_is_no_reading_of_the_reader() -> None:
    nameless = Construct("nameless", _Reading(), CONSTRUCTS[0].text, True, "")
    with pytest.raises(ImportError, match="no reading in the one reader"):
        _refuse_untested([nameless])
