"""One module naming for the whole tree (issue 48): a file's module is what Python imports it
as, from the tree and its packaging metadata, whatever files a rule checks.

The real ``cleantree`` command in a subprocess; each tree holds one use of the forbidden
name that only the right module naming finds.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.frontends.cli.test_cli_resolution import write

DEF = "def name():\n    return 1\n"


def check(root: Path, manifest: str) -> tuple[int, set[str], str]:
    """Exit code, the ``path:line`` of each reported row, stderr."""
    (root / "cleantree.toml").write_text(manifest)
    done = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", "check"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in done.stderr
    rows = {
        line.split()[0].rsplit(":", 1)[0]
        for line in done.stdout.splitlines()
        if line and not line.startswith((" ", "cleantree")) and ":" in line.split()[0]
    }
    return done.returncode, rows, done.stderr


def explain(root: Path, name: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", "explain", name],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in done.stderr
    return done


def rule(files: str, pattern: str = "pkg.mod.name", head: str = "") -> str:
    return f'{head}[[rule]]\nid = "r"\nfiles = ["{files}"]\nforbid = ["{pattern}"]\n'


def test_a_rule_on_tests_follows_an_import_into_a_src_layout(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "src/pkg/__init__.py": "from .mod import name as renamed\n",
            "src/pkg/mod.py": DEF,
            "tests/test_it.py": "from pkg import renamed\n\nrenamed()\n",
        },
    )

    code, rows, err = check(tmp_path, rule("tests/*.py"))
    explained = explain(tmp_path, "pkg.mod.name")

    assert (code, err) == (1, "")
    assert rows == {"tests/test_it.py:1", "tests/test_it.py:3"}
    # the definition is in the tree, though no rule checks src/
    assert explained.stdout.splitlines()[0] == (
        "pkg.mod.name -> pkg.mod.name  defined at src/pkg/mod.py:1"
    )


def test_a_folder_without_init_inside_a_package_is_named_inside_it(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "python/pkg/__init__.py": "",
            "python/pkg/srt/__init__.py": "",
            "python/pkg/srt/utils/__init__.py": "",
            "python/pkg/srt/utils/mod.py": "def f():\n    return 1\n",
            # layers/ has no __init__.py: a namespace package inside pkg.srt
            "python/pkg/srt/layers/x.py": "from ..utils.mod import f as _alias\n\n_alias()\n",
        },
    )

    code, rows, err = check(tmp_path, rule("python/pkg/srt/layers/*.py", "pkg.srt.utils.mod.f"))

    assert (code, err) == (1, "")
    assert rows == {"python/pkg/srt/layers/x.py:1", "python/pkg/srt/layers/x.py:3"}


def test_a_package_wins_over_a_module_of_the_same_name(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/mod.py": "",  # shadowed: Python imports pkg/mod/__init__.py as pkg.mod
            "pkg/mod/__init__.py": "from .impl import name\n",
            "pkg/mod/impl.py": DEF,
            "use.py": "from pkg.mod import name\n\nname()\n",
        },
    )

    code, rows, err = check(tmp_path, rule("use.py", "pkg.mod.impl.name"))

    assert (code, err) == (1, "")
    assert rows == {"use.py:1", "use.py:3"}


def test_an_import_root_s_files_are_found_under_their_path_from_the_root_too(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        {
            "src/pkg/__init__.py": "",
            "src/pkg/mod.py": DEF,
            "tools/use.py": "from src.pkg.mod import name\n\nname()\n",
        },
    )

    code, rows, err = check(tmp_path, rule("tools/*.py", head='import_roots = ["src"]\n'))

    assert (code, err) == (1, "")
    assert rows == {"tools/use.py:1", "tools/use.py:3"}


def test_package_dir_in_pyproject_names_the_package(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            "pyproject.toml": '[tool.setuptools]\npackage-dir = {"pkg" = "lib/code"}\n',
            "lib/code/__init__.py": "from .mod import name as renamed\n",
            "lib/code/mod.py": DEF,
            "use.py": "import pkg\n\npkg.renamed()\n",
        },
    )

    code, rows, err = check(tmp_path, rule("use.py"))

    assert (code, err) == (1, "")
    assert rows == {"use.py:3"}


def test_a_dot_folder_named_in_import_roots_is_entered(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            ".vendor/pkg/__init__.py": "",
            ".vendor/pkg/mod.py": DEF,
            ".vendor/pkg/again.py": "from .mod import name as renamed\n",
            "use.py": "from pkg.again import renamed\n\nrenamed()\n",
        },
    )

    code, rows, err = check(tmp_path, rule("use.py", head='import_roots = [".vendor"]\n'))

    assert (code, err) == (1, "")
    assert rows == {"use.py:1", "use.py:3"}


@pytest.mark.parametrize("files", ["tests/*.py", "**/*.py"])
def test_explain_shows_the_module_a_file_is(tmp_path: Path, files: str) -> None:
    write(tmp_path, {"src/pkg/__init__.py": "", "src/pkg/mod.py": DEF, "tests/t.py": ""})
    (tmp_path / "cleantree.toml").write_text(rule(files))

    done = explain(tmp_path, "pkg.mod.name")

    assert (done.returncode, done.stderr) == (0, "")
    assert (
        done.stdout.splitlines()[0] == "pkg.mod.name -> pkg.mod.name  defined at src/pkg/mod.py:1"
    )
    assert done.stdout.splitlines()[-1] == "  module pkg.mod is src/pkg/mod.py (also src.pkg.mod)"
