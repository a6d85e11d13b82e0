"""Replay a repository's own history through the revert guard (issue 24).

Each recent commit is taken as an experiment, in a scratch clone of the repository:

1. *still in*: at the tip, ``cleantree check --reverted C`` must exit 1 (when a line the
   commit introduced, or a file it added, is still there);
2. *clean revert*: ``git revert C`` committed, the check must exit 0;
3. *re-applied*: on the reverted tree, each hunk of ``C`` is applied again, one at a time
   (uncommitted), and every line it brings back that is the experiment's own (added by
   ``C``, non-blank, a text its parent did not have in that file) must be reported.

In every check, a reported line must be the experiment's: written by ``C`` (git blame), or
holding its own code (the text of a line it introduced, or a name it introduced).  The
ground truth is worked out here from ``git diff C^ C`` and ``git show``, apart from the code
under test; each check runs the real command line (``python -m pytest_cleantree check
--reverted C --format json``) with this checkout's package first on the path.

    python bench/revert_history.py                      # 30 commits of this repository
    python bench/revert_history.py --repo . --limit 5 --hunks 4

The table goes to ``bench/results-revert.md`` (``--out``), with the commits it ran on.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent
IDENTITY = ("-c", "user.name=bench", "-c", "user.email=bench@invalid", "-c", "commit.gpgsign=false")
#: ``cleantree``, as its console script runs it, but this checkout's code (see run_check)
_CLI = (sys.executable, "-P", "-m", "pytest_cleantree")
_HUNK = re.compile(r"@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def git(repo: Path, *args: str, check: bool = True, stdin: str | None = None) -> str:
    done = subprocess.run(
        ["git", *IDENTITY, "-C", str(repo), *args],
        capture_output=True,
        text=True,
        errors="surrogateescape",
        input=stdin,
        check=False,
    )
    if check and done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout


# --------------------------------------------------------------------------- ground truth


@dataclass(frozen=True)
class Hunk:
    """One hunk of the experiment, as a patch of its own."""

    path: str
    status: str  # "modified", "added", "deleted"
    patch: str


@dataclass
class Experiment:
    sha: str
    subject: str
    #: per file, the texts (stripped) of the lines the commit introduced
    introduced: dict[str, set[str]] = field(default_factory=dict)
    added_files: set[str] = field(default_factory=set)
    hunks: list[Hunk] = field(default_factory=list)


def load_experiment(repo: Path, sha: str) -> Experiment:
    subject = git(repo, "log", "-1", "--format=%s", sha).strip()
    experiment = Experiment(sha, subject)
    diff = git(repo, "diff", "--no-color", "--no-ext-diff", "--no-renames", f"{sha}^", sha, "--")
    for section in re.split(r"(?m)^(?=diff --git )", diff):
        if section.startswith("diff --git "):
            _read_section(repo, experiment, section)
    return experiment


def _read_section(repo: Path, experiment: Experiment, section: str) -> None:
    header, _, body = section.partition("\n@@")
    path_line = re.search(r"(?m)^\+\+\+ b/(.*)$", header) or re.search(r"(?m)^--- a/(.*)$", header)
    if path_line is None or "Binary files" in header:
        return
    path = path_line.group(1)
    status = (
        "added"
        if "\nnew file mode" in header
        else "deleted"
        if "\ndeleted file mode" in header
        else "modified"
    )
    if status == "added":
        experiment.added_files.add(path)
    parent = set()
    if status != "added":
        shown = git(repo, "show", f"{experiment.sha}^:{path}", check=False)
        parent = {line.strip() for line in shown.split("\n")}
    lines = experiment.introduced.setdefault(path, set())
    hunks = ("@@" + body).split("\n@@") if body else []
    for index, hunk in enumerate(hunks):
        text = hunk if index == 0 else "@@" + hunk
        for line in text.split("\n")[1:]:
            if line.startswith("+") and line[1:].strip() and line[1:].strip() not in parent:
                lines.add(line[1:].strip())
        patch = header.rstrip("\n") + "\n" + text.rstrip("\n") + "\n"
        experiment.hunks.append(Hunk(path, status, patch))


# --------------------------------------------------------------------------- checks


@dataclass
class Outcome:
    code: int
    hits: list[tuple[str, int, str, str]]  # (path, line, source, rule)
    present: set[str]
    missing: set[str]
    #: why the check could not run, or did not complete (its first problem)
    error: str = ""


def run_check(scratch: Path, sha: str) -> Outcome:
    """The real command line, with this checkout's package first on the path (``-P``: the
    scratch clone's own ``pytest_cleantree/``, in the current folder, is never imported)."""
    path = os.pathsep.join(filter(None, [str(CHECKOUT), os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [*_CLI, "check", "--reverted", sha, "--format", "json"],
        cwd=scratch,
        capture_output=True,
        text=True,
        errors="surrogateescape",
        env={**os.environ, "PYTHONPATH": path},
        check=False,
    )
    if not done.stdout.strip():  # it could not start: git or the command line said why
        return Outcome(done.returncode, [], set(), set(), done.stderr.strip()[-300:])
    report: dict[str, Any] = json.loads(done.stdout)
    hits, present, missing = [], set(), set()
    problems = [p for result in report["results"] for p in result["problems"]]
    for result in report["results"]:
        for hit in result["hits"]:
            hits.append((hit["file"], hit["line"], hit["source"], result["rule"]))
        present.update(result["present"])
        missing.update(item["file"] for item in result["missing"])
    return Outcome(done.returncode, hits, present, missing, "; ".join(problems[:1]))


def foreign_hits(scratch: Path, experiment: Experiment, outcome: Outcome) -> list[str]:
    """Reported lines that are not the experiment's: written by another commit (or by no
    commit) and holding none of its own code."""
    foreign = []
    for path, line, source, rule in outcome.hits:
        if rule.startswith("introduced-names-"):
            continue  # it holds a name the experiment introduced: its own code
        if source.strip() in experiment.introduced.get(path, set()):
            continue
        blame = git(
            scratch, "blame", "--porcelain", "-L", f"{line},{line}", "--", path, check=False
        )
        if blame.split(" ", 1)[0] != experiment.sha:
            foreign.append(f"{path}:{line}")
    return foreign


def reset(scratch: Path, rev: str) -> None:
    git(scratch, "checkout", "-q", "-f", "--detach", rev)
    git(scratch, "clean", "-q", "-f", "-d", "-x")


def still_in(scratch: Path, experiment: Experiment) -> bool:
    """Is a line the commit introduced, or a file it added, still at the tip?"""
    for path, lines in experiment.introduced.items():
        file = scratch / path
        if file.is_file():
            text = file.read_bytes().decode("utf-8", "surrogateescape")
            if path in experiment.added_files or lines & {
                line.strip() for line in text.split("\n")
            }:
                return True
    return False


def reapplied_lines(scratch: Path, experiment: Experiment, path: str) -> set[tuple[str, int]]:
    """Where the lines the patch brought back stand, those that are the experiment's own."""
    diff = git(scratch, "diff", "-U0", "--no-color", "HEAD", "--", path)
    found, number = set(), 0
    for line in diff.split("\n"):
        header = _HUNK.match(line)
        if header:
            number = int(header.group(1))
        elif line.startswith("+") and not line.startswith("+++"):
            if line[1:].strip() in experiment.introduced.get(path, set()):
                found.add((path, number))
            number += 1
    return found


# --------------------------------------------------------------------------- one experiment


@dataclass
class Row:
    sha: str
    subject: str
    still_in: str = "-"  # "1" expected, "0", "2" (incomplete), "-" (not in the tree any more)
    revert: str = "-"  # "0" expected, "1", "2" (incomplete), "conflict"
    at: str = "the tip"  # where it was reverted: "its commit" when the tip conflicts
    foreign: list[str] = field(default_factory=list)
    hunks: int = 0
    hunks_found: int = 0
    lines: int = 0
    lines_found: int = 0
    skipped: int = 0
    missed: list[str] = field(default_factory=list)
    #: why a check did not complete (exit 2)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


def replay(scratch: Path, tip: str, sha: str, max_hunks: int) -> Row:
    start = time.perf_counter()
    experiment = load_experiment(scratch, sha)
    row = Row(sha[:10], experiment.subject)
    reset(scratch, tip)
    if still_in(scratch, experiment):
        outcome = run_check(scratch, sha)
        row.still_in = str(outcome.code)
        row.problems += [f"still in: {outcome.error}"] if outcome.code not in (0, 1) else []
        row.foreign += foreign_hits(scratch, experiment, outcome)
    if not _revert(scratch, sha):
        # later history conflicts with the revert: revert it where it was made instead
        row.at = "its commit"
        reset(scratch, sha)
        if not _revert(scratch, sha):
            row.revert = "conflict"
            row.seconds = time.perf_counter() - start
            return row
    reverted = git(scratch, "rev-parse", "HEAD").strip()
    outcome = run_check(scratch, sha)
    row.revert = str(outcome.code)
    row.problems += [f"reverted: {outcome.error}"] if outcome.code not in (0, 1) else []
    row.foreign += foreign_hits(scratch, experiment, outcome)
    for hunk in experiment.hunks:
        if row.hunks >= max_hunks:
            break
        _reapply(scratch, experiment, hunk, row)
        reset(scratch, reverted)
    row.seconds = time.perf_counter() - start
    return row


def _revert(scratch: Path, sha: str) -> bool:
    """``git revert`` committed; on a conflict, aborted (false)."""
    done = subprocess.run(
        ["git", *IDENTITY, "-C", str(scratch), "revert", "--no-edit", sha],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        git(scratch, "revert", "--abort", check=False)
        reset(scratch, "HEAD")
    return done.returncode == 0


def _reapply(scratch: Path, experiment: Experiment, hunk: Hunk, row: Row) -> None:
    """Apply one hunk of the experiment again and see that the check finds it."""
    applied = subprocess.run(
        ["git", "-C", str(scratch), "apply", "-"],
        input=hunk.patch.encode("utf-8", "surrogateescape"),
        capture_output=True,
        check=False,
    )
    if applied.returncode != 0:
        row.skipped += 1  # the reverted tree moved on around it
        return
    expected = reapplied_lines(scratch, experiment, hunk.path)
    if hunk.status == "modified" and not expected:
        row.skipped += 1  # nothing of the experiment's own to find (blank or moved lines)
        return
    row.hunks += 1
    outcome = run_check(scratch, experiment.sha)
    row.foreign += foreign_hits(scratch, experiment, outcome)
    if hunk.status == "added":
        found = hunk.path in outcome.present
    elif hunk.status == "deleted":
        found = hunk.path in outcome.missing
    else:
        reported = {(path, line) for path, line, _, _ in outcome.hits}
        row.lines += len(expected)
        row.lines_found += len(expected & reported)
        row.missed += [f"{path}:{line}" for path, line in sorted(expected - reported)]
        found = expected <= reported
    row.hunks_found += found and outcome.code == 1


# --------------------------------------------------------------------------- the report


def render(rows: Sequence[Row], *, repo: Path, tip: str, command: str) -> str:
    still = [row for row in rows if row.still_in != "-"]
    reverts = [row for row in rows if row.revert not in ("-", "conflict")]
    foreign = sum(len(row.foreign) for row in rows)
    lines = sum(row.lines for row in rows)
    lines_found = sum(row.lines_found for row in rows)
    hunks = sum(row.hunks for row in rows)
    hunks_found = sum(row.hunks_found for row in rows)
    out = [
        "# The revert guard on this project's own history",
        "",
        f"`{command}`, on `{repo}` at `{tip[:12]}`, with pytest-cleantree at "
        f"`{_head(CHECKOUT)[:12]}`.",
        "Each commit is an experiment: checked at the tip (still in: exit 1), its `git revert`",
        "committed (clean: exit 0; at the tip, or at its own commit when later history conflicts),",
        "then each hunk re-applied alone (every line of its own found).",
        "",
        f"- experiments still in that exit 1: **{_count(still, 'still_in', '1')}/{len(still)}**",
        f"- clean reverts that exit 0: **{_count(reverts, 'revert', '0')}/{len(reverts)}** "
        f"({_count(rows, 'at', 'its commit')} reverted at their own commit, the tip conflicting)",
        f"- reported lines written by another commit without the experiment's code: **{foreign}**",
        f"- re-applied lines found: **{lines_found}/{lines}** (hunks found in full: "
        f"{hunks_found}/{hunks}; {sum(r.skipped for r in rows)} hunks did not apply or held "
        "nothing of the experiment's own)",
        "",
        "| commit | subject | still in | reverted at | revert | re-applied hunks | lines found "
        "| foreign | s |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for row in rows:
        subject = row.subject.replace("|", "\\|")
        subject = subject if len(subject) <= 60 else subject[:57] + "..."
        foreign_text = ", ".join(row.foreign[:3]) + (" ..." if len(row.foreign) > 3 else "")
        missed = f" (missed {', '.join(row.missed[:2])})" if row.missed else ""
        out.append(
            f"| `{row.sha}` | {subject} | {row.still_in} | {row.at} | {row.revert} | "
            f"{row.hunks_found}/{row.hunks} | {row.lines_found}/{row.lines}{missed} | "
            f"{foreign_text or 0} | {row.seconds:.0f} |"
        )
    incomplete = [(row.sha, problem) for row in rows for problem in row.problems]
    if incomplete:
        out += ["", "Checks that did not complete (exit 2: never clean, but not a finding):", ""]
        out += [f"- `{sha}` {problem}" for sha, problem in incomplete]
    return "\n".join(out) + "\n"


def _count(rows: Sequence[Row], attribute: str, value: str) -> int:
    return sum(getattr(row, attribute) == value for row in rows)


def passed(rows: Sequence[Row]) -> bool:
    """Every criterion of issue 24 holds."""
    return all(
        row.still_in in ("-", "1")
        and row.revert in ("-", "conflict", "0")
        and not row.foreign
        and row.lines_found == row.lines
        and row.hunks_found == row.hunks
        for row in rows
    )


def _head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD", check=False).strip() or "unknown"


def experiments(repo: Path, limit: int) -> list[str]:
    """The most recent non-merge commits touching Python files, newest first."""
    out = git(repo, "log", "--no-merges", "--format=%H", f"-n{limit}", "--", "*.py")
    return [
        sha for sha in out.split() if git(repo, "rev-list", "--parents", "-n1", sha).count(" ") == 1
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--repo", type=Path, default=HERE.parent, help="the history to replay (default: this one)"
    )
    parser.add_argument("--limit", type=int, default=30, help="commits to take (default 30)")
    parser.add_argument("--hunks", type=int, default=8, help="hunks re-applied per commit")
    parser.add_argument("--work", type=Path, default=HERE / ".work" / "revert-history")
    parser.add_argument("--out", type=Path, default=HERE / "results-revert.md")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a criterion fails")
    args = parser.parse_args(argv)
    repo = args.repo.resolve()
    tip = git(repo, "rev-parse", "HEAD").strip()
    scratch = args.work / "scratch"
    shutil.rmtree(scratch, ignore_errors=True)
    scratch.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "clone", "-q", "--no-checkout", str(repo), str(scratch)], check=True)
    rows = []
    for sha in experiments(repo, args.limit):
        row = replay(scratch, tip, sha, args.hunks)
        print(
            f"{row.sha} still-in={row.still_in} revert={row.revert} "
            f"lines={row.lines_found}/{row.lines} foreign={len(row.foreign)} {row.subject[:50]}",
            flush=True,
        )
        rows.append(row)
    command = "python bench/revert_history.py " + " ".join(
        argv if argv is not None else sys.argv[1:]
    )
    text = render(rows, repo=repo, tip=tip, command=command.strip())
    args.out.write_text(text)
    print(text)
    return 1 if args.strict and not passed(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
