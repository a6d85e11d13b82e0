"""The export map: each re-export form, followed to the defining ``module.name``."""

from __future__ import annotations

import textwrap

import pytest

from pytest_cleantree.config.layout import parse_layout
from pytest_cleantree.names.exports import (
    Spelling,
    parse_module_exports,
)
from pytest_cleantree.names.spellings import modules_to_read, next_reads
from pytest_cleantree.names.symbol_graph import ExportMap, build_export_map


def tree_map(files: dict[str, str], **options: object) -> ExportMap:
    """An export map of a small tree given as path -> text, named by its layout."""
    layout = parse_layout(files)
    modules: dict[str, str] = {}
    packages: dict[str, bool] = {}
    for path, text in files.items():
        name = layout.module_name(path)
        assert name is not None, path
        modules[name] = textwrap.dedent(text)
        packages[name] = layout.is_package(path)
    return build_export_map(modules, packages, **options)  # type: ignore[arg-type]


SGLANG = {
    "sglang/__init__.py": "",
    "sglang/srt/__init__.py": "",
    "sglang/srt/utils/__init__.py": """
        from .common import *
        from .common_utils import (
            fast_copy,
            pin_memory as pin,
        )
        from sglang.srt.utils import hf as hf_utils
        """,
    "sglang/srt/utils/common.py": """
        import torch
        from functools import lru_cache
        _private = 1
        def is_sm120_supported(): ...
        class Arch: ...
        TUNED = {"a": 1}
        X: int = 1
        Y: int
        first, (second, *rest) = 1, (2, 3)
        """,
    "sglang/srt/utils/common_utils.py": """
        def fast_copy(): ...
        def pin_memory(): ...
        """,
    "sglang/srt/utils/hf.py": "def get_config(): ...\n",
    "sglang/srt/layers/__init__.py": """
        from sglang.srt.layers.quant import *
        from .kernel import qmm as quantized_matmul
        """,
    "sglang/srt/layers/quant/__init__.py": """
        __all__ = ["fp8_gemm", "scaled"]
        __all__ += ["int4"]
        __all__.extend(["w8a8"])
        __all__.append("kernel_mod")
        from .fp8 import fp8_gemm, scaled, hidden, int4, w8a8
        from . import kernel as kernel_mod
        """,
    "sglang/srt/layers/quant/fp8.py": """
        def fp8_gemm(): ...
        def scaled(): ...
        def hidden(): ...
        def int4(): ...
        def w8a8(): ...
        """,
    "sglang/srt/layers/quant/kernel.py": "def launch(): ...\n",
    "sglang/srt/layers/kernel.py": "def qmm(): ...\n",
}


@pytest.mark.parametrize(
    ("spelling", "canonical"),
    [
        # star without __all__: public top-level definitions of every kind
        ("sglang.srt.utils.is_sm120_supported", "sglang.srt.utils.common.is_sm120_supported"),
        ("sglang.srt.utils.Arch", "sglang.srt.utils.common.Arch"),
        ("sglang.srt.utils.TUNED", "sglang.srt.utils.common.TUNED"),
        ("sglang.srt.utils.X", "sglang.srt.utils.common.X"),
        ("sglang.srt.utils.Y", "sglang.srt.utils.common.Y"),
        ("sglang.srt.utils.second", "sglang.srt.utils.common.second"),
        ("sglang.srt.utils.rest", "sglang.srt.utils.common.rest"),
        # ... and names imported into the star's source (mypy's rule), modules included
        ("sglang.srt.utils.lru_cache", "functools.lru_cache"),
        ("sglang.srt.utils.torch.cuda", "torch.cuda"),
        # private names are not exported by a star: the spelling stays as written
        ("sglang.srt.utils._private", "sglang.srt.utils._private"),
        # explicit, parenthesised and renamed
        ("sglang.srt.utils.fast_copy", "sglang.srt.utils.common_utils.fast_copy"),
        ("sglang.srt.utils.pin", "sglang.srt.utils.common_utils.pin_memory"),
        ("sglang.srt.layers.quantized_matmul", "sglang.srt.layers.kernel.qmm"),
        # a module alias, then an attribute of it
        ("sglang.srt.utils.hf_utils.get_config", "sglang.srt.utils.hf.get_config"),
        # the defining spelling is its own canonical; attributes past a definition stay
        ("sglang.srt.utils.common.Arch.method", "sglang.srt.utils.common.Arch.method"),
        ("sglang.srt.utils.Arch.method", "sglang.srt.utils.common.Arch.method"),
        # star of a star, __all__ in its static forms (=, +=, extend, append)
        ("sglang.srt.layers.fp8_gemm", "sglang.srt.layers.quant.fp8.fp8_gemm"),
        ("sglang.srt.layers.int4", "sglang.srt.layers.quant.fp8.int4"),
        ("sglang.srt.layers.w8a8", "sglang.srt.layers.quant.fp8.w8a8"),
        ("sglang.srt.layers.kernel_mod.launch", "sglang.srt.layers.quant.kernel.launch"),
        # __all__ leaves it out: not exported by the star, though bound in quant
        ("sglang.srt.layers.hidden", "sglang.srt.layers.hidden"),
        ("sglang.srt.layers.quant.hidden", "sglang.srt.layers.quant.fp8.hidden"),
        # modules are their own canonical
        ("sglang.srt.utils", "sglang.srt.utils"),
        ("sglang.srt.layers.kernel", "sglang.srt.layers.kernel"),
        # outside the map: as written
        ("numpy.linalg.norm", "numpy.linalg.norm"),
    ],
)
def test_canonical(spelling: str, canonical: str) -> None:
    assert tree_map(SGLANG).canonical(spelling) == canonical


STDLIB_LIKE = {
    "os/__init__.py": """
        import sys
        if sys.platform == "win32":
            import ntpath as path
        else:
            import posixpath as path
        from posixpath import join as _join
        """,
    "posixpath.py": "def join(a, *p): ...\n",
    "ntpath.py": "def join(a, *p): ...\n",
}


def test_module_alias_follows_the_last_binding_and_every_binding() -> None:
    emap = tree_map(STDLIB_LIKE)
    assert emap.canonical("os.path.join") == "posixpath.join"
    assert emap.canonicals("os.path.join") == {"posixpath.join", "ntpath.join"}
    assert emap.is_module("os.path")
    assert emap.canonical("os._join") == "posixpath.join"


@pytest.mark.parametrize("levels", [2, 3, 6])
def test_chains_of_several_levels(levels: int) -> None:
    # m0 binds f0 <- m1.f ... each module re-exports the next one's name
    files = {f"m{i}.py": f"from m{i + 1} import f{i + 1} as f{i}\n" for i in range(levels)}
    files[f"m{levels}.py"] = f"def f{levels}(): ...\n"
    emap = tree_map(files)
    assert emap.canonical("m0.f0") == f"m{levels}.f{levels}"
    assert [s.spelling for s in emap.spellings(f"m{levels}.f{levels}")] == [
        f"m{i}.f{i}" for i in range(levels + 1)
    ]


@pytest.mark.parametrize(
    "files",
    [
        {"a.py": "from b import x\n", "b.py": "from a import x\n"},
        {"a.py": "from b import x\n", "b.py": "from c import x\n", "c.py": "from a import x\n"},
        {"a.py": "from a import x\n"},
    ],
)
def test_import_cycles_end_at_the_spelling(files: dict[str, str]) -> None:
    emap = tree_map(files)
    assert emap.canonical("a.x") in {f"{path[0]}.x" for path in files}
    assert emap.spellings("a.x") == emap.spellings("a.x")  # terminates


def test_star_cycle_takes_both_sides() -> None:
    emap = tree_map(
        {
            "p/__init__.py": "",
            "p/a.py": "from .b import *\ndef fa(): ...\n",
            "p/b.py": "from .a import *\ndef fb(): ...\n",
        }
    )
    assert emap.canonical("p.a.fb") == "p.b.fb"
    assert emap.canonical("p.b.fa") == "p.a.fa"
    assert emap.exported_names("p.a") == {"fa", "fb"}


#: the names every package has
DUNDERS = {
    "__name__",
    "__doc__",
    "__file__",
    "__cached__",
    "__loader__",
    "__package__",
    "__spec__",
    "__builtins__",
    "__path__",
}


@pytest.mark.parametrize(
    ("init", "exported"),
    [
        # no __all__: every public name, imported ones (os) and the submodule loaded (m) included
        ("from .m import *\n", {"f", "g", "os", "m"}),
        ("__all__ = ['f']\nfrom .m import *\n", {"f"}),
        ("__all__ = ('f',) + ('g',)\nfrom .m import *\n", {"f", "g"}),
        ("__all__ = ['f']\n__all__ += ['g']\nfrom .m import *\n", {"f", "g"}),
        ("from . import n\n__all__ = n.__all__ + ['extra']\n", {"nf", "extra"}),
        # computed __all__: not read, so every name the module holds is taken (an
        # over-approximation), the names every module has included
        (
            "__all__ = [x for x in dir() if x[0] != '_']\nfrom .m import *\n",
            {"f", "g", "os", "m", *DUNDERS},
        ),
        (
            "__all__ = [x for x in dir()]\n_p = 1\nfrom .m import *\n",
            {"_p", "f", "g", "os", "m", *DUNDERS},
        ),
        # a removal is ignored: the names stay an upper bound
        ("__all__ = ['f']\n__all__.remove('f')\nfrom .m import *\n", {"f"}),
    ],
)
def test_all_present_or_absent(init: str, exported: set[str]) -> None:
    emap = tree_map(
        {
            "p/__init__.py": init,
            "p/m.py": "import os\ndef f(): ...\ndef g(): ...\ndef _h(): ...\n",
            "p/n.py": "__all__ = ['nf']\ndef nf(): ...\ndef other(): ...\n",
        }
    )
    assert emap.exported_names("p") == exported


def test_all_is_the_star_of_the_inner_module() -> None:
    emap = tree_map(
        {
            "p/__init__.py": "from .m import *\n",
            "p/m.py": "__all__ = ['f']\ndef f(): ...\ndef g(): ...\n",
        }
    )
    assert emap.canonical("p.f") == "p.m.f"
    assert emap.canonical("p.g") == "p.g"  # not in m's __all__: the star did not bring it


def test_last_binding_wins_and_canonicals_see_every_one() -> None:
    emap = tree_map(
        {
            "p/__init__.py": """
                try:
                    from ._fast import f
                except ImportError:
                    def f(): ...
                def g(): ...
                from ._fast import g
                """,
            "p/_fast.py": "def f(): ...\ndef g(): ...\n",
        }
    )
    assert emap.canonical("p.f") == "p.f"
    assert emap.canonicals("p.f") == {"p.f", "p._fast.f"}
    assert emap.canonical("p.g") == "p._fast.g"


def test_a_binding_in_the_package_shadows_its_submodule() -> None:
    emap = tree_map(
        {
            "p/__init__.py": "from .tqdm import tqdm\n",
            "p/tqdm.py": "class tqdm: ...\n",
            "p/other.py": "def f(): ...\n",
        },
    )
    # ``from p import tqdm`` takes the attribute; a dotted name names the module where one is
    assert emap.canonical("p.tqdm", module="p") == "p.tqdm.tqdm"
    assert emap.canonical("p.tqdm") == "p.tqdm"
    assert emap.canonical("p.tqdm.tqdm") == "p.tqdm.tqdm"
    with pytest.raises(ValueError, match="does not start with the module 'q'"):
        emap.canonical("p.tqdm", module="q")
    assert emap.canonical("p.other.f") == "p.other.f"
    assert emap.is_module("p.other")


def test_unbound_attribute_is_a_submodule_only_if_one_exists() -> None:
    files = {"p/__init__.py": "", "p/sub.py": "def f(): ...\n"}
    known = tree_map(files, known_modules={"p", "p.sub", "p.gone"})
    assert known.canonical("p.sub.f") == "p.sub.f"
    assert known.missing(["p.sub.f", "p.nothing.f"]) == set()
    assert known.missing(["p.gone.f"]) == {"p.gone"}  # listed but not read yet
    unknown = tree_map(files)
    assert unknown.missing(["p.nothing.f"]) == {"p.nothing"}  # may exist: ask the layout


def test_namespace_package_attributes_are_its_submodules() -> None:
    emap = build_export_map(
        {"ns.pkg": "from .mod import f\n", "ns.pkg.mod": "def f(): ...\n"},
        {"ns.pkg": True},
        namespace_packages={"ns"},
    )
    assert emap.canonical("ns.pkg.f") == "ns.pkg.mod.f"
    assert emap.missing(["ns.pkg.f"]) == set()


def test_spellings_name_the_statement_that_makes_each() -> None:
    emap = tree_map(SGLANG)
    assert emap.spellings("sglang.srt.utils.common.is_sm120_supported") == [
        Spelling("sglang.srt.utils.common.is_sm120_supported", "sglang.srt.utils.common", 5),
        Spelling("sglang.srt.utils.is_sm120_supported", "sglang.srt.utils", 2),
    ]
    assert emap.spellings("sglang.srt.utils.common_utils.pin_memory") == [
        Spelling("sglang.srt.utils.common_utils.pin_memory", "sglang.srt.utils.common_utils", 3),
        Spelling("sglang.srt.utils.pin", "sglang.srt.utils", 5),
    ]
    assert [s.spelling for s in emap.spellings("sglang.srt.layers.quant.kernel.launch")] == [
        "sglang.srt.layers.kernel_mod.launch",
        "sglang.srt.layers.quant.kernel.launch",
        "sglang.srt.layers.quant.kernel_mod.launch",
    ]


def test_spellings_through_a_module_alias() -> None:
    emap = tree_map(STDLIB_LIKE)
    assert emap.spellings("posixpath.join") == [
        Spelling("os._join", "os", 7),
        Spelling("os.path.join", "os", 6),
        Spelling("posixpath.join", "posixpath", 1),
    ]


def test_definitions_have_their_lines() -> None:
    emap = tree_map(SGLANG)
    common = "sglang.srt.utils.common"
    assert [emap.definition(f"{common}.{name}") for name in ("TUNED", "X", "Y", "rest")] == [
        (common, 7),
        (common, 8),
        (common, 9),
        (common, 10),
    ]
    assert emap.definition("sglang.srt.utils") == ("sglang.srt.utils", 0)
    assert emap.definition("sglang.srt.utils.torch") is None  # an import, not a definition


def test_relative_import_above_the_top_binds_nothing() -> None:
    exports = parse_module_exports("a", "from .. import x\nfrom ...y import z\n", is_package=False)
    assert exports.bindings == ()


def test_rounds_of_reads_follow_the_chains() -> None:
    """A Source reads the pattern's prefixes, then one hop per round; never unrelated files."""
    files = {
        "python/sglang/__init__.py": "",
        "python/sglang/srt/__init__.py": "",
        "python/sglang/srt/utils/__init__.py": "from .common import *\nfrom .b import g\n",
        "python/sglang/srt/utils/common.py": "from .deep import *\n",
        "python/sglang/srt/utils/deep.py": "from .deeper import f\n",
        "python/sglang/srt/utils/deeper.py": "def f(): ...\n",
        "python/sglang/srt/utils/b.py": "def g(): ...\n",
        "python/sglang/srt/unrelated.py": "def f(): ...\n",
    }
    layout = parse_layout(files)
    patterns = ["sglang.srt.utils.f"]
    read: dict[str, str] = {}
    rounds = []
    wanted = modules_to_read(patterns, layout)
    while wanted:
        rounds.append(sorted(wanted))
        read.update({path: files[path] for path in wanted})
        emap = build_export_map(
            {layout.module_name(p) or "": t for p, t in read.items()},
            {layout.module_name(p) or "": layout.is_package(p) for p in read},
            known_modules=layout.modules(),
        )
        wanted = next_reads(emap, patterns, layout) - set(read)
    assert emap.canonical("sglang.srt.utils.f") == "sglang.srt.utils.deeper.f"
    assert rounds == [
        [
            "python/sglang/__init__.py",
            "python/sglang/srt/__init__.py",
            "python/sglang/srt/utils/__init__.py",
        ],
        ["python/sglang/srt/utils/common.py"],
        ["python/sglang/srt/utils/deep.py"],
        ["python/sglang/srt/utils/deeper.py"],
    ]


def test_spellings_of_modules_that_import_each_other_end_and_keep_a_name_spelt_twice() -> None:
    """astroid's shape: ``nodes/node_classes.py`` imports ``astroid.nodes``, which re-exports
    ``Const`` from it; following every spelling used to go round without end (a
    RecursionError on the real package).  ``tqdm.tqdm``'s shape (a name spelt twice,
    once as a package and once as the class it re-exports) must stay a spelling."""
    emap = tree_map(
        {
            "astroid/__init__.py": "from astroid.nodes import Const\n",
            "astroid/nodes/__init__.py": "from astroid.nodes.node_classes import Const\n",
            "astroid/nodes/node_classes.py": "from astroid import nodes\nclass Const: ...\n",
            "tqdm/__init__.py": "from tqdm.std import tqdm\n",
            "tqdm/std.py": "class tqdm: ...\n",
        }
    )
    assert [s.spelling for s in emap.spellings("astroid.nodes.node_classes.Const")] == [
        "astroid.Const",
        "astroid.nodes.Const",
        "astroid.nodes.node_classes.Const",
    ]
    assert [s.spelling for s in emap.spellings("tqdm.std.tqdm")] == ["tqdm.std.tqdm", "tqdm.tqdm"]


def test_a_binding_that_shares_its_name_with_a_sub_module_does_not_hide_it() -> None:
    """``pkg/__init__.py`` binds ``sub`` and ``pkg/sub.py`` exists: both may be ``pkg.sub``."""
    emap = build_export_map(
        {"pkg": "sub = None\n", "pkg.sub": "def f(): pass\n"},
        {"pkg": True, "pkg.sub": False},
    )
    assert "pkg.sub.f" in emap.canonicals("pkg.sub.f", module="pkg")
    assert "pkg.sub.f" in {s.spelling for s in emap.spellings("pkg.sub.f")}
