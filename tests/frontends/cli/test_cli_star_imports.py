"""A name bound by ``from pkg import *`` in a checked file is ``pkg.name`` (issue 12, cause 7).

The real ``cleantree`` command in a subprocess, on a tree shaped like SGLang's.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cli_resolution import check

PATTERN = "sglang.srt.utils.common.is_sm120_supported"
MANIFEST = f'[[rule]]\nid = "r"\nfiles = ["python/**/*.py"]\nforbid = ["{PATTERN}"]\n'

COMMON = "def is_sm120_supported():\n    return False\n"
USE = """\
from sglang.srt.utils import *
from elsewhere import *


def run():
    return is_sm120_supported()


def shadowed(is_sm120_supported):
    return is_sm120_supported
"""
TREE = {
    "python/sglang/__init__.py": "",
    "python/sglang/srt/__init__.py": "",
    "python/sglang/srt/utils/common.py": COMMON,
    "python/sglang/srt/layers/__init__.py": "",
    "python/sglang/srt/layers/use.py": USE,
}


@pytest.mark.parametrize(
    "init",
    [
        pytest.param("from .common import *\n", id="star-re-export"),
        pytest.param("from .common import is_sm120_supported\n", id="named-re-export"),
        pytest.param(
            "from .common import *\n__all__ = ['is_sm120_supported']\n", id="all-re-export"
        ),
    ],
)
def test_a_call_through_a_star_import_of_the_package_is_reported(tmp_path: Path, init: str) -> None:
    for name, text in {**TREE, "python/sglang/srt/utils/__init__.py": init}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "cleantree.toml").write_text(MANIFEST)

    code, rows, err = check(tmp_path)

    assert (code, err) == (1, "")
    # a star import is a route, not a use (issue 22): only a named re-export line is reported
    named = {"python/sglang/srt/utils/__init__.py:1"} if "import *" not in init else set()
    assert rows == {
        "python/sglang/srt/utils/common.py:1",
        *named,
        "python/sglang/srt/layers/use.py:6",
    }


def test_a_star_import_that_does_not_export_the_name_binds_nothing(tmp_path: Path) -> None:
    """``__all__`` leaves the name out: the package's star import does not bind it."""
    init = "from .common import *\nfrom .common import is_sm120_supported as _s\n__all__ = []\n"
    for name, text in {**TREE, "python/sglang/srt/utils/__init__.py": init}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "cleantree.toml").write_text(MANIFEST)

    code, rows, err = check(tmp_path)

    assert (code, err) == (1, "")
    assert "python/sglang/srt/layers/use.py:6" not in rows


@pytest.mark.parametrize(
    "init",
    [
        pytest.param(
            "import sys\nif sys.maxsize > 1:\n    __all__ = ['is_sm120_supported']\n"
            "else:\n    __all__ = []\n",
            id="both-branches",
        ),
        pytest.param("__all__ = []\n__all__[:] = ['is_sm120_supported']\n", id="whole-slice"),
        pytest.param("__all__ = []\ndel __all__\n", id="deleted"),
        pytest.param(
            "__all__ = []\n\n\ndef _export(name):\n    __all__.append(name)\n\n\n"
            "_export('is_sm120_supported')\n",
            id="filled-by-a-function",
        ),
        pytest.param("__all__ = [n for n in dir() if not n.startswith('_')]\n", id="computed"),
    ],
)
def test_an_all_python_computes_larger_than_a_literal_keeps_the_star_import(
    tmp_path: Path, init: str
) -> None:
    """Each ``__all__`` form exports the name when Python runs it: the use is found (issue 48)."""
    init = "from .common import *\n" + init
    for name, text in {**TREE, "python/sglang/srt/utils/__init__.py": init}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "cleantree.toml").write_text(MANIFEST)

    code, rows, err = check(tmp_path)

    assert (code, err) == (1, "")
    assert rows == {"python/sglang/srt/utils/common.py:1", "python/sglang/srt/layers/use.py:6"}


def test_a_star_import_of_a_package_binds_the_submodules_it_loads(tmp_path: Path) -> None:
    """``from .common import *`` in ``utils`` sets ``utils.common``: a star import of
    ``utils`` binds ``common`` too, and ``common.is_sm120_supported()`` is a use (issue 48)."""
    use = "from sglang.srt.utils import *\n\n\ndef run():\n    return common.is_sm120_supported()\n"
    files = {
        **TREE,
        "python/sglang/srt/utils/__init__.py": "from .common import *\n",
        "python/sglang/srt/layers/use.py": use,
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "cleantree.toml").write_text(MANIFEST)

    code, rows, err = check(tmp_path)

    assert (code, err) == (1, "")
    assert rows == {"python/sglang/srt/utils/common.py:1", "python/sglang/srt/layers/use.py:5"}
