"""``__all__`` read as Python computes it, as an upper bound (``analysis/allnames.py``, issue 48).

Each row is a module's text and the bound read from it: the names ``__all__`` may
hold, the ``X.__all__`` it may splice, whether it may be absent (every public name
then) and whether it is not read (every name).  ``tests/names/test_all_oracle.py``
holds the bound to what Python's own ``from m import *`` binds.
"""

from __future__ import annotations

import ast
import textwrap

import pytest

from pytest_cleantree.analysis.allnames import AllNames, read_all

ABSENT = AllNames()


def exact(*names: str, spliced: tuple[str, ...] = ()) -> AllNames:
    return AllNames(tuple(sorted(names)), spliced, public=False)


def public(*names: str) -> AllNames:
    return AllNames(tuple(sorted(names)), (), public=True)


def every(*names: str, absent: bool = False) -> AllNames:
    return AllNames(tuple(sorted(names)), (), public=absent, every=True)


def read(source: str) -> AllNames:
    """The bound read from the tree alone, and with the text (which may skip the walk): one."""
    text = textwrap.dedent(source)
    alone = read_all(ast.parse(text))
    assert read_all(ast.parse(text), text) == alone
    return alone


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        pytest.param("x = 1\n", ABSENT, id="none"),
        pytest.param("__all__ = ['a', 'b']", exact("a", "b"), id="list"),
        pytest.param("__all__ = ('a',)", exact("a"), id="tuple"),
        pytest.param("__all__: list[str] = ['a']", exact("a"), id="annotated"),
        pytest.param("__all__: list[str]\n", ABSENT, id="annotation-only"),
        pytest.param("__all__ = ['a']\n__all__ += ['b']", exact("a", "b"), id="augmented"),
        pytest.param("__all__ = ['a']\n__all__.extend(('b',))", exact("a", "b"), id="extend"),
        pytest.param("__all__ = ['a']\n__all__.append('b')", exact("a", "b"), id="append"),
        pytest.param("__all__ = ['a']\n__all__.insert(0, 'b')", exact("a", "b"), id="insert"),
        pytest.param("__all__ = ['a']\n__all__ = ['b']", exact("b"), id="replaced"),
        pytest.param("__all__ = ['a']\n__all__[:] = ['b']", exact("b"), id="whole-slice"),
        pytest.param("__all__ = ['a']\n__all__[:0] = ['b']", exact("a", "b"), id="part-slice"),
        pytest.param("__all__ = ['a']\n__all__[0] = 'b'", exact("a", "b"), id="item"),
        pytest.param("__all__ = ['a']\n__all__ = __all__ + ['b']", exact("a", "b"), id="self"),
        pytest.param("__all__ = ['a']\n__all__ = [*__all__, 'b']", exact("a", "b"), id="starred"),
        pytest.param("__all__ = list(('a',))", exact("a"), id="copy"),
        pytest.param("__all__ = ['a'] + m.__all__", exact("a", spliced=("m",)), id="splice"),
        pytest.param("__all__ = ['a']\n__all__ += m.__all__", exact("a", spliced=("m",))),
        pytest.param("__all__ = ['a', *m.__all__]", exact("a", spliced=("m",)), id="star-splice"),
        # removals keep an upper bound
        pytest.param("__all__ = ['a']\n__all__.remove('a')", exact("a"), id="remove"),
        pytest.param("__all__ = ['a']\ndel __all__[0]", exact("a"), id="del-item"),
        pytest.param("__all__ = ['a']\n__all__.sort()\n__all__.pop()", exact("a"), id="pop"),
        # del: every public name, as Python's star import then takes
        pytest.param("__all__ = ['a']\ndel __all__", ABSENT, id="del"),
        pytest.param("__all__ = ['a']\ndel __all__\n__all__ = ['b']", exact("b"), id="del-then"),
        pytest.param("__all__ = ['a']\nif c:\n    del __all__", public("a"), id="del-in-if"),
        # both branches of an if: their union
        pytest.param(
            "if c:\n    __all__ = ['a']\nelse:\n    __all__ = ['b']", exact("a", "b"), id="if-else"
        ),
        pytest.param("if c:\n    __all__ = ['a']", public("a"), id="if-only"),
        pytest.param(
            "__all__ = ['x']\nif c:\n    __all__ = ['a']\nelif d:\n    __all__ = ['b']",
            exact("a", "b", "x"),
            id="elif",
        ),
        pytest.param(
            "try:\n    __all__ = ['a']\nexcept ImportError:\n    __all__ = ['b']",
            public("a", "b"),
            id="try",
        ),
        pytest.param(
            "__all__ = []\nfor n in 'ab':\n    __all__ = ['a']", exact("a"), id="loop-replace"
        ),
        pytest.param(
            "__all__ = ['x']\nwith c:\n    __all__ = ['a']", exact("a", "x"), id="with-replace"
        ),
        # not read: every name the module binds, besides what was read
        pytest.param("__all__ = [n for n in dir()]", every(), id="comprehension"),
        pytest.param("__all__ = names()", every(), id="call"),
        pytest.param("__all__ = ['a', 1, name]", every("a"), id="not-a-string"),
        pytest.param("__all__ = ['a'] * 2", every(), id="times"),
        pytest.param("__all__ = m.names", every(), id="attribute"),
        pytest.param("__all__ = a.m.__all__", every(), id="deep-splice"),
        pytest.param("__all__ = ['a']\n__all__.append(name)", every("a"), id="append-name"),
        pytest.param("__all__ = ['a']\n__all__.extend(x for x in y)", every("a"), id="generator"),
        pytest.param("__all__ = ['a']\n__all__ *= 2", every("a"), id="other-op"),
        pytest.param(
            """\
            __all__ = []


            def export(f):
                __all__.append(f.__name__)
                return f


            @export
            def _hidden(): ...
            """,
            every(),
            id="decorator",
        ),
        pytest.param(
            "def setup():\n    global __all__\n    __all__ = ['a']\nsetup()\n",
            every(absent=True),
            id="global",
        ),
        pytest.param("globals()['__all__'] = ['a']", every(absent=True), id="globals"),
        pytest.param("__all__ = ['a']\nnames = __all__\nnames.append('b')", every("a"), id="alias"),
        pytest.param("from m import __all__", every(absent=True), id="imported"),
        pytest.param("(__all__ := ['a'])", every(absent=True), id="walrus"),
        pytest.param("for __all__ in [['a']]:\n    pass", every(absent=True), id="for-target"),
        pytest.param("class C:\n    __all__ = ['a']", every(absent=True), id="class-body"),
        # plain reads change nothing
        pytest.param(
            """\
            __all__ = ['a']
            assert 'a' in __all__
            for name in __all__:
                print(name, len(__all__), sorted(__all__), __all__[0], __all__.index('a'))
            extra = __all__ + ['b']


            def __dir__():
                return __all__
            """,
            exact("a"),
            id="reads",
        ),
    ],
)
def test_all_is_read_as_this_bound(source: str, expected: AllNames) -> None:
    assert read(source) == expected


def test_exact_means_the_list_is_all_there_is() -> None:
    assert exact("a").exact
    assert not public("a").exact
    assert not every("a").exact
    assert not ABSENT.exact


def test_a_docstring_that_names_all_changes_nothing() -> None:
    assert read('"""Sets __all__."""\n__all__ = ["a"]\n') == exact("a")
    assert read('"""Sets __all__."""\n') == ABSENT
