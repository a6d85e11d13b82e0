"""The integrations as documented: what a user copies from the README and ``examples/`` must
work as written (install pins, the pre-launch wrapper's messages, the workflow's steps)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = REPO / "examples" / "ci" / "cleantree.yml"
SHA = re.compile(r"[0-9a-f]{40}")


def workflow_steps() -> list[dict[str, str]]:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    steps: list[dict[str, str]] = workflow["jobs"]["cleantree"]["steps"]
    return steps


def test_the_workflow_installs_from_the_repository_pinned_to_a_commit() -> None:
    """No package index has pytest-cleantree: the install step names a VCS URL at a full sha."""
    (install,) = [s["run"] for s in workflow_steps() if "pip install" in s.get("run", "")]
    quoted = re.findall(r'"([^"]+)"', install)
    assert len(quoted) == 1, install
    requirement = Requirement(quoted[0])
    assert requirement.name == "pytest-cleantree"
    assert requirement.url is not None
    assert requirement.url.startswith("git+https://github.com/")
    url, _, rev = requirement.url.rpartition("@")
    assert SHA.fullmatch(rev), f"not pinned to a full commit sha: {requirement.url}"
    assert "replace" in WORKFLOW.read_text().lower()  # the comment says what to replace


def test_the_readme_pre_commit_snippet_pins_a_commit() -> None:
    readme = (REPO / "README.md").read_text()
    (snippet,) = [
        block for block in re.findall(r"```yaml\n(.*?)```", readme, re.S) if "repos:" in block
    ]
    (repo,) = yaml.safe_load(snippet)["repos"]
    assert SHA.fullmatch(str(repo["rev"])), repo["rev"]
    assert [hook["id"] for hook in repo["hooks"]] == ["cleantree"]
    assert "v0.1.0" not in readme
