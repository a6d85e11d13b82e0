"""``cleantree explain``: where a qualified name leads, and why a line was or was not found.

The real command in a subprocess, on the SGLang shape (a star re-export in
``utils/__init__.py``, the packages under ``python/``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.frontends.cli.test_cli_resolution import RULE, SGLANG, write


def explain(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", "explain", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in done.stderr
    return done


DEFINED = "python/sglang/srt/utils/common.py:4"


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("sglang.srt.utils.is_sm120_supported", id="the-re-exported-spelling"),
        pytest.param("sglang.srt.utils.common.is_sm120_supported", id="the-defining-module"),
    ],
)
def test_either_spelling_leads_to_the_definition_and_lists_every_spelling(
    tmp_path: Path, name: str
) -> None:
    write(tmp_path, SGLANG)
    (tmp_path / "cleantree.toml").write_text(RULE.format(pattern=name))

    done = explain(tmp_path, name)

    assert (done.returncode, done.stderr) == (0, "")
    # every module that binds the name is a spelling of it (the symbol graph, issue 22):
    # the importers ``a`` and ``b`` are listed beside the definition and the re-export
    assert done.stdout.splitlines() == [
        f"{name} -> sglang.srt.utils.common.is_sm120_supported  defined at {DEFINED}",
        "  sglang.srt.layers.a.is_sm120_supported      python/sglang/srt/layers/a.py:1",
        "  sglang.srt.layers.b.sm                      python/sglang/srt/layers/b.py:1",
        f"  sglang.srt.utils.common.is_sm120_supported  {DEFINED}",
        "  sglang.srt.utils.is_sm120_supported         python/sglang/srt/utils/__init__.py:1",
        # the module as the layout names it, and its file's name from the root
        "  module sglang.srt.utils.common is python/sglang/srt/utils/common.py"
        " (also python.sglang.srt.utils.common)",
    ]


def test_root_and_manifest_flags_from_another_folder_show_clickable_paths(
    tmp_path: Path,
) -> None:
    tree = tmp_path / "tree"
    write(tree, SGLANG)
    (tmp_path / "m.toml").write_text(RULE.format(pattern="x"))

    done = explain(
        tmp_path, "sglang.srt.utils.is_sm120_supported", "--manifest", "m.toml", "--root", "tree"
    )

    assert (done.returncode, done.stderr) == (0, "")
    assert f"defined at tree/{DEFINED}" in done.stdout.splitlines()[0]


def test_an_unknown_name_exits_1_saying_how_far_it_was_followed(tmp_path: Path) -> None:
    write(tmp_path, SGLANG)
    (tmp_path / "cleantree.toml").write_text(RULE.format(pattern="x"))

    done = explain(tmp_path, "sglang.srt.utils.is_sm90_supported")

    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout.splitlines() == [
        "sglang.srt.utils.is_sm90_supported: not defined in the tree; followed as far as "
        "sglang.srt.utils.is_sm90_supported"
    ]


@pytest.mark.parametrize(
    ("manifest", "name", "says"),
    [
        pytest.param('[[rule]]\nid = "r"\nfiles = [\n', "a.b", "cleantree.toml", id="bad-toml"),
        pytest.param('[[rule]]\nid = "r"\nfile = ["x"]\n', "a.b", "file", id="unknown-key"),
        pytest.param(RULE.format(pattern="x"), "a..b", "'a..b'", id="not-a-dotted-name"),
    ],
)
def test_a_manifest_or_name_that_cannot_be_read_exits_2_naming_it(
    tmp_path: Path, manifest: str, name: str, says: str
) -> None:
    write(tmp_path, SGLANG)
    (tmp_path / "cleantree.toml").write_text(manifest)

    done = explain(tmp_path, name)

    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.startswith("cleantree: error: ")
    assert says in done.stderr


def test_a_missing_root_exits_2(tmp_path: Path) -> None:
    (tmp_path / "cleantree.toml").write_text(RULE.format(pattern="x"))

    done = explain(tmp_path, "a.b", "--root", "nowhere")

    assert (done.returncode, done.stdout) == (2, "")
    assert "--root" in done.stderr


def test_explain_needs_no_manifest_with_root(tmp_path: Path) -> None:
    """``explain --root DIR`` reads the tree alone, named as ``check`` names it."""
    write(tmp_path / "tree", SGLANG)

    done = explain(tmp_path, "--root", "tree", "sglang.srt.utils.is_sm120_supported")

    assert (done.returncode, done.stderr) == (0, "")
    assert "defined at tree/python/sglang/srt/utils/common.py:4" in done.stdout.splitlines()[0]
