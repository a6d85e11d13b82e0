"""The constructs the one reader answers for, and what text each spells (issue 47).

Every construct through which the fast engine lets a name stand for a qualified
name is listed in :data:`CONSTRUCTS`, each with its ``ast`` reading (a function of
:mod:`.reader`) and the text tests the fast path asks before it parses anything
(:data:`TEXT_TESTS`; :func:`needs_resolution` is derived from them).  A construct
without a text test, or whose reading is not the reader's, is refused when this
module is imported, and ``tests/analysis/test_reader.py`` enumerates the list: a
construct added here without its text test, or whose example the fast engine reads
otherwise than the reference, fails there.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from . import reader
from .text import PatternSet, spells_word

__all__ = [
    "CONSTRUCTS",
    "FROM_AN_IMPORT",
    "GETATTR",
    "RELATIVE",
    "SPELLS_FIRST",
    "TEXT_TESTS",
    "USE_SPELLS_LAST",
    "Construct",
    "TextTest",
    "needs_resolution",
]


#: ``from`` then dots: a relative import, however it is spaced (``from..x``, ``from \\`` ...);
#: not after a word character or a dot (checked apart: a leading lookbehind makes ``re``
#: try every position, where a literal start lets it skip to each ``from``)
_RELATIVE_FROM = re.compile(r"from(?:\s|\\)*\.")
_WORD_OR_DOT = re.compile(r"[\w.]")


def _relative_import(text: str) -> bool:
    return any(
        not m.start() or not _WORD_OR_DOT.match(text, m.start() - 1)
        for m in _RELATIVE_FROM.finditer(text)
    )


class _Text:
    """The text a test reads (identifiers NFKC-normalised), with what is asked once per file."""

    def __init__(self, norm: str) -> None:
        self.norm = norm
        self._relative: bool | None = None

    @property
    def relative(self) -> bool:
        if self._relative is None:
            self._relative = _relative_import(self.norm)
        return self._relative


@dataclass(frozen=True)
class TextTest:
    """What a construct spells in a file's text, asked before anything is parsed.

    ``check(text, first, last)``: may the text hold the construct binding a name on
    the way to a qualified name whose first part is ``first`` and last ``last``,
    and a use of it?  Each test decides the whole question (a construct through
    which the use spells no part of the name says what else the text must hold).  ``None``: the
    construct is met where a use spells the pattern's last name, on the lines the
    fast path walks anyway (the scan's spelling lines), and asks nothing before.
    """

    name: str
    check: Callable[[_Text, str, str], bool] | None


#: an absolute import spells the first part of what it imports (``import os.path``), and
#: the import or the use spells the last (``from os.path import join``, ``p.join``)
SPELLS_FIRST = TextTest(
    "the import spells the first part, the import or the use the last",
    lambda t, first, last: last in t.norm and spells_word(t.norm, first),
)
#: a relative import spells no part of the root's own package: any relative import, and
#: the last part spelt as above
RELATIVE = TextTest(
    "a relative import is in the text, the import or the use spells the last part",
    lambda t, first, last: last in t.norm and t.relative,
)
#: the use spells the name (the scan walks the lines that spell a pattern's last name)
USE_SPELLS_LAST = TextTest("the use spells the last part", None)
#: ``getattr(obj, "name")`` spells ``getattr``, and the import that binds ``obj`` the first
#: part (or is relative); the literal may spell the last part with escapes (``"j\\x6fin"``),
#: which the identifiers' text does not show, and the alias's use spells nothing of it
GETATTR = TextTest(
    "the text spells getattr, and an import the first part (or a relative import)",
    lambda t, first, last: (
        spells_word(t.norm, "getattr") and (spells_word(t.norm, first) or t.relative)
    ),
)

TEXT_TESTS = (SPELLS_FIRST, RELATIVE, USE_SPELLS_LAST, GETATTR)
#: an alias is made from a name an import bound: the tests of that import are its own
FROM_AN_IMPORT = (SPELLS_FIRST, RELATIVE)


@dataclass(frozen=True)
class Construct:
    """A way a name comes to stand for a qualified name, as the fast engine reads it.

    ``reading``: the function of :mod:`.reader` that reads it from ``ast``;
    ``text``: the text tests the fast path asks for it (it may stand in a text one of
    them passes, never in one none passes); ``resolves``: resolution
    answers for it (:func:`needs_resolution` asks its tests), else the scan does.
    ``example``: a module that binds ``j`` (or ``join`` itself) to ``os.path.join``
    through it, then uses it.
    """

    name: str
    reading: Callable[..., object]
    text: tuple[TextTest, ...]
    resolves: bool
    example: str


CONSTRUCTS: tuple[Construct, ...] = (
    Construct(
        "import", reader.import_targets, (SPELLS_FIRST,), True, "import os.path as j\nj.join(1)"
    ),
    Construct(
        "import-from",
        reader.import_targets,
        (SPELLS_FIRST,),
        True,
        "from os.path import join as j\nj(1)",
    ),
    Construct(
        "relative import-from",
        reader.import_targets,
        (RELATIVE,),
        True,
        "from .path import join as j\nj(1)",
    ),
    Construct(
        "attribute chain",
        reader.attribute_chain,
        FROM_AN_IMPORT,
        True,
        "import os\nos.path.join(1)",
    ),
    Construct(
        "assignment",
        reader.assignment_values,
        FROM_AN_IMPORT,
        True,
        "import os\nj = k = os.path.join\nj(1)\nk(1)",
    ),
    Construct(
        "annotated assignment",
        reader.assignment_values,
        FROM_AN_IMPORT,
        True,
        "import os\nj: object = os.path.join\nj(1)",
    ),
    Construct(
        "parameter default",
        reader.parameter_defaults,
        FROM_AN_IMPORT,
        True,
        "import os\ndef f(j=os.path.join):\n    return j(1)",
    ),
    Construct(
        "global or nonlocal assignment",
        reader.assignment_values,
        FROM_AN_IMPORT,
        True,
        "import os\ndef f():\n    global j\n    j = os.path\nf()\nj.join(1)",
    ),
    Construct(
        "getattr alias",
        reader.getattr_target,
        (GETATTR,),
        True,
        'import os\nj = getattr(os.path, "j\\x6fin")\nj(1)\ngetattr(os.path, "join")(1)',
    ),
    Construct(
        "star import",
        reader.import_targets,
        (SPELLS_FIRST, RELATIVE),
        False,
        "from os.path import *\njoin(1)",
    ),
    Construct(
        "module binding",
        reader.module_bindings,
        (USE_SPELLS_LAST,),
        False,
        "def join():\n    pass\njoin()",
    ),
)


def _refuse_untested(constructs: Sequence[Construct]) -> None:
    """A construct the fast path has no text test for would be a false clean: refused."""
    for construct in constructs:
        if not construct.text or any(test not in TEXT_TESTS for test in construct.text):
            raise ImportError(f"construct {construct.name!r} has no text test the fast path asks")
        reading = construct.reading
        if getattr(reader, getattr(reading, "__name__", ""), None) is not reading:
            raise ImportError(f"construct {construct.name!r} has no reading in the one reader")


_refuse_untested(CONSTRUCTS)

#: the text tests :func:`needs_resolution` asks: those of the constructs resolution answers for
_RESOLUTION_TESTS = tuple(
    dict.fromkeys(
        test.check for c in CONSTRUCTS if c.resolves for test in c.text if test.check is not None
    )
)


def needs_resolution(text: str, norm: str, patterns: PatternSet) -> bool:
    """Can a name in this file resolve to a qualified pattern through an import?

    One construct resolution answers for must pass one of its text tests
    (:data:`CONSTRUCTS`): today, the pattern's last part is spelt (by the import
    or the use) and an import spells its first part, or is relative.  ``norm`` is the
    text with identifiers NFKC-normalised, as the parser sees them.
    """
    if not patterns.qualified:
        return False
    spelt = _Text(norm)
    return any(
        check(spelt, first, last)
        for first, last in patterns.qualified_first_last
        for check in _RESOLUTION_TESTS
    )
