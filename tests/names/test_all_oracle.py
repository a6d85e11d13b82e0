"""What ``from m import *`` binds, held to Python's own star import (issue 48).

The export map's answer (:meth:`ExportMap.exported_names`, from
``analysis/allnames.py``) must hold every name Python's star import binds: a
name left out hides its uses behind the star (a false clean).  Where the module
runs straight through and its ``__all__`` is read, it must be exactly Python's.

Two oracles: real packages written to a folder and star-imported in a
subprocess with that folder on ``sys.path`` (every form, splices between
modules included); and generated modules (hypothesis: each ``__all__`` form in
plain statements, both branches of ``if``, loops, ``try``, ``with``,
decorators, ``del``), each run by ``exec`` into a fresh module and star-imported
from it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import types
from itertools import count
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from test_exports import tree_map

BASE = "def a(): ...\nb = 1\nclass c: ...\n_p = 2\nimport os\n"
#: (module text, does Python's answer equal ours: the module runs straight through)
FORMS: dict[str, tuple[str, bool]] = {
    "none": ("", True),
    "list": ("__all__ = ['a', '_p']\n", True),
    "augmented": ("__all__ = ['a']\n__all__ += ['b']\n", True),
    "slice": ("__all__ = ['a']\n__all__[:] = ['c']\n", True),
    "extend": ("__all__ = ['a']\n__all__.extend(['os'])\n__all__.append('b')\n", True),
    "del": ("__all__ = ['a']\ndel __all__\n", True),
    "del-then": ("__all__ = ['a']\ndel __all__\n__all__ = ['_p']\n", True),
    "if-else": (
        "import sys\nif sys.maxsize > 1:\n    __all__ = ['a']\nelse:\n    __all__ = ['b']\n",
        False,
    ),
    "if-else-other": (
        "import sys\nif sys.maxsize < 1:\n    __all__ = ['a']\nelse:\n    __all__ = ['b']\n",
        False,
    ),
    "if-del": ("__all__ = ['_p']\nif True:\n    del __all__\n", False),
    "decorator": (
        "__all__ = ['a']\n\ndef export(f):\n    __all__.append(f.__name__)\n    return f\n\n"
        "@export\ndef _hidden(): ...\n",
        False,
    ),
    "comprehension": ("__all__ = [n for n in dir() if n in ('b', '_p')]\n", False),
    "function": (
        "def _fill():\n    global __all__\n    __all__ = ['_p', 'c']\n_fill()\n",
        False,
    ),
    "globals": ("globals()['__all__'] = ['_p']\n", False),
    "splice": (
        "from .spliced import *\nfrom . import spliced\n__all__ = spliced.__all__ + ['a']\n",
        True,
    ),
    "splice-aug": (
        "from .spliced import *\nfrom . import spliced\n"
        "__all__ = ['b']\n__all__ += spliced.__all__\n",
        True,
    ),
    "splice-ext": (
        "from .spliced import *\nfrom . import spliced as sp\n"
        "__all__ = []\n__all__.extend(sp.__all__)\n",
        True,
    ),
    "splice-dynamic": (
        "from .spliced import *\nfrom . import spliced\n"
        "__all__ = ['a']\n__all__ += [n for n in spliced.__all__]\n",
        False,
    ),
}
SPLICED = "__all__ = ['s1', '_s2']\ndef s1(): ...\ndef _s2(): ...\n"


def python_exports(root: Path, modules: list[str]) -> dict[str, set[str]]:
    """What ``from <module> import *`` binds, per module, in a fresh interpreter."""
    code = textwrap.dedent(
        """\
        import json, sys
        out = {}
        for name in sys.argv[1:]:
            space = {}
            exec(f"from {name} import *", space)
            out[name] = sorted(set(space) - {"__builtins__"})
        print(json.dumps(out))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", code, *modules],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return {name: set(names) for name, names in json.loads(done.stdout).items()}


def test_every_form_binds_at_least_what_python_s_star_import_binds(tmp_path: Path) -> None:
    files = {"pkg/__init__.py": "", "pkg/spliced.py": SPLICED}
    for name, (text, _) in FORMS.items():
        files[f"pkg/m_{name.replace('-', '_')}.py"] = BASE + text
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    modules = {name: "pkg.m_" + name.replace("-", "_") for name in FORMS}
    python = python_exports(tmp_path, sorted(modules.values()))
    emap = tree_map(files)

    for name, module in modules.items():
        ours = emap.exported_names(module)
        assert ours is not None, name
        assert python[module] <= ours, (name, python[module] - ours)
        if FORMS[name][1]:
            assert ours == python[module], name


PACKAGES = {
    "pkg2/__init__.py": (
        "from .inner import x\nfrom .deep.er import *\nfrom . import other\nimport pkg2.plain\n"
    ),
    "pkg2/plain.py": "",
    "pkg2/inner.py": "x = 1\n",
    "pkg2/other.py": "",
    "pkg2/deep/__init__.py": "",
    "pkg2/deep/er.py": "y = 2\n",
    "pkg3/__init__.py": "def inner(): ...\nfrom .inner import x\n__all__ = [n for n in dir()]\n",
    "pkg3/inner.py": "x = 1\n",
}


def test_a_package_binds_the_submodules_it_imports(tmp_path: Path) -> None:
    """``from .inner import x`` in a package makes ``inner`` its attribute: a star takes it."""
    for path, text in PACKAGES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    python = python_exports(tmp_path, ["pkg2", "pkg3"])
    emap = tree_map(PACKAGES)

    assert python["pkg2"] == {"x", "inner", "deep", "y", "other", "plain", "pkg2"}
    assert emap.exported_names("pkg2") == python["pkg2"]
    assert python["pkg3"] <= (emap.exported_names("pkg3") or set())
    assert emap.canonical("pkg3.inner") == "pkg3.inner"  # the module, set after the def


# ------------------------------------------------------------------------------ generated

NAMES = st.sampled_from(["a", "b", "c", "_p", "os"])
LISTS = st.lists(NAMES, max_size=3).map(repr)
STATEMENTS = st.one_of(
    LISTS.map("__all__ = {}".format),
    LISTS.map("__all__ += {}".format),
    LISTS.map("__all__.extend({})".format),
    NAMES.map("__all__.append({!r})".format),
    NAMES.map("__all__.insert(0, {!r})".format),
    LISTS.map("__all__[:] = {}".format),
    LISTS.map("__all__[:0] = {}".format),
    LISTS.map("__all__ = __all__ + {}".format),
    LISTS.map("__all__ = list({})".format),
    st.just("del __all__"),
    st.just("__all__.sort()"),
    LISTS.map("__all__ = [n for n in dir() if n in {}]".format),
)
FLAGS = st.sampled_from(["True", "False", "len(__name__) > 3"])


@st.composite
def blocks(draw: st.DrawFn) -> tuple[str, bool]:
    """One block of module text, and whether it runs straight through."""
    first, second = draw(STATEMENTS), draw(STATEMENTS)
    shape = draw(st.integers(0, 6))
    if shape == 0:
        return first + "\n", "dir()" not in first
    if shape == 1:
        return f"if {draw(FLAGS)}:\n    {first}\nelse:\n    {second}\n", False
    if shape == 2:
        return f"if {draw(FLAGS)}:\n    {first}\n", False
    if shape == 3:
        return f"for _i in range({draw(st.integers(0, 2))}):\n    {first}\n", False
    if shape == 4:
        return f"try:\n    {first}\n    {second}\nexcept Exception:\n    pass\n", False
    if shape == 5:
        return f"with __import__('contextlib').suppress(NameError):\n    {first}\n", False
    name = draw(NAMES.filter(lambda n: n != "os"))
    return (
        "def _export(f):\n    __all__.append(f.__name__)\n    return f\n"
        f"@_export\ndef {name}_(): ...\n",
        False,
    )


@st.composite
def modules(draw: st.DrawFn) -> tuple[str, bool]:
    parts = draw(st.lists(blocks(), min_size=1, max_size=4))
    return BASE + "".join(text for text, _ in parts), all(plain for _, plain in parts)


_UNIQUE = count()


def python_star(source: str) -> set[str] | None:
    """What Python's ``from m import *`` binds from a module of this text (``None``: it raised)."""
    name = f"_cleantree_all_oracle_{next(_UNIQUE)}"
    module = types.ModuleType(name)
    try:
        exec(compile(source, name, "exec"), module.__dict__)
        sys.modules[name] = module
        space: dict[str, object] = {}
        exec(f"from {name} import *", space)
    except Exception:  # the generated module is not one Python runs: drawn again
        return None
    finally:
        sys.modules.pop(name, None)
    return set(space) - {"__builtins__"}


def hold(doc: tuple[str, bool]) -> None:
    source, plain = doc
    python = python_star(source)
    assume(python is not None)
    assert python is not None
    ours = tree_map({"m.py": source}).exported_names("m")
    assert ours is not None
    assert python <= ours, python - ours
    if plain:
        assert ours == python


HEALTH = [HealthCheck.too_slow, HealthCheck.filter_too_much]


@settings(max_examples=60, deadline=None, suppress_health_check=HEALTH)
@given(doc=modules())
def test_generated_modules_bind_at_least_what_python_binds(doc: tuple[str, bool]) -> None:
    hold(doc)


@pytest.mark.slow
@settings(max_examples=600, deadline=None, suppress_health_check=HEALTH)
@given(doc=modules())
def test_generated_modules_bind_at_least_what_python_binds_wide(doc: tuple[str, bool]) -> None:
    hold(doc)
