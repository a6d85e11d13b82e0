"""The SFTP reader: the agent's walk and read, for a server that runs no commands.

When the server refuses to run commands (``ForceCommand internal-sftp``) or has no Python,
the source lists and reads through SFTP: the same records as the agent's (the same
consumers turn them into answers), more round trips.
"""

from __future__ import annotations

import contextlib
import errno
import posixpath
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath

from pytest_cleantree.agent import MODULE_PREFIX, wire
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.sources.ssh.connection import Connection, ConnectionLost, alive
from pytest_cleantree.sources.ssh.loading import paramiko


@dataclass
class Where:
    """The tree's root on the host: as written, until a request resolves it (both readers
    share one)."""

    written: str
    resolved: str | None = None

    @property
    def current(self) -> str:
        return self.resolved or self.written


class SFTPReader:
    """Walks and reads a tree through SFTP, answering the agent's records."""

    def __init__(self, connection: Connection, where: Where, *, allow_outside_root: bool) -> None:
        self._connection = connection
        self._where = where
        self._allow_outside_root = allow_outside_root
        self.host = connection.host
        #: why commands cannot run on this host, for the messages of a failing fallback
        self.why_no_commands = ""

    def _client(self, client: paramiko.SSHClient) -> paramiko.SFTPClient:
        try:
            return self._connection.open_sftp(client)
        except (paramiko.SSHException, EOFError, OSError) as exc:
            if not alive(client):
                raise ConnectionLost(f"dropped opening SFTP: {exc}") from None
            raise SourceError(
                f"{self.host}: cannot run commands ({self.why_no_commands}) "
                f"and SFTP is unavailable ({exc})"
            ) from None

    @contextlib.contextmanager
    def _errors(self, client: paramiko.SSHClient) -> Iterator[None]:
        """Turn connection-level failures during SFTP work into retry or a SourceError."""
        try:
            yield
        except TimeoutError:
            raise self._connection.timeout_error() from None
        except UnicodeError:
            raise SourceError(
                f"{self.host}: a file name under {self._where.current!r} is not UTF-8, which "
                "SFTP cannot carry; let the host run Python commands instead"
            ) from None
        except (paramiko.SSHException, EOFError, OSError) as exc:
            if not alive(client):
                raise ConnectionLost(f"dropped during SFTP: {exc}") from None
            raise SourceError(f"{self.host}: SFTP failed: {exc}") from None

    def resolve(self, client: paramiko.SSHClient) -> str:
        """The root as the server has it, checked to be a folder."""
        sftp = self._client(client)
        text = self._where.current
        why = self.why_no_commands
        with self._errors(client):
            if text.startswith(MODULE_PREFIX):
                raise SourceError(
                    f"{self.host}: root {text!r} needs {self._connection.python} on the host, "
                    f"which cannot run ({why}); name the folder instead"
                )
            if text.startswith("~") and not (text == "~" or text.startswith("~/")):
                raise SourceError(
                    f"{self.host}: root {text!r} (another user's home) needs commands on the "
                    f"host, which cannot run ({why}); name the folder instead"
                )
            if not text.startswith("/"):
                text = sftp.normalize(".") + "/" + text.lstrip("~").lstrip("/")
            path = posixpath.normpath(text)
            try:
                mode = sftp.stat(path).st_mode or 0
            except OSError as exc:
                if exc.errno == errno.ENOENT:
                    raise SourceError(f"{self.host}: root {path!r} does not exist") from None
                raise SourceError(
                    f"{self.host}: root {path!r} cannot be reached: {exc.strerror or exc}"
                ) from None
            if not stat.S_ISDIR(mode):
                raise SourceError(f"{self.host}: root {path!r} is not a folder")
        self._where.resolved = path
        return path

    def expand(
        self, client: paramiko.SSHClient, literals: list[str], bases: list[str]
    ) -> tuple[list[wire.Record], dict[str, list[wire.Record]]]:
        """A literal record per literal, and each base's walk records."""
        root = self.resolve(client)
        sftp = self._client(client)
        states: list[wire.Record] = []
        walks: dict[str, list[wire.Record]] = {}
        with self._errors(client):
            real_root = None if self._allow_outside_root else sftp.normalize(root)
            for entry in literals:
                try:
                    sftp.lstat(_join(root, entry))
                    states.append(wire.Exists())
                except OSError as exc:
                    if exc.errno is None:  # not the server's answer about this path
                        raise
                    gone = exc.errno == errno.ENOENT  # ENOENT, ENOTDIR or ELOOP on the server
                    states.append(wire.Absent() if gone else wire.Unknown(exc.strerror or str(exc)))
            for base in bases:
                walks[base] = _sftp_walk(sftp, root, base, real_root)
        return states, walks

    def read(self, client: paramiko.SSHClient, paths: list[str]) -> dict[str, wire.Record]:
        """Each path's read record."""
        root = self.resolve(client)
        sftp = self._client(client)
        found: dict[str, wire.Record] = {}
        with self._errors(client):
            real_root = None if self._allow_outside_root else sftp.normalize(root)
            for path in paths:
                found[path] = _sftp_read_one(sftp, posixpath.join(root, path), real_root)
        if not alive(client):
            raise ConnectionLost("dropped during SFTP reads")
        return found


def _sftp_walk(
    sftp: paramiko.SFTPClient, root: str, base: str, real_root: str | None
) -> list[wire.Record]:
    """What is under ``root/base``, with the agent's rules (links to folders followed), as
    the agent's walk records.

    OpenSSH's server answers "no such file" for ENOENT, ENOTDIR and ELOOP, and
    "permission denied" for EACCES and EPERM; an error without an errno is not
    about the path (a lost connection): it is raised.
    """
    listing: list[wire.Record] = []
    start = _join(root, base) if base else root
    parts = base.split("/") if base else []
    try:  # the real paths of the root and of each folder down to base
        chain = tuple(
            sftp.normalize(_join(root, "/".join(parts[:depth]))) for depth in range(len(parts) + 1)
        )
    except OSError as exc:
        if exc.errno is None:
            raise
        if exc.errno != errno.ENOENT:
            listing.append(wire.Unlisted(base, exc.strerror or str(exc)))
        return listing
    stack: list[tuple[str, str, tuple[str, ...]]] = [(start, base, chain)]
    while stack:
        folder, rel_folder, chain = stack.pop()
        prefix = rel_folder + "/" if rel_folder else ""
        try:
            entries = sftp.listdir_attr(folder)
        except OSError as exc:
            if exc.errno is None:
                raise
            if exc.errno != errno.ENOENT:
                listing.append(wire.Unlisted(rel_folder, exc.strerror or str(exc)))
            continue
        inner: list[tuple[str, str, tuple[str, ...]]] = []
        for entry in entries:
            rel = prefix + entry.filename
            step = _sftp_entry(sftp, folder, entry, rel, chain, real_root, listing)
            if step is not None:
                inner.append(step)
        stack.extend(sorted(inner, reverse=True))
    return listing


def _sftp_entry(
    sftp: paramiko.SFTPClient,
    folder: str,
    entry: paramiko.SFTPAttributes,
    rel: str,
    chain: tuple[str, ...],
    real_root: str | None,
    listing: list[wire.Record],
) -> tuple[str, str, tuple[str, ...]] | None:
    """List one entry of a folder; the folder to walk next, if it is one."""
    full = posixpath.join(folder, entry.filename)
    mode = entry.st_mode or 0
    link = stat.S_ISLNK(mode)
    if link:
        try:
            mode = sftp.stat(full).st_mode or 0
        except OSError as exc:
            if exc.errno is None:
                raise
            listing.append(wire.Other(rel))
            if exc.errno != errno.ENOENT:  # a link to something unseen
                listing.append(wire.Listed(rel))
                listing.append(wire.Unlisted(rel, exc.strerror or str(exc)))
            return None
    if stat.S_ISREG(mode):
        listing.append(wire.Listed(rel))
        return None
    listing.append(wire.Other(rel))
    if not stat.S_ISDIR(mode) or entry.filename.startswith("."):
        return None
    real = posixpath.join(chain[-1], entry.filename)
    if link:
        real = sftp.normalize(full)
        if real in chain:
            return None
        if real_root is not None and posixpath.commonpath([real, real_root]) != real_root:
            listing.append(wire.LinkOut(rel, real))
            return None
    return full, rel, (*chain, real)


def _sftp_read_one(sftp: paramiko.SFTPClient, full: str, real_root: str | None) -> wire.Record:
    """One file's read record, as the agent reads it; ``real_root`` None lets links leave
    the root.

    (The server resolves links only for paths that exist: a dangling link out of
    the root reads as missing here, as leading outside with the helper.)
    """
    try:
        if real_root is not None:
            with contextlib.suppress(FileNotFoundError):
                real = sftp.normalize(full)
                if posixpath.commonpath([real, real_root]) != real_root:
                    return wire.Outside(real)
        attributes = sftp.stat(full)
        mode = attributes.st_mode or 0
        if stat.S_ISDIR(mode):
            return wire.Folder()
        if not stat.S_ISREG(mode):
            return wire.Special()
        with sftp.open(full, "rb") as handle:
            handle.prefetch(attributes.st_size)
            return wire.Content(handle.read())
    except TimeoutError:
        raise
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return wire.Missing()
        if exc.errno == errno.EACCES:
            return wire.Denied()
        return wire.Failed(exc.strerror or str(exc))


def _join(root: str, path: str) -> str:
    """``root / path`` with :class:`pathlib.Path` rules, as the local source joins."""
    return str(PurePosixPath(root) / path)
