"""The name index says what comparing each pattern in turn says (``match_name``, ``covers``).

Generated spellings, patterns of every tier and resolved names (absolute, relative, odd
strings with empty parts) are asked of the index and of the comparison it replaces; the
comparison is the oracle, kept in ``core.patterns``.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_cleantree.core.model import Pattern, PatternTier
from pytest_cleantree.core.nameindex import Covering, NameIndex, TextIndex
from pytest_cleantree.core.patterns import _names, covers, match_name, match_text

_TEXT = st.text(alphabet="ab.os_ pathjoiné(", max_size=30)
#: few letters, so that generated names share parts and prefixes often
_PART = st.sampled_from(["a", "b", "ab", "c", "os", "path", "join", "", "_x"])
_DOTTED = st.lists(_PART, min_size=1, max_size=4).map(".".join)
_RESOLVED = st.one_of(_DOTTED, _DOTTED.map(lambda name: "." + name))
_TIERS = [t for t in PatternTier if t is not PatternTier.REGEX]  # RE2: compared, as globs


def _pattern(tier: PatternTier, body: str) -> Pattern:
    return Pattern(body if tier is not PatternTier.EXACT else "=" + body, tier, body)


_BODY = st.one_of(_DOTTED, st.sampled_from(["a*", "*.join", "o?", "[ab]*", "*", "a.b*"]))
_PATTERNS = st.lists(st.builds(_pattern, st.sampled_from(_TIERS), _BODY), min_size=0, max_size=12)


@settings(max_examples=600, deadline=None)
@given(_PATTERNS, _DOTTED, st.lists(_RESOLVED, max_size=3).map(tuple), st.booleans())
def test_index_is_the_comparison(
    patterns: list[Pattern], name: str, qualified: tuple[str, ...], inside: bool
) -> None:
    index = NameIndex(patterns)
    compared = tuple(p for p in patterns if match_name(p, name, qualified, inside=inside))
    assert index.match(name, qualified, inside=inside) == compared


@settings(max_examples=600, deadline=None)
@given(st.lists(_DOTTED, max_size=8), _RESOLVED)
def test_covering_is_covers(wanted: list[str], resolved: str) -> None:
    covering = Covering(wanted)
    assert covering.covers_any(resolved) == any(covers(w, resolved) for w in wanted)
    assert covering.positions(resolved) == {i for i, w in enumerate(wanted) if covers(w, resolved)}


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text("ab.", max_size=6), max_size=6), st.text("ab.", max_size=7))
def test_covering_holds_for_any_strings(wanted: list[str], resolved: str) -> None:
    """Empty parts, leading and trailing dots: still the comparison's answer."""
    covering = Covering(wanted)
    assert covering.positions(resolved) == {i for i, w in enumerate(wanted) if covers(w, resolved)}
    assert covering.positions(resolved, inside=False) == {
        i
        for i, w in enumerate(wanted)
        if match_name(_pattern(PatternTier.QUALIFIED, w), "", (resolved,), inside=False)
    }


def test_a_prefix_covers_and_a_relative_name_completes() -> None:
    index = NameIndex([_pattern(PatternTier.QUALIFIED, b) for b in ("os.path", "a.b.c", "x.y")])
    assert [p.body for p in index.match("j", ("os.path.join",))] == ["os.path"]
    assert [p.body for p in index.match("j", ("os.pathx",))] == []
    assert [p.body for p in index.match("c", (".b.c.d",))] == ["a.b.c"]
    assert [p.body for p in index.match("c", (".b.c.d",), inside=False)] == []
    assert [p.body for p in index.match("c", (".b.c",), inside=False)] == ["a.b.c"]


@settings(max_examples=300, deadline=None)
@given(_PATTERNS, st.data())
def test_a_files_part_of_a_list_is_the_part_compiled(
    patterns: list[Pattern], data: st.DataObject
) -> None:
    """``part_of`` (a run's list, narrowed to what a file spells) answers as the
    part compiled on its own, which the analysis built per file before."""
    from pytest_cleantree.analysis.parts import part_of
    from pytest_cleantree.analysis.text import PatternSet

    whole = PatternSet.of(patterns)
    kept = list(dict.fromkeys(p for p in patterns if data.draw(st.booleans())))
    part, alone = part_of(whole, kept), PatternSet.of(kept)
    assert (part.patterns, part.needles, part.qualified, part.plain) == (
        alone.patterns,
        alone.needles,
        alone.qualified,
        alone.plain,
    )
    name = data.draw(_DOTTED)
    qualified = data.draw(st.lists(_RESOLVED, max_size=3).map(tuple))
    text = data.draw(_TEXT)
    assert part.index.text.matching(text) == alone.index.text.matching(text)
    # the part's table of qualified names is a view of the list's (issue 44), asked as the
    # part's own: what resolution and the aliases ask of it
    for resolved in (name, *qualified):
        assert part.covering.on_path(resolved) == alone.covering.on_path(resolved)
        assert part.covering.covers_any(resolved) == alone.covering.covers_any(resolved)
        assert part.covering.leads_into(resolved) == alone.covering.leads_into(resolved)
    for inside in (True, False):
        assert part.index.match(name, qualified, inside=inside) == alone.index.match(
            name, qualified, inside=inside
        )
        assert part.index.match_qualified(qualified, inside=inside) == (
            alone.index.match_qualified(qualified, inside=inside)
        )


_TEXT_PATTERNS = st.lists(
    st.one_of(
        st.builds(_pattern, st.sampled_from(_TIERS), _BODY),
        st.builds(
            lambda body: Pattern(body, PatternTier.SUBSTRING, body),
            st.text(alphabet="ab.é _", min_size=1, max_size=5),
        ),
        # as written apart from as read (NFKC): ``ab⁰`` reads ``ab0``
        st.just(Pattern("a.b\u2070", PatternTier.QUALIFIED, "a.b0")),
    ),
    max_size=10,
)


@settings(max_examples=600, deadline=None)
@given(_TEXT_PATTERNS, st.one_of(_TEXT, st.just("x a.b\u2070 é"), st.just("a.b0.c")))
def test_text_index_is_match_text(patterns: list[Pattern], text: str) -> None:
    index = TextIndex(patterns)
    assert index.matching(text) == tuple(p for p in patterns if match_text(p, text))


def _on_path_compared(imported: str, wanted: list[str]) -> bool:
    """``analysis.resolve.on_path`` as it compared each wanted name (the oracle)."""
    if imported.startswith("."):
        parts = set(imported[1:].split("."))
        return any(parts & set(target.split(".")) for target in wanted)
    return any(
        target == imported or target.startswith(imported + ".") or imported.startswith(target + ".")
        for target in wanted
    )


@settings(max_examples=600, deadline=None)
@given(
    st.lists(st.one_of(_DOTTED, st.text("ab.", max_size=5)), max_size=8),
    st.one_of(_RESOLVED, st.text("ab.", max_size=6)),
)
def test_on_path_is_the_comparison(wanted: list[str], imported: str) -> None:
    assert Covering(wanted).on_path(imported) == _on_path_compared(imported, wanted)


_ANY = st.one_of(_RESOLVED, st.text("ab.", max_size=6))


@settings(max_examples=600, deadline=None)
@given(st.lists(st.one_of(_DOTTED, st.text("ab.", max_size=5)), max_size=8), _ANY, st.data())
def test_a_view_of_a_covering_is_the_covering_of_its_names(
    wanted: list[str], resolved: str, data: st.DataObject
) -> None:
    """``Covering.within`` (a file's part of a run's list, issue 44) answers every question
    as a table of the names kept alone, each compared: a name lost or added by the view
    would be a use not reported, or one reported for a pattern the file is not asked."""
    keep = sorted(data.draw(st.sets(st.sampled_from(range(len(wanted)))))) if wanted else []
    view, alone = Covering(wanted).within(keep), [wanted[i] for i in keep]
    for inside in (True, False):
        kept = {i for i in keep if (covers if inside else _names)(wanted[i], resolved)}
        assert view.positions(resolved, inside=inside) == kept
    assert view.covers_any(resolved) == any(covers(w, resolved) for w in alone)
    assert view.on_path(resolved) == _on_path_compared(resolved, alone)
    assert view.leads_into(resolved) == _leads_into_compared(resolved, alone)
    assert Covering(wanted).leads_into(resolved) == _leads_into_compared(resolved, wanted)


def _leads_into_compared(target: str, wanted: list[str]) -> bool:
    """``analysis.aliases._leads_to`` as it compared each wanted name (the oracle)."""
    return any(name == target or name.startswith(target + ".") for name in wanted)
