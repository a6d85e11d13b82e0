"""The symbol graph (``names/symbol_graph.py``) on small module sets held in memory: where a
spelling leads, which modules following it needs, the names that reach a target, the work each walk
counts against the run's budget (``test_budget.py`` states the budget itself), and the memo that
keeps a web of modules as cheap as its nodes."""

from __future__ import annotations

import pytest

from pytest_cleantree.names.budget import Budget, GraphBudgetError
from pytest_cleantree.names.symbol_graph import ExportMap, Reached, build_export_map


def emap_of(
    modules: dict[str, str],
    packages: tuple[str, ...] = (),
    *,
    nodes: int | None = None,
    **options: object,
) -> ExportMap:
    """An export map of ``modules`` (name -> text); ``packages`` are packages' ``__init__``."""
    emap = build_export_map(
        modules,
        {name: name in packages for name in modules},
        **options,  # type: ignore[arg-type]
    )
    if nodes is not None:
        emap.meter = Budget(nodes=nodes).start()
    return emap


# ------------------------------------------------------------------ following a spelling


def test_an_empty_spelling_is_answered_as_written() -> None:
    emap = emap_of({"m": "def f(): ...\n"})
    for spelling in ("", ".", ".."):
        assert emap.canonical(spelling) == spelling
        assert emap.canonicals(spelling) == {spelling}
        assert emap.is_module(spelling) is False


def test_a_spelling_outside_the_map_is_no_module_and_names_its_top_module() -> None:
    emap = emap_of({"m": "def f(): ...\n"})
    assert emap.is_module("numpy.linalg") is False
    assert emap.canonicals("numpy.linalg.norm") == {"numpy.linalg.norm"}
    assert emap.missing(["numpy.linalg.norm"]) == {"numpy"}
    listed = emap_of({"m": "def f(): ...\n"}, known_modules=["m"])
    assert listed.missing(["numpy.linalg.norm"]) == frozenset()


def test_an_attribute_of_a_definition_is_no_module() -> None:
    emap = emap_of({"m": "class C: ...\n"})
    assert emap.canonical("m.C.method") == "m.C.method"
    assert emap.is_module("m.C.method") is False
    assert emap.is_module("m.C.method.attr") is False
    assert emap.is_module("m") is True


def test_the_module_given_splits_the_spelling() -> None:
    emap = emap_of(
        {
            "a": "from .c import thing as b\n",
            "a.b": "def f(): ...\n",
            "a.c": "class thing: ...\n",
        },
        packages=("a",),
    )
    # without the split, the longest prefix that is a module: as an import reads it
    assert emap.canonicals("a.b.f") == {"a.b.f"}
    assert emap.is_module("a.b") is True
    # ``from a import b``: the attribute of ``a``
    # (every binding: ``b`` bound in ``a`` may still be the sub-module, if it ran before)
    assert emap.canonicals("a.b.f", module="a") == {"a.c.thing.f", "a.b.f"}
    assert emap.canonical("a.b.f", module="a") == "a.c.thing.f"
    assert emap.is_module("a.b", module="a") is False
    assert emap.canonical("a.b.f", module="a.b") == "a.b.f"


def test_a_spelling_must_start_with_the_module_given() -> None:
    emap = emap_of({"a.b": "def f(): ...\n"})
    with pytest.raises(ValueError, match=r"does not start with the module 'a\.c'"):
        emap.canonical("a.b.f", module="a.c")
    with pytest.raises(ValueError, match="does not start with the module 'a'"):
        emap.canonical("ab.f", module="a")


TRY_EXCEPT = {
    "pkg": "try:\n    from ._fast import f\nexcept ImportError:\n    from ._slow import f\n",
    "pkg._fast": "def f(): ...\n",
    "pkg._slow": "def f(): ...\n",
}


def test_the_module_given_keeps_every_binding() -> None:
    emap = emap_of(TRY_EXCEPT, packages=("pkg",))
    assert emap.canonicals("pkg.f", module="pkg") == {"pkg._fast.f", "pkg._slow.f"}
    assert emap.canonical("pkg.f", module="pkg") == "pkg._slow.f"


def test_is_module_follows_the_binding_that_runs_last() -> None:
    emap = emap_of(
        {"m": "import os as f\nfrom impl import f\n", "impl": "def f(): ...\n", "os": ""}
    )
    assert emap.canonicals("m.f") == {"os", "impl.f"}
    assert emap.is_module("m.f") is False
    swapped = emap_of(
        {"m": "from impl import f\nimport os as f\n", "impl": "def f(): ...\n", "os": ""}
    )
    assert swapped.is_module("m.f") is True


def test_a_cycle_of_imports_ends_at_the_spelling_which_is_no_module() -> None:
    emap = emap_of({"a": "from b import f\n", "b": "from a import f\n"}, nodes=1000)
    assert emap.canonical("a.f") == "a.f"
    assert emap.canonicals("a.f") == {"a.f"}
    assert emap.is_module("a.f") is False
    assert emap.missing(["a.f.g"]) == frozenset()  # no module ``a.f`` to read


def test_a_cycle_with_a_way_out_finds_it() -> None:
    emap = emap_of(
        {
            "a": "from b import f\n",
            "b": "try:\n    from a import f\nexcept ImportError:\n    from c import f\n",
            "c": "def f(): ...\n",
        },
        nodes=1000,
    )
    assert emap.canonicals("a.f") == {"c.f"}


def test_an_earlier_import_is_kept_when_a_star_does_not_provide_the_name() -> None:
    emap = emap_of(
        {
            "m": "from a import f\nfrom other import *\n",
            "a": "def f(): ...\n",
            "other": "__all__ = ['g']\ndef g(): ...\ndef f(): ...\n",
        }
    )
    assert emap.canonical("m.f") == "a.f"
    assert emap.canonicals("m.f") == {"a.f"}
    assert emap.canonical("m.g") == "other.g"
    assert emap.missing(["m.f"]) == frozenset()


def test_an_attribute_a_module_does_not_bind_is_its_sub_module() -> None:
    emap = emap_of(
        {"a": "import pkg as p\n", "pkg": "x = 1\n", "pkg.sub": "def f(): ...\n"},
        packages=("pkg",),
    )
    assert emap.is_module("a.p.sub") is True
    assert emap.canonical("a.p.sub.f") == "pkg.sub.f"
    assert emap.is_module("a.p.nothing") is False
    assert emap.canonical("a.p.nothing") == "pkg.nothing"
    assert emap.is_module("pkg.sub", module="pkg") is True


def test_a_sub_module_listed_but_not_read_is_missing() -> None:
    emap = emap_of(
        {"a": "import pkg as p\n", "pkg": "x = 1\n"},
        packages=("pkg",),
        known_modules=["a", "pkg", "pkg.sub"],
    )
    assert emap.is_module("a.p.sub") is True
    assert emap.missing(["a.p.sub"]) == {"pkg.sub"}
    assert emap.missing(["a.p.sub.f"]) == {"pkg.sub"}
    assert emap.missing(["a.p.other"]) == frozenset()  # not listed: no module to read
    assert emap.is_module("a.p.other") is False


def test_a_sub_module_read_is_not_missing() -> None:
    emap = emap_of(
        {"a": "import pkg as p\n", "pkg": "x = 1\n", "pkg.sub": "def f(): ...\n"},
        packages=("pkg",),
    )
    assert emap.missing(["a.p.sub"]) == frozenset()
    assert emap.missing(["a.p.sub.f"]) == frozenset()


def test_a_sub_module_of_a_namespace_package_is_not_missing() -> None:
    emap = emap_of({"a": "import ns.pkg as p\n"}, namespace_packages=["ns.pkg", "ns"])
    assert emap.is_module("a.p") is True
    assert emap.is_module("ns") is True
    assert emap.definition("ns") == ("ns", 0)
    listed = emap_of(
        {"a": "import ns as n\n"},
        namespace_packages=["ns", "ns.inner"],
        known_modules=["a", "ns", "ns.inner"],
    )
    assert listed.is_module("a.n.inner") is True
    assert listed.missing(["a.n.inner"]) == frozenset()


def test_an_attribute_of_a_namespace_package_that_is_no_sub_module() -> None:
    emap = emap_of({"a": "x = 1\n"}, namespace_packages=["ns"], known_modules=["a", "ns"])
    assert emap.canonical("ns.nothing") == "ns.nothing"
    assert emap.canonicals("ns.nothing.f") == {"ns.nothing.f"}
    assert emap.is_module("ns.nothing") is False


def test_from_the_package_import_a_name_bound_before() -> None:
    # no sub-module is known: ``ghost`` may be one not read, or the earlier binding
    emap = emap_of({"pkg": "from os import path as ghost\nfrom . import ghost\n"}, ("pkg",))
    assert emap.canonicals("pkg.ghost") == {"pkg.ghost", "os.path"}


def test_from_the_package_import_a_sub_module() -> None:
    emap = emap_of(
        {"pkg": "from . import sub\nfrom . import ghost\n", "pkg.sub": "def f(): ...\n"},
        packages=("pkg",),
    )
    assert emap.is_module("pkg.sub", module="pkg") is True
    assert emap.canonical("pkg.sub.f", module="pkg") == "pkg.sub.f"
    assert emap.canonical("pkg.ghost") == "pkg.ghost"  # no such sub-module: as written
    assert emap.is_module("pkg.ghost") is False


def test_a_binding_may_hide_a_sub_module_of_the_same_name() -> None:
    emap = emap_of(
        {
            "pkg": "from .impl import sub\n",
            "pkg.impl": "class sub: ...\n",
            "pkg.sub": "from .deep import x\n",
            "pkg.deep": "def x(): ...\n",
        },
        packages=("pkg",),
    )
    assert emap.canonicals("pkg.sub.x", module="pkg") == {"pkg.impl.sub.x", "pkg.deep.x"}
    assert emap.canonical("pkg.sub.x", module="pkg") == "pkg.impl.sub.x"


def test_leads_to_a_target_or_inside_one() -> None:
    emap = emap_of({"os": "import posixpath as path\n", "posixpath": "def join(): ...\n"})
    assert emap.leads_to("os.path.join", ["posixpath.join"])
    assert emap.leads_to("os.path.join", ["posixpath"])
    assert emap.leads_to("os.path.join", ["ntpath", "posixpath.join"])
    assert not emap.leads_to("os.path.join", ["ntpath"])
    assert not emap.leads_to("os.path.join", ["posixpath.join.x"])
    assert not emap.leads_to("os.path.join", [])


# ------------------------------------------------------------------ star exports


def test_a_star_of_a_module_not_read_exports_what_cannot_be_told() -> None:
    emap = emap_of({"m": "x = 1\nfrom unknown import *\n"})
    assert emap.exported_names("m") is None
    assert emap.missing(["m.y"]) == {"unknown"}  # the star may provide ``y``


def test_a_star_of_a_namespace_package_adds_nothing_and_the_walk_goes_on() -> None:
    emap = emap_of(
        {"m": "from known import *\nfrom ns import *\n", "known": "def k(): ...\n"},
        namespace_packages=["ns"],
    )
    assert emap.exported_names("m") == {"k"}


def test_an_all_spliced_from_a_module_not_read() -> None:
    emap = emap_of(
        {
            "pkg": "from . import common\n__all__ = common.__all__ + ['x']\n",
            "m": "from pkg import *\n",
        },
        packages=("pkg",),
    )
    assert emap.exported_names("pkg") is None  # unknown until ``pkg.common`` is read
    assert "pkg.common" in emap.missing(["m.y"])


def test_a_star_cycle_away_from_the_start_ends() -> None:
    emap = emap_of(
        {
            "m": "from a import *\n",
            "a": "from b import *\ndef fa(): ...\n",
            "b": "from a import *\ndef fb(): ...\n",
        },
        nodes=1000,
    )
    assert emap.exported_names("m") == {"fa", "fb"}


def test_star_exports_asked_before_are_the_same_answer() -> None:
    modules = {
        "a": "def fa(): ...\n",
        "b": "from unknown import *\n",
        "m": "x = 1\nfrom a import *\n",
        "n": "from a import *\nfrom unknown import *\n",
        "o": "from b import *\n",
    }
    fresh = {name: emap_of(modules).exported_names(name) for name in modules}
    assert fresh["m"] == {"x", "fa"}
    assert fresh["n"] is None
    assert fresh["o"] is None
    warmed = emap_of(modules)
    for name in ("a", "b", "m", "n", "o", "m", "n"):
        assert warmed.exported_names(name) == fresh[name], name


# ------------------------------------------------------------------ the modules needed


WEB = {
    "a": "from b import f\n",
    "b": "def f(): ...\n",
    "c": "try:\n    from b import f\nexcept ImportError:\n    from nowhere import f\n",
    "d": "from gone import *\n",
    "e": "from d import *\n",
    "s": "from gone2 import *\nfrom e import *\n",
    "t": "from s import *\n",
    "u": "from d import f\nfrom nothing import g\n",
}
QUESTIONS = ["a.f", "c.f", "d.f", "d.g", "e.f", "s.f", "t.f", "u.f", "u.g", "x.y"]


@pytest.mark.parametrize(
    "warm",
    [
        ["a.f"],
        ["b.f", "a.f"],
        ["d.f"],
        ["e.f"],
        ["u.f", "c.f"],
        ["d.g", "e.g", "s.g"],
        ["t.f"],
    ],
)
def test_the_modules_needed_do_not_depend_on_what_was_asked_before(warm: list[str]) -> None:
    expected = {q: emap_of(WEB).missing([q]) for q in QUESTIONS}
    assert expected["c.f"] == {"nowhere"}
    assert expected["u.g"] == {"nothing"}
    assert expected["t.f"] >= {"gone", "gone2"}
    for exported in ("d", "e"):
        emap = emap_of(WEB)
        emap.exported_names(exported)
        emap.canonicals(warm[0])
        assert emap.missing(QUESTIONS) == frozenset().union(*expected.values())
    emap = emap_of(WEB)
    for name in warm:
        emap.canonicals(name)
        emap.canonical(name)
    for question in QUESTIONS:
        assert emap.missing([question]) == expected[question], question
    assert emap.missing(["u.g", *warm]) == frozenset().union(
        expected["u.g"], *(emap_of(WEB).missing([w]) for w in warm)
    )


def test_the_modules_needed_follow_every_binding() -> None:
    emap = emap_of({"m": "try:\n    from a import f\nexcept ImportError:\n    from b import f\n"})
    assert emap.missing(["m.f"]) == {"a", "b"}


# ------------------------------------------------------------------ the memo


def chain(length: int, *, star: bool = False) -> dict[str, str]:
    """``m0`` defines ``f``; each ``m{i}`` re-exports it from ``m{i-1}``."""
    modules = {"m0": "def f(): ...\n"}
    for i in range(1, length):
        modules[f"m{i}"] = f"from m{i - 1} import *\n" if star else f"from m{i - 1} import f\n"
    return modules


def steps_of(emap: ExportMap, ask: str, how: str) -> int:
    before = emap.meter.steps
    getattr(emap, how)(ask)
    return emap.meter.steps - before


@pytest.mark.parametrize("how", ["canonical", "canonicals", "is_module"])
def test_a_spelling_asked_again_costs_nothing(how: str) -> None:
    emap = emap_of(chain(30))
    assert steps_of(emap, "m29.f", how) >= 30
    assert emap.canonical("m29.f") == "m0.f"
    assert steps_of(emap, "m29.f", how) == 0


@pytest.mark.parametrize("how", ["canonical", "canonicals", "is_module"])
def test_a_new_link_onto_a_chain_followed_before_costs_two_steps(how: str) -> None:
    modules = {**chain(30), "top": "from m29 import f\n"}
    emap = emap_of(modules)
    getattr(emap, how)("m29.f")
    assert steps_of(emap, "top.f", how) <= 2
    assert emap.canonical("top.f") == "m0.f"
    assert emap.canonicals("top.f") == {"m0.f"}


def test_a_new_star_onto_star_exports_walked_before_costs_two_modules_and_what_they_add() -> None:
    modules = {**chain(30, star=True), "top": "from m29 import *\n"}
    emap = emap_of(modules)
    assert emap.exported_names("m29") == {"f"}
    # ``top``: a step and its star's edge; ``m29``, known: a step and its one name
    assert steps_of(emap, "top", "exported_names") == 4
    assert steps_of(emap, "top", "exported_names") == 0
    assert emap.exported_names("top") == {"f"}


def test_an_export_walk_counts_the_names_and_edges_each_module_adds() -> None:
    modules = {
        "a": "from b import *\nfrom c import *\nx = y = 1\n",
        "b": "__all__ = ['p', 'q', 'r']\n",
        "c": "def s(): ...\n",
    }
    emap = emap_of(modules)
    # a: 1 + 2 names + 2 edges; b: 1 + 3 names; c: 1 + 1 name
    assert steps_of(emap, "a", "exported_names") == 11
    assert emap.exported_names("a") == {"x", "y", "p", "q", "r", "s"}


def test_a_walk_back_counts_each_edge_it_follows_star_edges_included() -> None:
    stars = "".join(f"from m{j} import *\n" for j in range(1, 5))
    modules = {"m0": "def f(): ...\n", **{f"m{i}": "from m0 import *\n" for i in range(1, 5)}}
    modules["top"] = stars
    emap = emap_of(modules)
    for module in modules:
        emap.exported_names(module)  # (their export walks counted apart)
    emap.reach(["m0.f"])  # (the reverse index, built once, counted apart)
    before = emap.meter.steps
    found = emap.reach(["m0.f"])
    assert set(found) >= {"m0.f", "m1.f", "m4.f", "top.f"}
    # a step per name met, an edge per star import of a module met (m0: 4, m1..m4: 1 each)
    assert emap.meter.steps - before == len(found) + 4 + 4


def test_a_star_web_lists_no_edge_per_name() -> None:
    """100 modules that star-import each other with 30 names each: the index is the
    bindings, not the product (3 * 10^7 edges); a walk back takes the few it meets."""
    size = 100
    modules = {
        f"m{i}": "".join(f"from m{j} import *\n" for j in range(size) if j != i)
        + "".join(f"def f{i}_{k}(): ...\n" for k in range(30))
        for i in range(size)
    }
    emap = emap_of(modules, nodes=3_000_000)
    found = emap.reach(["m0.f0_0"])
    assert {name for name in found if name.endswith(".f0_0")} == {f"m{i}.f0_0" for i in range(size)}
    assert emap.meter.steps < 3_000_000


def test_the_likely_target_walks_no_star_that_does_not_run_last() -> None:
    def cost(length: int) -> int:
        modules = {
            **chain(length, star=True),
            "m": f"from m{length - 1} import *\nfrom a import f\n",
            "a": "def f(): ...\n",
        }
        return steps_of(emap_of(modules), "m.f", "canonical")

    assert cost(2) == cost(30)


def test_every_walk_reads_its_nodes_once() -> None:
    # a diamond of diamonds: each module takes ``f`` from both of the next pair
    modules = {"d9a": "def f(): ...\n", "d9b": "def f(): ...\n"}
    for i in range(9):
        for side in "ab":
            modules[f"d{i}{side}"] = (
                f"try:\n    from d{i + 1}a import f\nexcept ImportError:\n"
                f"    from d{i + 1}b import f\n"
            )
    emap = emap_of(modules)
    assert emap.canonicals("d0a.f") == {"d9a.f", "d9b.f"}
    assert emap.meter.steps < 100  # not 2**9 paths


# ------------------------------------------------------------------ budget errors name where


def test_a_walk_past_the_budget_names_the_module_it_stopped_at() -> None:
    modules = {"a": "from b import f\n", "b": "def f(): ...\n"}
    for how in ("canonical", "canonicals"):
        with pytest.raises(GraphBudgetError, match="at the module 'a'"):
            getattr(emap_of(modules, nodes=0), how)("a.f")
    with pytest.raises(GraphBudgetError, match="at the module 'a'"):
        emap_of({"a": "from b import *\n"}, nodes=0).exported_names("a")
    with pytest.raises(GraphBudgetError, match="at the module 'a'"):
        emap_of({"a": "import os as o\n"}, nodes=0).reach(["os.x"])
    # the reverse edges pass (one step per binding), then the backward walk stops at ``a``
    with pytest.raises(GraphBudgetError, match="at the module 'a'"):
        emap_of({"a": "def f(): ...\n"}, nodes=1).reach(["a.f"])
    with pytest.raises(GraphBudgetError, match=r"at the module 'a\.g'"):
        emap_of({"a": ""}, nodes=0).reach(["a.g"])  # no statement makes it: its name


# ------------------------------------------------------------------ reach and spellings


OS = {
    "os": "import sys\nimport posixpath as path\nimport posixpath\nimport posixpath as _p\n",
    "posixpath": "x = 1\ndef join(): ...\n",
}


def test_reach_names_the_statement_that_makes_each_name() -> None:
    found = emap_of(OS).reach(["posixpath.join"])
    assert found["posixpath.join"] == Reached("posixpath.join", "", "posixpath", 2)
    assert found["posixpath"] == Reached("posixpath", "join", "posixpath", 2)
    assert found["os.path"] == Reached("os.path", "join", "os", 2)
    assert found["os.path.join"] == Reached("os.path.join", "", "os", 2)
    assert found["os"] == Reached("os", "path.join", "os", 2)
    # the module's own names and plain imports make no spelling of their own
    assert "os._p" not in found
    assert "os.posixpath" not in found
    assert "os.sys" not in found


def test_a_dunder_alias_is_a_spelling_a_private_one_is_not() -> None:
    emap = emap_of(
        {"m": "import os as _os\nimport os as __shim__\nimport os as alias\nimport os\n"}
    )
    found = emap.reach(["os.sep"])
    assert {"m.alias.sep", "m.__shim__.sep"} <= set(found)
    assert "m._os.sep" not in found
    assert "m.os.sep" not in found


def test_a_target_the_map_does_not_define_has_no_statement() -> None:
    emap = emap_of({"m": "x = 1\n"})
    assert emap.reach(["nowhere.f"])["nowhere.f"] == Reached("nowhere.f", "", "", 0)
    assert emap.spellings("nowhere.f") == []


def test_a_target_spelt_by_a_re_export_gets_that_statement() -> None:
    emap = emap_of(
        {"pkg": "x = 1\nfrom .core import f\n", "pkg.core": "def f(): ...\n"},
        packages=("pkg",),
    )
    found = emap.reach(["pkg.f", "pkg.core.f"])
    assert found["pkg.f"] == Reached("pkg.f", "", "pkg", 2)
    assert found["pkg.core.f"] == Reached("pkg.core.f", "", "pkg.core", 1)


def test_a_spelling_made_twice_names_its_first_statement() -> None:
    emap = emap_of({"a": "def f(): ...\n", "b": "from a import f\nfrom a import f\n"})
    assert emap.reach(["a.f"])["b.f"] == Reached("b.f", "", "b", 1)


def test_a_star_of_a_module_not_read_may_spell_any_of_its_names() -> None:
    emap = emap_of({"m": "x = 1\nfrom unknown import *\n"})
    found = emap.reach(["unknown.f"])
    assert found["m.f"] == Reached("m.f", "", "m", 2)
    deeper = emap.reach(["unknown.f.g"])
    assert deeper["m.f"] == Reached("m.f", "g", "m", 2)
    assert deeper["m.f.g"] == Reached("m.f.g", "", "m", 2)


def test_the_spellings_of_a_module_start_with_the_module_itself() -> None:
    emap = emap_of({"a": "x = 1\n", "b": "import a as c\n"})
    spelt = [(s.spelling, s.module, s.line) for s in emap.spellings("a")]
    assert spelt == [("a", "a", 0), ("b.c", "b", 1)]


def test_spellings_are_the_whole_names_with_a_statement() -> None:
    emap = emap_of(OS)
    spelt = [(s.spelling, s.module, s.line) for s in emap.spellings("posixpath.join")]
    assert spelt == [("os.path.join", "os", 2), ("posixpath.join", "posixpath", 2)]


# ------------------------------------------------------------------ build_export_map


def test_a_module_not_named_a_package_is_a_plain_module() -> None:
    modules = {"pkg": "from .sub import f\n", "pkg.sub": "def f(): ...\n", "sub": "def f(): ...\n"}
    plain = build_export_map(modules, {})
    assert plain.modules["pkg"].is_package is False
    assert plain.canonical("pkg.f") == "sub.f"
    package = build_export_map(modules, {"pkg": True})
    assert package.modules["pkg"].is_package is True
    assert package.canonical("pkg.f") == "pkg.sub.f"


def test_build_export_map_keeps_namespace_packages_and_known_modules() -> None:
    emap = build_export_map({"a": "x = 1\n"}, {}, namespace_packages=["ns"], known_modules=["a"])
    assert emap.is_module("ns") is True
    assert emap.missing(["zz.f"]) == frozenset()


def test_a_name_made_by_a_star_and_an_import_names_the_statement_that_comes_first() -> None:
    """The walk back meets the edges in the bindings' order, star edges among the others."""
    star_first = emap_of({"s": "def x(): ...\n", "m": "from s import *\nfrom s import x\n"})
    assert star_first.reach(["s.x"])["m.x"] == Reached("m.x", "", "m", 1)
    import_first = emap_of({"s": "def x(): ...\n", "m": "from s import x\nfrom s import *\n"})
    assert import_first.reach(["s.x"])["m.x"] == Reached("m.x", "", "m", 1)


def test_a_walk_back_counts_each_star_import_of_a_module_not_read() -> None:
    emap = emap_of({"m1": "from unknown import *\n", "m2": "x = 1\nfrom unknown import *\n"})
    emap.reach(["unknown.f"])  # (the reverse index, built once, counted apart)
    before = emap.meter.steps
    found = emap.reach(["unknown.f"])
    assert sorted(found) == ["m1", "m1.f", "m2", "m2.f", "unknown", "unknown.f"]
    # a step per name met, and one per star import that may provide unknown.f (two)
    assert emap.meter.steps - before == len(found) + 2


def test_a_module_on_the_way_takes_the_continuation_of_its_first_binding() -> None:
    """``m`` reaches ``s.x`` as ``m.zz`` and as ``m.x``: the binding that comes first in ``m``
    gives the continuation (the walk meets the edges in the bindings' order, not by name)."""
    renamed_first = emap_of(
        {"s": "def x(): ...\n", "m": "from s import x as zz\nfrom s import *\n"}
    )
    assert renamed_first.reach(["s.x"])["m"] == Reached("m", "zz", "m", 1)
    star_first = emap_of({"s": "def x(): ...\n", "m": "from s import *\nfrom s import x as a\n"})
    assert star_first.reach(["s.x"])["m"] == Reached("m", "x", "m", 1)
