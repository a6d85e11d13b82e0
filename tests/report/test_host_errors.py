"""A host's own error in every format: once per host (each host says it), and the problems after
it in the same result still shown; with the path frames the formats take by default."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any

from pytest_cleantree.core.model import Hit, Kind, Problem, Result, Rule
from pytest_cleantree.report.context import PathFrame, RenderContext, join_root
from pytest_cleantree.report.github import render_github
from pytest_cleantree.report.json import render, render_json
from pytest_cleantree.report.sarif import render_sarif
from pytest_cleantree.report.text import render_report, render_rows, render_statistics

DOWN = Problem("cannot connect")
BAD = Problem("cannot decode", "a.py", 2)
R, S, T = Rule("r", ("a.py",)), Rule("s", ("b.py",)), Rule("t", ("c.py",))
#: two hosts down; on g1, rule s fails only by the host's error, rule t by it and a file's
FLEET = [
    Result(R, "a.py", host="g1", problems=(DOWN,)),
    Result(R, "a.py", host="g2", problems=(DOWN,)),
    Result(S, "b.py", host="g1", problems=(DOWN,)),
    Result(T, "c.py", host="g1", problems=(DOWN, BAD)),
]
HIT = Result(R, "a.py", hits=(Hit("a.py", 3, (Kind.CALL,), "sm120()", 4),), files=("a.py",))


def test_text_shows_each_hosts_error_once_and_what_follows_it() -> None:
    assert render_rows(FLEET, host_problems=False) == [("g1", "error", "a.py:2: cannot decode")]
    report = render_report(FLEET)
    assert report.count("cannot connect") == 2  # a status line per host, under no rule
    assert "a.py:2: cannot decode" in report
    assert "\nt\n" in f"\n{report}"  # rule t's block, after s which shows nothing
    assert "\nr\n" not in f"\n{report}"  # r fails only by the hosts' errors


def _values(node: Any, key: str) -> Iterator[Any]:
    if isinstance(node, dict):
        for name, value in node.items():
            if name == key:
                yield value
            yield from _values(value, key)
    elif isinstance(node, list):
        for item in node:
            yield from _values(item, key)


def test_sarif_notifies_each_hosts_error_once_and_what_follows_it() -> None:
    document = json.loads(render_sarif(FLEET, root="/r"))
    texts = [message["text"] for message in _values(document, "message")]
    assert texts.count("cannot connect") == 2
    assert texts.count("a.py: cannot decode") == 1


def test_github_annotates_each_hosts_error_once_and_what_follows_it() -> None:
    lines = render_github(FLEET, root="").splitlines()
    errors = [line for line in lines if line.startswith("::error")]
    assert len(errors) == 3
    assert [line.endswith("::cannot connect") for line in errors] == [True, True, False]
    assert errors[2].endswith("::a.py: cannot decode")


def test_statistics_say_nothing_remains_and_list_the_errors_after_the_counts() -> None:
    assert render_statistics([]) == "no forbidden line remains"
    assert render_statistics([Result(R, "a.py")]) == "no forbidden line remains"
    down = render_statistics([Result(R, "a.py", host="g1", problems=(DOWN,))])
    assert down.startswith("no forbidden line remains\n")
    assert down.splitlines()[-1].endswith("cannot connect")
    both = render_statistics([HIT, Result(S, "b.py", host="g1", problems=(DOWN,))])
    assert both.startswith("lines remaining per rule:")
    assert both.splitlines()[-1].endswith("cannot connect")


def _paths(text: str) -> list[str]:
    return list(_values(json.loads(text), "path"))


def test_json_paths_are_absolute_by_default_and_from_the_current_folder_in_a_run() -> None:
    root = os.path.abspath("tree")
    assert _paths(render_json([HIT], manifest="m.toml", root=root)) == [f"{root}/a.py"]
    context = RenderContext(manifest="m.toml", root=root, cwd=root)
    assert _paths(render([HIT], context)) == ["a.py"]


def test_a_path_frame_without_a_base_shows_absolute_paths() -> None:
    here = os.getcwd()
    assert PathFrame(here).show("a.py") == f"{here}/a.py"
    assert PathFrame(here, here).show("a.py") == "a.py"


def test_the_root_itself_joins_to_no_path() -> None:
    assert join_root(".", "") == ""
    assert join_root(".", "./a.py") == "a.py"
    assert join_root("", "") == ""
