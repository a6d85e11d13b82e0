"""The kept answer, found before the package is imported: the warm path of ``cleantree check``.

:mod:`.answers` keeps a check's whole answer under a question asked of the parsed options
and the loaded manifest, which costs the option parser, the manifest's loader and the
model they build (about 0.15 s of imports).  Beside it, each kept answer is also filed
under the command line *as typed* (with the current folder, the whole environment, whether
stdout is a colour terminal, this Python and the package version), together with what its
state was computed from: the manifest's path, the tree's root (as written and as
resolved), the entries and walks of its signature, the folders a manifest search went
through, whether the graph may read installed modules.  Here that state is recomputed
from those records alone, with the standard library and :mod:`.signatures`; only when
every part is as it was is the answer printed.

Why the command line as typed may stand for the parsed options: the parse is a function
of the arguments, the environment and this package's code, and all three are in the key
or the state.  The answer was filed only by a run that :func:`.answers.ask_warm` judged
keepable, so the same command line is keepable too.  Anything else (another spelling of
the same options, a changed manifest) only misses, and the run goes the full way.
"""

from __future__ import annotations

import os
import sys

from pytest_cleantree import __version__

from .cachedir import cache_folder, load_private_record, which_libraries
from .signatures import (
    code_signature,
    digest,
    discovery_signature,
    environment_signature,
    tree_signature,
)

TYPE_CHECKING = False  # not typing's: nothing here imports typing
if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import Any

#: a file name prefix, so that these records never meet :mod:`.answers`' own files; and
#: the suffix of their format (:func:`.cachedir.load_private_record`)
PREFIX, SUFFIX = "typed-", ".marshal"


def asked_where(cwd: str, env: Mapping[str, str], color: bool) -> tuple[str, ...]:
    """What a check's answer depends on besides its options and the files it reads: the
    current folder, the whole environment (a superset of the variables the run reads),
    whether stdout is a colour terminal, this Python and the package's version."""
    return (
        cwd,
        repr(sorted(env.items())),
        str(color),
        sys.version,
        sys.executable,
        str(sys.implementation.cache_tag),
        __version__,
    )


def typed_file(
    folder: str, argv: Sequence[str], cwd: str, env: Mapping[str, str], color: bool
) -> str:
    """Where the answer of this command line, typed here in this environment, is filed."""
    key = digest(str(len(argv)), *argv, *asked_where(cwd, env, color))
    return os.path.join(folder, "answers", PREFIX + key + SUFFIX)


def typed_state(record: Mapping[str, Any], manifest_bytes: bytes) -> tuple[str, int]:
    """The state ``record`` (see :func:`typed_record`) describes, as it is now; and the newest
    mtime or ctime in it."""
    root = record["root"]
    tree, newest = tree_signature(root, record["literals"], record["starts"])
    code, code_newest = code_signature()
    if record["installed"]:
        environment, environment_newest = environment_signature(record["cwd"])
        code += environment
        code_newest = max(code_newest, environment_newest)
    searched, searched_newest = discovery_signature(record["searched"])
    state = typed_digest(manifest_bytes, root, tree, code, searched)
    return state, max(newest, code_newest, searched_newest)


def typed_digest(manifest_bytes: bytes, root: str, tree: str, code: str, searched: str) -> str:
    """The one formula of a typed answer's state, from its signatures (both sides ask it)."""
    return digest(manifest_bytes.hex(), root, tree, code, searched, which_libraries())


def typed_record(
    *,
    manifest: str,
    root_path: str,
    root: str,
    literals: Sequence[str],
    starts: Sequence[str],
    installed: bool,
    cwd: str,
    searched: Sequence[str],
) -> dict[str, Any]:
    """What a typed answer's state is computed from (its ``state`` and answer added later)."""
    return {
        "manifest": manifest,
        "root_path": root_path,
        "root": root,
        "literals": sorted(literals),
        "starts": sorted(starts),
        "installed": installed,
        "cwd": cwd,
        "searched": list(searched),
    }


def lookup_typed(
    argv: Sequence[str], cwd: str, env: Mapping[str, str], color: bool
) -> tuple[int, str | None] | None:
    """The exit code and stdout kept for this command line, when nothing it depends on has
    changed; ``None`` otherwise (the run goes the full way)."""
    folder, _ = cache_folder(env)
    if folder is None:
        return None
    record = load_private_record(typed_file(folder, argv, cwd, env, color), os.geteuid())
    try:
        if record.get("version") != 1 or record["cwd"] != cwd:
            return None
        if os.path.realpath(record["root_path"]) != record["root"]:
            return None  # a link on the way to the root leads elsewhere now
        if cache_folder(env, record["root"])[0] is None:
            return None  # the cache is inside the tree now: the run says so
        with open(record["manifest"], "rb") as handle:
            manifest_bytes = handle.read()
        state, _ = typed_state(record, manifest_bytes)
        code, stdout = record["code"], record["stdout"]
    except (KeyError, TypeError, AttributeError, OSError, ValueError):
        return None
    if state != record.get("state"):
        return None
    if not isinstance(code, int) or not (stdout is None or isinstance(stdout, str)):
        return None
    return code, stdout
