"""The root and the walk: where the root is on the host, and everything under it.

Python 3.6, stdlib only; paths are bytes on the server, text locally.
"""

import errno
import os
import stat
import sys

from .read import enc, inside
from .wire import LinkOut, Listed, Other, Record, Unlisted, text

TYPE_CHECKING = False
if TYPE_CHECKING:
    import importlib.machinery
    from typing import AnyStr, Callable, List, Optional, Tuple, Union

MODULE_PREFIX = "module:"


def check_folder(path: str) -> "Tuple[Optional[str], Optional[str]]":
    """(the folder, None), or (None, why it is no folder)."""
    try:
        mode = os.stat(enc(path)).st_mode
    except FileNotFoundError:
        return None, f"root {path!r} does not exist"
    except OSError as exc:
        return None, f"root {path!r} cannot be reached: {exc.strerror or exc}"
    if not stat.S_ISDIR(mode):
        return None, f"root {path!r} is not a folder"
    return path, None


def find_module_spec(name: str) -> "Optional[importlib.machinery.ModuleSpec]":
    """Where module ``name`` lives, found as ``import`` would find it, without running it.

    ``importlib.util.find_spec("pkg.sub")`` imports ``pkg`` first: its ``__init__`` would
    run, and may write ``__pycache__`` into the checked tree.  Only the top-level name goes
    through ``sys.meta_path`` (editable installs); each part below is looked for in its
    parent's folders.
    """
    import importlib.machinery
    import importlib.util

    parts = name.split(".")
    if not all(part.isidentifier() for part in parts):
        raise ValueError(f"{name!r} is not a dotted module name")
    spec = importlib.util.find_spec(parts[0])
    for index in range(1, len(parts)):
        if spec is None or not spec.submodule_search_locations:
            return None
        spec = importlib.machinery.PathFinder.find_spec(
            ".".join(parts[: index + 1]), list(spec.submodule_search_locations)
        )
    return spec


def find_module(text: str) -> "Tuple[Optional[str], Optional[str]]":
    """A ``module:NAME`` root's folder on the server, or why there is none."""
    name = text[len(MODULE_PREFIX) :]
    if sys.path and sys.path[0] == "":
        del sys.path[0]  # the login folder is no place to import from
    try:
        spec = find_module_spec(name)
    except (ImportError, ValueError) as exc:
        return None, f"root {text!r}: cannot import {name!r}: {exc}"
    if spec is None:
        where = sys.executable
        return None, f"root {text!r}: no module named {name!r} on the path of {where}"
    locations = list(spec.submodule_search_locations or [])
    if locations:
        return check_folder(locations[0])
    if spec.origin and spec.has_location:
        return check_folder(os.path.dirname(spec.origin))
    return None, f"root {text!r}: module {name!r} has no folder on disk"


def resolve(text: str) -> "Tuple[Optional[str], Optional[str]]":
    """The server's root folder for the root as written, or why there is none."""
    if text.startswith(MODULE_PREFIX):
        return find_module(text)
    path = os.path.expanduser(text) if text.startswith("~") else text
    return check_folder(os.path.normpath(os.path.abspath(path)))


# --------------------------------------------------------------------------- the walk


def kind_of(entry: "os.DirEntry[AnyStr]") -> "Union[str, OSError]":
    """``file`` (regular, or a link to one), ``folder`` (or a link to one), ``other``, or the
    OSError that hides what a link leads to (a dangling link or a loop is ``other``)."""
    try:
        if entry.is_dir():
            return "folder"
        return "file" if entry.is_file() else "other"
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ELOOP, errno.ENOTDIR):
            return "other"
        return exc


def walk(
    root: "AnyStr",
    base: "AnyStr",
    real_root: "Optional[AnyStr]",
    worth: "Optional[Callable[[AnyStr], bool]]" = None,
) -> "List[Record]":
    """Everything under ``root/base``, as os.walk sees it, but following links to folders.

    In walk order: :class:`~.wire.Listed` a regular file (or a link to one),
    :class:`~.wire.Other` anything else met (folders, links to folders, dangling links,
    FIFOs), :class:`~.wire.Unlisted` a folder not listed, :class:`~.wire.LinkOut` a link
    to a folder out of the root.  Folders whose name starts with ``.`` are listed, not
    entered; nor are folders where ``worth`` says nothing can match.  A link to a folder
    is followed when it stays in the root (always when ``real_root`` is None), unless it
    leads back to a folder on its own path (a cycle: its content is walked from the folder
    it leads to).
    """
    sep = b"/" if isinstance(root, bytes) else "/"
    start = os.path.join(root, base) if base else root
    parts = base.split(sep) if base else []
    # the real paths of the root and of each folder down to base: a link back to one is a cycle
    chain: Tuple[AnyStr, ...] = tuple(
        os.path.realpath(os.path.join(root, *parts[:depth])) for depth in range(len(parts) + 1)
    )
    met: List[Record] = []
    # (folder, its path from the root, the real paths of the folders down to it)
    stack: List[Tuple[AnyStr, AnyStr, Tuple[AnyStr, ...]]] = [(start, base, chain)]
    while stack:
        folder, rel_folder, chain = stack.pop()
        try:
            with os.scandir(folder) as found:
                entries = list(found)
        except (FileNotFoundError, NotADirectoryError):
            continue  # the base is no folder, or the folder vanished: nothing there
        except OSError as exc:
            met.append(Unlisted(text(rel_folder), exc.strerror or str(exc)))
            continue
        prefix = rel_folder + sep if rel_folder else rel_folder
        inner: List[Tuple[AnyStr, AnyStr, Tuple[AnyStr, ...]]] = []
        for entry in entries:
            rel = prefix + entry.name
            kind = kind_of(entry)
            if kind == "file":
                met.append(Listed(text(rel)))
                continue
            met.append(Other(text(rel)))
            if isinstance(kind, OSError):  # a link to something unseen: a file? a folder?
                met.append(Listed(text(rel)))  # read, it reports the error if the glob names it
                met.append(Unlisted(text(rel), kind.strerror or str(kind)))
            if kind == "folder" and _enters(entry, rel, worth):
                real = _followed(entry, chain, real_root)
                if isinstance(real, tuple):
                    met.append(LinkOut(text(rel), text(real[0])))
                elif real is not None:
                    inner.append((entry.path, rel, chain + (real,)))  # noqa: RUF005  (mypy loses AnyStr in a starred tuple)
        stack.extend(sorted(inner, reverse=True))
    return met


def _followed(
    entry: "os.DirEntry[AnyStr]", chain: "Tuple[AnyStr, ...]", real_root: "Optional[AnyStr]"
) -> "Union[AnyStr, Tuple[AnyStr], None]":
    """A folder's real path, to walk it; None for a link back to a folder of ``chain`` (a
    cycle); (its real path,) for a link out of the root."""
    try:
        link = entry.is_symlink()
    except OSError:
        link = True
    if not link:
        return os.path.join(chain[-1], entry.name)
    real = os.path.realpath(entry.path)
    if real in chain:
        return None
    if real_root is not None and not inside(real, real_root):
        return (real,)
    return real


def _enters(
    entry: "os.DirEntry[AnyStr]", rel: "AnyStr", worth: "Optional[Callable[[AnyStr], bool]]"
) -> bool:
    """Is this folder walked into: not hidden, and ``worth`` it?"""
    name = entry.name
    hidden = name.startswith(b".") if isinstance(name, bytes) else name.startswith(".")
    return not hidden and (worth is None or worth(rel))
