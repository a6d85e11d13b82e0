"""A tree on another machine, read over SSH: the only module that imports paramiko.

Each request is **one** remote command, whatever the number of paths: a small
Python helper (sent on the command's stdin, never on its command line) resolves
the root, then either lists the folders the globs start in or streams the
requested files, as length-prefixed records::

    \\0CLEANTREE1 <nonce>\\n          the start (anything before it, such as a
                                     noisy ``.bashrc``'s output, is skipped)
    R <n>\\n<root>                   the resolved root            (or E: why not)
    Y 0\\n | Z 0\\n | Q <n>\\n<why>    a literal path exists / does not / cannot tell (expand)
    B 0\\n, then per path under it:  per glob base (expand): L <n>\\n<path> a regular file,
                                     N another thing (a folder...), U <n>\\n<path>\\0<why>
                                     a folder not listed, X <n>\\n<path>\\0<real> a link
                                     to a folder out of the root, not followed
    F <n>\\n<bytes>                  a file's content                      (read)
    H 0\\n                          read with needles, holds none: not sent (read)
    M | D | S | P 0\\n               missing, folder, FIFO/socket/device, denied (read)
    O <n>\\n<why> | X <n>\\n<real>  another error | a link out of the root   (read)
    END 0\\n                         the end: without it the stream was cut short

Paths travel as JSON on stdin, so no name (spaces, quotes, ``$(...)``,
newlines) ever reaches a shell; the one word that does, the interpreter, is
quoted.  Globs are matched here, with :mod:`pytest_cleantree.core.patterns`, on the
listing.  Nothing is written on the server (``python -B``; the module finder
never imports the package).

When the server refuses to run commands (``ForceCommand internal-sftp``) or has
no Python, the source falls back to SFTP: same answers, more round trips.
"""

from __future__ import annotations

import base64
import contextlib
import errno
import getpass
import hashlib
import json
import logging
import os
import posixpath
import re
import secrets
import select
import shlex
import socket
import stat
import sys
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import TypeVar

from pytest_cleantree.config.hosts import HostSpec, parse_host_spec
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.core.patterns import glob_base, is_path_glob
from pytest_cleantree.sources.base import (
    NO_NEEDLE,
    Expansion,
    Listing,
    Needles,
    NoNeedle,
    RemoteOptions,
    match_listing,
    outside_link,
)
from pytest_cleantree.sources.local import MODULE_PREFIX


@contextlib.contextmanager
def _invoke_deferred() -> Iterator[None]:
    """Import paramiko without invoke, a tenth of a second paramiko spends at start-up for one
    thing only: an ssh config's ``Match exec`` (see :func:`_match_exec_enabled`)."""
    if "invoke" in sys.modules:
        yield
        return
    sys.modules["invoke"] = None  # type: ignore[assignment]  # `import invoke` raises ImportError
    try:
        yield
    finally:
        if "invoke" in sys.modules and sys.modules["invoke"] is None:
            del sys.modules["invoke"]


with _invoke_deferred():
    import paramiko
    import paramiko.config

__all__ = ["SSHSource", "open_ssh_source"]

_log = logging.getLogger(__name__)
# paramiko logs its transport thread's tracebacks at ERROR: without a handler of its own,
# Python's last-resort handler prints them on stderr of a program that configured no
# logging (the CLI), after every fault already reported as a SourceError.  Programs that
# configure logging still get them, through the root logger.
logging.getLogger("paramiko").addHandler(logging.NullHandler())
_T = TypeVar("_T")
_DEFAULT_OPTIONS = RemoteOptions()

_MARK = b"\0CLEANTREE1 "
_MAX_JUMPS = 8
_STDERR_KEEP = 16 * 1024

#: Bootstraps the helper: reads its length-prefixed source from stdin, then runs it.
_BOOT = "import sys;b=sys.stdin.buffer;exec(b.read(int(b.readline())))"

#: Runs on the server under the host's Python (3.6 or later): keep it self-contained.
_HELPER = r'''
import errno, json, os, re, stat, sys
from pathlib import PurePosixPath


def enc(text):
    return text.encode("utf-8", "surrogateescape")


def check_folder(path):
    try:
        mode = os.stat(enc(path)).st_mode
    except FileNotFoundError:
        return None, "root %r does not exist" % path
    except OSError as exc:
        return None, "root %r cannot be reached: %s" % (path, exc.strerror or exc)
    if not stat.S_ISDIR(mode):
        return None, "root %r is not a folder" % path
    return path, None


def find_module(text):
    import importlib.machinery
    import importlib.util

    name = text[len("module:"):]
    if sys.path and sys.path[0] == "":
        del sys.path[0]
    parts = name.split(".")
    try:
        spec = importlib.util.find_spec(parts[0])
        for index in range(1, len(parts)):
            if spec is None or not spec.submodule_search_locations:
                spec = None
                break
            spec = importlib.machinery.PathFinder.find_spec(
                ".".join(parts[: index + 1]), list(spec.submodule_search_locations)
            )
    except (ImportError, ValueError) as exc:
        return None, "root %r: cannot import %r: %s" % (text, name, exc)
    if spec is None:
        return None, "root %r: no module named %r on the path of %s" % (
            text, name, sys.executable)
    locations = list(spec.submodule_search_locations or [])
    if locations:
        return check_folder(locations[0])
    if spec.origin and spec.has_location:
        return check_folder(os.path.dirname(spec.origin))
    return None, "root %r: module %r has no folder on disk" % (text, name)


def resolve(text):
    if text.startswith("module:"):
        return find_module(text)
    path = os.path.expanduser(text) if text.startswith("~") else text
    return check_folder(os.path.normpath(os.path.abspath(path)))


def kind_of(entry):
    """"file" (or a link to one), "folder" (or a link to one), "other", or the OSError
    that hides what a link leads to (a dangling link or a loop is "other")."""
    try:
        if entry.is_dir():
            return "folder"
        return "file" if entry.is_file() else "other"
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ELOOP, errno.ENOTDIR):
            return "other"
        return exc


def walk(root, base, real_root, record):
    """Everything under root/base, as os.walk sees it, but following links to folders that
    stay in the root (all of them when real_root is None), each once per path from the root;
    folders whose name starts with '.' are listed, not entered."""
    start = os.path.join(root, base) if base else root
    parts = base.split(b"/") if base else []
    chain = tuple(os.path.realpath(os.path.join(root, *parts[:depth]))
                  for depth in range(len(parts) + 1))
    stack = [(start, base, chain)]
    while stack:
        folder, rel_folder, chain = stack.pop()
        prefix = rel_folder + b"/" if rel_folder else b""
        try:
            with os.scandir(folder) as entries:
                entries = list(entries)
        except (FileNotFoundError, NotADirectoryError):
            continue
        except OSError as exc:
            record(b"U", rel_folder + b"\0" + enc(exc.strerror or str(exc)))
            continue
        inner = []
        for entry in entries:
            rel = prefix + entry.name
            kind = kind_of(entry)
            if kind == "file":
                record(b"L", rel)
                continue
            record(b"N", rel)
            if isinstance(kind, OSError):
                record(b"L", rel)
                record(b"U", rel + b"\0" + enc(kind.strerror or str(kind)))
            if kind != "folder" or entry.name.startswith(b"."):
                continue
            real = os.path.join(chain[-1], entry.name)
            try:
                link = entry.is_symlink()
            except OSError:
                link = True
            if link:
                real = os.path.realpath(entry.path)
                if real in chain:
                    continue
                if real_root is not None and not inside(real, real_root):
                    record(b"X", rel + b"\0" + real)
                    continue
            inner.append((entry.path, rel, chain + (real,)))
        stack.extend(sorted(inner, reverse=True))


def unescape(match):
    """A string escape's character, as the client's prefilter decodes it."""
    hex2, hex4, hex8, named, octal, newline = match.groups()
    if newline:
        return ""
    try:
        return chr(int(hex2 or hex4 or hex8, 16) if not octal else int(octal, 8))
    except (TypeError, ValueError, OverflowError):
        return match.group(0)


def could_spell(data, needles, escape):
    """Can this file's text spell one of the needles, however Python's tokenizer reads it?

    The client's prefilter, over-approximated: a needle in the raw bytes, or in the text
    with escapes decoded; or, in either, spelt with breaks between its characters (see
    spelt_across_breaks).  What this does not model is sent whole: bytes that are not
    ASCII (NFKC names, other codings), a coding cookie, a named escape (its name table
    depends on the Python).
    """
    if any(needle in data for needle, _ in needles):
        return True
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        return True
    if any(b"coding" in line for line in data.split(b"\n", 2)[:2]) or "\\N{" in text:
        return True
    sources = [text]
    if "\\" in text:
        decoded = escape.sub(unescape, text)
        if any(needle in decoded for _, needle in needles):
            return True
        sources.append(decoded)
    return any(spelt_across_breaks(source, needle) for source in sources for _, needle in needles)


#: what Python's tokenizer may drop between two pieces of one string value, over-approximated:
#: it starts and ends with a quote or a backslash-newline, and holds only quotes, spaces,
#: backslash-newlines, comments and prefix letters (each alternative starts with its own
#: characters: no text can be read two ways, so a match never takes exponential time)
_EDGE = r"""(?:["']|\\(?:\r\n|[\r\n]))"""
_JUNK = r"""(?:["' \t\f\r\n]|\\[\r\n]|\#[^\r\n]*[\r\n]|[rRbBuUfF])*"""
BREAK_SEARCHES = {}


def spelt_across_breaks(text, needle):
    """Is needle spelt with breaks between its characters: a head of it, a break, its next
    character; and its character before a tail, a break, the tail?  (The client's break
    search and joined views, over-approximated.)"""
    if len(needle) < 2:
        return False
    cuts = range(1, len(needle))
    # cheap first: a head before a quote or backslash, a tail after a quote or newline
    if not any(needle[:k] + q in text for k in cuts for q in "\"'\\") or not any(
            q + needle[k:] in text for k in cuts for q in "\"'\r\n"):
        return False
    searches = BREAK_SEARCHES.get(needle)
    if searches is None:
        head = "|".join(re.escape(needle[:k]) + _EDGE + _JUNK + re.escape(needle[k])
                        for k in cuts)
        tail = "|".join(re.escape(needle[k - 1]) + _JUNK + _EDGE + re.escape(needle[k:])
                        for k in cuts)
        searches = BREAK_SEARCHES[needle] = (re.compile(head), re.compile(tail))
    return all(search.search(text) is not None for search in searches)


REAL_FOLDERS = {}


def real_path(full):
    """os.path.realpath, each folder resolved once (most files are no links)."""
    folder, name = os.path.split(full)
    if name in (b"", b".", b"..") or stat.S_ISLNK(os.lstat(full).st_mode):
        return os.path.realpath(full)
    real = REAL_FOLDERS.get(folder)
    if real is None:
        real = REAL_FOLDERS[folder] = os.path.realpath(folder)
    return os.path.join(real, name)


def inside(real, real_root):
    """os.path.commonpath([real, real_root]) == real_root, for two real paths."""
    return real == real_root or real.startswith(real_root.rstrip(b"/") + b"/")


def read_one(full, real_root, record, needles=None, escape=None):
    """One file's record; real_root is None when links may lead outside the root; with
    needles, a file that cannot spell one is answered H, not sent."""
    try:
        if real_root is not None:
            real = real_path(full)
            if not inside(real, real_root):
                return record(b"X", real)
        # O_NONBLOCK: a FIFO planted in the tree must not hang the helper
        fd = os.open(full, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        return record(b"M")
    except PermissionError:
        return record(b"P")
    except OSError as exc:
        return record(b"O", enc(exc.strerror or str(exc)))
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        return record(b"D" if stat.S_ISDIR(mode) else b"S")
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read()
        except OSError as exc:
            return record(b"O", enc(exc.strerror or str(exc)))
    if needles is not None and not could_spell(data, needles, escape):
        return record(b"H")
    record(b"F", data)


def read_ahead(ahead, existing, listed, sets, escape, root, real_root, record):
    """The files the entries name, read with their needles right after the listing (one
    command, not two): A <n>\\n<path> then its read record, up to a budget of bytes sent."""
    chosen = {}
    for kind, entry, base, index in ahead["entries"]:
        if kind == "literal":
            paths = [enc(entry)] if entry in existing else []
        else:
            regex = re.compile(entry)
            paths = [p for p in listed.get(base, []) if regex.match(p.decode("utf-8",
                                                                             "surrogateescape"))]
        for path in paths:
            chosen.setdefault(path, set()).add(index)
    budget = [ahead["budget"]]

    def counted(tag, payload=b""):
        budget[0] -= len(payload)
        record(tag, payload)

    for path in sorted(chosen):
        if budget[0] <= 0:
            break
        indices = sorted(chosen[path])
        needles = [pair for index in indices for pair in sets[index]]
        record(b"A", path + b"\0" + ",".join(str(index) for index in indices).encode("ascii"))
        read_one(os.path.join(enc(root), path), real_root, counted, needles, escape)


def main():
    request = json.loads(sys.stdin.buffer.read().decode("utf-8"))
    out = sys.stdout.buffer

    def record(tag, payload=b""):
        out.write(tag + b" %d\n" % len(payload))
        out.write(payload)

    out.write(b"\0CLEANTREE1 " + request["nonce"].encode("ascii") + b"\n")
    root, problem = resolve(request["root"])
    if problem is not None:
        record(b"E", enc(problem))
    else:
        record(b"R", enc(root))
        base = PurePosixPath(root)
        real_root = None if request.get("outside") else os.path.realpath(enc(root))
        sets = [[(enc(n), n) for n in needles] for needles in request.get("needles", [])]
        escape = re.compile(request["escape"]) if sets else None
        if request["op"] == "expand":
            existing = []
            for entry in request["literals"]:
                try:
                    os.lstat(enc(str(base / entry)))
                    record(b"Y")
                    existing.append(entry)
                except (FileNotFoundError, NotADirectoryError):
                    record(b"Z")
                except OSError as exc:
                    record(b"Q", enc(exc.strerror or str(exc)))
            listed = {}
            for start in request["bases"]:
                record(b"B")
                files = listed.setdefault(start, [])

                def listing(tag, payload=b"", files=files):
                    if tag == b"L":
                        files.append(payload)
                    record(tag, payload)

                walk(enc(root), enc(start), real_root, listing)
            if request.get("ahead"):
                read_ahead(request["ahead"], existing, listed, sets, escape, root, real_root,
                           record)
        elif request["op"] == "read":
            which = request.get("needle_of") or [None] * len(request["paths"])
            for path, index in zip(request["paths"], which):
                needles = None if index is None else sets[index]
                read_one(os.path.join(enc(root), enc(path)), real_root, record, needles, escape)
    record(b"END")
    out.flush()


main()
'''

_READ_ERRORS = {
    "M": "no such file (or a dangling link)",
    "D": "is a folder, not a file",
    "S": "is a FIFO, socket or device, not a file",
    "P": "permission denied",
}


class _ConnectionLost(Exception):
    """The transport died under a request: reconnect and retry once."""


class _StreamError(Exception):
    """The helper's output stopped before its end record, or is garbled."""


class _UnknownHostKeyError(Exception):
    def __init__(self, name: str, key: paramiko.PKey) -> None:
        super().__init__(name)
        self.name = name
        self.key = key


@dataclass(frozen=True)
class _Target:
    """One host to connect to, after ``~/.ssh/config`` had its say."""

    alias: str
    hostname: str
    port: int
    user: str
    key_files: tuple[str, ...]
    identities_only: bool
    proxy_jump: str | None
    proxy_command: str | None

    @property
    def address(self) -> str:
        host = f"[{self.hostname}]" if ":" in self.hostname else self.hostname
        return f"{host}:{self.port}"


@dataclass(frozen=True)
class _Completed:
    stdout: bytes
    stderr: bytes
    status: int
    #: the server answered to the end (EOF, or a refusal): False when the channel was torn
    #: down under the command, as when the connection dies
    ended: bool

    def why(self, python: str) -> str:
        lines = self.stderr.decode("utf-8", "replace").strip().splitlines()
        last = lines[-1].strip() if lines else "no message"
        if self.status == 127:
            return f"{python} not found (exit status 127: {last})"
        return f"exit status {self.status}: {last}"


class _RevokedHostKeyError(Exception):
    def __init__(self, name: str, key: paramiko.PKey) -> None:
        super().__init__(name)
        self.name = name
        self.key = key


def _load_known_hosts(client: paramiko.SSHClient, path: Path, revoked: set[bytes]) -> None:
    """Trust the keys of a known_hosts file, as OpenSSH reads it; add its revoked keys.

    paramiko's own loader raises on OpenSSH's ``@revoked`` and ``@cert-authority``
    lines.  A ``@revoked`` key is refused for every host (OpenSSH refuses it for
    the hosts its line names: refusing more is the safe side).  ``@cert-authority``
    lines are skipped: paramiko checks no host certificates, so a host trusted only
    through one is an unknown host.  A line that does not parse is skipped, as
    OpenSSH skips it.
    """
    trusted = client.get_host_keys()
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    entries: list[paramiko.hostkeys.HostKeyEntry] = []
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("@"):
            marker, *fields = line.split()
            if marker == "@revoked" and len(fields) >= 3:
                with contextlib.suppress(ValueError):
                    revoked.add(base64.b64decode(fields[2], validate=True))
            continue
        try:
            entry = paramiko.hostkeys.HostKeyEntry.from_line(line, number)
        except (paramiko.SSHException, paramiko.hostkeys.InvalidHostKey, ValueError):
            continue
        if entry is not None and entry.key is not None:
            entries.append(entry)
    for entry in entries:
        if entry.key.asbytes() not in revoked:
            for name in entry.hostnames:
                trusted.add(name, entry.key.get_name(), entry.key)


class _HostKeyPolicy(paramiko.MissingHostKeyPolicy):
    """Refuse unknown and revoked keys, or (when asked) record unknown ones in ``accept_into``.

    A *changed* key never reaches a policy: paramiko raises BadHostKeyException.
    A revoked key is never trusted (see :func:`_load_known_hosts`): it reaches a
    policy, or changes the key a host is known by.
    """

    def __init__(self, accept_into: Path | None, revoked: set[bytes]) -> None:
        self._accept_into = accept_into
        self._revoked = revoked

    def missing_host_key(
        self, client: paramiko.SSHClient, hostname: str, key: paramiko.PKey
    ) -> None:
        if key.asbytes() in self._revoked:
            raise _RevokedHostKeyError(hostname, key)
        if self._accept_into is None:
            raise _UnknownHostKeyError(hostname, key)
        line = f"{hostname} {key.get_name()} {key.get_base64()}\n"
        try:
            self._accept_into.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            with open(self._accept_into, "a", encoding="ascii") as handle:
                handle.write(line)
        except OSError as exc:
            raise SourceError(
                f"cannot record the new host key of {hostname} in {self._accept_into}: "
                f"{exc.strerror or exc}"
            ) from None
        client.get_host_keys().add(hostname, key.get_name(), key)
        _log.warning(
            "accepted the new host key of %s (%s %s) into %s",
            hostname,
            key.get_name(),
            _fingerprint(key),
            self._accept_into,
        )


class SSHSource:
    """Files under a root folder on an SSH host, read-only.

    ``root`` is an absolute path, a ``~``-relative one, a path relative to the
    login folder, or ``module:NAME`` (found by the host's ``python`` without
    importing it).  Until the first request resolves it, :attr:`root` holds it
    as written.  The connection opens on first use and is reused; a transport
    that died is reopened and the request retried once.
    """

    def __init__(
        self,
        spec: HostSpec,
        root: str,
        options: RemoteOptions = _DEFAULT_OPTIONS,
        *,
        allow_outside_root: bool = False,
    ) -> None:
        self.host = spec.label
        self.root = root
        self._spec = spec
        self._root_text = root
        self._resolved: str | None = None
        self._known_hosts = options.known_hosts
        self._accept_new = options.accept_new_host_key
        self._config_path = options.ssh_config
        self._connect_timeout = options.connect_timeout
        self._command_timeout = options.command_timeout
        self._python = options.python
        self._allow_outside_root = allow_outside_root
        self._config: paramiko.SSHConfig | None = None
        self._client: paramiko.SSHClient | None = None
        self._hops: list[paramiko.SSHClient] = []
        self._sftp: paramiko.SFTPClient | None = None
        #: why commands cannot run on this host ("" while they can, or before trying)
        self._exec_failure = ""
        #: files read ahead with a listing: path -> (read record tag, payload, needles used)
        self._ahead: dict[str, tuple[str, bytes, frozenset[str]]] = {}

    # -- the Source protocol -------------------------------------------------------

    def expand(
        self,
        entries: Sequence[str],
        *,
        any_kind: bool = False,
        read_ahead: Mapping[str, Sequence[str]] | None = None,
    ) -> Mapping[str, Expansion]:
        literals = [entry for entry in entries if not is_path_glob(entry)]
        globs = [entry for entry in entries if is_path_glob(entry)]
        bases = sorted({glob_base(entry) for entry in globs})
        ahead = _ahead_fields(read_ahead) if read_ahead else None
        if ahead is not None:
            self._ahead.clear()
        exists, listings = self._run(lambda: self._expand_once(literals, bases, ahead))
        found: dict[str, Expansion] = {}
        for entry, there in zip(literals, exists, strict=True):
            if isinstance(there, str):
                found[entry] = SourceError(f"{entry}: cannot tell whether it exists: {there}")
            else:
                found[entry] = (entry,) if there else ()
        for entry in globs:
            found[entry] = match_listing(entry, listings[glob_base(entry)], any_kind=any_kind)
        return {entry: found[entry] for entry in entries}

    #: the helper tests needles on the server: files that cannot matter never cross the link
    filters_needles = True

    def read(
        self, paths: Sequence[str], needles: Needles | None = None
    ) -> Mapping[str, bytes | SourceError | NoNeedle]:
        if isinstance(needles, str):
            raise TypeError("needles: a list of strings, or a mapping of path to one, not a str")
        found: dict[str, bytes | SourceError | NoNeedle] = {}
        rest: list[str] = []
        for path in paths:
            ahead = self._ahead.pop(path, None)
            chosen = needles.get(path) if isinstance(needles, Mapping) else needles
            if ahead is None:
                rest.append(path)
            elif ahead[0] != "H":  # content, or why there is none: whatever the needles
                found[path] = _read_result(path, ahead[0], ahead[1])
            elif chosen is not None and set(chosen) <= ahead[2]:  # none of more needles
                found[path] = NO_NEEDLE
            else:
                rest.append(path)
        if rest:
            found.update(self._run(lambda: self._read_once(rest, needles)))
        return {path: found[path] for path in paths}

    def close(self) -> None:
        self._disconnect()

    # -- extras --------------------------------------------------------------------

    def resolve_root(self) -> str:
        """Connect, resolve the root (one command) and return it; raise SourceError if absent."""
        if self._resolved is None:
            self._run(self._resolve_once)
        assert self._resolved is not None
        return self._resolved

    def __enter__(self) -> SSHSource:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SSHSource({self.host!r}, {self.root!r})"

    # -- requests ------------------------------------------------------------------

    def _run(self, request: Callable[[], _T]) -> _T:
        """Run a request; if the connection was lost under it, reconnect and retry once."""
        try:
            return request()
        except _ConnectionLost as first:
            self._disconnect()
            try:
                return request()
            except _ConnectionLost as second:
                self._disconnect()
                raise SourceError(
                    f"{self.host}: connection lost twice in a row ({first}; then {second})"
                ) from None
            except SourceError as exc:
                raise SourceError(f"{exc} (after the connection was lost: {first})") from None

    def _resolve_once(self) -> None:
        client = self._connect()
        if not self._exec_failure:
            records = self._helper(client, "resolve", {})
            if records is not None:
                return
        self._sftp_root(client)

    def _expand_once(
        self, literals: list[str], bases: list[str], ahead: dict[str, object] | None = None
    ) -> tuple[list[bool | str], dict[str, Listing]]:
        client = self._connect()
        if not self._exec_failure:
            fields = {"literals": literals, "bases": bases, "outside": self._allow_outside_root}
            if ahead is not None:
                fields.update(ahead)
            records = self._helper(client, "expand", fields)
            if records is not None:
                first = next((i for i, (tag, _) in enumerate(records) if tag == "A"), None)
                if first is not None:
                    self._keep_ahead(records[first:], ahead)
                    records = records[:first]
                return self._listing(records, len(literals), bases)
        return self._sftp_expand(client, literals, bases)

    def _keep_ahead(
        self, records: list[tuple[str, bytes]], ahead: dict[str, object] | None
    ) -> None:
        """Keep the files read ahead for :meth:`read`: each ``A`` record (the path, and the
        needle lists it was read with), then the file's read record."""
        needles = ahead.get("needles") if ahead is not None else None
        if not isinstance(needles, list) or len(records) % 2:
            raise SourceError(f"{self.host}: the remote helper's listing is garbled")
        for (tag, named), (result, payload) in zip(records[::2], records[1::2], strict=True):
            path, _, indices = named.partition(b"\0")
            try:
                used = frozenset(n for i in indices.split(b",") for n in needles[int(i)])
            except (ValueError, IndexError):
                used = None
            if tag != "A" or used is None or result not in ("F", "H", "O", "X", *_READ_ERRORS):
                raise SourceError(f"{self.host}: the remote helper's listing is garbled")
            self._ahead[_decode(path)] = (result, payload, used)

    def _listing(
        self, records: list[tuple[str, bytes]], literals: int, bases: list[str]
    ) -> tuple[list[bool | str], dict[str, Listing]]:
        """The helper's expand records: a state per literal, then what is under each base."""
        exists: list[bool | str] = []
        garbled = len(records) < literals
        for tag, payload in records[:literals]:
            if tag == "Q":
                exists.append(_decode(payload) or "unknown error")
            else:
                exists.append(tag == "Y")
                garbled = garbled or tag not in ("Y", "Z")
        listings: dict[str, Listing] = {}
        current: Listing | None = None
        for tag, payload in records[literals:]:
            if tag == "B" and len(listings) < len(bases):
                current = Listing([], [], [])
                listings[bases[len(listings)]] = current
            elif current is None:
                garbled = True
            elif tag == "L":
                current.files.append(_decode(payload))
            elif tag == "N":
                current.others.append(_decode(payload))
            elif tag in ("U", "X") and b"\0" in payload:
                path, _, why = _decode(payload).partition("\0")
                current.blocked.append((path, outside_link(why) if tag == "X" else why))
            else:
                garbled = True
        if garbled or len(listings) != len(bases):
            raise SourceError(f"{self.host}: the remote helper's listing is garbled")
        return exists, listings

    def _read_once(
        self, paths: list[str], needles: Needles | None = None
    ) -> Mapping[str, bytes | SourceError | NoNeedle]:
        client = self._connect()
        if not self._exec_failure:
            fields = {"paths": paths, "outside": self._allow_outside_root}
            if needles is not None:
                fields.update(_needle_fields(paths, needles))
            records = self._helper(client, "read", fields)
            if records is not None:
                if len(records) != len(paths):
                    raise SourceError(
                        f"{self.host}: the remote helper answered {len(records)} of "
                        f"{len(paths)} files"
                    )
                return {
                    path: _read_result(path, tag, payload)
                    for path, (tag, payload) in zip(paths, records, strict=True)
                }
        return self._sftp_read(client, paths)

    def _helper(
        self, client: paramiko.SSHClient, op: str, fields: Mapping[str, object]
    ) -> list[tuple[str, bytes]] | None:
        """Run the helper once; its records after the root, or None if it could not run."""
        nonce = secrets.token_hex(8)
        root = self._resolved or self._root_text
        request = {"op": op, "nonce": nonce, "root": root, **fields}
        script = _HELPER.encode("utf-8")
        stdin = b"%d\n" % len(script) + script + json.dumps(request).encode("ascii")
        # -S: without the site module the interpreter starts in half the time (a server's
        # site-packages may hold dozens of .pth files); only module: roots need sys.path
        flags = "-B" if root.startswith(MODULE_PREFIX) else "-B -S"
        completed = self._exec(
            client, f"exec {self._python_word()} {flags} -c {shlex.quote(_BOOT)}", stdin
        )
        # paramiko closes a dying transport's channels a moment before it marks the transport
        # inactive: an output without EOF is a lost connection even while is_active() holds
        lost = not completed.ended or not _alive(client)
        try:
            records = _parse_records(completed.stdout, nonce)
        except _StreamError as exc:
            if lost:
                raise _ConnectionLost(f"dropped mid-transfer: {exc}") from None
            raise SourceError(
                f"{self.host}: the remote helper's output was cut short ({exc}; "
                f"{completed.why(self._python)})"
            ) from None
        if records is None:
            if lost:
                raise _ConnectionLost("dropped before the remote helper answered")
            self._exec_failure = completed.why(self._python)
            _log.info("%s: cannot run the helper (%s), using SFTP", self.host, self._exec_failure)
            return None
        tag, payload = records[0] if records else ("", b"")
        if tag == "E":
            raise SourceError(f"{self.host}: {_decode(payload)}")
        if tag != "R":
            raise SourceError(f"{self.host}: the remote helper's answer is garbled")
        self._set_root(_decode(payload))
        return records[1:]

    def _python_word(self) -> str:
        if self._python.startswith("~/"):
            return "~/" + shlex.quote(self._python[2:])
        return shlex.quote(self._python)

    def _exec(self, client: paramiko.SSHClient, command: str, stdin: bytes) -> _Completed:
        """Run one command, feeding it ``stdin``; raise on a timeout or a lost connection."""
        transport = _transport(client)
        deadline = time.monotonic() + self._command_timeout
        try:
            channel = transport.open_session(timeout=self._connect_timeout)
        except (paramiko.SSHException, EOFError, OSError) as exc:
            if not transport.is_active():
                raise _ConnectionLost(f"cannot open a channel: {exc}") from None
            raise SourceError(f"{self.host}: the server refused a session channel: {exc}") from None
        try:
            try:
                channel.exec_command(command)
            except (EOFError, OSError) as exc:  # the transport's own end, re-raised by paramiko
                raise _ConnectionLost(f"dropped at exec: {exc!r}") from None
            except paramiko.SSHException as exc:
                if not transport.is_active():
                    raise _ConnectionLost(f"dropped at exec: {exc}") from None
                return _Completed(b"", f"exec refused: {exc}".encode(), -1, ended=True)
            out, err = bytearray(), bytearray()
            try:
                channel.settimeout(self._command_timeout)
                channel.sendall(stdin)
                channel.shutdown_write()
            except TimeoutError:
                raise self._timeout() from None
            except (OSError, EOFError):
                pass  # the command exited without reading, or the connection died: see below
            while True:
                try:
                    while channel.recv_ready():
                        out += channel.recv(1 << 16)
                    while channel.recv_stderr_ready():
                        chunk = channel.recv_stderr(1 << 16)
                        err += chunk[: max(0, _STDERR_KEEP - len(err))]
                except (EOFError, OSError):
                    # reading sends window adjustments: on a dead connection paramiko raises
                    return _Completed(bytes(out), bytes(err), -1, ended=False)
                done = channel.eof_received or channel.closed
                if done and not channel.recv_ready() and not channel.recv_stderr_ready():
                    break
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise self._timeout()
                select.select([channel], [], [], min(remaining, 0.5))
            status = -1
            if channel.status_event.wait(max(0.0, min(deadline - time.monotonic(), 5.0))):
                status = channel.exit_status
            return _Completed(bytes(out), bytes(err), status, ended=bool(channel.eof_received))
        finally:
            # closing sends a message: on a connection dying under it, paramiko raises EOFError
            with contextlib.suppress(paramiko.SSHException, EOFError, OSError):
                channel.close()

    def _timeout(self) -> SourceError:
        return SourceError(
            f"{self.host}: a remote command did not finish within {self._command_timeout:g} s"
        )

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

    # -- connections ---------------------------------------------------------------

    def _connect(self) -> paramiko.SSHClient:
        if self._client is not None:
            if _alive(self._client):
                return self._client
            self._disconnect()
        try:
            self._client = self._open(self._spec.hostname, self._spec.user, self._spec.port, 0)
        except BaseException:
            self._disconnect()
            raise
        return self._client

    def _disconnect(self) -> None:
        if self._sftp is not None:
            with contextlib.suppress(Exception):
                self._sftp.close()
            self._sftp = None
        if self._client is not None:
            with contextlib.suppress(Exception):
                self._client.close()
            self._client = None
        for hop in reversed(self._hops):
            with contextlib.suppress(Exception):
                hop.close()
        self._hops.clear()

    def _open(
        self, alias: str, user: str | None, port: int | None, depth: int
    ) -> paramiko.SSHClient:
        """Connect and authenticate to ``alias``, through its ProxyJump/ProxyCommand if any."""
        if depth > _MAX_JUMPS:
            raise SourceError(f"{self.host}: more than {_MAX_JUMPS} ProxyJump hops (a loop?)")
        target = self._target(alias, user, port)
        sock: paramiko.Channel | paramiko.ProxyCommand | None = None
        if target.proxy_jump:
            hops = [self._jump_spec(text) for text in target.proxy_jump.split(",")]
            via = self._open(hops[0].hostname, hops[0].user, hops[0].port, depth + 1)
            self._hops.append(via)
            for hop in hops[1:]:
                hop_target = self._target(hop.hostname, hop.user, hop.port)
                via = self._handshake(hop_target, self._tunnel(via, hop_target))
                self._hops.append(via)
            sock = self._tunnel(via, target)
        elif target.proxy_command:
            try:
                sock = paramiko.ProxyCommand(target.proxy_command)
            except (paramiko.SSHException, OSError) as exc:
                raise SourceError(
                    f"{self.host}: ProxyCommand {target.proxy_command!r} failed: {exc}"
                ) from None
        return self._handshake(target, sock)

    def _jump_spec(self, text: str) -> HostSpec:
        text = text.strip()
        try:
            spec = parse_host_spec(text if text.startswith("ssh://") else "ssh://" + text)
        except ValueError as exc:
            raise SourceError(f"{self.host}: bad ProxyJump {text!r}: {exc}") from None
        if spec.root is not None:
            raise SourceError(f"{self.host}: bad ProxyJump {text!r}: a jump host has no path")
        return spec

    def _tunnel(self, via: paramiko.SSHClient, target: _Target) -> paramiko.Channel:
        try:
            return _transport(via).open_channel(
                "direct-tcpip",
                (target.hostname, target.port),
                ("127.0.0.1", 0),
                timeout=self._connect_timeout,
            )
        except (paramiko.SSHException, EOFError, OSError) as exc:
            raise SourceError(
                f"{self.host}: the jump host could not reach {target.address}: {exc}"
            ) from None

    def _load_config(self) -> paramiko.SSHConfig:
        if self._config is None:
            path = self._config_path or Path("~/.ssh/config").expanduser()
            if self._config_path is None and not path.exists():
                self._config = paramiko.SSHConfig()
            else:
                try:
                    text = path.read_text(encoding="utf-8", errors="surrogateescape")
                    if _MATCH_EXEC.search(text):
                        _match_exec_enabled()
                    self._config = paramiko.SSHConfig.from_text(text)
                except OSError as exc:
                    raise SourceError(
                        f"{self.host}: cannot read the ssh config {str(path)!r}: "
                        f"{exc.strerror or exc}"
                    ) from None
                except Exception as exc:
                    raise SourceError(f"{self.host}: bad ssh config {str(path)!r}: {exc}") from None
        return self._config

    def _lookup(self, alias: str) -> Mapping[str, object]:
        """``~/.ssh/config``'s options for a host (``Match exec`` may run a command)."""
        config = self._load_config()
        try:
            return config.lookup(alias)
        except Exception as exc:
            raise SourceError(
                f"{self.host}: ssh config lookup of {alias!r} failed: {exc}"
            ) from None

    def _target(self, alias: str, user: str | None, port: int | None) -> _Target:
        options = self._lookup(alias)

        def option(key: str) -> str | None:
            value = options.get(key)
            if not isinstance(value, str) or value.lower() == "none":
                return None
            return value

        identity = options.get("identityfile")
        key_files = (
            [os.path.expanduser(str(name)) for name in identity or ()]
            if isinstance(identity, list)
            else []
        )
        try:
            config_port = int(option("port") or 22)
        except ValueError:
            raise SourceError(f"{self.host}: bad Port for {alias!r} in the ssh config") from None
        return _Target(
            alias=alias,
            hostname=option("hostname") or alias,
            port=port or config_port,
            user=user or option("user") or getpass.getuser(),
            key_files=tuple(name for name in key_files if os.path.exists(name)),
            identities_only=(option("identitiesonly") or "no").lower() == "yes",
            proxy_jump=option("proxyjump"),
            proxy_command=option("proxycommand"),
        )

    def _known_hosts_files(self, alias: str) -> tuple[list[Path], Path]:
        """The files to trust host keys from, and the one new keys go into."""
        if self._known_hosts is not None:
            return [self._known_hosts], self._known_hosts
        options = self._lookup(alias)
        user_files = [
            Path(name).expanduser()
            for name in str(options.get("userknownhostsfile") or "~/.ssh/known_hosts").split()
        ]
        global_files = [
            Path(name).expanduser()
            for name in str(
                options.get("globalknownhostsfile")
                or "/etc/ssh/ssh_known_hosts /etc/ssh/ssh_known_hosts2"
            ).split()
        ]
        return user_files + global_files, user_files[0]

    def _handshake(
        self,
        target: _Target,
        sock: paramiko.Channel | paramiko.ProxyCommand | None,
    ) -> paramiko.SSHClient:
        trusted, accept_into = self._known_hosts_files(target.alias)
        client = paramiko.SSHClient()
        revoked: set[bytes] = set()
        try:
            for path in trusted:
                if path.exists():
                    _load_known_hosts(client, path, revoked)
        except OSError as exc:
            raise SourceError(
                f"{self.host}: cannot read known hosts {str(path)!r}: {exc.strerror or exc}"
            ) from None
        client.set_missing_host_key_policy(
            _HostKeyPolicy(accept_into if self._accept_new else None, revoked)
        )
        timeout = self._connect_timeout
        where = f"{self.host} ({target.user}@{target.address})"
        started = time.monotonic()
        try:
            client.connect(
                target.hostname,
                port=target.port,
                username=target.user,
                key_filename=list(target.key_files) or None,  # type: ignore[arg-type]  # a list works
                timeout=timeout,
                banner_timeout=timeout,
                auth_timeout=timeout,
                channel_timeout=timeout,
                allow_agent=not target.identities_only,
                look_for_keys=not target.identities_only,
                sock=sock,
            )
        except BaseException as exc:
            client.close()
            if isinstance(exc, SourceError):
                raise SourceError(f"{self.host}: {exc}") from None
            if isinstance(exc, Exception):
                slow = time.monotonic() - started >= timeout * 0.95
                raise self._connect_error(exc, target, where, accept_into, slow, revoked) from None
            raise
        return client

    def _connect_error(
        self,
        exc: Exception,
        target: _Target,
        where: str,
        known_hosts: Path,
        slow: bool,
        revoked: set[bytes],
    ) -> SourceError:
        """One line for what went wrong; ``slow`` when the connect timeout ran out."""
        if isinstance(exc, paramiko.BadHostKeyException) and exc.key.asbytes() in revoked:
            exc = _RevokedHostKeyError(exc.hostname, exc.key)
        if isinstance(exc, _RevokedHostKeyError):
            return SourceError(
                f"{where}: HOST KEY REVOKED: the host sent {exc.key.get_name()} "
                f"{_fingerprint(exc.key)}, which a @revoked line of the known hosts refuses; "
                f"refusing to connect"
            )
        if isinstance(exc, _UnknownHostKeyError):
            return SourceError(
                f"{where}: unknown host key {exc.key.get_name()} {_fingerprint(exc.key)} for "
                f"{exc.name}, not in {str(known_hosts)!r}: check the fingerprint with the "
                f"host's admin, then add it (ssh-keyscan -p {target.port} {target.hostname} "
                f">> {known_hosts}) or allow new host keys (accept_new_host_key)"
            )
        if isinstance(exc, paramiko.BadHostKeyException):
            return SourceError(
                f"{where}: HOST KEY CHANGED: the host sent {exc.key.get_name()} "
                f"{_fingerprint(exc.key)} but known hosts expect {exc.expected_key.get_name()} "
                f"{_fingerprint(exc.expected_key)}; refusing to connect (someone may be "
                f"intercepting); if the host was reinstalled, remove its old key "
                f"(ssh-keygen -R '{exc.hostname}') and add the new one"
            )
        if isinstance(exc, paramiko.AuthenticationException):
            tried = ", ".join(target.key_files) or "the agent and default keys"
            return SourceError(
                f"{where}: authentication refused ({exc}; tried {tried}): check User and "
                "IdentityFile in the ssh config, or add the key to the agent"
            )
        if isinstance(exc, paramiko.ssh_exception.NoValidConnectionsError):
            return SourceError(f"{where}: cannot reach the host: connection refused")
        if isinstance(exc, TimeoutError):
            return SourceError(
                f"{where}: cannot reach the host: no answer within {self._connect_timeout:g} s"
            )
        if isinstance(exc, socket.gaierror):
            return SourceError(
                f"{where}: cannot resolve host name {target.hostname!r}: {exc.strerror}"
            )
        if isinstance(exc, paramiko.SSHException) and (slow or "banner" in str(exc)):
            return SourceError(
                f"{where}: no SSH handshake within {self._connect_timeout:g} s ({exc}): "
                "is an SSH server listening on that port?"
            )
        if isinstance(exc, paramiko.SSHException):
            return SourceError(f"{where}: SSH handshake failed: {exc}")
        if isinstance(exc, OSError):
            return SourceError(f"{where}: cannot reach the host: {exc.strerror or exc}")
        if isinstance(exc, EOFError):
            return SourceError(f"{where}: the host closed the connection during the handshake")
        return SourceError(f"{where}: cannot connect: {type(exc).__name__}: {exc}")


def open_ssh_source(
    host: str | HostSpec,
    root: str | None = None,
    options: RemoteOptions = _DEFAULT_OPTIONS,
    *,
    label: str | None = None,
    allow_outside_root: bool = False,
) -> SSHSource:
    """An :class:`SSHSource` for a host spec (``root@gpu-a:/srv/x``); connects on first use.

    ``root`` overrides the spec's; one of them must be given.
    """
    try:
        spec = parse_host_spec(host, label) if isinstance(host, str) else host
    except ValueError as exc:
        raise SourceError(str(exc)) from None
    chosen = root if root is not None else spec.root
    if chosen is None:
        raise SourceError(f"{spec.label}: no root: write host:/path or give a root")
    return SSHSource(spec, chosen, options, allow_outside_root=allow_outside_root)


#: a ``Match`` line with an ``exec`` criterion (case-insensitive, as ssh reads keywords)
_MATCH_EXEC = re.compile(r"^[ \t]*match\b[^\n]*\bexec\b", re.IGNORECASE | re.MULTILINE)


def _match_exec_enabled() -> None:
    """Give paramiko the invoke :func:`_invoke_deferred` kept from it, for ``Match exec``."""
    if getattr(paramiko.config, "invoke", False) is None:
        with contextlib.suppress(ImportError):  # not installed: paramiko says so at lookup
            import invoke

            setattr(paramiko.config, "invoke", invoke)  # noqa: B010  (untyped)


def _parse_records(stream: bytes, nonce: str) -> list[tuple[str, bytes]] | None:
    """The helper's records, ``None`` if its start marker is absent.

    Raises :class:`_StreamError` when the stream stops before the end record.
    """
    mark = _MARK + nonce.encode("ascii") + b"\n"
    start = stream.find(mark)
    if start < 0:
        return None
    pos = start + len(mark)
    records: list[tuple[str, bytes]] = []
    while True:
        eol = stream.find(b"\n", pos, pos + 32)
        if eol < 0:
            raise _StreamError(f"{len(records)} records, then {len(stream) - pos} stray bytes")
        tag, _, size_text = stream[pos:eol].partition(b" ")
        if not tag.isalpha() or not size_text.isdigit():
            raise _StreamError(f"garbled header after {len(records)} records")
        end = eol + 1 + int(size_text)
        if end > len(stream):
            raise _StreamError(
                f"record {len(records) + 1} announced {int(size_text)} bytes, "
                f"{len(stream) - eol - 1} arrived"
            )
        if tag == b"END":
            return records
        records.append((tag.decode("ascii"), stream[eol + 1 : end]))
        pos = end


def _needle_fields(paths: Sequence[str], needles: Needles) -> dict[str, object]:
    """The read request's needles: each distinct list once, and per path its index.

    The helper decodes escapes with the client's own expression, sent along, so the
    two cannot drift apart (see the helper's ``could_spell`` for the rest).
    """
    from pytest_cleantree.analysis.text import STRING_ESCAPE

    if isinstance(needles, str):
        raise TypeError("needles: a list of strings, or a mapping of path to one, not a str")
    sets: dict[tuple[str, ...], int] = {}
    which: list[int | None] = []
    for path in paths:
        chosen = needles.get(path) if isinstance(needles, Mapping) else needles
        if chosen is None:
            which.append(None)
            continue
        key = tuple(sorted(set(chosen)))
        which.append(sets.setdefault(key, len(sets)))
    if not sets:
        return {}
    return {
        "needles": [list(key) for key in sets],
        "needle_of": which,
        "escape": STRING_ESCAPE.pattern,
    }


#: what one listing may send of the files it reads ahead; the rest are read when asked for
READ_AHEAD_BYTES = 32 * 2**20


def _ahead_fields(read_ahead: Mapping[str, Sequence[str]]) -> dict[str, object]:
    """The expand request's read-ahead: per entry (a literal, or a glob as its regex, and the
    folder its listing starts in) the index of its needle list."""
    from pytest_cleantree.analysis.text import STRING_ESCAPE
    from pytest_cleantree.core.patterns import compile_path_glob

    sets: dict[tuple[str, ...], int] = {}
    entries: list[tuple[str, str, str, int]] = []
    for entry, needles in read_ahead.items():
        index = sets.setdefault(tuple(sorted(set(needles))), len(sets))
        if is_path_glob(entry):
            entries.append(("glob", compile_path_glob(entry).pattern, glob_base(entry), index))
        else:
            entries.append(("literal", entry, "", index))
    return {
        "ahead": {"entries": entries, "budget": READ_AHEAD_BYTES},
        "needles": [list(key) for key in sets],
        "escape": STRING_ESCAPE.pattern,
    }


def _read_result(path: str, tag: str, payload: bytes) -> bytes | SourceError | NoNeedle:
    if tag == "F":
        return payload
    if tag == "H":
        return NO_NEEDLE
    if tag == "O":
        return SourceError(f"{path}: cannot read: {_decode(payload)}")
    if tag == "X":
        return _outside_error(path, _decode(payload))
    if tag in _READ_ERRORS:
        return SourceError(f"{path}: {_READ_ERRORS[tag]}")
    return SourceError(f"{path}: the remote helper's answer is garbled ({tag!r})")


def _sftp_walk(sftp: paramiko.SFTPClient, root: str, base: str, real_root: str | None) -> Listing:
    """What is under ``root/base``, with the helper's rules (links to folders followed).

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
            full = posixpath.join(folder, entry.filename)
            rel = prefix + entry.filename
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
                    continue
            if stat.S_ISREG(mode):
                listing.files.append(rel)
                continue
            listing.others.append(rel)
            if not stat.S_ISDIR(mode) or entry.filename.startswith("."):
                continue
            real = posixpath.join(chain[-1], entry.filename)
            if link:
                real = sftp.normalize(full)
                if real in chain:
                    continue
                if real_root is not None and posixpath.commonpath([real, real_root]) != real_root:
                    listing.blocked.append((rel, outside_link(real)))
                    continue
            inner.append((full, rel, (*chain, real)))
        stack.extend(sorted(inner, reverse=True))
    return listing


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
                    return _outside_error(path, real)
        attributes = sftp.stat(full)
        mode = attributes.st_mode or 0
        if stat.S_ISDIR(mode):
            return SourceError(f"{path}: {_READ_ERRORS['D']}")
        if not stat.S_ISREG(mode):
            return SourceError(f"{path}: {_READ_ERRORS['S']}")
        with sftp.open(full, "rb") as handle:
            handle.prefetch(attributes.st_size)
            return handle.read()
    except TimeoutError:
        raise
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            return SourceError(f"{path}: {_READ_ERRORS['M']}")
        if exc.errno == errno.EACCES:
            return SourceError(f"{path}: {_READ_ERRORS['P']}")
        return SourceError(f"{path}: cannot read: {exc.strerror or exc}")


def _outside_error(path: str, real: str) -> SourceError:
    return SourceError(
        f"{path}: leads outside the root (to {real}); set allow_outside_root = true to allow it"
    )


def _join(root: str, path: str) -> str:
    """``root / path`` with :class:`pathlib.Path` rules, as the local source joins."""
    return str(PurePosixPath(root) / path)


def _decode(payload: bytes) -> str:
    return payload.decode("utf-8", "surrogateescape")


def _fingerprint(key: paramiko.PKey) -> str:
    digest = hashlib.sha256(key.asbytes()).digest()
    return "SHA256:" + base64.b64encode(digest).decode("ascii").rstrip("=")


def _transport(client: paramiko.SSHClient) -> paramiko.Transport:
    transport = client.get_transport()
    if transport is None:
        raise _ConnectionLost("no transport")
    return transport


def _alive(client: paramiko.SSHClient) -> bool:
    transport = client.get_transport()
    return transport is not None and transport.is_active()
