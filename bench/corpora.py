"""The trees the benchmark searches, built once under ``bench/.work/corpora``.

* ``stdlib``: a copy of this machine's standard library (its ``.py`` files, site-packages left
  out);
* ``site-packages``: a copy of the largest site-packages folder on this Python's path;
* ``gen-<N>``: N generated modules that use the benchmark's names at known rates, to show how
  cost grows with the size of the tree.

Only ``.py`` files are copied, and no hidden folder or ``__pycache__``: every tool then sees
exactly the same files, whatever its own defaults for ignore files, hidden folders, ``.pyi``
stubs or file types.  A corpus is rebuilt only when its ``.complete`` marker is missing (or
``--rebuild`` is given).
"""

from __future__ import annotations

import os
import random
import shutil
import site
import sys
import sysconfig
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from names import QUALIFIED, SUBSTRINGS

MARKER = ".complete"
#: bumped when the generator changes, so that old generated trees are rebuilt
GENERATOR_VERSION = "1"


@dataclass(frozen=True)
class Corpus:
    name: str
    path: Path
    files: int
    size: int  # bytes of Python source

    @property
    def mib(self) -> float:
        return self.size / 2**20


def iter_python_files(root: Path) -> Iterator[Path]:
    """Every ``.py`` file under ``root``, hidden folders and ``__pycache__`` skipped, sorted."""
    for folder, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py") and not name.startswith("."):
                yield Path(folder, name)


def stdlib_folder() -> Path:
    return Path(sysconfig.get_paths()["stdlib"])


def site_packages_folder() -> Path:
    """The site-packages folder on this Python's path that holds the most ``.py`` files."""
    candidates = {Path(p) for p in site.getsitepackages()}
    candidates.add(Path(sysconfig.get_paths()["purelib"]))
    user = site.getusersitepackages()
    if isinstance(user, str):
        candidates.add(Path(user))
    existing = [path for path in candidates if path.is_dir()]
    if not existing:
        raise SystemExit("bench: this Python has no site-packages folder to copy")
    return max(existing, key=lambda path: (sum(1 for _ in iter_python_files(path)), str(path)))


def _copy_tree(source: Path, dest: Path, skip: Sequence[Path]) -> None:
    skipped = {path.resolve() for path in skip}
    for folder, dirnames, filenames in os.walk(source):
        here = Path(folder)
        dirnames[:] = sorted(
            d
            for d in dirnames
            if not d.startswith(".")
            and d != "__pycache__"
            and (here / d).resolve() not in skipped
            and not (here / d).is_symlink()
        )
        target = dest / here.relative_to(source)
        for name in sorted(filenames):
            path = here / name
            if not name.endswith(".py") or name.startswith(".") or not path.is_file():
                continue
            target.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target / name)


def _measure(name: str, path: Path) -> Corpus:
    files = sizes = 0
    for file in iter_python_files(path):
        files += 1
        sizes += file.stat().st_size
    return Corpus(name, path, files, sizes)


def _ready(path: Path, stamp: str) -> bool:
    marker = path / MARKER
    return marker.is_file() and marker.read_text() == stamp


def _fresh(path: Path) -> None:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)


def build_stdlib(base: Path, *, rebuild: bool = False) -> Corpus:
    path = base / "stdlib"
    source = stdlib_folder()
    stamp = f"{source} {sys.version.split()[0]}\n"
    if rebuild or not _ready(path, stamp):
        print(f"bench: copying the standard library from {source}", file=sys.stderr)
        _fresh(path)
        skip = [source / "site-packages", source / "dist-packages"]
        _copy_tree(source, path, [p for p in skip if p.exists()])
        (path / MARKER).write_text(stamp)
    return _measure("stdlib", path)


def build_site_packages(base: Path, *, rebuild: bool = False) -> Corpus:
    path = base / "site-packages"
    source = site_packages_folder()
    stamp = f"{source}\n"
    if rebuild or not _ready(path, stamp):
        print(f"bench: copying site-packages from {source}", file=sys.stderr)
        _fresh(path)
        # the benchmark's own venv must not be in the corpus (it is not under a site-packages,
        # but a user could point one there)
        _copy_tree(source, path, [base.parent / "venv"])
        (path / MARKER).write_text(stamp)
    return _measure("site-packages", path)


def build_generated(base: Path, count: int, *, rebuild: bool = False) -> Corpus:
    name = generated_name(count)
    path = base / name
    stamp = f"generator {GENERATOR_VERSION}, {count} files\n"
    if rebuild or not _ready(path, stamp):
        print(f"bench: generating {count} modules in {path}", file=sys.stderr)
        _fresh(path)
        for relative, text in iter_generated(count):
            target = path / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        (path / MARKER).write_text(stamp)
    return _measure(name, path)


def generated_name(count: int) -> str:
    """``gen-250``, ``gen-1k``, ``gen-50k``."""
    return f"gen-{count // 1000}k" if count % 1000 == 0 else f"gen-{count}"


# --------------------------------------------------------------------------- the generator


def iter_generated(count: int, seed: int = 6) -> Iterator[tuple[str, str]]:
    """``(relative path, text)`` of ``count`` modules, the same for the same arguments.

    Each module is a plausible ~200-line file: imports, constants, a class with methods,
    conditions, calls, strings, comments and docstrings.  Names of the benchmark's lists are
    used at Zipf-like rates (a few names often, most rarely), in every kind of place: as
    identifiers, attributes, keyword arguments, strings and comments; qualified
    names through plain imports, ``from`` imports and aliases.  So the number of matching lines
    grows in proportion to the tree, as it would in a real one.
    """
    rng = random.Random(seed)
    weights_sub = [1 / (rank + 1) for rank in range(len(SUBSTRINGS))]
    weights_qual = [1 / (rank + 1) for rank in range(len(QUALIFIED))]
    for index in range(count):
        folder = f"pkg{index // 2500:02d}/sub{(index // 50) % 50:02d}"
        subs = rng.choices(SUBSTRINGS, weights_sub, k=rng.randint(0, 3))
        quals = rng.choices(QUALIFIED, weights_qual, k=rng.randint(0, 2))
        yield f"{folder}/mod{index:05d}.py", _module(rng, index, subs, quals)


_VOCABULARY = """
alpha beta gamma delta value item record batch chunk offset limit total buffer frame layer block
shard rank device stream queue worker token scale weight bias state cache
"""
_WORDS = tuple(_VOCABULARY.split())


def _ident(rng: random.Random) -> str:
    return "_".join(rng.sample(_WORDS, 2))


def _module(rng: random.Random, index: int, subs: Sequence[str], quals: Sequence[str]) -> str:
    lines: list[str] = [f'"""Generated module {index}: {_ident(rng)} handling."""', ""]
    lines += ["from __future__ import annotations", "", "import os", "import sys"]
    uses: list[str] = []
    for number, qualified in enumerate(quals):
        module, _, name = qualified.rpartition(".")
        style = rng.randrange(3)
        if style == 0:
            lines.append(f"import {module}")
            uses.append(qualified)
        elif style == 1:
            lines.append(f"from {module} import {name}")
            uses.append(name)
        else:
            alias = f"_m{number}"
            lines.append(f"import {module} as {alias}")
            uses.append(f"{alias}.{name}")
    lines += ["", f"LIMIT_{index} = {rng.randint(1, 10_000)}"]
    places = list(subs)
    for number in range(rng.randint(5, 12)):
        lines += ["", "", *_function(rng, number, places, uses)]
    lines += ["", "", f"class Handler{index}:", f'    """Handles {_ident(rng)} for {index}."""']
    lines += ["", "    def __init__(self, size: int = 0) -> None:", "        self.size = size"]
    for number in range(rng.randint(3, 8)):
        lines += [""] + [f"    {line}" if line else "" for line in _function(rng, number, [], [])]
    lines += ["", "", 'if __name__ == "__main__":', f"    step_0(LIMIT_{index})", ""]
    return "\n".join(lines)


def _function(rng: random.Random, number: int, places: list[str], uses: list[str]) -> list[str]:
    """A function of ~12 lines; it takes one name of ``places`` and ``uses``, if any."""
    a, b = _ident(rng), _ident(rng)
    body = [
        f"def step_{number}({a}, {b}=None):",
        f'    """Step {number}: combine {a} and {b}."""',
        f"    total = {rng.randint(0, 99)}",
        f"    for index in range(len(str({a}))):  # walk the {a.split('_')[0]}",
        f"        if index % {rng.randint(2, 9)} == 0 and {b} is not None:",
        "            total += index",
        "        else:",
        f"            total -= {rng.randint(1, 5)}",
    ]
    if places:
        body += _place(rng, places.pop())
    if uses:
        use = uses.pop()
        body.append(f"    handle = {use}  # resolved through the imports above")
        if rng.random() < 0.5:
            body += [f"    if {use} is not None:", "        total += 1"]
    body += [f'    label = "{_ident(rng)}-{number}"', "    return total, label"]
    return body


def _place(rng: random.Random, name: str) -> list[str]:
    """One use of a substring name, in one of the places a name can stand."""
    style = rng.randrange(7)
    if style == 0:
        return [f"    {name}_value = total"]
    if style == 1:
        return [f"    total += len(os.{name}_items or ())"]
    if style == 2:
        return [f"    sys.stdout.write(str(dict({name}=total)))"]
    if style == 3:
        return [f'    label = "uses {name} here"']
    if style == 4:
        return [f"    # TODO: drop the {name} experiment"]
    if style == 5:
        return [f'    """The {name} path (a string, not a docstring)."""']
    return [f"    if total > 0 and callable(getattr(os, {name!r}, None)):", "        total += 1"]
