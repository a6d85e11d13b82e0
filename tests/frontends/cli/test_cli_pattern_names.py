"""A qualified pattern must name something (issue 48): a module part that names no module
of the tree (or of an installed package) is an error, never a quiet "clean".

The real ``cleantree`` command in a subprocess, on the SGLang shape.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.frontends.cli.test_cli_resolution import write

TREE = {
    "python/sglang/__init__.py": "",
    "python/sglang/srt/__init__.py": "",
    "python/sglang/srt/utils/__init__.py": "",
    "python/sglang/srt/utils/common.py": "def is_sm120_supported():\n    return 1\n",
    "python/sglang/srt/layers/use.py": "import os\n\nprint(os.sep)\n",
}
RULE = '[[rule]]\nid = "r"\nfiles = ["python/**/*.py"]\nforbid = ["{pattern}"]\n{extra}'
TYPO = "sglang.srt.util.common.is_sm120_supported"


def run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in done.stderr
    return done


def tree(root: Path, pattern: str, extra: str = "") -> None:
    write(root, TREE)
    (root / "cleantree.toml").write_text(RULE.format(pattern=pattern, extra=extra))


def test_a_module_part_that_names_no_module_of_the_tree_is_an_error(tmp_path: Path) -> None:
    tree(tmp_path, TYPO)

    done = run(tmp_path, "check")

    assert done.returncode == 2
    shown = done.stdout + done.stderr
    assert "r" in shown.split()  # the rule
    assert (
        f"forbid: '{TYPO}' names no module: there is no module sglang.srt.util in the tree "
        "(did you mean sglang.srt.utils.common, sglang.srt.utils?); set missing_ok = true to allow"
    ) in shown


def test_explain_names_the_missing_module_and_exits_2(tmp_path: Path) -> None:
    tree(tmp_path, TYPO)

    done = run(tmp_path, "explain", TYPO)

    assert done.returncode == 2
    assert "there is no module sglang.srt.util in the tree" in done.stdout


def test_missing_ok_keeps_a_pattern_written_before_its_module_exists(tmp_path: Path) -> None:
    tree(tmp_path, TYPO, "missing_ok = true\n")

    done = run(tmp_path, "check")

    assert (done.returncode, done.stderr) == (0, "")


@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param("sglang.srt.utils.common.gone", id="a-removed-function"),
        pytest.param("sglang.srt.utils.gone", id="a-removed-name-of-a-package"),
        pytest.param("sglang.srt.utils.common.Gone.method", id="a-removed-class-of-a-module"),
        pytest.param("os.path.joinn", id="an-installed-module-not-a-package"),
    ],
)
def test_a_removed_name_in_a_module_that_exists_is_no_error(tmp_path: Path, pattern: str) -> None:
    tree(tmp_path, pattern)

    done = run(tmp_path, "check")

    assert (done.returncode, done.stderr) == (0, "")


def test_an_installed_package_s_missing_module_is_an_error(tmp_path: Path) -> None:
    tree(tmp_path, "xml.etre.ElementTree.parse")

    done = run(tmp_path, "check")

    assert done.returncode == 2
    assert "there is no module xml.etre in the environment (did you mean xml.etree?)" in (
        done.stdout + done.stderr
    )


def test_a_package_neither_in_the_tree_nor_installed_is_matched_as_spelt(tmp_path: Path) -> None:
    pattern = "cleantree_no_such_gpu_lib.ops.kernel.launch"
    tree(tmp_path, pattern)
    (tmp_path / "python/sglang/srt/layers/gpu.py").write_text(
        "import cleantree_no_such_gpu_lib.ops.kernel\n\n"
        "cleantree_no_such_gpu_lib.ops.kernel.launch()\n"
    )

    done = run(tmp_path, "check")
    explained = run(tmp_path, "explain", pattern)

    assert done.returncode == 1
    assert "python/sglang/srt/layers/gpu.py:3" in done.stdout
    assert explained.returncode == 1
    assert explained.stdout.splitlines()[-1] == (
        "  cleantree_no_such_gpu_lib is neither in the tree nor installed: "
        f"{pattern} is matched as spelt"
    )
