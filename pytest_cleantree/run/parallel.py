"""Analyse a batch of files, in worker processes when that pays for their start.

The analysis is imported here only when a file is actually analysed: a warm run, whose
every answer comes from the store, never loads it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from pytest_cleantree.core.findings import FileAnalysis
from pytest_cleantree.run.plan import PatternList
from pytest_cleantree.sources.base import FileRead

#: below this much to parse (files, and bytes of the files likely parsed), starting worker
#: processes costs more than it saves (measured on bench/'s trees, 1 and 20 names)
PARALLEL_MIN_FILES = 64
PARALLEL_MIN_BYTES = 2**19
#: up to this many needles in a list, the bytes of a file are searched for them to guess
#: whether it will be parsed (more needles: it is assumed to be)
_GUESS_MAX_NEEDLES = 8

#: names the start method of the workers (``fork``, ``forkserver``, ``spawn``) in place of the
#: pool's own choice: for tests, which must drive each
START_METHOD_ENV = "CLEANTREE_TEST_START_METHOD"


@dataclass(frozen=True)
class FileWork:
    """One file to analyse, as it crosses to a worker process.

    ``file`` is the source's record of the file whole (:class:`~pytest_cleantree.sources.base.
    FileRead`): a new fact a source knows of a file is a field there, and reaches the
    analysis (:func:`_analyze`) and the cache (``run.analyses``) through here unchanged.  What
    the run adds (the patterns, the module name) is one field here and its producer
    (``run.check``).
    """

    path: str
    file: FileRead
    patterns: PatternList
    #: whether a rule naming the file looks at comments
    comments: bool
    #: its module name from the tree's layout (``None``: from the path)
    module: str | None = None
    #: what star imports of the tree's modules bind (see ``Spellings.binds``)
    stars: Mapping[str, frozenset[str]] | None = None

    @property
    def data(self) -> bytes:
        """The file's bytes."""
        return self.file.data


def analyze_all(
    work: Sequence[FileWork], jobs: int, progress: Callable[[int], None] | None = None
) -> list[FileAnalysis]:
    """Each file's compact analysis, in order: in ``jobs`` processes if that pays.
    ``progress`` is told of each file as it is done (a progress line counts them)."""
    found = (
        _parallel(list(work), jobs)  # the workers prefilter too: the parent stays free
        if _parallel_pays(work, jobs)
        else (_analyze(item).compact() for item in work)
    )
    done = []
    for analysis in found:
        done.append(analysis)
        if progress is not None:
            progress(1)
    return done


def _parallel_pays(work: Sequence[FileWork], jobs: int) -> bool:
    """Is there enough to parse that worker processes pay for their start?

    A guess, only for scheduling (each file is analysed in full either way):
    the files whose bytes hold a needle of their list, where the list has few.
    """
    if jobs < 2 or len(work) < PARALLEL_MIN_FILES:
        return False
    from pytest_cleantree.analysis.text import compile_patterns

    size = 0
    needles_of: dict[PatternList, tuple[bytes, ...] | None] = {}
    for item in work:
        data, patterns = item.data, item.patterns
        if patterns not in needles_of:
            listed = [n for _, n, _ in compile_patterns(patterns.patterns).needles]
            few = None not in listed and len(listed) <= _GUESS_MAX_NEEDLES
            needles_of[patterns] = tuple(n.encode() for n in listed if n) if few else None
        needles = needles_of[patterns]
        if needles is None or any(needle in data for needle in needles):
            size += len(data)
            if size >= PARALLEL_MIN_BYTES:
                return True
    return False


def _analyze(item: FileWork) -> FileAnalysis:
    from pytest_cleantree.analysis import analyze

    return analyze(
        item.path,
        item.data,
        item.patterns.patterns,
        comments=item.comments,
        module=item.module,
        stars=item.stars,
    )


def _parallel(items: list[FileWork], jobs: int) -> Iterator[FileAnalysis]:
    """Analyse in worker processes.

    ``fork`` when this process runs no other thread (it is the cheapest start,
    and safe then); else ``forkserver`` (safe beside paramiko's threads), else
    ``spawn``.
    """
    import multiprocessing  # here: most runs never start a worker, and these cost 20 ms
    import threading
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    if os.environ.get(START_METHOD_ENV) in methods:  # tests drive each way a worker starts
        method = os.environ[START_METHOD_ENV]
    elif "fork" in methods and threading.active_count() == 1:
        method = "fork"
    else:
        method = "forkserver" if "forkserver" in methods else "spawn"
    context = multiprocessing.get_context(method)
    if isinstance(context, multiprocessing.context.ForkServerContext):
        # imported once, not per worker
        context.set_forkserver_preload(
            ["pytest_cleantree.run.parallel", "pytest_cleantree.analysis"]
        )
    chunk = max(1, len(items) // (jobs * 8))
    with ProcessPoolExecutor(
        max_workers=jobs,
        mp_context=context,
        initializer=end_with_parent,
        initargs=(os.getpid(),),
    ) as pool:
        yield from pool.map(_analyze_compact, items, chunksize=chunk)


#: how often a worker looks whether the process that started it is still there (seconds)
PARENT_POLL = 0.5


def end_with_parent(run: int) -> None:
    """In a worker, first thing: end when the run's process (pid ``run``) ends.

    A run killed mid-analysis (a CI step's timeout, ``kill -9``) must not leave its workers
    behind, each holding the parsed files (issue 44: two of 300 MB each outlived a killed run
    by 20 minutes).  On Linux the kernel delivers SIGKILL when the parent dies
    (``PR_SET_PDEATHSIG``: with the ``forkserver`` start the parent is the fork server, which
    exits when the run's process is gone); everywhere, a daemon thread polls that the run's
    process is there and the worker's parent has not changed.
    """
    import signal
    import threading

    parent = os.getppid()
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            pr_set_pdeathsig = 1
            libc.prctl(pr_set_pdeathsig, signal.SIGKILL, 0, 0, 0)

    def there() -> bool:
        try:
            os.kill(run, 0)
        except ProcessLookupError:
            return False
        except OSError:  # there, but not ours to signal
            return True
        return os.getppid() == parent

    if not there():  # it ended before the kernel could be told
        os._exit(1)

    def watch() -> None:
        while there():
            time.sleep(PARENT_POLL)
        os._exit(1)

    threading.Thread(target=watch, name="cleantree-parent-watch", daemon=True).start()


def _analyze_compact(item: FileWork) -> FileAnalysis:
    """In a worker: only the lines that findings point at travel back."""
    return _analyze(item).compact()


def default_jobs() -> int:
    """The CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1
