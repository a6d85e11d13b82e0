"""A single progress line on a terminal's stderr, for runs that take a while.

Imported only when it can be shown (stderr is a terminal and ``--quiet`` is not given):
a run in CI or in a pipe pays nothing for it.  The line appears after a delay (about a
second: quick runs stay silent), is rewritten in place, and is erased when the run ends,
so that it never mixes with the report.
"""

from __future__ import annotations

import os
import threading
import time
from typing import TextIO

__all__ = ["DELAY_ENV", "Progress"]

#: seconds before the line appears (default 1); tests set 0
DELAY_ENV = "CLEANTREE_PROGRESS_DELAY"
_REFRESH = 0.2
_ERASE = "\r\x1b[K"


class Progress:
    """Counts files analysed of the files to analyse (from any thread: each host's check
    adds its own) and shows them with the hosts and the time."""

    def __init__(self, stream: TextIO, *, hosts: int, rules: int) -> None:
        self._stream = stream
        self._hosts = hosts
        self._rules = rules
        self._files = 0
        self._total = 0
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._shown = False
        self._start = time.monotonic()
        try:
            self._delay = float(os.environ.get(DELAY_ENV, "1"))
        except ValueError:
            self._delay = 1.0
        self._thread = threading.Thread(target=self._run, name="cleantree-progress", daemon=True)

    def __enter__(self) -> Progress:
        if self._delay <= 0:  # shown at once (no race with a run that ends at once)
            self._shown = True
            self._write(_ERASE + self.line())
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()
        if self._shown:  # the last count (every file done), then nothing: the report follows
            self._write(_ERASE + self.line())
            self._write(_ERASE)

    def files_planned(self, count: int) -> None:
        with self._lock:
            self._total += count

    def files_done(self, count: int) -> None:
        with self._lock:
            self._files += count

    def line(self) -> str:
        """``cleantree: 3 rules, 2 hosts, 1,204/4,700 files analysed, 3.2 s``; before any
        plan is made, ``listing the files`` (the tree is walked, the names resolved)."""
        hosts = f", {self._hosts} hosts" if self._hosts > 1 else ""
        elapsed = time.monotonic() - self._start
        with self._lock:
            done, total = self._files, self._total
        if total:
            what = f"{min(done, total):,}/{total:,} file{'s' * (total != 1)} analysed"
        else:
            what = "listing the files"
        rules = f"{self._rules} rule{'s' * (self._rules != 1)}"
        return f"cleantree: {rules}{hosts}, {what}, {elapsed:.1f} s"

    def _run(self) -> None:
        if self._done.wait(max(self._delay, 0.0)):
            return
        while True:
            self._shown = True
            self._write(_ERASE + self.line())
            if self._done.wait(_REFRESH):
                return

    def _write(self, text: str) -> None:
        try:
            self._stream.write(text)
            self._stream.flush()
        except (OSError, ValueError):  # the terminal went away: the run goes on
            self._done.set()
