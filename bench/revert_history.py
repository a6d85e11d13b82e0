"""Replay a repository's history through the revert guard (issues 24 and 35).

Any git repository, two ways:

* its real reverts (``--reverts R ...``): each revert commit ``R`` names its experiment
  ``E`` (git's "This reverts commit E." message, or ``R=E``).  Before the revert (``R^``)
  the experiment is in: ``cleantree check --reverted E`` must exit 1; at ``R`` it must
  exit 0; on ``R``, each hunk of ``E`` applied again (uncommitted) must be found;
* its recent commits (the default): each taken as an experiment ``C``, in a scratch clone.
  At the tip, still in, the check must exit 1; ``git revert C`` committed (at the tip, or
  at ``C`` itself when later history conflicts), it must exit 0; then each hunk of ``C``
  re-applied alone, uncommitted, must be found.

Four figures: clean reverts that exit 0, experiments still in that exit 1, reported lines
not from the experiment, re-applied lines found.  Any text file counts, not only Python: an
experiment is *in* when a line it introduced, a file it added or deleted, a mode it gave, a
text of which it left fewer lines (blank lines in a change of whitespace alone), or a line
git blame gives to it stands; a re-applied hunk's lines are the lines it adds that the
experiment introduced (each must be reported where it stands) and the texts it leaves fewer
of than before the experiment (each must be reported as an expected ``line:``/``line*N:``
text missing), and a re-applied mode must be reported as a ``mode`` expectation missing.

A reported line is *from the experiment* when git blame gives it to the experiment or to
a ``git patch-id`` twin (a cherry-pick, a revert of the revert), or it is not committed and
its text is a line the experiment introduced, or it holds a name new in that file's code
with the experiment (Python's own tokenizer says which names a Python file had; every word,
another file's).  The ground truth is worked out here from ``git diff E^ E``, ``git show``,
``git blame``, ``git patch-id`` and :mod:`tokenize`, apart from
the code under test; each check runs the real command line (``python -m pytest_cleantree
check --reverted E --format json``) with this checkout's package first on the path.

    python bench/revert_history.py                      # 30 commits of this repository
    python bench/revert_history.py --repo . --limit 5 --hunks 4
    python bench/revert_history.py --repo ~/src/pytest --reverts 1a2b3c4 5d6e7f8=0a1b2c3

The table goes to ``bench/results-revert.md`` (``--out``), with the commits it ran on.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tokenize
from collections import Counter
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
    #: the commits with the experiment's ``git patch-id`` (cherry-picks, reverts of reverts)
    twins: set[str] = field(default_factory=set)
    #: per file, the names its code had before the experiment (``tokenize``'s NAME tokens
    #: and dotted chains of a Python file; every word of another file)
    names_before: dict[str, set[str]] = field(default_factory=dict)
    #: per file it modified, each text (stripped) of which it left fewer lines, with the
    #: count before it: a complete revert brings that count back (blank lines only where
    #: no other text's count moved, as the guard's plan counts them)
    removed: dict[str, dict[str, int]] = field(default_factory=dict)
    deleted_files: set[str] = field(default_factory=set)
    #: per file whose mode it changed: (before, after)
    modes: dict[str, tuple[str, str]] = field(default_factory=dict)


def load_experiment(repo: Path, sha: str, tip: str = "HEAD") -> Experiment:
    subject = git(repo, "log", "-1", "--format=%s", sha).strip()
    experiment = Experiment(sha, subject)
    diff = git(repo, "diff", "--no-color", "--no-ext-diff", "--no-renames", f"{sha}^", sha, "--")
    for section in re.split(r"(?m)^(?=diff --git )", diff):
        if section.startswith("diff --git "):
            _read_section(repo, experiment, section)
    experiment.twins = twins(repo, sha, tip)
    return experiment


def twins(repo: Path, sha: str, tip: str) -> set[str]:
    """The commits after ``sha`` up to ``tip`` whose ``git patch-id`` is ``sha``'s."""

    def ids(log: str) -> dict[str, set[str]]:
        out = git(repo, "patch-id", "--stable", stdin=log)
        found: dict[str, set[str]] = {}
        for row in out.split("\n"):
            if row.strip():
                patch_id, commit = row.split()
                found.setdefault(patch_id, set()).add(commit)
        return found

    own = set(ids(git(repo, "show", "--no-color", "--format=commit %H", sha)))
    later = git(
        repo, "log", "-p", "--no-merges", "--no-color", "--format=commit %H", tip, f"^{sha}"
    )
    return {
        commit for patch_id, commits in ids(later).items() if patch_id in own for commit in commits
    }


def code_words(path: str, text: str) -> set[str]:
    """The names a file's code holds, by Python's own tokenizer (each NAME, and each dotted
    chain ``a.b.c`` with its sub-chains); for a file that is not Python, or that does not
    tokenize, every word of it."""
    if path.endswith((".py", ".pyi")):
        try:
            tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
        except (tokenize.TokenError, SyntaxError):
            tokens = []
        if tokens:
            return _chains(tokens)
    return set(re.findall(r"[^\W\d][\w.]*", text)) | set(re.findall(r"[^\W\d]\w*", text))


def _chains(tokens: list[tokenize.TokenInfo]) -> set[str]:
    """Each NAME, and each run of NAMEs joined by dots with its sub-runs (``a.b.c``:
    ``a.b``, ``b.c`` ...)."""
    names: set[str] = set()
    parts: list[str] = []
    dotted = False  # the last token was a dot after a NAME
    for token in tokens:
        if token.type == tokenize.NAME:
            if not dotted:
                names.update(_runs(parts))
                parts = []
            parts.append(token.string)
            dotted = False
        elif token.type == tokenize.OP and token.string == "." and parts and not dotted:
            dotted = True
        else:
            names.update(_runs(parts))
            parts, dotted = [], False
    names.update(_runs(parts))
    return names


def _runs(parts: list[str]) -> set[str]:
    return {".".join(parts[i:j]) for i in range(len(parts)) for j in range(i + 1, len(parts) + 1)}


def counts(text: str) -> Counter[str]:
    """How many lines of each text (stripped) a file has, blank ones included."""
    return Counter(line.strip() for line in text.split("\n"))


def _read_section(repo: Path, experiment: Experiment, section: str) -> None:
    header, _, body = section.partition("\n@@")
    path_line = (
        re.search(r"(?m)^\+\+\+ b/(.*)$", header)
        or re.search(r"(?m)^--- a/(.*)$", header)
        or re.match(r"diff --git a/(.*) b/\1$", header.split("\n", 1)[0])
    )
    if path_line is None:
        return
    path = path_line.group(1)
    mode = re.search(r"(?m)^old mode (\d+)\nnew mode (\d+)$", header)
    if mode:
        experiment.modes[path] = (mode.group(1), mode.group(2))
    if "Binary files" in header or not body:
        return
    status = (
        "added"
        if "\nnew file mode" in header
        else "deleted"
        if "\ndeleted file mode" in header
        else "modified"
    )
    if status == "added":
        experiment.added_files.add(path)
    if status == "deleted":
        experiment.deleted_files.add(path)
    parent = set()
    if status != "added":
        shown = git(repo, "show", f"{experiment.sha}^:{path}", check=False)
        parent = {line.strip() for line in shown.split("\n")}
        experiment.names_before[path] = code_words(path, shown)
    if status == "modified":
        before = counts(shown)
        after = counts(git(repo, "show", f"{experiment.sha}:{path}", check=False))
        fewer = {text: n for text, n in before.items() if after[text] < n}
        if any(before[text] != after[text] for text in before.keys() | after.keys() if text):
            fewer.pop("", None)  # blank lines count only in a change of whitespace alone
        if fewer:
            experiment.removed[path] = fewer
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
    hits: list[tuple[str, int, str, tuple[str, ...]]]  # (path, line, source, patterns)
    present: set[str]
    missing: set[str]
    #: why the check could not run, or did not complete (its first problem)
    error: str = ""
    #: (file, pattern) of each expectation the check found missing
    expected: set[tuple[str, str]] = field(default_factory=set)


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
    hits, present, missing, expected = [], set(), set(), set()
    problems = [p for result in report["results"] for p in result["problems"]]
    for result in report["results"]:
        for hit in result["hits"]:
            hits.append((hit["file"], hit["line"], hit["source"], tuple(hit["patterns"])))
        present.update(result["present"])
        missing.update(item["file"] for item in result["missing"])
        expected.update((item["file"], item.get("pattern") or "") for item in result["missing"])
    return Outcome(done.returncode, hits, present, missing, "; ".join(problems[:1]), expected)


_UNCOMMITTED = "0" * 40


def foreign_hits(scratch: Path, experiment: Experiment, outcome: Outcome) -> list[str]:
    """Reported lines not from the experiment: written by another commit than it or its
    twins (or not committed, and not a text it introduced), and holding no name new in
    that file's code with the experiment."""
    ours = {experiment.sha} | experiment.twins
    foreign = []
    for path, line, source, patterns in outcome.hits:
        blame = git(
            scratch, "blame", "--porcelain", "-L", f"{line},{line}", "--", path, check=False
        )
        author = blame.split(" ", 1)[0]
        if author in ours:
            continue
        if author == _UNCOMMITTED and source.strip() in experiment.introduced.get(path, set()):
            continue
        before = experiment.names_before.get(path, set())
        if any(p.startswith("=") and p[1:] not in before for p in patterns):
            continue  # it holds a name the experiment introduced: its own code
        foreign.append(f"{path}:{line}")
    return foreign


def reset(scratch: Path, rev: str) -> None:
    git(scratch, "checkout", "-q", "-f", "--detach", rev)
    git(scratch, "clean", "-q", "-f", "-d", "-x")


def still_in(scratch: Path, experiment: Experiment) -> bool:
    """Is anything of the commit in the checked-out tree: a line it introduced, a file it
    added or deleted, a mode it gave, a text of which it left fewer lines, or a line git
    blame gives to it or a twin (its text may have stood elsewhere before)?"""
    for path, lines in experiment.introduced.items():
        file = scratch / path
        if file.is_file():
            text = file.read_bytes().decode("utf-8", "surrogateescape")
            if path in experiment.added_files or lines & {
                line.strip() for line in text.split("\n")
            }:
                return True
    if any(not (scratch / path).exists() for path in experiment.deleted_files):
        return True
    for path, (_, after) in experiment.modes.items():
        if (scratch / path).is_file() and file_mode(scratch / path) == after:
            return True
    for path, fewer in experiment.removed.items():
        if (scratch / path).is_file():
            now = counts((scratch / path).read_bytes().decode("utf-8", "surrogateescape"))
            if any(now[text] < n for text, n in fewer.items()):
                return True
    ours = {experiment.sha} | experiment.twins
    for path in experiment.introduced:
        if (scratch / path).is_file():
            blame = git(scratch, "blame", "--porcelain", "HEAD", "--", path, check=False)
            if any(row[:40] in ours for row in blame.split("\n") if len(row) > 40):
                return True
    return False


def file_mode(path: Path) -> str:
    """The mode git would record for a regular file, from its executable bit."""
    return "100755" if path.stat().st_mode & 0o100 else "100644"


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
    """One recent commit as an experiment: its ``git revert`` made here."""
    start = time.perf_counter()
    experiment = load_experiment(scratch, sha, tip)
    row = Row(sha[:10], experiment.subject)
    reset(scratch, tip)
    _still_in(scratch, experiment, row)
    if not _revert(scratch, sha):
        # later history conflicts with the revert: revert it where it was made instead
        row.at = "its commit"
        reset(scratch, sha)
        if not _revert(scratch, sha):
            row.revert = "conflict"
            row.seconds = time.perf_counter() - start
            return row
    _reverted(scratch, experiment, row, max_hunks)
    row.seconds = time.perf_counter() - start
    return row


def replay_revert(scratch: Path, tip: str, revert: str, sha: str, max_hunks: int) -> Row:
    """A real revert ``revert`` of the experiment ``sha``: in before it, clean at it."""
    start = time.perf_counter()
    experiment = load_experiment(scratch, sha, tip)
    row = Row(sha[:10], experiment.subject, at=f"`{revert[:10]}`")
    reset(scratch, f"{revert}^")
    _still_in(scratch, experiment, row)
    reset(scratch, revert)
    _reverted(scratch, experiment, row, max_hunks)
    row.seconds = time.perf_counter() - start
    return row


def _still_in(scratch: Path, experiment: Experiment, row: Row) -> None:
    """Where the experiment is still in the tree, the check must exit 1."""
    if still_in(scratch, experiment):
        outcome = run_check(scratch, experiment.sha)
        row.still_in = str(outcome.code)
        row.problems += [f"still in: {outcome.error}"] if outcome.code not in (0, 1) else []
        row.foreign += foreign_hits(scratch, experiment, outcome)


def _reverted(scratch: Path, experiment: Experiment, row: Row, max_hunks: int) -> None:
    """On the reverted tree (HEAD): the check must exit 0, and find each hunk re-applied."""
    reverted = git(scratch, "rev-parse", "HEAD").strip()
    outcome = run_check(scratch, experiment.sha)
    row.revert = str(outcome.code)
    row.problems += [f"reverted: {outcome.error}"] if outcome.code not in (0, 1) else []
    row.foreign += foreign_hits(scratch, experiment, outcome)
    for hunk in experiment.hunks:
        if row.hunks >= max_hunks:
            break
        _reapply(scratch, experiment, hunk, row)
        reset(scratch, reverted)
    for path in experiment.modes:
        _reapply_mode(scratch, experiment, path, row)
        reset(scratch, reverted)


_REVERTS = re.compile(r"This reverts commit ([0-9a-f]{7,64})")


def revert_pairs(repo: Path, specs: Sequence[str]) -> list[tuple[str, str]]:
    """``(revert, experiment)`` per ``R`` (its message names the experiment: "This reverts
    commit E.") or ``R=E``, both resolved to full commits."""
    pairs = []
    for spec in specs:
        revert, _, named = spec.partition("=")
        revert = git(repo, "rev-parse", "--verify", f"{revert}^{{commit}}").strip()
        if not named:
            found = _REVERTS.search(git(repo, "log", "-1", "--format=%B", revert))
            if found is None:
                raise SystemExit(f"{spec}: its message names no reverted commit; write R=E")
            named = found.group(1)
        pairs.append((revert, git(repo, "rev-parse", "--verify", f"{named}^{{commit}}").strip()))
    return pairs


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
    fewer = removed_again(scratch, experiment, hunk.path)
    if hunk.status == "modified" and not expected and not fewer:
        row.skipped += 1  # nothing of the experiment's own to find (moved lines)
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
        back = {
            text
            for path, pattern in outcome.expected
            if path == hunk.path
            for text in [_expected_text(pattern)]
            if text is not None
        }
        row.lines += len(expected) + len(fewer)
        row.lines_found += len(expected & reported) + len(fewer & back)
        row.missed += [f"{path}:{line}" for path, line in sorted(expected - reported)]
        row.missed += [f"{hunk.path} removed {text!r}" for text in sorted(fewer - back)]
        found = expected <= reported and fewer <= back
    row.hunks_found += found and outcome.code == 1


def removed_again(scratch: Path, experiment: Experiment, path: str) -> set[str]:
    """The texts of which the re-applied patch left fewer lines than before the experiment
    (only texts the experiment itself left fewer of)."""
    fewer = experiment.removed.get(path, {})
    file = scratch / path
    if not fewer or not file.is_file():
        return set()
    now = counts(file.read_bytes().decode("utf-8", "surrogateescape"))
    return {text for text, n in fewer.items() if now[text] < n}


def _expected_text(pattern: str) -> str | None:
    """The text of an expected ``line:TEXT`` or ``line*N:TEXT`` pattern, stripped."""
    found = re.match(r"line(?:\*\d+)?:(.*)$", pattern, re.S)
    return found.group(1).strip() if found else None


def _reapply_mode(scratch: Path, experiment: Experiment, path: str, row: Row) -> None:
    """Give a file the mode the experiment gave it again and see that the check finds it."""
    file = scratch / path
    before, after = experiment.modes[path]
    if not file.is_file() or file_mode(file) != before or after not in ("100644", "100755"):
        row.skipped += 1
        return
    file.chmod(0o755 if after == "100755" else 0o644)
    row.hunks += 1
    outcome = run_check(scratch, experiment.sha)
    row.foreign += foreign_hits(scratch, experiment, outcome)
    found = any(p == path and pattern.startswith("mode") for p, pattern in outcome.expected)
    row.lines += 1
    row.lines_found += found
    row.missed += [] if found else [f"{path} mode {after}"]
    row.hunks_found += found and outcome.code == 1


# --------------------------------------------------------------------------- the report


_MADE = (
    "Each commit is an experiment: checked at the tip (still in: exit 1), its `git revert`",
    "committed (clean: exit 0; at the tip, or at its own commit when later history conflicts),",
    "then each hunk re-applied alone (every line of its own found).",
)
_REAL = (
    "Each revert commit R of the history names its experiment E: checked at R^ (still in:",
    "exit 1) and at R (clean: exit 0), then each hunk of E re-applied alone on R (every line",
    "of its own found).",
)


def render(rows: Sequence[Row], *, repo: Path, tip: str, command: str, real: bool = False) -> str:
    still = [row for row in rows if row.still_in != "-"]
    reverts = [row for row in rows if row.revert not in ("-", "conflict")]
    foreign = sum(len(row.foreign) for row in rows)
    lines = sum(row.lines for row in rows)
    lines_found = sum(row.lines_found for row in rows)
    hunks = sum(row.hunks for row in rows)
    hunks_found = sum(row.hunks_found for row in rows)
    out = [
        f"# The revert guard on the history of `{repo.name}`",
        "",
        f"`{command}`, on `{repo}` at `{tip[:12]}`, with pytest-cleantree at "
        f"`{_head(CHECKOUT)[:12]}`.",
        *(_REAL if real else _MADE),
        "",
        f"- experiments still in that exit 1: **{_count(still, 'still_in', '1')}/{len(still)}**",
        f"- clean reverts that exit 0: **{_count(reverts, 'revert', '0')}/{len(reverts)}** "
        f"({_count(rows, 'at', 'its commit')} reverted at their own commit, the tip conflicting)",
        f"- reported lines not from the experiment: **{foreign}** (blame gives them to another "
        "commit than it or a patch-id twin, or they are not committed and not a text it added, "
        "and they hold no name new in the file's code with it)",
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
    parser.add_argument(
        "--reverts",
        nargs="+",
        metavar="R[=E]",
        help="replay these revert commits of the history (each names its experiment E in its "
        "message, or write R=E) instead of reverting recent commits",
    )
    parser.add_argument(
        "--commits",
        nargs="+",
        metavar="C",
        help="take these commits as the experiments (reverted at the tip) instead of recent ones",
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
    pairs = (
        revert_pairs(repo, args.reverts)
        if args.reverts
        else [
            ("", git(repo, "rev-parse", "--verify", f"{sha}^{{commit}}").strip())
            for sha in args.commits or experiments(repo, args.limit)
        ]
    )
    for revert, sha in pairs:
        if revert:
            row = replay_revert(scratch, tip, revert, sha, args.hunks)
        else:
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
    text = render(rows, repo=repo, tip=tip, command=command.strip(), real=bool(args.reverts))
    args.out.write_text(text)
    print(text)
    return 1 if args.strict and not passed(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
