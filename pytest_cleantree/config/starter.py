"""The starter manifest ``cleantree init`` writes: the tree's layout read, one rule of each kind.

Module names come from the folder imports start from (see :mod:`.layout`), so the starter's
``root`` is that folder: ``src`` for a ``src/`` layout, ``python`` for SGLang's
``python/<pkg>``, the tree itself when it holds the top package.  Its rules are clean on the
tree as it is (they name what an experiment might leave behind, which is not there yet), so
``cleantree check`` passes right after ``init``; the ``expect`` rule is written commented out,
since only the user knows a name each file must hold.

The schema is written beside the manifest (:data:`SCHEMA_NAME`) and named by a relative
``#:schema`` line, so that the pair can be committed and works from any clone: a path into the
venv that ran ``init`` would name a folder no teammate has.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pytest_cleantree.core.errors import CleanTreeError

__all__ = [
    "SCHEMA_FILE",
    "SCHEMA_NAME",
    "SCHEMA_REFERENCE",
    "SchemaFileError",
    "Starter",
    "detect_starter",
    "render_starter",
    "schema_to_write",
    "write_schema",
]

#: the manifest's JSON Schema, shipped in the package
SCHEMA_FILE = Path(__file__).resolve().parent.parent / "schemas" / "manifest-v1.json"
#: the copy written beside a manifest, and how the manifest's ``#:schema`` line names it
SCHEMA_NAME = "cleantree.schema.json"
SCHEMA_REFERENCE = f"./{SCHEMA_NAME}"

#: folders that hold a tree's import root, in the order they are tried
_IMPORT_FOLDERS = (("src", "a src/ layout"), ("python", "a python/<package> layout"))
_SKIPPED = ("test", "tests", "docs", "examples", "build", "dist")


@dataclass(frozen=True)
class Starter:
    """What the starter says about a tree: ``root`` relative to the manifest (``"."``: its
    folder), the top ``package`` under it (``""``: none found), and how it was found."""

    root: str
    package: str
    found: str


def _packages(folder: Path) -> list[str]:
    """The regular packages directly in ``folder`` (a folder holding ``__init__.py``)."""
    try:
        children = sorted(folder.iterdir())
    except OSError:
        return []
    return [
        child.name
        for child in children
        if child.is_dir()
        and child.name.isidentifier()
        and child.name not in _SKIPPED
        and (child / "__init__.py").is_file()
    ]


def detect_starter(folder: Path) -> Starter:
    """The layout of the tree in ``folder``: its import root and its (first) top package."""
    for name, found in _IMPORT_FOLDERS:
        packages = _packages(folder / name)
        if packages:
            return Starter(name, packages[0], found)
    packages = _packages(folder)
    if packages:
        return Starter(".", packages[0], "the folder holding the top package")
    return Starter(".", "", "no package found: every Python file of the tree")


class SchemaFileError(CleanTreeError):
    """The schema beside a manifest could not be written; the message names the file."""


def schema_to_write(folder: Path) -> bool:
    """Whether :data:`SCHEMA_NAME` must be written in ``folder``: ``False`` when the file there
    is this version's schema already (kept as it is). A different file is never overwritten
    (it may be a newer version's, or the user's): :class:`SchemaFileError` names it."""
    target = folder / SCHEMA_NAME
    try:
        existing = target.read_bytes()
    except FileNotFoundError:
        return True
    except OSError as exc:
        raise SchemaFileError(f"cannot read {target}: {exc.strerror or exc}") from None
    if existing == SCHEMA_FILE.read_bytes():
        return False
    raise SchemaFileError(
        f"{target} exists and is not this version's manifest schema: nothing written "
        "(remove it, or rename it, to have it written again)"
    )


def write_schema(folder: Path) -> Path:
    """Write this version's schema as :data:`SCHEMA_NAME` in ``folder``, never over a file."""
    target = folder / SCHEMA_NAME
    try:
        with target.open("xb") as out:
            out.write(SCHEMA_FILE.read_bytes())
    except OSError as exc:
        raise SchemaFileError(f"cannot write {target}: {exc.strerror or exc}") from None
    return target


def render_starter(starter: Starter, schema: str = SCHEMA_REFERENCE) -> str:
    """The commented starter manifest for ``starter``; ``schema`` is the ``#:schema`` path."""
    package = starter.package
    files = f'["{package}/**/*.py"]' if package else '["**/*.py"]'
    module = f"{package}." if package else ""
    folder = f"{package}/" if package else ""
    missing_ok = "" if package else "missing_ok = true  # a tree without Python files is clean\n"
    return f"""\
#:schema {schema}
# cleantree.toml: what must not remain in this tree once an experiment is reverted.
# Written by `cleantree init`; `cleantree check` reads it from this folder or any below it.
# `cleantree reference` prints what every key means (`cleantree reference KEY`: one), offline;
# editors that read the #:schema line above (taplo, Even Better TOML) check it with
# {SCHEMA_NAME}, written beside it: commit both.
# The rules below are examples, clean on this tree as it is: rename them, and name what
# your experiment added.

# The folder module names start from ({starter.found}); file entries are relative to it.
root = "{starter.root}"
# Files no rule looks at (gitignore patterns, relative to root):
# exclude = ["tests/", "*_pb2.py"]

# forbid: these names (a qualified name catches every import and alias of it) must not
# occur in any of the files.
[[rule]]
id = "example-forbid"
files = {files}
forbid = ["{module}experimental_kernel", "USE_EXPERIMENTAL_KERNEL"]
why = "the experimental kernel was reverted: nothing may still call or configure it"
{missing_ok}
# forbid_lines: whole lines (whitespace stripped) that must not occur, in any kind of file.
[[rule]]
id = "example-forbid-lines"
files = {files}
forbid_lines = ["os.environ['USE_EXPERIMENTAL_KERNEL'] = '1'"]
why = "the launch override was part of the experiment"
{missing_ok}
# absent: paths that must not exist.
[[rule]]
id = "example-absent"
absent = ["{folder}experimental_kernel.py"]
why = "the experiment's module was deleted by the revert"

# expect: names that must occur in each of the files (the fix that must stay). Uncomment
# it and name what your files hold:
# [[rule]]
# id = "example-expect"
# files = {files}
# expect = ["{module}stable_kernel"]
# why = "the stable kernel is what the revert went back to"
"""
