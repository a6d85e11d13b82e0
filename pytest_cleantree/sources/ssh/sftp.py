"""The SFTP fallback: the agent's walk and read, for a server that runs no commands.

When the server refuses to run commands (``ForceCommand internal-sftp``) or has no Python,
the source lists and reads through SFTP: same answers, more round trips.
"""

from __future__ import annotations

import contextlib
import errno
import posixpath
import stat
from collections.abc import Iterator
from pathlib import PurePosixPath

from pytest_cleantree.agent import MODULE_PREFIX
from pytest_cleantree.config.hosts import HostSpec
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.sources.base import (
    READ_ERRORS,
    Listing,
    RemoteOptions,
    outside_error,
    outside_link,
)
from pytest_cleantree.sources.ssh.connection import _alive, _Connection, _ConnectionLost, paramiko


class _SFTPFallback(_Connection):
    """A connection to a tree's host that can also walk and read the tree through SFTP."""

    def __init__(
        self, spec: HostSpec, root: str, options: RemoteOptions, *, allow_outside_root: bool
    ) -> None:
        super().__init__(spec, options)
        self.root = root
        self._root_text = root
        self._resolved: str | None = None
        self._python = options.python
        self._allow_outside_root = allow_outside_root
        #: why commands cannot run on this host ("" while they can, or before trying)
        self._exec_failure = ""

    def _set_root(self, root: str) -> None:
        self._resolved = root
        self.root = root

    # -- SFTP fallback -------------------------------------------------------------

    def _sftp_client(self, client: paramiko.SSHClient) -> paramiko.SFTPClient:
        if self._sftp is None:
            try:
                self._sftp = client.open_sftp()
            except (paramiko.SSHException, EOFError, OSError) as exc:
                if not _alive(client):
                    raise _ConnectionLost(f"dropped opening SFTP: {exc}") from None
                raise SourceError(
                    f"{self.host}: cannot run commands ({self._exec_failure}) "
                    f"and SFTP is unavailable ({exc})"
                ) from None
            channel = self._sftp.get_channel()
            if channel is not None:
                channel.settimeout(self._command_timeout)
        return self._sftp

    @contextlib.contextmanager
    def _sftp_errors(self, client: paramiko.SSHClient) -> Iterator[None]:
        """Turn connection-level failures during SFTP work into retry or a SourceError."""
        try:
            yield
        except TimeoutError:
            raise self._timeout() from None
        except UnicodeError:
            raise SourceError(
                f"{self.host}: a file name under {self.root!r} is not UTF-8, which SFTP "
                "cannot carry; let the host run Python commands instead"
            ) from None
        except (paramiko.SSHException, EOFError, OSError) as exc:
            if not _alive(client):
                raise _ConnectionLost(f"dropped during SFTP: {exc}") from None
            raise SourceError(f"{self.host}: SFTP failed: {exc}") from None

    def _sftp_root(self, client: paramiko.SSHClient) -> str:
        sftp = self._sftp_client(client)
        text = self._resolved or self._root_text
        with self._sftp_errors(client):
            if text.startswith(MODULE_PREFIX):
                raise SourceError(
                    f"{self.host}: root {text!r} needs {self._python} on the host, which "
                    f"cannot run ({self._exec_failure}); name the folder instead"
                )
            if text.startswith("~") and not (text == "~" or text.startswith("~/")):
                raise SourceError(
                    f"{self.host}: root {text!r} (another user's home) needs commands on the "
                    f"host, which cannot run ({self._exec_failure}); name the folder instead"
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
        self._set_root(path)
        return path

    def _sftp_expand(
        self, client: paramiko.SSHClient, literals: list[str], bases: list[str]
    ) -> tuple[list[bool | str], dict[str, Listing]]:
        root = self._sftp_root(client)
        sftp = self._sftp_client(client)
        exists: list[bool | str] = []
        listings: dict[str, Listing] = {}
        with self._sftp_errors(client):
            real_root = None if self._allow_outside_root else sftp.normalize(root)
            for entry in literals:
                try:
                    sftp.lstat(_join(root, entry))
                    exists.append(True)
                except OSError as exc:
                    if exc.errno is None:  # not the server's answer about this path
                        raise
                    gone = exc.errno == errno.ENOENT  # ENOENT, ENOTDIR or ELOOP on the server
                    exists.append(False if gone else exc.strerror or str(exc))
            for base in bases:
                listings[base] = _sftp_walk(sftp, root, base, real_root)
        return exists, listings

    def _sftp_read(
        self, client: paramiko.SSHClient, paths: list[str]
    ) -> dict[str, bytes | SourceError]:
        root = self._sftp_root(client)
        sftp = self._sftp_client(client)
        found: dict[str, bytes | SourceError] = {}
        with self._sftp_errors(client):
            real_root = None if self._allow_outside_root else sftp.normalize(root)
            for path in paths:
                found[path] = _sftp_read_one(sftp, posixpath.join(root, path), path, real_root)
        if not _alive(client):
            raise _ConnectionLost("dropped during SFTP reads")
        return found


def _sftp_walk(sftp: paramiko.SFTPClient, root: str, base: str, real_root: str | None) -> Listing:
    """What is under ``root/base``, with the agent's rules (links to folders followed).

    OpenSSH's server answers "no such file" for ENOENT, ENOTDIR and ELOOP, and
    "permission denied" for EACCES and EPERM; an error without an errno is not
    about the path (a lost connection): it is raised.
    """
    listing = Listing([], [], [])
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
            listing.blocked.append((base, exc.strerror or str(exc)))
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
                listing.blocked.append((rel_folder, exc.strerror or str(exc)))
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
    listing: Listing,
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
            listing.others.append(rel)
            if exc.errno != errno.ENOENT:  # a link to something unseen
                listing.files.append(rel)
                listing.blocked.append((rel, exc.strerror or str(exc)))
            return None
    if stat.S_ISREG(mode):
        listing.files.append(rel)
        return None
    listing.others.append(rel)
    if not stat.S_ISDIR(mode) or entry.filename.startswith("."):
        return None
    real = posixpath.join(chain[-1], entry.filename)
    if link:
        real = sftp.normalize(full)
        if real in chain:
            return None
        if real_root is not None and posixpath.commonpath([real, real_root]) != real_root:
            listing.blocked.append((rel, outside_link(real)))
            return None
    return full, rel, (*chain, real)


def _sftp_read_one(
    sftp: paramiko.SFTPClient, full: str, path: str, real_root: str | None
) -> bytes | SourceError:
    """One file, as the helper reads it; ``real_root`` None lets links leave the root.

    (The server resolves links only for paths that exist: a dangling link out of
    the root reads as missing here, as leading outside with the helper.)
    """
    try:
        if real_root is not None:
            with contextlib.suppress(FileNotFoundError):
                real = sftp.normalize(full)
                if posixpath.commonpath([real, real_root]) != real_root:
                    return outside_error(path, real)
        attributes = sftp.stat(full)
        mode = attributes.st_mode or 0
        if stat.S_ISDIR(mode):
            return SourceError(f"{path}: {READ_ERRORS['D']}")
        if not stat.S_ISREG(mode):
            return SourceError(f"{path}: {READ_ERRORS['S']}")
        with sftp.open(full, "rb") as handle:
            handle.prefetch(attributes.st_size)
            return handle.read()
    except TimeoutError:
        raise
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return SourceError(f"{path}: {READ_ERRORS['M']}")
        if exc.errno == errno.EACCES:
            return SourceError(f"{path}: {READ_ERRORS['P']}")
        return SourceError(f"{path}: cannot read: {exc.strerror or exc}")


def _join(root: str, path: str) -> str:
    """``root / path`` with :class:`pathlib.Path` rules, as the local source joins."""
    return str(PurePosixPath(root) / path)
