"""The I/O at the edge of the revert guard: read-only git (``diff``, ``log``, ``cat-file``,
``rev-list``, ``blame``, ``rev-parse``) and the tree a patch is worked out against.

``derive_manifest_for_revert`` (``check --reverted``) lives here: its experiment lines are
what git blame of the work tree still gives to the change.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_cleantree.analysis import split_lines
from pytest_cleantree.core.model import Manifest

from .apply import ChangedFile, resolve_images
from .diff import FromDiffError, Status, parse_unified_diff, special_file
from .plan import Plan, line_counts, plan_changes, root_folder, rules_from_plan
from .text import checked_text, decode_text

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


def _git(repo: Path, *args: str, stdin: bytes | None = None) -> bytes:
    """Run a read-only git command; its failure is a :class:`FromDiffError` with git's words."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "GIT_PAGER": "cat", "LC_ALL": "C"}
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *args],
            input=stdin,
            capture_output=True,
            check=False,
            env=env,
        )
    except FileNotFoundError:
        raise FromDiffError("git is not installed (or not on PATH)") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip() or f"exit code {done.returncode}"
        command = " ".join(args if len(args) <= 4 else args[:2])  # not a whole diff command line
        raise FromDiffError(f"git {command}: {message}")
    return done.stdout


def _rev_parse(repo: Path, rev: str) -> str:
    if not rev or rev.startswith("-"):
        raise FromDiffError(f"{rev!r} is not a revision")
    try:
        return _git(repo, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").decode().strip()
    except FromDiffError:
        raise FromDiffError(f"{rev!r}: no such commit in {repo}{_shallow(repo)}") from None


def _cut_at(repo: Path, commit: str) -> bool:
    """Is ``commit`` where a shallow clone's history is cut (it has parents, not here)?"""
    try:
        shallow = Path(_git(repo, "rev-parse", "--git-path", "shallow").decode().strip())
    except FromDiffError:
        return False
    shallow = shallow if shallow.is_absolute() else repo / shallow
    try:
        return commit in shallow.read_text().split()
    except OSError:
        return False


def _shallow(repo: Path) -> str:
    """What to say of a missing commit when the clone is shallow: its history is cut."""
    try:
        shallow = _git(repo, "rev-parse", "--is-shallow-repository").strip() == b"true"
    except FromDiffError:
        return ""
    if not shallow:
        return ""
    return (
        ": the repository is a shallow clone, its history is cut; fetch all of it "
        "(`git fetch --unshallow`, or `fetch-depth: 0` for actions/checkout)"
    )


@dataclass(frozen=True)
class _Range:
    old: str  # a commit, or the empty tree for a root commit
    new: str
    short: str  # the abbreviated ``new``
    why: str
    root: bool = False  # ``old`` is the empty tree

    @property
    def bounds(self) -> tuple[str, ...]:
        """What limits a history walk to the range: ``^old``, nothing for a root commit."""
        return () if self.root else (f"^{self.old}",)


def _resolve_range(repo: Path, spec: str) -> _Range:
    """``A..B``, ``A...B`` (from their merge base) or one commit ``C`` (``C^..C``; a merge
    against its first parent)."""
    root = False
    if "..." in spec:
        left, right = spec.split("...", 1)
        new = _rev_parse(repo, right or "HEAD")
        old = _git(repo, "merge-base", _rev_parse(repo, left or "HEAD"), new).decode().strip()
    elif ".." in spec:
        left, right = spec.split("..", 1)
        old, new = _rev_parse(repo, left or "HEAD"), _rev_parse(repo, right or "HEAD")
    else:
        new = _rev_parse(repo, spec)
        try:
            old = _git(repo, "rev-parse", "--verify", "--quiet", f"{new}^").decode().strip()
        except FromDiffError:  # a root commit: compare with the empty tree
            if _cut_at(repo, new):
                raise FromDiffError(
                    f"{spec!r}: its parent is not in {repo}{_shallow(repo)}"
                ) from None
            old = _git(repo, "hash-object", "-t", "tree", "--stdin", stdin=b"").decode().strip()
            root = True
    subject = _git(repo, "log", "-1", "--format=%s", new).decode("utf-8", "replace").strip()
    short = _git(repo, "rev-parse", "--short", new).decode().strip()
    if ".." in spec:
        short_old = _git(repo, "rev-parse", "--short", old).decode().strip()
        count = int(_git(repo, "rev-list", "--count", f"{old}..{new}").decode())
        commits = f", {count} commits up to" if count > 1 else ""
        why = f'{spec} ({short_old}..{short}{commits}) "{subject}"'
    else:
        label = short if spec == short else f"{spec} ({short})"
        why = f'{label} "{subject}"'
    return _Range(old, new, short, why, root)


def images_from_rev(
    spec: str, repo: Path | str = ".", *, empty_ok: bool = False
) -> tuple[list[ChangedFile], str]:
    """The files a git range (or commit) changed, with their contents; and a ``why`` for it.
    A range that changes nothing is an error, unless ``empty_ok`` (then none)."""
    revs = _resolve_range(Path(repo), spec)
    return _images_from_range(Path(repo), spec, revs, empty_ok=empty_ok), revs.why


def _images_from_range(
    repo: Path, spec: str, revs: _Range, *, empty_ok: bool = False
) -> list[ChangedFile]:
    diff = _git(
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
                before = _git(repo, "cat-file", "blob", f"{revs.old}:{change.old_path}")
            if change.new_path is not None and change.status is Status.MODIFIED:
                after = _git(repo, "cat-file", "blob", f"{revs.new}:{change.new_path}")
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
    return Path(_git(Path(repo), "rev-parse", "--show-toplevel").decode().strip())


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
    revs = _resolve_range(top, commit)
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
    (:func:`_undone`): there every line it removed is back where it stood, and a count
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
        if _committed(top, path, data) and _undone(data, image.after, image.before):
            now = line_counts(path, data)
            rule = plan.rules[index]
            expect = tuple(_at_most(pattern, now) for pattern in rule.expect)
            plan.rules[index] = dataclasses.replace(rule, expect=expect)


def _committed(top: Path, path: str, data: bytes) -> bool:
    """Are the work tree's bytes of ``path`` those of HEAD?  Lines removed again by hand
    (not committed) are counted as before."""
    try:
        return _git(top, "cat-file", "blob", f"HEAD:{path}") == data
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
    out = _git(top, "diff", "-M", "--name-status", "-z", "--no-ext-diff", commit, "--")
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


_BLAME_HEADER = re.compile(rb"([0-9a-f]{40,64}) [0-9]+ ([0-9]+)(?: [0-9]+)?")


def twin_commits(commit: str, repo: Path | str = ".") -> set[str]:
    """The commits since the experiment's base (on ``HEAD`` or its own branch) whose ``git
    patch-id`` is one of its commits': a revert of its revert, a cherry-pick of it.  They
    count as the experiment."""
    top = repository_top(repo)
    revs = _resolve_range(top, commit)
    commits = _range_commits(top, revs)
    return _twins(top, revs, commits, _changed_paths(_images_from_range(top, commit, revs)))


def _range_commits(top: Path, revs: _Range) -> set[str]:
    return set(_git(top, "rev-list", *revs.bounds, revs.new, "--").decode().split())


def _changed_paths(images: Sequence[ChangedFile]) -> list[str]:
    return sorted({path for image in images for path in _paths(image)})


def _twins(top: Path, revs: _Range, commits: set[str], paths: Sequence[str]) -> set[str]:
    """:func:`twin_commits`, the range resolved: only ``paths`` are compared."""
    if not paths:
        return set()
    heads = {revs.new, _git(top, "rev-parse", "HEAD").decode().strip()}
    log = _git(
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
    for row in _git(top, "patch-id", "--stable", stdin=log).decode().split("\n"):
        if row.strip():
            patch_id, sha = row.split()
            ids.setdefault(patch_id, set()).add(sha)
    own = {patch_id for patch_id, shas in ids.items() if shas & commits}
    return {sha for patch_id in own for sha in ids[patch_id]} - commits


def experiment_lines_now(
    top: Path,
    path: str,
    commits: set[str],
    bounds: Sequence[str] = (),
    *,
    introduced: frozenset[str] = frozenset(),
    before: bytes | None = None,
    after: bytes | None = None,
    blanks: bool = False,
) -> list[tuple[int, str]]:
    """The lines of the work tree's ``path`` that are the experiment's now: ``(line, text
    stripped)``, blank lines left out unless ``blanks`` (a change of blank lines alone);
    none for a missing file.

    Blame decides committed lines, both ways.  A committed line is the experiment's when
    git blame gives it to one of ``commits`` (the experiment's, and their ``git patch-id``
    twins: a cherry-pick, a revert of the revert), whether or not its text is new: a line
    the experiment wrote where its parent had the same text elsewhere in the file
    (``backend: str = "auto",`` given to one more function), or a line it moved, is its
    line.  A file whose bytes are again those it had before the experiment (``before``)
    holds none: git may still give a moved line to the experiment after a revert that
    restored the file byte for byte (a swap of two lines, diffed the other way round);
    nor do the committed lines of one that reverting the experiment once more would leave
    as it is (``after``: its bytes with the experiment; a revert at the tip after later
    commits).
    A line another commit wrote is not the experiment's, whatever its text (``import
    warnings`` added again by a later refactoring): it is a leftover only when it holds a
    name the experiment introduced, which the ``introduced-names`` rule finds.  A line not
    committed (the work tree: a line re-applied by hand) is the experiment's when its text
    is one the experiment added that its parent did not have (``introduced``).  ``bounds``
    (``^BASE``) stops the walk where the experiment starts: lines older than it cannot be
    the experiment's.  The text pinned is the file decoded as the check decodes it, so a
    pinned line matches itself.
    """
    file = top / path
    if not file.is_file():
        return []
    data = file.read_bytes()
    if data == before:
        return []  # restored byte for byte: nothing of the experiment is left in it
    # committed lines only: a line re-applied by hand is found by its text (issue 24)
    undone = before is not None and after is not None and _undone(data, after, before)
    blamed = _blamed(_git(top, "blame", "--porcelain", *bounds, "--", path), commits)
    lines = split_lines(checked_text(path, data))
    same = len(lines) - (lines[-1] == "") == blamed.count  # else: line breaks git ignores
    found = []
    for number, line in sorted(blamed.lines.items()):
        text = (lines[number - 1] if same else decode_text(line.raw)).strip()
        if undone and line.committed:
            continue
        if (text or blanks) and _experiment_line(line, text, introduced):
            found.append((number, text))
    return found


def _undone(data: bytes, after: bytes, before: bytes) -> bool:
    """Would reverting the experiment once more leave ``data`` as it is?

    ``git merge-file`` brings the experiment's change of the file undone (``after`` to
    ``before``) into ``data``, as ``git revert`` does.  A merge without conflicts that
    changes nothing means no line of the experiment stands where it wrote it: what git
    blame then gives to the experiment is an equal line its revert's diff aligned the
    other way (``#pragma unroll`` or ``}`` kept from the experiment's copy).  A line of
    the experiment still there, or written again by hand, would be taken out: not undone.
    """
    env = {**os.environ, "LC_ALL": "C"}
    with tempfile.TemporaryDirectory(prefix="cleantree-undone-") as folder:
        files = []
        for name, content in (("now", data), ("with", after), ("without", before)):
            file = Path(folder) / name
            file.write_bytes(content)
            files.append(str(file))
        try:
            done = subprocess.run(
                ["git", "merge-file", "-p", "--quiet", *files],
                capture_output=True,
                check=False,
                env=env,
            )
        except FileNotFoundError:
            return False
    return done.returncode == 0 and done.stdout == data


def _experiment_line(line: _BlamedLine, text: str, introduced: frozenset[str]) -> bool:
    """Blame first: a committed line is the experiment's when its commits (or twins) wrote
    it; a line not committed yet, when its text is one the experiment added."""
    if line.ours:
        return True
    return not line.committed and text in introduced


@dataclass(frozen=True)
class _BlamedLine:
    """One line as git blame gives it: its bytes, whether one of the experiment's commits
    wrote it (``ours``), and whether any commit did (``committed``: else the work tree)."""

    raw: bytes
    ours: bool
    committed: bool


@dataclass
class _Blamed:
    """What git blame says of each line written since the base."""

    lines: dict[int, _BlamedLine]
    count: int


def _blamed(out: bytes, commits: set[str]) -> _Blamed:
    """Read ``git blame --porcelain``: lines of a boundary commit (the base or older, or a root
    commit) left out, unless it is one of ``commits``."""
    blamed: dict[int, _BlamedLine] = {}
    boundary: set[bytes] = set()
    count, final, sha = 0, 0, b""
    for raw in out.split(b"\n"):
        header = _BLAME_HEADER.fullmatch(raw)
        if header is not None:
            sha, final = header.group(1), int(header.group(2))
        elif raw == b"boundary":
            boundary.add(sha)
        elif raw.startswith(b"\t") and sha:
            count += 1
            ours = sha.decode() in commits  # a root commit is a boundary too, but ours
            if ours or sha not in boundary:
                blamed[final] = _BlamedLine(raw[1:], ours, sha.strip(b"0") != b"")
            sha = b""
    return _Blamed(blamed, count)
