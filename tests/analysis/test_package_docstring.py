"""The analysis package's docstring is its map: it names every module, in the order of the
package's ``layers`` contract (bottom first), so that a module added or moved cannot leave
the list stale (issue 47 found eight modules missing from it)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest_cleantree.analysis as analysis

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib  # type: ignore[import-not-found, unused-ignore]

REPO = Path(__file__).resolve().parents[2]
PACKAGE = Path(analysis.__file__).parent


def contract_layers() -> list[set[str]]:
    """The analysis package's layers, bottom first, each a set of module names."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    (ours,) = [c for c in contracts if c.get("containers") == ["pytest_cleantree.analysis"]]
    return [{name.strip() for name in layer.split("|")} for layer in reversed(ours["layers"])]


def docstring_order() -> list[str]:
    """The modules the docstring names, each at its first mention."""
    assert analysis.__doc__ is not None
    return list(dict.fromkeys(re.findall(r":mod:`\.(\w+)`", analysis.__doc__)))


def test_the_docstring_names_every_module() -> None:
    modules = {path.stem for path in PACKAGE.glob("*.py")} - {"__init__"}
    assert len(modules) > 20  # the glob found the package
    assert sorted(modules - set(docstring_order())) == []
    assert sorted(set(docstring_order()) - modules) == []


def test_the_docstring_lists_the_layers_bottom_first() -> None:
    layer_of = {name: n for n, layer in enumerate(contract_layers()) for name in layer}
    order = [layer_of[name] for name in docstring_order()]
    assert order == sorted(order), docstring_order()
