"""Names bound by ``from M import *`` (issue 12, cause 7).

``stars`` says, per module of the tree, which names its star import binds
(the engine takes them from the export map); a use of such a name that no
scope around it rebinds is an occurrence of ``M.name``.  Both engines give
the same findings, line and kind exact.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from pytest_cleantree.analysis import FileAnalysis, analyze_fast, analyze_reference
from pytest_cleantree.core.patterns import parse_pattern

ENGINES = [
    pytest.param(analyze_fast, id="fast"),
    pytest.param(analyze_reference, id="reference"),
]
Engine = Callable[..., FileAnalysis]

PATTERN = "pkg.utils.is_sm120_supported"
STARS = {"pkg.utils": frozenset({"is_sm120_supported"}), "pkg.other": frozenset({"unrelated"})}

SOURCE = """\
from pkg.utils import *
from pkg.other import *


def top():
    return is_sm120_supported()


def shadowed(is_sm120_supported=None):
    return is_sm120_supported


def local():
    is_sm120_supported = print
    return is_sm120_supported()


class K:
    is_sm120_supported = 1
    x = is_sm120_supported

    def m(self):
        return is_sm120_supported()


if is_sm120_supported():
    f = lambda is_sm120_supported: is_sm120_supported
    g = lambda: is_sm120_supported
"""


def rows(analysis: FileAnalysis) -> set[tuple[str, int, str]]:
    return {(f.pattern, f.occurrence.line, f.occurrence.kind.value) for f in analysis.findings}


@pytest.mark.parametrize("engine", ENGINES)
def test_a_use_of_a_star_imported_name_is_an_occurrence_unless_a_scope_rebinds(
    engine: Engine,
) -> None:
    found = rows(engine("app/main.py", SOURCE.encode(), [parse_pattern(PATTERN)], stars=STARS))

    assert found == {
        (PATTERN, 6, "call"),
        (PATTERN, 23, "call"),
        (PATTERN, 26, "condition"),
        (PATTERN, 28, "reference"),
    }


@pytest.mark.parametrize("engine", ENGINES)
def test_without_the_export_map_a_star_import_binds_nothing_known(engine: Engine) -> None:
    """A module outside the tree (not in ``stars``), or one that does not export the name."""
    patterns = [parse_pattern(PATTERN)]

    assert rows(engine("app/main.py", SOURCE.encode(), patterns)) == set()
    unknown = {"pkg.other": frozenset({"is_sm120_supported"})}
    assert rows(engine("app/main.py", SOURCE.encode(), patterns, stars=unknown)) == set()


RELATIVE_LATE = """\
'''A star import in a later piece of the module, relative.'''


def first():
    return 1


try:
    from .utils import *
except ImportError:
    pass


def second():
    return 2


def third():
    x = 1
    return is_sm120_supported(x)
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_relative_star_import_in_a_later_piece_binds_too(engine: Engine) -> None:
    """The fast path's partial parse keeps the piece that star-imports."""
    found = rows(
        engine(
            "pkg/main.py",
            RELATIVE_LATE.encode(),
            [parse_pattern(PATTERN)],
            module="pkg.main",
            stars=STARS,
        )
    )

    assert found == {(PATTERN, 20, "call")}


def test_the_engines_agree_with_every_pattern_kind() -> None:
    patterns = [parse_pattern(PATTERN), parse_pattern("sm120"), parse_pattern("pkg.utils")]
    for source, module in ((SOURCE, None), (RELATIVE_LATE, "pkg.main")):
        fast = analyze_fast("pkg/main.py", source.encode(), patterns, module=module, stars=STARS)
        reference = analyze_reference(
            "pkg/main.py", source.encode(), patterns, module=module, stars=STARS
        )
        assert fast.findings == reference.findings
