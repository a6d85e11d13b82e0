"""The cache's folder and its private files: where a run may keep what it learnt, and how
it reads and writes there without trusting what another user could have written.

Standard library only: the kept-answer lookup (:mod:`.answer_lookup`) asks this before any
of the package is imported; :mod:`.cache` and :mod:`.answers` build on it.
"""

from __future__ import annotations

import marshal
import os
import sys

TYPE_CHECKING = False  # not typing's: the kept-answer lookup imports neither typing nor pathlib
if TYPE_CHECKING:
    from collections.abc import Mapping
    from importlib.machinery import ModuleSpec
    from typing import Any

#: set to a folder to move the cache, or to an empty string to disable it
CACHE_ENV = "CLEANTREE_CACHE_DIR"


#: :data:`pytest_cleantree.analysis.ENGINE_ENV`, which a warm run does not import
ENGINE_ENV = "CLEANTREE_ENGINE"


#: the cache's folders and files are the user's alone
FOLDER_MODE, FILE_MODE = 0o700, 0o600


def cache_folder(env: Mapping[str, str], tree: str | None = None) -> tuple[str | None, str]:
    """The cache folder for this environment and this machine's checked ``tree`` (``None``:
    none), and why there is none when the user should hear it (``""`` otherwise).

    ``$CLEANTREE_CACHE_DIR`` (empty: no cache), else ``$XDG_CACHE_HOME/pytest-cleantree``
    when that is absolute (a relative one is ignored, as the XDG spec says), else
    ``$HOME/.cache/pytest-cleantree``; no cache when ``HOME`` is unset, empty, relative or
    ``/``, nor when the folder would be inside ``tree`` (a cache there is the tree's, to
    anyone who can write it).
    """
    configured = env.get(CACHE_ENV)
    if configured == "":
        return None, ""
    if configured is not None:
        folder = os.path.abspath(configured)
    elif os.path.isabs(xdg := env.get("XDG_CACHE_HOME", "")):
        folder = os.path.join(xdg, "pytest-cleantree")
    else:
        home = env.get("HOME", "")
        if not os.path.isabs(home) or not home.strip("/"):
            return None, f"no home folder to keep it in (HOME is {home!r})"
        folder = os.path.join(home, ".cache", "pytest-cleantree")
    if tree is not None and _inside(folder, tree):
        return None, f"{folder} is inside the checked tree {tree}: not used"
    return folder, ""


def _inside(folder: str, tree: str) -> bool:
    real_folder, real_tree = os.path.realpath(folder), os.path.realpath(tree)
    return os.path.commonpath([real_folder, real_tree]) == real_tree


def untrusted(info: os.stat_result, uid: int) -> str:
    """Why a cache folder or file with this stat is not to be read (``""``: it may be)."""
    if info.st_uid != uid:
        return f"owned by uid {info.st_uid}, not by this user ({uid})"
    if info.st_mode & 0o022:
        who = "group" if info.st_mode & 0o020 else "others"
        return f"writable by {who} (mode {oct(info.st_mode & 0o777)})"
    return ""


def which_libraries() -> str:
    """Which astroid and RE2 answer (neither imported): part of every key of a finding."""
    return f"{_which_astroid()} {_which_re2()}"


def _engine() -> str:
    """The engine asked for, as written (any other value is another key: never a wrong one)."""
    return os.environ.get(ENGINE_ENV, "")


def find_top_spec(name: str) -> ModuleSpec | None:
    """:func:`importlib.util.find_spec` of a top-level module ``name``, as the import system
    finds it (the module's own spec once imported, else the first finder of
    ``sys.meta_path`` that knows it), without importing :mod:`importlib.util` (1.3 ms of a
    kept answer's start)."""
    module = sys.modules.get(name)
    if module is not None:
        found: ModuleSpec | None = getattr(module, "__spec__", None)
        return found
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        spec: ModuleSpec | None = find(name, None) if find is not None else None
        if spec is not None:
            return spec
    return None


def _which_re2() -> str:
    """Which re2 matches ``re:`` patterns: its module file's path, size and mtime (not imported:
    6 ms that most runs never pay)."""
    spec = find_top_spec("re2")
    if spec is None or not spec.origin:
        return "-"
    try:
        info = os.stat(spec.origin)
    except OSError:
        return spec.origin
    return f"{spec.origin}:{info.st_size}:{info.st_mtime_ns}"


def _which_astroid() -> str:
    """Which astroid parses: its ``__pkginfo__.py`` (the version is in it), not imported.

    ``importlib.metadata`` scans every distribution on the path: 40 ms, paid
    by every run that uses the cache.  Where the file is not found, it is asked.
    """
    spec = find_top_spec("astroid")
    for folder in (spec.submodule_search_locations or ()) if spec else ():
        try:
            with open(os.path.join(folder, "__pkginfo__.py"), encoding="utf-8") as handle:
                return handle.read()
        except OSError:
            continue
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("astroid")
    except PackageNotFoundError:  # pragma: no cover - astroid is a dependency
        return "?"


def load_private(file: str, uid: int) -> tuple[dict[str, Any], str]:
    """A JSON object the user alone could have written (``{}`` when none), and why a file
    there was not read (``""``: it was, or there is none)."""
    import json  # here: a kept answer is found without it (its record is read by marshal)

    data, why = _read_private(file, uid)
    try:
        entries = json.loads(data) if data is not None else {}
    except ValueError:
        return {}, ""  # unreadable: computed again
    return (entries if isinstance(entries, dict) else {}), why


def load_private_record(file: str, uid: int) -> dict[str, Any]:
    """A record :func:`save_private_record` wrote, the user's alone (``{}``: none, not the
    user's alone, or unreadable).

    ``marshal``, not JSON: no import (``json`` is 1.3 ms of a kept answer's start).  The
    file is checked as every cache file is (owned by the user, written by no one else), and
    only plain values come back (a record holds strings, numbers, lists and ``None``);
    whatever else a damaged file holds fails the caller's checks, and the run goes the full
    way.  The format is this Python's: the record's key holds the Python version.
    """
    data, _ = _read_private(file, uid)
    if data is None:
        return {}
    try:
        record = marshal.loads(data)
    except (ValueError, EOFError, TypeError):
        return {}
    return record if isinstance(record, dict) else {}


def _read_private(file: str, uid: int) -> tuple[bytes | None, str]:
    """A file's bytes when the user alone could have written it (``None`` otherwise), and
    why a file there was not read (``""``: it was, or there is none)."""
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        with os.fdopen(fd, "rb") as handle:
            why = untrusted(os.fstat(handle.fileno()), uid)
            if why:
                return None, why
            return handle.read(), ""
    except OSError:
        return None, ""  # none yet, or unreadable: computed again


def save_private(file: str, entries: dict[str, Any], uid: int) -> None:
    """Write ``entries`` as JSON, 0600 in 0700 folders, renamed into place (never half seen)."""
    import json

    try:
        # dumps, not dump: only a one-shot encoding runs json's C encoder (5x faster)
        text = json.dumps(entries, ensure_ascii=False, separators=(",", ":"))
    except ValueError:
        return  # a cache that cannot be written only costs time
    _write_private(file, text.encode(errors="surrogateescape"), uid)


def save_private_record(file: str, record: dict[str, Any], uid: int) -> None:
    """Write ``record`` for :func:`load_private_record`, as :func:`save_private` writes."""
    try:
        data = marshal.dumps(record)
    except ValueError:
        return  # not a plain value: nothing kept
    _write_private(file, data, uid)


def _write_private(file: str, data: bytes, uid: int) -> None:
    """Write ``data`` 0600 in 0700 folders, renamed into place (never half seen); a cache
    that cannot be written only costs time."""
    import contextlib  # here: a kept answer is read without them
    import tempfile

    temporary = None
    folder = os.path.dirname(file)
    try:
        if not _make_private(folder, uid):
            return
        fd, temporary = tempfile.mkstemp(dir=folder, prefix=".tmp-")  # 0600
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, file)
        temporary = None
    except OSError:
        pass
    finally:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def _make_private(folder: str, uid: int) -> bool:
    """Make ``folder`` and the missing folders above it, each 0700 whatever the umask; is
    ``folder`` now the user's alone (``False``: write nothing there)?"""
    missing: list[str] = []
    here = folder
    while not os.path.isdir(here) and os.path.dirname(here) != here:
        missing.append(here)
        here = os.path.dirname(here)
    for path in reversed(missing):
        try:
            os.mkdir(path, FOLDER_MODE)
        except FileExistsError:
            continue  # another run made it: the check below tells whose it is
        os.chmod(path, FOLDER_MODE)  # the umask may have taken bits away, never added any
    return not untrusted(os.stat(folder), uid)
