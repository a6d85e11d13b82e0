"""Module names held to Python's own finder (issue 48): generated layouts, named by
:func:`~pytest_cleantree.names.modules.name_tree`, and each name given to
``importlib.util.find_spec`` in a subprocess whose ``sys.path`` is the folders the naming
says imports start from.  Each module of the tree must be found at its own file.

The layouts mix regular packages, folders without ``__init__.py`` (inside a package, and
above every package), a module beside a package of the same name, and the tree below
``src/`` (an import root), ``.vendor/`` (a dot folder named in ``import_roots``) or
``python/`` (found from the package chain alone).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_cleantree.names.modules import name_tree
from pytest_cleantree.sources.local import LocalSource

#: a folder: its name -> a sub-folder (with or without __init__.py) or a module file
Folder = dict[str, object]

NAMES = st.sampled_from(["a", "b", "m"])


def folders(depth: int) -> st.SearchStrategy[Folder]:
    module = st.just("module")
    if depth == 0:
        return st.dictionaries(NAMES, module, max_size=2)
    child = st.one_of(module, st.tuples(st.booleans(), st.deferred(lambda: folders(depth - 1))))
    # "m" names a module file and "m/" a folder: both may stand in one folder
    keys = NAMES.flatmap(lambda n: st.sampled_from([n, f"{n}/"]))
    return st.dictionaries(keys, child, max_size=3)


def build(root: Path, folder: Folder, *, init: bool) -> list[str]:
    """Write the folder under ``root``; the Python files written, relative to ``root``."""
    root.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    if init:
        (root / "__init__.py").write_text("")
        written.append(root / "__init__.py")
    for name, child in folder.items():
        if child == "module":
            path = root / f"{name.rstrip('/')}.py"
            path.write_text("")
            written.append(path)
        else:
            assert isinstance(child, tuple)
            has_init: bool = child[0]
            inner: Folder = child[1]
            below = root / name.rstrip("/")
            written += [below / p for p in build(below, inner, init=has_init)]
    return [str(path.relative_to(root)) for path in written]


FINDER = """
import importlib.util, json, sys
sys.path[:0] = json.loads(sys.argv[1])
found = {}
for name in json.loads(sys.argv[2]):
    try:
        spec = importlib.util.find_spec(name)
    except ImportError as exc:
        found[name] = "ImportError: %s" % exc
    else:
        found[name] = spec.origin if spec is not None and spec.has_location else None
print(json.dumps(found))
"""


def find_specs(root: Path, bases: list[str], names: list[str]) -> dict[str, str | None]:
    """What Python's finder makes of ``names`` with ``bases`` (under ``root``) on sys.path."""
    path = [str(root / base) if base else str(root) for base in bases]
    done = subprocess.run(
        [sys.executable, "-I", "-c", FINDER, json.dumps(path), json.dumps(names)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    found: dict[str, str | None] = json.loads(done.stdout)
    return found


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tree=folders(3),
    top_init=st.booleans(),
    place=st.sampled_from([("", ()), ("python", ()), ("src", ("src",)), (".vendor", (".vendor",))]),
)
def test_each_module_of_the_tree_is_where_python_finds_it(
    tree: Folder, top_init: bool, place: tuple[str, tuple[str, ...]]
) -> None:
    prefix, import_roots = place
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        top = root / prefix / "pkg"
        files = [f"{prefix}/pkg/{p}".lstrip("/") for p in build(top, tree, init=top_init)]
        if not files:
            return
        naming = name_tree(LocalSource(root), sorted(files), import_roots)
        named: dict[str, list[str]] = {}
        for module in naming.tree:
            named.setdefault(module.module, []).append(module.path)
        found = find_specs(root, list(naming.bases), sorted(named))
        for name, paths in sorted(named.items()):
            assert len(paths) == 1, (name, paths)  # one file per name: Python imports one
            origin = found[name]
            assert origin is not None, (name, paths, naming.bases)
            assert Path(origin).relative_to(root).as_posix() == paths[0], (name, naming.bases)
