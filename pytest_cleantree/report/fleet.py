"""What a report says per host: each host's verdict, and a host's own error said once.

A host that cannot be reached gives every one of its checks the same problem (each check,
and each pytest item, must fail: none may pass having read nothing).  A report reads them
as what they are, one fact about the host: counted once, shown once, and the host's status
line says ``gpu-3: unreachable: ...``.  Every format counts errors here, so that text, JSON,
GitHub and SARIF agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from pytest_cleantree.core.model import Problem, Result

#: how a report names this machine among hosts
LOCAL_LABEL = "local"


def host_label(host: str) -> str:
    """The host as a report names it (``""``, this machine, is ``local``)."""
    return host or LOCAL_LABEL


def is_host_problem(problem: Problem) -> bool:
    """A problem of the host or the source as a whole (no file or entry at fault)."""
    return not problem.path


def first_time(seen: set[tuple[str, str]], host: str, problem: Problem) -> bool:
    """Whether a report shows ``problem`` of ``host``: a file's problem always, a host's own
    problem (the same message on the same host) the first time only; ``seen`` records it."""
    if not is_host_problem(problem):
        return True
    key = (host, problem.message)
    if key in seen:
        return False
    seen.add(key)
    return True


def iter_distinct_problems(results: Iterable[Result]) -> Iterator[tuple[Result, Problem]]:
    """Each result's problems, a host's own problem only the first time (see
    :func:`first_time`): an unreachable host is one error, whatever the number of rules."""
    seen: set[tuple[str, str]] = set()
    for result in results:
        for problem in result.problems:
            if first_time(seen, result.host, problem):
                yield result, problem


def count_errors(results: Iterable[Result]) -> int:
    """How many errors a report states (see :func:`iter_distinct_problems`)."""
    return sum(1 for _ in iter_distinct_problems(results))


def describe_counts(
    hits: int, missing: int, present: int, errors: int, hit_files: int = 0, missing_files: int = 0
) -> list[str]:
    """What failed, in words: ``5 forbidden lines in 2 files``, ``1 expected pattern missing in
    1 file``, ``1 error: the check is incomplete``.  Files are those at fault, never the files
    read: a count of what was checked beside a failure reads as the size of the damage."""
    parts = []
    if hits:
        parts.append(f"{_count(hits, 'forbidden line')} in {_count(hit_files, 'file')}")
    if missing:
        found = _count(missing, "expected pattern")
        parts.append(f"{found} missing in {_count(missing_files, 'file')}")
    if present:
        parts.append(f"{_count(present, 'file')} that must not exist")
    if errors:
        parts.append(f"{_count(errors, 'error')}: the check is incomplete")
    return parts


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'s' * (number != 1)}"


def failed_files(results: Iterable[Result]) -> tuple[int, int]:
    """How many files hold a forbidden line, and how many miss an expected pattern (a file
    of two hosts counts twice: each is a file to fix)."""
    hit_files = {(result.host, hit.path) for result in results for hit in result.hits}
    missing_files = {(r.host, missing.path) for r in results for missing in r.missing}
    return len(hit_files), len(missing_files)


@dataclass(frozen=True)
class HostStatus:
    """One host's verdict: ``clean``, ``dirty`` (findings, every file read), ``incomplete``
    (some file or entry could not be checked) or ``unreachable`` (nothing could be read:
    ``reason`` says why)."""

    host: str
    status: str
    hits: int
    missing: int
    present: int
    errors: int
    reason: str = ""
    hit_files: int = 0
    missing_files: int = 0

    def text(self) -> str:
        """``gpu-2: clean``, ``gpu-3: unreachable: ...``, ``gpu-1: 3 forbidden lines in 1 file``."""
        if self.status == "unreachable":
            return f"{host_label(self.host)}: unreachable: {self.reason}"
        parts = describe_counts(
            self.hits, self.missing, self.present, self.errors, self.hit_files, self.missing_files
        )
        return f"{host_label(self.host)}: {'; '.join(parts) or 'clean'}"


def host_statuses(results: Sequence[Result]) -> list[HostStatus]:
    """Each host's status, in the order the hosts first appear in ``results``."""
    by_host: dict[str, list[Result]] = {}
    for result in results:
        by_host.setdefault(result.host, []).append(result)
    return [_status(host, found) for host, found in by_host.items()]


def _status(host: str, results: list[Result]) -> HostStatus:
    counts = (
        sum(len(result.hits) for result in results),
        sum(len(result.missing) for result in results),
        sum(len(result.present) for result in results),
        count_errors(results),
    )
    shared = set.intersection(
        *({p.message for p in result.problems if is_host_problem(p)} for result in results)
    )
    hit_files, missing_files = failed_files(results)
    if shared:  # every check of the host failed the same way: its tree could not be read
        return HostStatus(host, "unreachable", *counts, reason=sorted(shared)[0])
    status = "incomplete" if counts[3] else "dirty" if any(counts) else "clean"
    return HostStatus(host, status, *counts, hit_files=hit_files, missing_files=missing_files)
