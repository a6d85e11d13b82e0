"""``run/rewrite.py`` called directly: every spelling of a qualified pattern is asked of each
file, and what a spelling found is reported under the patterns the manifest wrote."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pytest_cleantree.core.checks import Check
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.findings import FileAnalysis, Finding
from pytest_cleantree.core.model import Kind, Occurrence, Pattern, PatternTier, Rule
from pytest_cleantree.names.spellings import Spellings
from pytest_cleantree.run.plan import Asked, PatternList, Plan
from pytest_cleantree.run.rewrite import (
    Analyses,
    Spelt,
    _Through,
    as_written,
    rewrite_findings,
    spell,
    with_spellings,
)
from pytest_cleantree.sources.base import FileStat
from pytest_cleantree.sources.local import LocalSource

P = "posixpath.join"
R = "lib.g"
Q = "pkg.f"


def _q(text: str, needles: tuple[str, ...] = ()) -> Pattern:
    return Pattern(text, PatternTier.QUALIFIED, text, needles=needles)


class _Leads(Spellings):
    """Spellings whose uses lead to a pattern when they name it or something inside it."""

    def leads_to(self, name: str, pattern: str) -> bool:
        return name == pattern or name.startswith(pattern + ".")


#: P and R share the spelling os.path.join; os.path is a way to both, lib.g (R's own
#: spelling) a way to P
SPELT = _Leads(
    names={
        P: frozenset({P, "os.path.join"}),
        R: frozenset({R, "os.path.join"}),
        Q: frozenset({Q}),
    },
    stars={},
    binds={"pkg": frozenset({"f"})},
    ways={P: frozenset({"os.path", "lib.g", "os.path.join"}), R: frozenset({"os.path"})},
    words={P: frozenset({"join"}), R: frozenset({"g"})},
)
BACK = {
    "os.path.join": frozenset({P, R}),
    "os.path": frozenset({P, R}),
    "lib.g": frozenset({P, R}),
}
WAYS = {"os.path": frozenset({P, R}), "lib.g": frozenset({P})}


def _at(line: int, *qualified: str, kind: Kind = Kind.CALL) -> Occurrence:
    return Occurrence(line, 0, kind, "x", qualified)


def _findings(analyses: Analyses, path: str) -> tuple[Finding, ...]:
    analysis = analyses[path]
    assert isinstance(analysis, FileAnalysis)
    return analysis.findings


def test_each_file_is_asked_for_every_spelling_and_way_of_its_patterns_once() -> None:
    shared: Asked = (PatternList((_q(P), _q(Q))), False)
    plain: Asked = (PatternList((_q(Q),)), True)
    own: Asked = (PatternList((_q(R), _q("os.path"))), True)
    wanted = {"a.py": shared, "b.py": shared, "c.py": plain, "d.py": own}
    grown, back, ways = with_spellings(wanted, SPELT)
    assert list(grown) == ["a.py", "b.py", "c.py", "d.py"]
    assert grown["a.py"] == (
        PatternList((_q(P), _q(Q), _q("os.path.join"), _q("os.path", ("g", "join")))),
        False,
    )
    assert grown["b.py"] is grown["a.py"]  # files that share a list share its growth
    assert grown["c.py"] is plain  # nothing to add: the list itself
    assert grown["d.py"] == (PatternList((_q(R), _q("os.path"), _q("os.path.join"))), True)
    assert back == BACK
    assert ways == WAYS


def test_without_spellings_nothing_is_added() -> None:
    asked: Asked = (PatternList((_q(Q),)), False)
    grown, back, ways = with_spellings({"a.py": asked}, Spellings({}, {}))
    assert grown == {"a.py": asked}
    assert grown["a.py"] is asked
    assert (back, ways) == ({}, {})


def test_a_way_of_a_pattern_without_known_spellings_or_words_is_asked_without_needles() -> None:
    asked: Asked = (PatternList((_q("m.f"),)), False)
    grown, back, ways = with_spellings(
        {"a.py": asked}, Spellings({}, {}, ways={"m.f": frozenset({"m"})})
    )
    assert grown == {"a.py": (PatternList((_q("m.f"), _q("m"))), False)}
    assert back == {"m": {"m.f"}}
    assert ways == {"m": {"m.f"}}


def test_a_spellings_findings_are_reported_under_the_patterns_it_stands_for() -> None:
    one, two = _at(1), _at(2)
    analyses: Analyses = {
        "a.py": FileAnalysis(
            "a.py",
            ("os.path.join(x)", "f()"),
            (Finding("os.path.join", one), Finding(P, one), Finding(Q, two)),
        ),
        "b.py": SourceError("b.py: gone"),
        "c.py": FileAnalysis("c.py", ("f()",), (Finding(Q, one),)),
    }
    written = as_written(analyses, BACK)
    assert list(written) == ["a.py", "b.py", "c.py"]
    assert written["a.py"] == FileAnalysis(
        "a.py",
        ("os.path.join(x)", "f()"),
        (Finding(R, one), Finding(P, one), Finding(Q, two)),
    )
    assert written["b.py"] is analyses["b.py"]
    assert written["c.py"] is analyses["c.py"]  # no spelling found: the analysis itself
    assert as_written(analyses, {}) is analyses


def test_a_use_through_a_way_counts_for_the_patterns_it_leads_to_only() -> None:
    analyses: Analyses = {
        "a.py": FileAnalysis(
            "a.py",
            ("os.path.join(x)", "lib.g()", '"os.path"', "f()"),
            (
                Finding("os.path", _at(1, "posixpath.join")),
                Finding("lib.g", _at(2, "lib.g")),
                Finding("os.path", _at(3, kind=Kind.STRING)),
                Finding(Q, _at(4, Q)),
            ),
        )
    }
    through = _Through(WAYS, SPELT)
    assert through.patterns(Finding("os.path", _at(1, "posixpath.join.x"))) == {P}
    assert through.patterns(Finding("os.path", _at(1, "elsewhere", "lib.g"))) == {R}
    assert through.patterns(Finding("os.path", _at(1))) == frozenset()
    written = as_written(analyses, BACK, through)
    assert _findings(written, "a.py") == (
        Finding(P, _at(1, "posixpath.join")),
        Finding(R, _at(2, "lib.g")),
        Finding(Q, _at(4, Q)),
    )
    # without a way, each spelling stands for all its patterns
    assert _findings(as_written(analyses, BACK), "a.py") == (
        Finding(R, _at(1, "posixpath.join")),
        Finding(P, _at(1, "posixpath.join")),
        Finding(R, _at(2, "lib.g")),
        Finding(P, _at(2, "lib.g")),
        Finding(R, _at(3, kind=Kind.STRING)),
        Finding(P, _at(3, kind=Kind.STRING)),
        Finding(Q, _at(4, Q)),
    )


def test_rewrite_findings_goes_through_the_ways_of_what_was_spelt() -> None:
    analyses: Analyses = {
        "a.py": FileAnalysis("a.py", ("x",), (Finding("os.path", _at(1, "posixpath.join")),))
    }
    assert rewrite_findings(analyses, {}, Spelt()) is analyses
    spelt = Spelt({}, BACK, SPELT, WAYS)
    assert _findings(rewrite_findings(analyses, {}, spelt), "a.py") == (
        Finding(P, _at(1, "posixpath.join")),
    )


def test_what_star_imports_bind_comes_from_the_spellings() -> None:
    assert Spelt().binds == {}
    assert Spelt(spellings=SPELT).binds == {"pkg": frozenset({"f"})}
    assert (Spelt().modules, Spelt().back, Spelt().ways, Spelt().spellings) == ({}, {}, {}, None)


def _plan(wanted: dict[str, Asked]) -> Plan:
    return Plan({}, {}, {}, wanted, None)


def test_a_run_without_qualified_patterns_keeps_its_plan() -> None:
    rule = Rule("r", ("a.py",), forbid=(Pattern("sm120", PatternTier.SUBSTRING, "sm120"),))
    absent = Rule("q", (), absent=("old.py",), forbid=(_q("pkg.mod.run"),))
    plan = _plan({"a.py": (PatternList(rule.forbid), False)})
    checks = [Check(rule, "a.py"), Check(absent, "old.py", absent=True)]
    missing = LocalSource(Path("/no/such/tree"))  # never read
    spelt_plan, spelt = spell(checks, plan, missing, ())
    assert spelt_plan is plan
    assert spelt == Spelt()


def test_a_qualified_pattern_is_asked_by_its_re_exported_spelling_too(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from pkg.mod import run\n")
    (tmp_path / "pkg" / "mod.py").write_text("def run():\n    pass\n")
    (tmp_path / "use.py").write_text("import pkg\npkg.run()\n")
    rule = Rule("r", ("use.py", "pkg/mod.py"), forbid=(_q("pkg.mod.run"),))
    asked: Asked = (PatternList(rule.forbid), False)
    plan = Plan({"use.py": ("use.py",)}, {}, {}, {"use.py": asked, "pkg/mod.py": asked}, None)
    checks = [Check(rule, "use.py"), Check(rule, "pkg/mod.py")]
    grown, spelt = spell(checks, plan, LocalSource(tmp_path), ())
    # pkg.run leads there; pkg.mod is a module on the way, asked with the target's last name
    spellings = (_q("pkg.mod.run"), _q("pkg.run"), _q("pkg.mod", ("run",)))
    assert grown.wanted == {
        "use.py": (PatternList(spellings), False),
        "pkg/mod.py": (PatternList(spellings), False),
    }
    assert (grown.named, grown.present, grown.needles) == (plan.named, plan.present, None)
    assert spelt.back == {
        "pkg.run": frozenset({"pkg.mod.run"}),
        "pkg.mod": frozenset({"pkg.mod.run"}),
    }
    assert spelt.ways == {"pkg.mod": frozenset({"pkg.mod.run"})}
    assert spelt.modules == {"pkg/mod.py": "pkg.mod"}
    assert spelt.spellings is not None
    assert spelt.spellings.names == {"pkg.mod.run": {"pkg.mod.run", "pkg.run"}}


class _Memory:
    """A store of analyses in memory, keeping the symbol graph's parts it is given."""

    def __init__(self) -> None:
        self.graph: dict[str, Any] = {}

    def get(self, pack: str, path: str, digest: str) -> FileAnalysis | None:
        return None

    def put(self, pack: str, path: str, digest: str, analysis: FileAnalysis) -> None:
        pass

    def known_digests(self, root: str, stats: Mapping[str, FileStat]) -> dict[str, str]:
        return {}

    def see_digests(self, root: str, seen: Mapping[str, tuple[FileStat, str]], since: int) -> None:
        pass

    def get_graph(self, key: str) -> Any:
        return self.graph.get(key)

    def put_graph(self, key: str, entry: Any) -> None:
        self.graph[key] = entry

    def flush(self) -> None:
        pass

    def forget(self) -> None:
        pass


def test_a_re_export_in_any_package_of_the_tree_is_a_spelling_and_the_graph_is_stored(
    tmp_path: Path,
) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "mod.py").write_text("def run():\n    pass\n")
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "__init__.py").write_text("from pkg.mod import run\n")
    (tmp_path / "other.py").write_text("import api\napi.run()\n")
    rule = Rule("r", ("*.py",), forbid=(_q("pkg.mod.run"),))
    asked: Asked = (PatternList(rule.forbid), False)
    plan = Plan({}, {}, {}, {"other.py": asked}, None)
    store = _Memory()
    _, spelt = spell([Check(rule, "*.py")], plan, LocalSource(tmp_path), (), store)
    assert spelt.spellings is not None
    # api is on no chain of the pattern's: its re-export is found among the tree's modules
    assert spelt.spellings.names == {"pkg.mod.run": {"pkg.mod.run", "api.run"}}
    assert spelt.back["api.run"] == {"pkg.mod.run"}
    kept = sorted(key.rpartition(":")[2] for key in store.graph)
    assert "api/__init__.py" in kept
    assert "pkg/mod.py" in kept
