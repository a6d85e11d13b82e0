"""Whatever Python compiles is analysed, however deeply nested.

The walks recurse once per nesting level: a 600-term ``a+a+...`` (which Python
compiles) exceeds the default recursion limit.  Such a file is analysed again
on a thread whose stack and recursion limit fit any tree the parser builds.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from pytest_cleantree.core.findings import FileAnalysis

from .records import parse_problem

_P = ParamSpec("_P")
_T = TypeVar("_T")

#: the stack and recursion limit a deeply nested module is analysed with
_DEEP_STACK = 512 * 2**20
_DEEP_RECURSION = 200_000
_DEEP_LOCK = threading.Lock()


def deep_enough(analyze: Callable[_P, FileAnalysis]) -> Callable[_P, FileAnalysis]:
    """Wrap an analysis (whose first argument is the path) to survive deep nesting."""

    @functools.wraps(analyze)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> FileAnalysis:
        try:
            return analyze(*args, **kwargs)
        except RecursionError:
            return _deep(lambda: analyze(*args, **kwargs), str(args[0]))

    return wrapper


def _deep(work: Callable[[], FileAnalysis], path: str) -> FileAnalysis:
    """Run ``work`` on a thread whose stack and recursion limit fit any tree Python builds."""
    try:
        return on_deep_stack(work)
    except RecursionError as exc:
        return FileAnalysis(path, (), (), parse_problem(exc))


def on_deep_stack(work: Callable[[], _T]) -> _T:
    """``work()``, on a thread whose stack and recursion limit fit any tree Python builds;
    what it raises is raised here."""
    outcome: list[_T | BaseException] = []

    def run() -> None:
        try:
            outcome.append(work())
        except BaseException as exc:  # re-raised below, on the caller's thread
            outcome.append(exc)

    with _DEEP_LOCK:  # the limit and the stack size are process-wide settings
        limit = sys.getrecursionlimit()
        size = threading.stack_size()
        sys.setrecursionlimit(max(limit, _DEEP_RECURSION))
        try:
            threading.stack_size(_DEEP_STACK)
            thread = threading.Thread(target=run, name="cleantree-deep")
            thread.start()
            thread.join()
        finally:
            threading.stack_size(size)
            sys.setrecursionlimit(limit)
    result = outcome[0]
    if isinstance(result, BaseException):
        raise result
    return result
