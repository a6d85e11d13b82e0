"""The read: one file's record as the agent reads it, and the root's containment.

Paths are bytes on the server and text locally: each function takes either.  Python 3.6,
stdlib only.
"""

import os
import stat

from .needle import could_spell
from .wire import (
    Absent,
    Content,
    Denied,
    Exists,
    Failed,
    Folder,
    Missing,
    Outside,
    Record,
    Spared,
    Special,
    Unknown,
    text,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import AnyStr, Dict, Iterable, List, Optional, Tuple

    from .needle import NeedlePairs

_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


def enc(text: str) -> bytes:
    """A path or message as it travels: UTF-8, undecodable bytes kept (surrogateescape)."""
    return text.encode("utf-8", "surrogateescape")


def needle_pairs(needles: "Iterable[str]") -> "List[Tuple[bytes, str]]":
    """Needles as the needle test takes them: each one's bytes and its text."""
    return [(enc(needle), needle) for needle in needles]


def with_needles(data: bytes, needles: "Optional[NeedlePairs]") -> "Record":
    """A read file's record: :class:`~.wire.Spared` when ``needles`` are given and the
    content cannot spell one (:func:`~.needle.could_spell`), else its content.  The one
    decision, on the server (:func:`read_one`) and for content the client already holds."""
    if needles is not None and not could_spell(data, needles):
        return Spared()
    return Content(data)


def real_folder(folder: "AnyStr", cache: "Dict[AnyStr, AnyStr]") -> "AnyStr":
    """``os.path.realpath`` of a folder, each resolved once per ``cache``."""
    real = cache.get(folder)
    if real is None:
        real = cache[folder] = os.path.realpath(folder)
    return real


def real_path(full: "AnyStr", folders: "Dict[AnyStr, AnyStr]") -> "AnyStr":
    """``os.path.realpath``, each folder resolved once (most files are no links)."""
    folder, name = os.path.split(full)
    special = (b"", b".", b"..") if isinstance(name, bytes) else ("", ".", "..")
    if name in special or stat.S_ISLNK(os.lstat(full).st_mode):
        return os.path.realpath(full)
    return os.path.join(real_folder(folder, folders), name)


def inside(real: "AnyStr", real_root: "AnyStr") -> bool:
    """``os.path.commonpath([real, real_root]) == real_root``, for two real paths."""
    sep = b"/" if isinstance(real, bytes) else "/"
    return real == real_root or real.startswith(real_root.rstrip(sep) + sep)


def git_mode(st_mode: int) -> str:
    """A file's mode as git records it: ``120000`` a link, ``100755`` a regular file its
    owner may execute, ``100644`` another regular file, ``040000`` a folder, else the
    octal type and permission bits."""
    if stat.S_ISLNK(st_mode):
        return "120000"
    if stat.S_ISREG(st_mode):
        return "100755" if st_mode & stat.S_IXUSR else "100644"
    if stat.S_ISDIR(st_mode):
        return "040000"
    return format(st_mode, "06o")


def lexists(root: str, entry: str) -> "Record":
    """Is there anything at ``root/entry`` (a folder, a dangling link...): one of
    :data:`~.wire.LITERALS`."""
    from pathlib import PurePosixPath  # here: a read needs no pathlib (5 ms on 3.6)

    try:
        os.lstat(enc(str(PurePosixPath(root) / entry)))
    except (FileNotFoundError, NotADirectoryError):
        return Absent()
    except OSError as exc:
        return Unknown(exc.strerror or str(exc))
    return Exists()


def read_one(
    full: "AnyStr",
    real_root: "Optional[AnyStr]",
    folders: "Dict[AnyStr, AnyStr]",
    needles: "Optional[NeedlePairs]" = None,
) -> "Record":
    """One file's read record (one of :data:`~.wire.READS`); ``real_root`` is None when
    links may lead outside the root; with ``needles``, a file that cannot spell one is
    :class:`~.wire.Spared`."""
    try:
        if real_root is not None:
            real = real_path(full, folders)
            if not inside(real, real_root):
                return Outside(text(real))
        # O_NONBLOCK: a FIFO planted in the tree must not hang the read
        fd = os.open(full, os.O_RDONLY | _O_NONBLOCK | _O_CLOEXEC)
    except FileNotFoundError:
        return Missing()
    except PermissionError:
        return Denied()
    except OSError as exc:
        return Failed(exc.strerror or str(exc))
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        return Folder() if stat.S_ISDIR(mode) else Special()
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read()
        except OSError as exc:
            return Failed(exc.strerror or str(exc))
    return with_needles(data, needles)
