"""``bench/revert_history.py`` on a tiny made-up history: every criterion is measured, and
a reverted experiment, one still in and each re-applied hunk come out as issue 24 says."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import revert_history

IDENTITY = ("-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false")


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *IDENTITY, "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


@pytest.fixture
def history(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Four commits: a module (a root commit: no revert to compare with, not an experiment),
    an experiment in it, a later commit adding a module, and a commit that only touches
    documentation (not an experiment: no Python file)."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    steps = [
        ("Module", {"app.py": "import os\n\n\ndef main():\n    return os.getcwd()\n"}),
        (
            "Turbo mode",
            {
                "app.py": "import os\n\nTURBO = True\n\n\ndef main():\n"
                "    if TURBO:\n        raise KeyboardInterrupt()\n    return os.getcwd()\n",
                "turbo.py": "def boost():\n    return 2\n",
            },
        ),
        ("Helpers", {"util.py": "def helper():\n    return 1\n"}),
        ("Docs", {"README.md": "# App\n"}),
    ]
    for message, files in steps:
        for name, text in files.items():
            (repo / name).write_text(text)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", message)
    return repo


def test_the_replay_measures_every_criterion(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "results.md"
    work = str(tmp_path / "work")
    argv = ["--repo", str(history), "--limit", "5", "--work", work, "--out", str(out)]
    code = revert_history.main([*argv, "--strict"])
    text = out.read_text()
    assert code == 0, text
    tip = git(history, "rev-parse", "HEAD").strip()
    assert f"at `{tip[:12]}`" in text
    assert "- experiments still in that exit 1: **2/2**" in text
    assert "- clean reverts that exit 0: **2/2**" in text
    assert "- reported lines not from the experiment: **0**" in text
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert [row.split(" | ")[1] for row in rows] == ["Helpers", "Turbo mode"]
    turbo = rows[1].split(" | ")
    # app.py's hunk (TURBO, the if and the raise) and turbo.py (a file it added)
    assert turbo[2:8] == ["1", "the tip", "0", "2/2", "3/3", "0"]


def test_the_ground_truth_is_the_lines_the_commit_introduced(history: Path) -> None:
    sha = git(history, "rev-parse", "HEAD~2").strip()
    experiment = revert_history.load_experiment(history, sha)
    assert experiment.introduced["app.py"] == {
        "TURBO = True",
        "if TURBO:",
        "raise KeyboardInterrupt()",
    }
    assert experiment.added_files == {"turbo.py"}
    assert [(hunk.path, hunk.status) for hunk in experiment.hunks] == [
        ("app.py", "modified"),
        ("turbo.py", "added"),
    ]


def test_a_real_revert_commit_is_replayed_where_it_stands(history: Path, tmp_path: Path) -> None:
    """``--reverts R``: the experiment is the commit R's message names; it is in at ``R^``
    (exit 1) and gone at ``R`` (exit 0), and each hunk re-applied on ``R`` is found."""
    turbo = git(history, "rev-parse", "HEAD~2").strip()
    git(history, "revert", "--no-edit", turbo)
    git(history, "commit", "-q", "--allow-empty", "-m", "Later")
    revert = git(history, "rev-parse", "HEAD~1").strip()
    out = tmp_path / "results.md"
    argv = ["--repo", str(history), "--reverts", revert[:8], "--work", str(tmp_path / "w")]
    assert revert_history.main([*argv, "--out", str(out), "--strict"]) == 0, out.read_text()
    text = out.read_text()
    assert "- experiments still in that exit 1: **1/1**" in text
    assert "- clean reverts that exit 0: **1/1**" in text
    assert "- reported lines not from the experiment: **0**" in text
    assert "- re-applied lines found: **3/3**" in text
    assert [row.split(" | ")[1:4] for row in text.splitlines() if row.startswith("| `")] == [
        ["Turbo mode", "1", f"`{revert[:10]}`"]
    ]


def test_a_reported_line_is_from_the_experiment_by_blame_twin_or_a_new_name(
    history: Path,
) -> None:
    """The ground truth of "not from the experiment": another commit's line, holding no
    name new in the file's code with the experiment."""
    sha = git(history, "rev-parse", "HEAD~2").strip()
    experiment = revert_history.load_experiment(history, sha)
    assert experiment.names_before["app.py"] >= {"os", "os.getcwd", "getcwd", "main"}
    assert "TURBO" not in experiment.names_before["app.py"]
    outcome = revert_history.Outcome(
        1,
        [
            ("app.py", 1, "import os", ("line@1:import os",)),  # the root commit's line
            ("app.py", 3, "TURBO = True", ("=TURBO",)),  # the experiment's own line
            ("app.py", 6, "def main():", ("=main",)),  # an old name: not new
        ],
        set(),
        set(),
    )
    git(history, "checkout", "-q", "--detach", sha)
    assert revert_history.foreign_hits(history, experiment, outcome) == ["app.py:1", "app.py:6"]


def test_an_experiment_of_removals_and_a_mode_is_measured(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 43: an experiment that only removes lines of a header and changes a script's
    mode is in before its revert (fewer lines, the new mode) and each of its changes,
    re-applied, is found (the count of the removed text, the mode)."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    sync = "    block.sync();\n"
    (repo / "k.cuh").write_text("void f() {\n" + sync + "    step();\n" + sync + "}\n")
    (repo / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (repo / "run.sh").chmod(0o755)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Kernel")
    (repo / "k.cuh").write_text("void f() {\n" + sync + "    step();\n}\n")
    (repo / "run.sh").chmod(0o644)
    git(repo, "commit", "-q", "-am", "Fewer syncs")
    experiment = revert_history.load_experiment(repo, "HEAD")
    assert experiment.removed == {"k.cuh": {"block.sync();": 2}}
    assert experiment.modes == {"run.sh": ("100755", "100644")}
    assert experiment.introduced == {"k.cuh": set()}
    git(repo, "revert", "--no-edit", "HEAD")
    out = tmp_path / "results.md"
    argv = ["--repo", str(repo), "--reverts", "HEAD", "--work", str(tmp_path / "w")]
    assert revert_history.main([*argv, "--out", str(out), "--strict"]) == 0, out.read_text()
    text = out.read_text()
    assert "- experiments still in that exit 1: **1/1**" in text
    assert "- clean reverts that exit 0: **1/1**" in text
    assert "- re-applied lines found: **2/2** (hunks found in full: 2/2;" in text
