"""``report/fleet.py`` called directly: each host's verdict, and a host's own error said once."""

from __future__ import annotations

from pytest_cleantree.core.model import Hit, Kind, Missing, Problem, Result, Rule
from pytest_cleantree.report.fleet import (
    LOCAL_LABEL,
    HostStatus,
    count_errors,
    describe_counts,
    failed_files,
    first_time,
    host_label,
    host_statuses,
    is_host_problem,
    iter_distinct_problems,
)

RULE = Rule("r", ("a.py",))
OTHER = Rule("s", ("b.py",))
DOWN = Problem("cannot connect")


def _hit(path: str, line: int = 1) -> Hit:
    return Hit(path, line, (Kind.CALL,), "x()")


def test_this_machine_is_named_local_and_a_host_by_its_name() -> None:
    assert LOCAL_LABEL == "local"
    assert host_label("") == "local"
    assert host_label("gpu-1") == "gpu-1"


def test_a_problem_without_a_path_is_the_hosts() -> None:
    assert is_host_problem(DOWN)
    assert not is_host_problem(Problem("cannot decode", "a.py"))


def test_a_hosts_problem_is_shown_once_per_host_and_message_a_files_always() -> None:
    seen: set[tuple[str, str]] = set()
    assert first_time(seen, "gpu-1", DOWN)
    assert seen == {("gpu-1", "cannot connect")}
    assert not first_time(seen, "gpu-1", DOWN)
    assert first_time(seen, "gpu-2", DOWN)
    assert first_time(seen, "gpu-1", Problem("timed out"))
    assert not first_time(seen, "gpu-1", Problem("timed out"))
    file_problem = Problem("cannot decode", "a.py")
    assert first_time(seen, "gpu-1", file_problem)
    assert first_time(seen, "gpu-1", file_problem)
    assert ("gpu-1", "cannot decode") not in seen


def test_distinct_problems_drop_a_hosts_repeated_problem_and_keep_its_result() -> None:
    bad = Problem("cannot decode", "a.py")
    first = Result(RULE, "a.py", host="h", problems=(DOWN, bad))
    second = Result(OTHER, "b.py", host="h", problems=(DOWN, bad))
    third = Result(RULE, "a.py", host="g", problems=(DOWN,))
    assert list(iter_distinct_problems([first, second, third])) == [
        (first, DOWN),
        (first, bad),
        (second, bad),
        (third, DOWN),
    ]
    assert count_errors([first, second, third]) == 4
    assert count_errors([]) == 0
    assert count_errors([Result(RULE, "a.py")]) == 0


def test_counts_are_described_in_words_with_plurals() -> None:
    assert describe_counts(0, 0, 0, 0) == []
    assert describe_counts(1, 1, 1, 1, 1, 1) == [
        "1 forbidden line in 1 file",
        "1 expected pattern missing in 1 file",
        "1 file that must not exist",
        "1 error: the check is incomplete",
    ]
    assert describe_counts(5, 2, 3, 2, 2, 3) == [
        "5 forbidden lines in 2 files",
        "2 expected patterns missing in 3 files",
        "3 files that must not exist",
        "2 errors: the check is incomplete",
    ]
    assert describe_counts(0, 0, 0, 1) == ["1 error: the check is incomplete"]
    assert describe_counts(0, 0, 2, 0) == ["2 files that must not exist"]
    assert describe_counts(0, 1, 0, 0, 0, 1) == ["1 expected pattern missing in 1 file"]
    assert describe_counts(2, 0, 0, 0) == ["2 forbidden lines in 0 files"]
    assert describe_counts(0, 3, 0, 0) == ["3 expected patterns missing in 0 files"]


def test_failed_files_are_counted_per_host_and_file() -> None:
    results = [
        Result(RULE, "a.py", host="h", hits=(_hit("a.py", 1), _hit("a.py", 2), _hit("c.py"))),
        Result(OTHER, "a.py", host="h", hits=(_hit("a.py"),), missing=(Missing("b.py", "p"),)),
        Result(RULE, "a.py", host="g", hits=(_hit("a.py"),)),
        Result(OTHER, "b.py", host="g", missing=(Missing("b.py", "p"), Missing("b.py", "q"))),
    ]
    assert failed_files(results) == (3, 2)
    assert failed_files([]) == (0, 0)


def test_a_host_status_reads_as_one_line() -> None:
    assert HostStatus("", "clean", 0, 0, 0, 0).text() == "local: clean"
    assert HostStatus("gpu-2", "clean", 0, 0, 0, 0).text() == "gpu-2: clean"
    down = HostStatus("gpu-3", "unreachable", 0, 0, 0, 2, reason="cannot connect")
    assert down.text() == "gpu-3: unreachable: cannot connect"
    assert HostStatus("", "unreachable", 0, 0, 0, 1, reason="x").text() == "local: unreachable: x"
    dirty = HostStatus("gpu-1", "dirty", 3, 1, 0, 1, hit_files=1, missing_files=2)
    assert dirty.text() == (
        "gpu-1: 3 forbidden lines in 1 file; 1 expected pattern missing in 2 files; "
        "1 error: the check is incomplete"
    )
    assert HostStatus("h", "dirty", 2, 0, 0, 0).text() == "h: 2 forbidden lines in 0 files"
    assert HostStatus("h", "dirty", 0, 0, 2, 0).text() == "h: 2 files that must not exist"


def test_a_host_status_defaults_to_no_reason_and_no_files() -> None:
    status = HostStatus("h", "clean", 0, 0, 0, 0)
    assert (status.reason, status.hit_files, status.missing_files) == ("", 0, 0)


def test_hosts_come_in_the_order_they_first_appear_each_with_its_verdict() -> None:
    results = [
        Result(RULE, "a.py", host="dirty", hits=(_hit("a.py"), _hit("a.py", 2))),
        Result(RULE, "a.py", host="clean"),
        Result(OTHER, "b.py", host="dirty", missing=(Missing("b.py", "p"),), present=("c.py",)),
        Result(OTHER, "b.py", host="clean"),
        Result(RULE, "a.py", host="", problems=(Problem("cannot decode", "a.py"),)),
        Result(OTHER, "b.py", host=""),
    ]
    assert host_statuses(results) == [
        HostStatus("dirty", "dirty", 2, 1, 1, 0, hit_files=1, missing_files=1),
        HostStatus("clean", "clean", 0, 0, 0, 0),
        HostStatus("", "incomplete", 0, 0, 0, 1),
    ]
    assert host_statuses([]) == []


def test_a_host_whose_every_check_failed_the_same_way_is_unreachable() -> None:
    results = [
        Result(RULE, "a.py", host="h", problems=(Problem("timed out"), DOWN)),
        Result(OTHER, "b.py", host="h", problems=(DOWN, Problem("timed out"))),
    ]
    assert host_statuses(results) == [
        HostStatus("h", "unreachable", 0, 0, 0, 2, reason="cannot connect")
    ]
    one = Result(RULE, "a.py", host="h", hits=(_hit("a.py"),), problems=(DOWN,))
    assert host_statuses([one]) == [HostStatus("h", "unreachable", 1, 0, 0, 1, reason=DOWN.message)]


def test_a_host_problem_of_some_checks_only_leaves_the_host_incomplete() -> None:
    results = [
        Result(RULE, "a.py", host="h", problems=(DOWN,)),
        Result(OTHER, "b.py", host="h", hits=(_hit("b.py"),)),
        Result(OTHER, "c.py", host="h", problems=(Problem("timed out"),)),
    ]
    assert host_statuses(results) == [HostStatus("h", "incomplete", 1, 0, 0, 2, hit_files=1)]
    file_only = [
        Result(RULE, "a.py", host="h", problems=(Problem("cannot decode", "a.py"),)),
        Result(OTHER, "b.py", host="h", problems=(Problem("cannot decode", "a.py"),)),
    ]
    assert host_statuses(file_only) == [HostStatus("h", "incomplete", 0, 0, 0, 2)]
