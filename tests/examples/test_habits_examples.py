"""The integrations as documented: what a user copies from the README and ``examples/`` must
work as written (install pins, the pre-launch wrapper's messages, the workflow's steps)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from actionsteps import ACTION_USE, action_use, load_action, run_action_check
from needs import need_module

import pytest_cleantree
from pytest_cleantree.frontends.options import PYTEST_OPTIONS

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / "pytest_cleantree" / "examples" / "ci" / "cleantree.yml"
PIP_WORKFLOW = WORKFLOW.with_name("cleantree-pip.yml")


def workflow_steps() -> list[dict[str, str]]:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    steps: list[dict[str, str]] = workflow["jobs"]["cleantree"]["steps"]
    return steps


def test_the_workflow_uses_the_action_pinned_to_a_release() -> None:
    """The action installs the package from its own checkout: the ref it names is the version,
    this release's tag (test_pins.py holds it to the repository's tags and the tag's tree)."""
    use = action_use(workflow_steps())
    match = ACTION_USE.fullmatch(use["uses"])
    assert match is not None
    assert match["owner"] == "pytest-cleantree"
    assert match["ref"] == f"v{pytest_cleantree.__version__}", use["uses"]
    assert set(use.get("with", {})) <= set(load_action()["inputs"])


def test_the_readme_pre_commit_snippet_pins_a_release() -> None:
    readme = (REPO / "README.md").read_text()
    (snippet,) = [
        block for block in re.findall(r"```yaml\n(.*?)```", readme, re.S) if "repos:" in block
    ]
    (repo,) = yaml.safe_load(snippet)["repos"]
    assert repo["rev"] == f"v{pytest_cleantree.__version__}", repo["rev"]
    assert [hook["id"] for hook in repo["hooks"]] == ["cleantree"]


def run_wrapper(
    tmp_path: Path, manifest: str, extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "CLEANTREE_MANIFEST": manifest, "PYTHON": sys.executable}
    return subprocess.run(
        [
            "sh",
            str(REPO / "pytest_cleantree" / "examples" / "prelaunch" / "launch_server.sh"),
            "--tp",
            "8",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**env, **(extra_env or {})},
        timeout=120,
        check=False,
    )


def test_the_wrapper_says_the_check_could_not_run_when_the_manifest_is_missing(
    tmp_path: Path,
) -> None:
    completed = run_wrapper(tmp_path, "no-such.toml")
    assert completed.returncode == 2
    assert "not clean" not in completed.stderr
    assert "the check could not run" in completed.stderr
    # and why: cleantree's own error, naming the manifest, comes first
    assert "no-such.toml" in completed.stderr.splitlines()[0]


def test_the_wrapper_says_the_check_could_not_run_when_the_module_root_cannot_be_found(
    tmp_path: Path,
) -> None:
    (tmp_path / "cleantree.toml").write_text(
        'root = "module:no_such_package_here"\n[[rule]]\nfiles = ["x.py"]\nforbid = ["sm120"]\n'
    )
    completed = run_wrapper(tmp_path, "cleantree.toml")
    assert completed.returncode == 2
    assert "no_such_package_here" in completed.stderr
    assert "the check could not run" in completed.stderr
    assert "not clean" not in completed.stderr


@pytest.mark.slow
@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["serial", "xdist"])
def test_pytest_annotates_on_github_actions_with_and_without_xdist(
    example_tree: Path, workers: list[str]
) -> None:
    env = {**os.environ, "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(example_tree)}
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--cleantree",
            "cleantree.toml",
            "-p",
            "no:cacheprovider",
            *workers,
        ],
        capture_output=True,
        text=True,
        cwd=example_tree,
        env=env,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 1
    errors = [line for line in completed.stdout.splitlines() if line.startswith("::error ")]
    places = {re.search(r"file=([^,]+),line=(\d+)", e).groups() for e in errors}  # type: ignore[union-attr]
    root = "partial-revert/python/sglang"
    assert len(errors) == 5
    assert places == {
        (f"{root}/srt/layers/communicator.py", "15"),
        (f"{root}/srt/layers/communicator.py", "24"),
        (f"{root}/srt/layers/communicator.py", "53"),
        (f"{root}/srt/server_args.py", "17"),
        (f"{root}/srt/server_args.py", "46"),
    }


def git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        timeout=60,
    )


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pre-commit's own cache: the hook's environment is installed once for this module."""
    need_module("pre_commit")
    return tmp_path_factory.mktemp("pre-commit-home")


def try_repo(project: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``pre-commit try-repo <this repository> cleantree``: pre-commit clones this repository
    (with its uncommitted changes), installs the hook in a virtualenv and runs it."""
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "cleantree", *args],
        cwd=project,
        capture_output=True,
        text=True,
        env={**os.environ, "PRE_COMMIT_HOME": str(home), "PYTHONPATH": ""},
        timeout=600,
        check=False,
    )


@pytest.mark.slow
def test_pre_commit_try_repo_checks_the_staged_files(tmp_path: Path, pre_commit_home: Path) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "a.py").write_text("x = 1\n")
    (project / "src" / "b.py").write_text("y = 1\n")
    (project / "cleantree.toml").write_text(
        'root = "src"\n[[rule]]\nid = "no-sm120"\nfiles = ["*.py"]\nforbid = ["sm120"]\n'
    )
    git("init", "-q", cwd=project)
    git("add", "-A", cwd=project)
    git("commit", "-qm", "base", cwd=project)
    (project / "src" / "a.py").write_text("x = sm120\n")  # dirty, but not staged
    (project / "src" / "b.py").write_text("if True:\n    y = use_sm120()\n")
    git("add", "src/b.py", cwd=project)

    staged = try_repo(project, pre_commit_home)
    assert staged.returncode == 1, staged.stdout + staged.stderr
    assert "src/b.py:2:9  call  y = use_sm120()" in staged.stdout
    assert "a.py" not in staged.stdout.split("hook id: cleantree")[-1]

    clean = try_repo(project, pre_commit_home, "--files", "cleantree.toml", "src/a.py")
    assert clean.returncode == 1  # the manifest named: the whole tree, a.py included
    assert "src/a.py:1:5" in clean.stdout


def test_the_workflow_uses_current_actions_with_the_permissions_upload_sarif_needs() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    uses = {
        s["uses"].split("@")[0]: s["uses"].split("@")[1] for s in workflow_steps() if "uses" in s
    }
    assert uses == {
        "actions/checkout": "v5",
        "actions/setup-python": "v6",
        "pytest-cleantree/pytest-cleantree": f"v{pytest_cleantree.__version__}",
    }
    assert workflow["permissions"] == {
        "contents": "read",
        "security-events": "write",
        "actions": "read",  # upload-sarif on a private repository
    }
    # the upload is the action's own step now
    upload = next(s for s in load_action()["runs"]["steps"] if "upload-sarif" in s.get("uses", ""))
    assert upload["uses"] == "github/codeql-action/upload-sarif@v4"
    assert upload["if"].startswith("always()")


def run_check_step(checkout: Path) -> subprocess.CompletedProcess[str]:
    """The workflow's one check step (the action's, with the workflow's inputs), run in a
    checkout whose root holds the manifest."""
    return run_action_check(action_use(workflow_steps()), checkout)


def test_the_workflow_check_step_on_a_bad_manifest_annotates_and_writes_sarif(
    tmp_path: Path,
) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "cleantree.toml").write_text('root = "python/sglang"\n[[rule]]\nfiles = 3\n')
    completed = run_check_step(tmp_path)
    assert completed.returncode == 2
    assert completed.stdout.startswith("::error file=cleantree.toml,")
    document = json.loads((tmp_path / "cleantree.sarif").read_text())
    (invocation,) = document["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"]


def pip_steps() -> list[dict[str, str]]:
    steps: list[dict[str, str]] = yaml.safe_load(PIP_WORKFLOW.read_text())["jobs"]["cleantree"][
        "steps"
    ]
    return steps


def test_the_pip_workflow_installs_this_release_and_uploads_what_the_check_wrote() -> None:
    """The plain-pip route: the same permissions and actions as the action's workflow, this
    release pinned, and an upload that runs also when the check failed."""
    workflow = yaml.safe_load(PIP_WORKFLOW.read_text())
    assert workflow["permissions"] == yaml.safe_load(WORKFLOW.read_text())["permissions"]
    runs = [step["run"] for step in pip_steps() if "run" in step]
    assert runs[0] == f'python -m pip install "pytest-cleantree=={pytest_cleantree.__version__}"'
    upload = next(s for s in pip_steps() if "upload-sarif" in s.get("uses", ""))
    assert upload["uses"] == "github/codeql-action/upload-sarif@v4"
    assert upload["if"].startswith("always()")
    assert upload["with"]["sarif_file"] in runs[1]


@pytest.mark.parametrize("root", ["partial-revert/python/sglang", "reverted/python/sglang"])
def test_the_pip_workflow_check_step_annotates_and_writes_sarif(
    example_tree: Path, root: str
) -> None:
    """The workflow's check command, run as the step runs it (a shell in the checkout, with the
    manifest at its root): annotations on the dirty tree, exit 0 on the reverted one, and the
    SARIF file the upload step reads either way."""
    manifest = example_tree / "cleantree.toml"
    text = manifest.read_text()
    manifest.write_text(text.replace('root = "partial-revert/python/sglang"', f'root = "{root}"'))
    (check,) = [s["run"] for s in pip_steps() if s.get("name") == "Check the tree"]
    bindir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}"}
    completed = subprocess.run(
        ["bash", "-e", "-c", check],
        capture_output=True,
        text=True,
        cwd=example_tree,
        env=env,
        timeout=120,
        check=False,
    )
    document = json.loads((example_tree / "cleantree.sarif").read_text())
    results = document["runs"][0]["results"]
    if root.startswith("partial"):
        assert completed.returncode == 1, completed.stderr
        assert completed.stdout.startswith("::error file=")
        assert len(results) == 5
    else:
        assert completed.returncode == 0, completed.stderr
        assert results == []


def test_the_readme_links_the_references_and_they_document_every_flag() -> None:
    readme = (REPO / "README.md").read_text()
    assert "(docs/cli.md)" in readme
    assert "(docs/manifest.md)" in readme
    cli = (REPO / "docs" / "cli.md").read_text()
    manifest = (REPO / "docs" / "manifest.md").read_text()
    helped = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", "check", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    for flag in set(re.findall(r"(?<![\w-])--[a-z][a-z-]+", helped)) - {"--help"}:
        assert f"`{flag}" in cli, f"docs/cli.md does not document {flag}"
    for option in PYTEST_OPTIONS:  # the pytest names too, those made from the table included
        assert f"`{option.pytest}" in cli, f"docs/cli.md does not document {option.pytest}"
    for key in ("exclude", "cleantree: allow", "`absent`", "`kinds`", "`missing_ok`"):
        assert key in manifest


@pytest.mark.slow
def test_the_readme_shows_what_pytest_prints() -> None:
    readme = (REPO / "README.md").read_text()
    shown = [
        line
        for line in readme.splitlines()
        if line.startswith("pytest_cleantree/examples/sm120/partial")
    ]
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--cleantree",
            "pytest_cleantree/examples/sm120/cleantree.toml",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(REPO),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 1
    assert len(shown) == 5
    assert all(line in completed.stdout.splitlines() for line in shown), completed.stdout
