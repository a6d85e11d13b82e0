"""The runnable material the package ships, and writing it out: ``cleantree example`` and
``cleantree scripts``.

The files live once, in ``pytest_cleantree/examples`` (package data): a source checkout runs
them in place, a wheel's user writes them out, so a server that installed only the wheel has
the same example, wrapper and playbook as a clone.  Nothing is ever written over: a folder
that exists and holds anything is refused before a file is written.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pytest_cleantree.config.starter import SCHEMA_FILE, SCHEMA_NAME, SCHEMA_REFERENCE
from pytest_cleantree.core.errors import CleanTreeError

__all__ = ["BUNDLES", "EXAMPLES", "Bundle", "BundleError", "iter_bundle", "write_bundle"]

#: the shipped material, inside the installed package
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
_SCHEMA_COMMENT = "#:schema "


@dataclass(frozen=True)
class Bundle:
    """What one command writes: the ``folders`` of :data:`EXAMPLES` it copies, and whether
    they keep their own folder in the destination (``nested``) or are its content."""

    folders: tuple[str, ...]
    nested: bool


BUNDLES = {
    # the SM120 story: its manifest, the partial revert and the reverted tree
    "example": Bundle(("sm120",), nested=False),
    # the pre-launch wrapper, the Ansible playbook, the GitHub workflow
    "scripts": Bundle(("prelaunch", "ansible", "ci"), nested=True),
}


class BundleError(CleanTreeError):
    """The material could not be written; the message names the folder or file."""


def iter_bundle(name: str) -> Iterator[tuple[Path, Path]]:
    """``(shipped file, path relative to the destination)`` for each file of a bundle, sorted;
    caches Python left beside the example trees (``__pycache__``) are not material. A manifest
    that names a schema gets the schema beside it, as ``cleantree init`` writes it, so that the
    written folder is whole wherever it is copied."""
    bundle = BUNDLES[name]
    for folder in bundle.folders:
        top = EXAMPLES / folder
        for path in sorted(top.rglob("*")):
            relative = path.relative_to(top if not bundle.nested else EXAMPLES)
            if path.is_file() and "__pycache__" not in relative.parts:
                yield path, relative
                if _names_a_schema(path):
                    yield SCHEMA_FILE, relative.parent / SCHEMA_NAME


def _names_a_schema(path: Path) -> bool:
    return path.name == "cleantree.toml" and path.read_bytes().startswith(_SCHEMA_COMMENT.encode())


def write_bundle(name: str, destination: Path) -> list[Path]:
    """Write a bundle under ``destination`` (created; it may exist only empty) and return
    the files written. Raises :class:`BundleError` before writing anything when the folder
    holds something, and names the path that could not be written."""
    files = list(iter_bundle(name))
    if not files:  # a broken install: say so rather than "wrote 0 files"
        raise BundleError(f"the package holds no {name} material under {EXAMPLES}")
    _claim(destination)
    written = []
    for source, relative in files:
        target = destination / relative
        data = source.read_bytes()
        if relative.name == "cleantree.toml":
            data = _point_schema(data)
        elif BUNDLES[name].nested:
            data = _point_paths(data, destination)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with target.open("xb") as out:  # "x": never over a file
                out.write(data)
            executable = source.stat().st_mode & stat.S_IXUSR or source.suffix == ".sh"
            os.chmod(target, 0o755 if executable else 0o644)
        except OSError as exc:
            raise BundleError(f"cannot write {target}: {exc.strerror or exc}") from None
        written.append(target)
    return written


def _claim(destination: Path) -> None:
    """Make ``destination`` an empty folder to write into, or refuse it as it is."""
    if destination.is_dir():
        try:
            holds = next(destination.iterdir(), None) is not None
        except OSError as exc:
            raise BundleError(f"cannot read {destination}: {exc.strerror or exc}") from None
        if holds:
            raise BundleError(
                f"{destination} is not empty: nothing written (name a new or empty folder)"
            )
        return
    if destination.exists() or destination.is_symlink():
        raise BundleError(f"{destination} exists and is not a folder: nothing written")
    try:
        destination.mkdir(parents=True)
    except OSError as exc:
        raise BundleError(f"cannot create {destination}: {exc.strerror or exc}") from None


_SHIPPED_PREFIX = b"pytest_cleantree/examples/"


def _point_paths(data: bytes, destination: Path) -> bytes:
    """A script's comments name its siblings by their path in a clone
    (``pytest_cleantree/examples/ansible/cleantree.yml``); the copy names them where it was
    written, so that its usage lines run as printed on a machine with no clone."""
    return data.replace(_SHIPPED_PREFIX, os.fsencode(destination) + b"/")


def _point_schema(data: bytes) -> bytes:
    """The manifest's ``#:schema`` comment names the schema written beside it (the shipped
    one's path is relative to the package, which the copy is not in)."""
    first, newline, rest = data.partition(b"\n")
    if not first.startswith(_SCHEMA_COMMENT.encode()):
        return data
    return f"{_SCHEMA_COMMENT}{SCHEMA_REFERENCE}".encode() + newline + rest
