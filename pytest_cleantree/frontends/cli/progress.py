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
    """Counts files analysed (from any thread) and shows them with the hosts and the time."""

    def __init__(self, stream: TextIO, *, hosts: int, rules: int) -> None:
        self._stream = stream
        self._hosts = hosts
        self._rules = rules
        self._files = 0
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
        if self._shown:
            self._write(_ERASE)

    def files_done(self, count: int) -> None:
        with self._lock:
            self._files += count

    def line(self) -> str:
        hosts = f", {self._hosts} hosts" if self._hosts > 1 else ""
        elapsed = time.monotonic() - self._start
        return (
            f"cleantree: {self._rules} rule{'s' * (self._rules != 1)}{hosts}, "
            f"{self._files} file{'s' * (self._files != 1)} analysed, {elapsed:.1f} s"
        )

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
