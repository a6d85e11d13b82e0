"""The I/O at the edge of the revert guard: read-only git (``diff``, ``log``, ``cat-file``,
``rev-list``, ``blame``, ``rev-parse``) and the tree a patch is worked out against.

``derive_manifest_for_revert`` (``check --reverted``) lives here: its experiment lines are
what git blame of the work tree still gives to the change.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_cleantree.core.model import Manifest

from .apply import ChangedFile, resolve_images
from .blame import experiment_lines_now, undone
from .diff import FromDiffError, Status, parse_unified_diff, special_file
from .gitcmd import Range, resolve_range, run_git
from .plan import Plan, line_counts, plan_changes, root_folder, rules_from_plan
from .text import decode_text

__all__ = [
    "NOTHING_CHANGED",
    "RevertCheck",
    "derive_manifest_for_revert",
    "derive_revert_check",
    "experiment_lines_now",
    "images_from_patch",
    "images_from_rev",
    "repository_top",
    "twin_commits",
]


#: what a range whose diff is empty (a file added then removed, renamed there and back) is
NOTHING_CHANGED = "changes nothing (git diff is empty)"


@dataclass(frozen=True)
class RevertCheck:
    """What ``check --reverted`` runs: the derived manifest, and ``(path, why)`` for what
    it could not check (a range that changes nothing, a path a rule cannot name ...)."""

    manifest: Manifest
    unchecked: tuple[tuple[str, str], ...] = ()


def images_from_rev(
    spec: str, repo: Path | str = ".", *, empty_ok: bool = False
) -> tuple[list[ChangedFile], str]:
    """The files a git range (or commit) changed, with their contents; and a ``why`` for it.
    A range that changes nothing is an error, unless ``empty_ok`` (then none)."""
    revs = resolve_range(Path(repo), spec)
    return _images_from_range(Path(repo), spec, revs, empty_ok=empty_ok), revs.why


def _images_from_range(
    repo: Path, spec: str, revs: Range, *, empty_ok: bool = False
) -> list[ChangedFile]:
    diff = run_git(
        repo,
        "diff",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--no-relative",
        "-M",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        revs.old,
        revs.new,
        "--",
    )
    if not diff.strip():
        if empty_ok:
            return []
        raise FromDiffError(f"{spec}: {NOTHING_CHANGED}")
    changes = parse_unified_diff(decode_text(diff), source=f"git diff {spec}")
    files = []
    for change in changes:
        before = after = None
        if not change.binary and not special_file(change):
            if change.old_path is not None and change.status is not Status.COPIED:
                before = run_git(repo, "cat-file", "blob", f"{revs.old}:{change.old_path}")
            if change.new_path is not None and change.status is Status.MODIFIED:
                after = run_git(repo, "cat-file", "blob", f"{revs.new}:{change.new_path}")
        files.append(ChangedFile(change, before, after))
    return files


def images_from_patch(
    text: str, tree: Path | str = ".", *, source: str = "<diff>", strip: int | None = None
) -> list[ChangedFile]:
    """The files a patch changes, with contents worked out against the tree at ``tree``."""
    base = Path(tree)

    def read(path: str) -> bytes | None:
        try:
            return (base / path).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError as exc:
            raise FromDiffError(f"{path}: cannot read from {base}: {exc.strerror}") from None

    return resolve_images(parse_unified_diff(text, source=source, strip=strip), read)


def repository_top(repo: Path | str = ".") -> Path:
    """The top folder of the git work tree containing ``repo``."""
    return Path(run_git(Path(repo), "rev-parse", "--show-toplevel").decode().strip())


def derive_manifest_for_revert(
    commit: str,
    repo: Path | str = ".",
    *,
    expect_removed: bool = False,
    text_rules: bool = True,
    under: str = "",
) -> Manifest:
    """The manifest saying that ``commit`` (or a range ``A..B``) is fully reverted.

    The experiment's own lines are the ground truth: each file it changed gets an
    ``experiment-lines-...`` rule forbidding, each pinned to its line, the lines of the
    work tree (uncommitted edits included) that are the experiment's: see
    :func:`experiment_lines_now` (its commits are those of the range, and those whose
    ``git patch-id`` is one of theirs); and an ``introduced-names-...`` rule forbidding,
    on any line, the code names it introduced there.  A file it only removed lines from
    must have them back (``removed-lines-...``).  A merge commit is taken against its
    first parent: the
    experiment is everything the merge brought in.  Files it added must be absent; files
    it deleted must exist again (a missing one is a violation).

    Its root is the repository's top folder (or ``under``, relative to it), so it checks
    the work tree as it is now; its path is a name under that folder, for messages.
    Raises :class:`FromDiffError` (a ``CleanTreeError``).
    """
    return derive_revert_check(
        commit, repo, expect_removed=expect_removed, text_rules=text_rules, under=under
    ).manifest


def derive_revert_check(
    commit: str,
    repo: Path | str = ".",
    *,
    expect_removed: bool = False,
    text_rules: bool = True,
    under: str = "",
) -> RevertCheck:
    """:func:`derive_manifest_for_revert`'s manifest, with what it could not check: a
    change that leaves no trace (a range whose diff is empty) is a manifest without rules
    that says so, not an error."""
    top = repository_top(repo)
    revs = resolve_range(top, commit)
    commits = _range_commits(top, revs)
    images = _images_from_range(top, commit, revs, empty_ok=True)
    commits |= _twins(top, revs, commits, _changed_paths(images))
    # renamed since: like the file before the experiment (reverted) or after it (still in)
    moved = {} if revs.root else _moved_since(top, revs.old)
    images = _followed(images, {**moved, **_moved_since(top, revs.new)})

    afters = {image.change.path: image.after for image in images}

    def blame(
        path: str, introduced: frozenset[str], before: bytes | None, blanks: bool
    ) -> list[tuple[int, str]]:
        return experiment_lines_now(
            top,
            path,
            commits,
            revs.bounds,
            introduced=introduced,
            before=before,
            after=afters.get(path),
            blanks=blanks,
        )

    plan = plan_changes(
        images,
        expect_removed=expect_removed,
        text_rules=text_rules,
        under=under,
        blame=blame,
        allow_empty=True,
    )
    _lower_undone_counts(plan, top, images, root_folder(under))
    root = root_folder(under).rstrip("/")
    manifest = Manifest(
        str(top / f"<reverted {revs.short}>"), root, rules_from_plan(plan, why=revs.why)
    )
    unchecked = sorted(set(plan.notes)) or ([] if images else [(commit, NOTHING_CHANGED)])
    return RevertCheck(manifest, tuple(unchecked))


def _lower_undone_counts(plan: Plan, top: Path, images: Sequence[ChangedFile], prefix: str) -> None:
    """A line the experiment removed is expected back at its count before it, but no more
    than the file holds when reverting the experiment once more would leave it as it is
    (:func:`.blame.undone`): there every line it removed is back where it stood, and a count
    below the old one is later history's (a later commit removed another line of that
    text, issue 43)."""
    counted = {
        rule.path: index for index, rule in enumerate(plan.rules) if rule.action == "removed"
    }
    for image in images:
        path = image.change.path
        index = counted.get(path[len(prefix) :]) if path.startswith(prefix) else None
        if index is None or image.before is None or image.after is None:
            continue
        file = top / path
        if not file.is_file():
            continue
        data = file.read_bytes()
        if _committed(top, path, data) and undone(data, image.after, image.before):
            now = line_counts(path, data)
            rule = plan.rules[index]
            expect = tuple(_at_most(pattern, now) for pattern in rule.expect)
            plan.rules[index] = dataclasses.replace(rule, expect=expect)


def _committed(top: Path, path: str, data: bytes) -> bool:
    """Are the work tree's bytes of ``path`` those of HEAD?  Lines removed again by hand
    (not committed) are counted as before."""
    try:
        return run_git(top, "cat-file", "blob", f"HEAD:{path}") == data
    except FromDiffError:
        return False


def _at_most(pattern: str, now: Counter[str]) -> str:
    """A counted ``line:TEXT`` / ``line*N:TEXT`` pattern asking no more than ``now`` holds."""
    found = _COUNTED.fullmatch(pattern)
    if found is None:
        return pattern
    count, text = int(found.group(1) or 1), found.group(2)
    if now[text] >= count:
        return pattern
    return f"line:{text}" if now[text] == 1 and text else f"line*{now[text]}:{text}"


_COUNTED = re.compile(r"line(?:\*(\d+))?:(.*)", re.S)


def _moved_since(top: Path, commit: str) -> dict[str, str]:
    """The files renamed since ``commit`` in the work tree (tracked ones): old -> new path."""
    out = run_git(top, "diff", "-M", "--name-status", "-z", "--no-ext-diff", commit, "--")
    fields = out.decode("utf-8", "surrogateescape").split("\0")
    moved: dict[str, str] = {}
    index = 0
    while index < len(fields) - 1:
        status = fields[index]
        if status.startswith(("R", "C")):
            if status.startswith("R"):
                moved[fields[index + 1]] = fields[index + 2]
            index += 3
        else:
            index += 2
    return moved


def _followed(images: Sequence[ChangedFile], moved: dict[str, str]) -> list[ChangedFile]:
    """Each file the experiment added or modified, under the name it has now: a later
    rename does not hide a leftover (nor make a file it added look absent)."""
    followed = []
    for image in images:
        change = image.change
        now = moved.get(change.new_path or "")
        if now is not None and change.status in (Status.ADDED, Status.MODIFIED):
            image = dataclasses.replace(image, change=dataclasses.replace(change, new_path=now))
        followed.append(image)
    return followed


def _paths(image: ChangedFile) -> tuple[str, ...]:
    change = image.change
    return tuple(path for path in (change.old_path, change.new_path) if path is not None)


def twin_commits(commit: str, repo: Path | str = ".") -> set[str]:
    """The commits since the experiment's base (on ``HEAD`` or its own branch) whose ``git
    patch-id`` is one of its commits': a revert of its revert, a cherry-pick of it.  They
    count as the experiment."""
    top = repository_top(repo)
    revs = resolve_range(top, commit)
    commits = _range_commits(top, revs)
    return _twins(top, revs, commits, _changed_paths(_images_from_range(top, commit, revs)))


def _range_commits(top: Path, revs: Range) -> set[str]:
    return set(run_git(top, "rev-list", *revs.bounds, revs.new, "--").decode().split())


def _changed_paths(images: Sequence[ChangedFile]) -> list[str]:
    return sorted({path for image in images for path in _paths(image)})


def _twins(top: Path, revs: Range, commits: set[str], paths: Sequence[str]) -> set[str]:
    """:func:`twin_commits`, the range resolved: only ``paths`` are compared."""
    if not paths:
        return set()
    heads = {revs.new, run_git(top, "rev-parse", "HEAD").decode().strip()}
    log = run_git(
        top,
        "log",
        "-p",
        "--no-merges",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--format=commit %H",
        *sorted(heads),
        *revs.bounds,
        "--",
        *paths,
    )
    if not log.strip():
        return set()
    ids: dict[str, set[str]] = {}
    for row in run_git(top, "patch-id", "--stable", stdin=log).decode().split("\n"):
        if row.strip():
            patch_id, sha = row.split()
            ids.setdefault(patch_id, set()).add(sha)
    own = {patch_id for patch_id, shas in ids.items() if shas & commits}
    return {sha for patch_id in own for sha in ids[patch_id]} - commits
