"""The ready-made integrations, run the way users run them: the pre-launch wrapper, the
pre-commit hook definition, the GitHub workflow's commands, and the machine formats."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import venv
from pathlib import Path

import pytest
import yaml
from actionsteps import action_use, run_action_check

REPO = Path(__file__).resolve().parents[2]
WRAPPER = REPO / "pytest_cleantree" / "examples" / "prelaunch" / "launch_server.sh"
PARTIAL = "partial-revert/python/sglang"
REVERTED = "reverted/python/sglang"


def with_root(example_tree: Path, root: str) -> Path:
    """A copy of the example's manifest pointing at ``root``."""
    manifest = example_tree / f"cleantree-{root.split('/')[0]}.toml"
    text = (example_tree / "cleantree.toml").read_text()
    manifest.write_text(text.replace(f'root = "{PARTIAL}"', f'root = "{root}"'))
    return manifest


@pytest.fixture
def fake_sglang(tmp_path: Path) -> Path:
    """A stand-in ``sglang.launch_server`` that records that it was launched, and with what."""
    package = tmp_path / "stand-in" / "sglang"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "launch_server.py").write_text(
        "import sys\nprint('LAUNCHED', ' '.join(sys.argv[1:]))\n"
    )
    return package.parent


def launch(manifest: Path, fake_sglang: Path) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "CLEANTREE_MANIFEST": str(manifest),
        "PYTHON": sys.executable,
        "PYTHONPATH": str(fake_sglang),
    }
    return subprocess.run(
        ["sh", str(WRAPPER), "--model-path", "m", "--tp", "8"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_wrapper_refuses_to_launch_on_a_dirty_tree(example_tree: Path, fake_sglang: Path) -> None:
    completed = launch(with_root(example_tree, PARTIAL), fake_sglang)
    assert completed.returncode == 1
    assert "LAUNCHED" not in completed.stdout
    assert "partial-revert/python/sglang/srt/server_args.py:46:36" in completed.stdout
    assert f"not launching {sys.executable}: the tree is not clean" in completed.stderr


def test_wrapper_refuses_to_launch_when_the_check_cannot_run(
    example_tree: Path, fake_sglang: Path
) -> None:
    completed = launch(with_root(example_tree, "no/such/folder"), fake_sglang)
    assert completed.returncode == 2
    assert "LAUNCHED" not in completed.stdout


def test_wrapper_launches_on_a_clean_tree_with_the_arguments(
    example_tree: Path, fake_sglang: Path
) -> None:
    completed = launch(with_root(example_tree, REVERTED), fake_sglang)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines() == [
        "cleantree: clean (3 rules, 3 files)",
        "LAUNCHED --model-path m --tp 8",
    ]


def test_wrapper_with_a_module_root_checks_the_package_that_would_be_imported(
    example_tree: Path, fake_sglang: Path
) -> None:
    (fake_sglang / "sglang" / "srt").mkdir()
    (fake_sglang / "sglang" / "srt" / "server_args.py").write_text(
        "if is_sm100_supported() or is_sm120_supported():\n    pass\n"
    )
    manifest = example_tree / "module.toml"
    manifest.write_text(
        'root = "module:sglang"\n[[rule]]\nfiles = ["srt/server_args.py"]\nforbid = ["sm120"]\n'
    )
    completed = launch(manifest, fake_sglang)
    assert completed.returncode == 1
    assert re.search(r"^/\S+/sglang/srt/server_args.py:1:28 +condition", completed.stdout, re.M)


def run_wrapper(
    args: list[str], cwd: Path, fake_sglang: Path, manifest: Path | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHON": sys.executable, "PYTHONPATH": str(fake_sglang)}
    env.pop("CLEANTREE_MANIFEST", None)
    if manifest is not None:
        env["CLEANTREE_MANIFEST"] = str(manifest)
    return subprocess.run(
        ["sh", str(WRAPPER), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("root", [REVERTED, PARTIAL])
def test_wrapper_runs_any_server_command_given_after_the_separator(
    example_tree: Path, fake_sglang: Path, tmp_path: Path, root: str
) -> None:
    """``-- CMD ARGS`` launches CMD (here a stand-in vLLM) only on a clean tree, with its
    arguments untouched; the SGLang launcher is not run."""
    server = tmp_path / "vllm"
    server.write_text('#!/bin/sh\necho "VLLM $*"\n')
    server.chmod(0o755)
    manifest = with_root(example_tree, root)
    completed = run_wrapper(
        ["--", str(server), "serve", "m", "--tensor-parallel-size", "8"],
        example_tree,
        fake_sglang,
        manifest,
    )
    assert "LAUNCHED" not in completed.stdout
    if root == REVERTED:
        assert completed.returncode == 0, completed.stderr
        assert completed.stdout.splitlines()[-1] == "VLLM serve m --tensor-parallel-size 8"
    else:
        assert completed.returncode == 1
        assert "VLLM" not in completed.stdout
        assert f"not launching {server}: the tree is not clean" in completed.stderr


def test_wrapper_with_nothing_after_the_separator_is_an_error(
    example_tree: Path, fake_sglang: Path
) -> None:
    completed = run_wrapper(["--"], example_tree, fake_sglang)
    assert completed.returncode == 2
    assert completed.stderr.splitlines() == [
        "launch_server.sh: nothing to launch: give the server command after --"
    ]


def test_wrapper_finds_the_manifest_from_a_subfolder_as_check_does(
    example_tree: Path, fake_sglang: Path
) -> None:
    """Without CLEANTREE_MANIFEST the manifest is discovered (this folder or a parent), so the
    wrapper run from inside the tree checks it rather than failing to read ``cleantree.toml``."""
    inside = example_tree / PARTIAL / "srt"
    completed = run_wrapper(["--tp", "8"], inside, fake_sglang)
    assert completed.returncode == 1, completed.stderr
    assert "cannot read the manifest" not in completed.stderr
    assert "server_args.py:46:36" in completed.stdout
    assert "LAUNCHED" not in completed.stdout


def hook() -> dict[str, object]:
    hooks = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    (definition,) = (h for h in hooks if h["id"] == "cleantree")
    assert definition["language"] == "python"
    assert definition["pass_filenames"] is True
    return dict(definition)


@pytest.mark.parametrize(("root", "code"), [(PARTIAL, 1), (REVERTED, 0)])
def test_pre_commit_hook_runs_the_check(example_tree: Path, root: str, code: int) -> None:
    """pre-commit runs ``entry`` in the repository root, with the hook's args, no file names."""
    with_root(example_tree, root).replace(example_tree / "cleantree.toml")
    entry = shlex.split(str(hook()["entry"]))
    assert entry[0] == "cleantree"
    executable = Path(sys.executable).parent / "cleantree"
    completed = subprocess.run(
        [str(executable), *entry[1:]],
        capture_output=True,
        text=True,
        cwd=example_tree,
        timeout=120,
        check=False,
    )
    assert completed.returncode == code, completed.stderr


def workflow_check_step() -> dict[str, object]:
    """The workflow's check: the step that uses this repository's action."""
    workflow = yaml.safe_load(
        (REPO / "pytest_cleantree" / "examples" / "ci" / "cleantree.yml").read_text()
    )
    return action_use(workflow["jobs"]["cleantree"]["steps"])


def test_github_workflow_annotates_the_remaining_lines(example_tree: Path) -> None:
    """The workflow's own check step, run in a checkout whose root holds the manifest."""
    completed = run_action_check(workflow_check_step(), example_tree)
    assert completed.returncode == 1
    errors = [line for line in completed.stdout.splitlines() if line.startswith("::error ")]
    places = {re.search(r"file=([^,]+),line=(\d+)", e).groups() for e in errors}  # type: ignore[union-attr]
    # the same run wrote the SARIF file the upload step sends to code scanning
    document = json.loads((example_tree / "cleantree.sarif").read_text())
    assert len(document["runs"][0]["results"]) == 5
    assert places == {
        (f"{PARTIAL}/srt/layers/communicator.py", "15"),
        (f"{PARTIAL}/srt/layers/communicator.py", "24"),
        (f"{PARTIAL}/srt/layers/communicator.py", "53"),
        (f"{PARTIAL}/srt/server_args.py", "17"),
        (f"{PARTIAL}/srt/server_args.py", "46"),
    }
    for path, line in places:
        text = (example_tree / path).read_text().splitlines()[int(line) - 1]
        assert "sm120" in text


@pytest.mark.slow
def test_pytest_annotates_on_github_actions(example_tree: Path) -> None:
    env = {**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(example_tree)}
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "--cleantree", "cleantree.toml", "-p", "no:cacheprovider"],
        capture_output=True,
        text=True,
        cwd=example_tree,
        env=env,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 1
    errors = [line for line in completed.stdout.splitlines() if line.startswith("::error ")]
    assert len(errors) == 5
    assert f"file={PARTIAL}/srt/server_args.py,line=46," in "\n".join(errors)
    quiet = subprocess.run(
        [sys.executable, "-m", "pytest", "--cleantree", "cleantree.toml", "-p", "no:cacheprovider"],
        capture_output=True,
        text=True,
        cwd=example_tree,
        env={k: v for k, v in env.items() if k != "GITHUB_ACTIONS"},
        timeout=120,
        check=False,
    )
    assert "::error" not in quiet.stdout


@pytest.mark.parametrize(
    ("root", "fmt", "code"),
    [
        (PARTIAL, "json", 1),
        (REVERTED, "json", 0),
        ("missing/root", "json", 2),
        (PARTIAL, "sarif", 1),
        (REVERTED, "github", 0),
    ],
)
def test_exit_codes_do_not_depend_on_the_format(
    example_tree: Path, root: str, fmt: str, code: int
) -> None:
    manifest = with_root(example_tree, root)
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest_cleantree",
            "check",
            "--manifest",
            str(manifest),
            "--format",
            fmt,
        ],
        capture_output=True,
        text=True,
        cwd=example_tree,
        timeout=120,
        check=False,
    )
    assert completed.returncode == code, completed.stderr
    assert "Traceback" not in completed.stderr


@pytest.mark.parametrize("interpreter", ["venv", "missing"])
def test_wrapper_says_pytest_cleantree_is_not_installed_before_checking(
    example_tree: Path, fake_sglang: Path, tmp_path: Path, interpreter: str
) -> None:
    """A Python without pytest-cleantree (or no such Python) is exit 3 and said so, never
    "the tree is not clean", and the check is not attempted."""
    if interpreter == "venv":
        venv.create(tmp_path / "bare")  # no pytest-cleantree, and no PYTHONPATH to one
        python = str(tmp_path / "bare" / "bin" / "python")
    else:
        python = str(tmp_path / "no-such-python")
    env = {
        **os.environ,
        "CLEANTREE_MANIFEST": str(with_root(example_tree, PARTIAL)),
        "PYTHON": python,
        "PYTHONPATH": str(fake_sglang),
    }
    completed = subprocess.run(
        ["sh", str(WRAPPER), "--tp", "8"],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # not this checkout: `python -c` would import its package from there
        env=env,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 3, completed.stderr
    assert "LAUNCHED" not in completed.stdout
    assert completed.stdout == ""  # no check ran: nothing reported
    (message,) = completed.stderr.splitlines()
    assert message.startswith(
        f"launch_server.sh: not launching {python}: pytest-cleantree is not installed for {python}"
    )
    assert "not clean" not in message
    if interpreter == "venv":
        assert message.endswith("No module named 'pytest_cleantree'")
