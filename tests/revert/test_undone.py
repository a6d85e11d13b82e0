"""``revert.blame.undone`` against ``git revert`` itself: on random small histories (a base, an
experiment, a later commit), the file is undone exactly when reverting the experiment there
would leave it as it is, before the revert and after it."""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

from gitrepo import EXPERIMENT, IDENTITY, Repo, git

from pytest_cleantree.revert.blame import undone as _undone

#: equal lines everywhere: where diffs may align either way
WORDS = ("}", "#pragma unroll", "", "fi", "pass", "step();")


def _edit(rng: random.Random, lines: list[str]) -> list[str]:
    out = list(lines)
    for _ in range(rng.randint(1, 3)):
        at = rng.randint(0, len(out))
        if out and rng.random() < 0.5:
            del out[min(at, len(out) - 1)]
        else:
            out.insert(at, rng.choice(WORDS))
    return out


def _text(lines: list[str]) -> str:
    return "".join(f"{line}\n" for line in lines)


def test_undone_is_what_git_revert_would_leave(tmp_path: Path) -> None:
    rng = random.Random(43)
    checked = 0
    for case in range(12):
        base = [rng.choice(WORDS) for _ in range(rng.randint(3, 8))]
        experiment = _edit(rng, base)
        if experiment == base:
            continue
        later = ["// later", *experiment[1:]] if experiment else ["// later"]
        repo = Repo(tmp_path / f"r{case}")
        repo.commit("Base", {"k.cuh": _text(["// top", *base])})
        repo.commit("Experiment", {"k.cuh": _text(["// top", *experiment])}, tag=EXPERIMENT)
        repo.commit("Later", {"k.cuh": _text(later)})
        before = _text(["// top", *base]).encode()
        after = _text(["// top", *experiment]).encode()
        for step in ("tip", "reverted"):
            now = (repo.path / "k.cuh").read_bytes()
            reverted = subprocess.run(
                ["git", *IDENTITY, "-C", str(repo.path), "revert", "--no-commit", EXPERIMENT],
                capture_output=True,
                check=False,
            )
            same = (repo.path / "k.cuh").read_bytes() == now
            git(repo.path, "reset", "-q", "--hard", "HEAD")
            if reverted.returncode != 0:
                break  # a conflict: git cannot say either
            assert _undone(now, after, before) == same, (case, step, base, experiment)
            checked += 1
            if step == "tip":
                if same:
                    break  # the later commit undid it already: nothing to revert
                git(repo.path, "revert", "--no-edit", EXPERIMENT)
    assert checked >= 8
