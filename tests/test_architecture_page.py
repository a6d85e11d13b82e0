"""`docs/architecture.md` is true where a test can tell: every path it names exists, the formats
it lists are the registry's, every registry format is documented in `docs/cli.md`, and every
module of the package is under the 500 lines the page promises."""

from __future__ import annotations

import re
from pathlib import Path

from pytest_cleantree.report.registry import FORMAT_NAMES

REPO = Path(__file__).resolve().parents[1]
PAGE = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
#: a path in backticks: `names/modules_to_read.py`, `agent/`, `tests/report`, `.ci/run` (no spaces)
PATH = re.compile(r"`(\.?[\w.-]+(?:/[\w.-]+)*(?:/|\.py|\.md|\.toml|\.json|\.yml))`")


def named_paths(text: str) -> set[str]:
    """The paths the page names in backticks (a dotted module name is not one)."""
    found = set(PATH.findall(text))
    return {p for p in found if "/" in p or p.endswith((".py", ".md", ".toml", ".json", ".yml"))}


def exists(path: str) -> bool:
    """Does ``path`` name a file or folder: of the repository, the package, or the tests?"""
    package = REPO / "pytest_cleantree"
    bases = (REPO, package, REPO / "tests", package / "sources" / "ssh")  # ssh/: its own section
    return any((base / path).exists() for base in bases)


def test_every_path_the_page_names_exists() -> None:
    paths = named_paths(PAGE)
    assert len(paths) > 30  # the page names its modules: an empty match is a broken pattern
    assert sorted(p for p in paths if not exists(p)) == []


def test_a_path_that_does_not_exist_is_caught() -> None:
    assert named_paths("see `names/nowhere.py` and `agent/wire.py`") == {
        "names/nowhere.py",
        "agent/wire.py",
    }
    assert not exists("names/nowhere.py")
    assert exists("agent/wire.py")


def test_the_formats_the_layer_picture_lists_are_the_registry() -> None:
    listed = re.search(r"registry of formats \(([^)]*)\)", PAGE)
    assert listed is not None, "the layer picture no longer lists the formats"
    assert [name.strip() for name in listed.group(1).split(",")] == list(FORMAT_NAMES)


def test_every_registered_format_is_documented_in_the_cli_page() -> None:
    cli = (REPO / "docs" / "cli.md").read_text(encoding="utf-8")
    assert [name for name in FORMAT_NAMES if f"`--format {name}`" not in cli] == []


def test_every_module_of_the_package_is_under_500_lines() -> None:
    package = REPO / "pytest_cleantree"
    modules = [p for p in package.rglob("*.py") if "examples" not in p.relative_to(package).parts]
    long = {
        str(p.relative_to(REPO)): n
        for p in modules
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500
    }
    assert long == {}
