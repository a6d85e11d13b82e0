"""The one narrow interface between the checker and the files it checks.

A source is a tree (a root folder) on some machine.  The engine asks it two
things, each for many paths at once so that a remote source can answer in a
constant number of round trips: which files the manifest's entries name, and
what those files hold.  Sources only ever read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from pytest_cleantree.errors import SourceError


class Source(Protocol):
    """A readable tree.  Paths are relative to the root, with ``/`` separators."""

    #: "" for the local machine; the host's label (as the user named it) otherwise
    host: str
    #: the resolved root, as shown to the user
    root: str

    def expand(self, entries: Sequence[str]) -> Mapping[str, tuple[str, ...]]:
        """Map each manifest entry (a path or a glob) to the paths it names, sorted.

        A literal path maps to itself when *anything* exists there (a folder,
        a dangling link: reading it then reports the problem), to ``()``
        otherwise.  A glob maps to the regular files it matches.  Raises
        :class:`SourceError` when the tree itself cannot be reached.
        """
        ...

    def read(self, paths: Sequence[str]) -> Mapping[str, bytes | SourceError]:
        """Each path's bytes, or the error that prevented reading that one path."""
        ...

    def close(self) -> None:
        """Release connections; a closed source may be reopened by using it again."""
        ...


@dataclass(frozen=True)
class RemoteOptions:
    """How to reach remote hosts, declared once: the CLI and the plugin fill it in, the
    SSH source reads it.  The defaults verify host keys against ``~/.ssh/known_hosts``."""

    #: the one known_hosts file to trust and record into (default: as ``~/.ssh/config`` says)
    known_hosts: Path | None = None
    #: accept (and record) the key of a host never seen before; a changed key is refused
    accept_new_host_key: bool = False
    ssh_config: Path | None = None
    #: seconds to connect, handshake and log in (each hop)
    connect_timeout: float = 10
    #: seconds one remote command may take
    command_timeout: float = 60
    #: the remote interpreter that runs the helper and finds ``module:`` roots
    python: str = "python3"
