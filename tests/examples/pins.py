"""Pins of this repository in the docs and examples, held to the repository's own tags.

A user copies ``uses: pytest-cleantree/pytest-cleantree@v0.3.0``, ``rev: v0.3.0`` or
``git+https://github.com/pytest-cleantree/pytest-cleantree@v0.3.0`` as written: each ref must
be an annotated tag of the repository (what a release is), and what the example passes with it
(the action's inputs, ``--flags``, hook ids) must exist in *that tag's* tree, read with
``git show TAG:path`` and ``git grep``, not in the checkout's. A clone of the branch alone
(CI's) has no tags: there the release record in ``docs/releasing.md`` names each tag's commit,
and the record is held to the tags wherever both exist.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

#: ``--flag`` as a command line writes it
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


@dataclass(frozen=True)
class Problem:
    """One pin that does not hold; ``missing_tag``: its ref is no tag here (yet)."""

    file: str
    ref: str
    message: str
    missing_tag: bool = False

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"


@dataclass(frozen=True)
class Pin:
    """A ref of this repository named in a file, and what the example uses with it."""

    file: str
    kind: str  # "action" (uses:), "hook" (pre-commit rev:), "pip" (git+https)
    ref: str
    inputs: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    hooks: tuple[str, ...] = ()


def git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, timeout=60, check=False
    )


def yaml_fragments(path: Path) -> Iterator[object]:
    """The YAML a reader copies from a file: a Markdown file's ``yaml`` blocks; a YAML file
    itself and each paragraph of its comments (``#``-only lines end a paragraph)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".md":
        blocks = re.findall(r"```ya?ml\n(.*?)```", text, re.S)
    elif path.suffix in (".yml", ".yaml"):
        blocks = [text, *_comment_paragraphs(text)]
    else:
        blocks = []
    for block in blocks:
        try:
            yield yaml.safe_load(block)
        except yaml.YAMLError:
            continue  # prose in a comment, not something to copy


def _comment_paragraphs(text: str) -> Iterator[str]:
    paragraph: list[str] = []
    for line in [*text.splitlines(), ""]:
        stripped = line.strip()
        if stripped.startswith("#") and stripped != "#":
            paragraph.append(stripped[2:] if stripped.startswith("# ") else stripped[1:])
            continue
        if paragraph:
            yield "\n".join(paragraph)
        paragraph = []


def iter_pins(files: Iterable[Path], base: Path, slug: str) -> Iterator[Pin | Problem]:
    """Each pin of ``slug`` (``owner/name``) in the files; a mention of another owner's
    ``pytest-cleantree`` (``OWNER/``, a fork) or a pin no YAML fragment holds is a problem."""
    owner, name = slug.split("/")
    url = re.escape(f"https://github.com/{slug}")
    for path in files:
        shown = str(path.relative_to(base))
        text = path.read_text(encoding="utf-8")
        for other in re.findall(rf"(?:github\.com/|uses:\s*)([^/\s`\"']+)/{name}\b", text):
            if other != owner:
                yield Problem(shown, "", f"names {other}/{name}, not {slug} (pyproject's URL)")
        structured = list(_structured(yaml_fragments(path), shown, slug))
        yield from structured
        textual = re.findall(rf"uses:\s*{re.escape(slug)}@", text)
        if len(textual) != sum(pin.kind == "action" for pin in structured):
            yield Problem(shown, "", f"a `uses: {slug}@...` is not in a YAML block or comment")
        for ref in re.findall(rf"git\+{url}@([^\s\"'`]+)", text):
            yield Pin(shown, "pip", ref)


def _structured(fragments: Iterable[object], shown: str, slug: str) -> Iterator[Pin]:
    for node in _walk(list(fragments)):
        uses = str(node.get("uses", ""))
        if uses.startswith(f"{slug}@"):
            given = node.get("with") or {}
            yield Pin(
                shown,
                "action",
                uses.split("@", 1)[1],
                inputs=tuple(str(key) for key in given),
                flags=tuple(FLAG.findall(str(given.get("args", "")))),
            )
        if str(node.get("repo", "")).rstrip("/") == f"https://github.com/{slug}":
            hooks = [hook for hook in node.get("hooks") or [] if isinstance(hook, dict)]
            args = " ".join(str(arg) for hook in hooks for arg in hook.get("args") or [])
            yield Pin(
                shown,
                "hook",
                str(node.get("rev", "")),
                flags=tuple(FLAG.findall(args)),
                hooks=tuple(str(hook.get("id")) for hook in hooks),
            )


def _walk(node: object) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


#: a row of the release record: ``| vX.Y.Z | <full commit sha> | YYYY-MM-DD |``
RELEASE_ROW = re.compile(r"^\|\s*(v\d+\.\d+\.\d+)\s*\|\s*([0-9a-f]{40})\s*\|", re.M)


def recorded_releases(text: str) -> dict[str, str]:
    """The release record (``docs/releasing.md``): each release tag and the commit it tags.
    A clone of the branch alone carries no tags; the record, in the tree, does."""
    return dict(RELEASE_ROW.findall(text))


def check_pins(
    repo_dir: Path, files: Iterable[Path], slug: str, recorded: Mapping[str, str] | None = None
) -> list[Problem]:
    """Every problem with the pins of ``slug`` in ``files`` (paths under ``repo_dir``);
    ``recorded``: the release record, which names a tag's commit where the tag is not here."""
    problems: list[Problem] = []
    for pin in iter_pins(files, repo_dir, slug):
        if isinstance(pin, Problem):
            problems.append(pin)
        else:
            problems += _check_pin(repo_dir, pin, recorded or {})
    return problems


def _release_tree(repo: Path, pin: Pin, recorded: Mapping[str, str]) -> tuple[str, list[Problem]]:
    """What to read the pin's tree from: its annotated tag (which must tag the recorded
    commit), else, in a clone without tags, the recorded commit if this history holds it."""
    kind = git(repo, "cat-file", "-t", f"refs/tags/{pin.ref}").stdout.strip()
    commit = recorded.get(pin.ref, "")
    if kind == "tag":
        tagged = git(repo, "rev-parse", f"refs/tags/{pin.ref}^{{commit}}").stdout.strip()
        if commit and tagged != commit:
            why = f"tag {pin.ref} tags {tagged}, the release record says {commit}"
            return "", [Problem(pin.file, pin.ref, why)]
        return pin.ref, []
    if kind:
        return "", [Problem(pin.file, pin.ref, f"pins {pin.ref}, a lightweight tag: not a release")]
    if commit:
        if git(repo, "merge-base", "--is-ancestor", commit, "HEAD").returncode == 0:
            return commit, []
        why = f"pins {pin.ref}, recorded at {commit}, which this history does not hold"
        if git(repo, "rev-parse", "--is-shallow-repository").stdout.strip() == "true":
            why += " (a shallow clone: `git fetch --unshallow`)"
        return "", [Problem(pin.file, pin.ref, why)]
    why = f"pins {pin.ref}, which is no tag of this repository (`git tag -a {pin.ref}`)"
    return "", [Problem(pin.file, pin.ref, why, missing_tag=True)]


def _check_pin(repo: Path, pin: Pin, recorded: Mapping[str, str]) -> list[Problem]:
    tree, problems = _release_tree(repo, pin, recorded)
    if not tree:
        return problems
    if pin.inputs:
        action = yaml.safe_load(git(repo, "show", f"{tree}:action.yml").stdout or "{}")
        for key in sorted(set(pin.inputs) - set(action.get("inputs") or {})):
            problems.append(Problem(pin.file, pin.ref, f"input {key!r}: not in {pin.ref}"))
    if pin.hooks:
        defined = yaml.safe_load(git(repo, "show", f"{tree}:.pre-commit-hooks.yaml").stdout)
        ids = {str(hook.get("id")) for hook in defined or []}
        for hook in sorted(set(pin.hooks) - ids):
            problems.append(Problem(pin.file, pin.ref, f"hook {hook!r}: not in {pin.ref}"))
    for flag in sorted(set(pin.flags)):
        found = git(repo, "grep", "-q", "-F", "-e", f'"{flag}"', tree, "--", "pytest_cleantree")
        if found.returncode != 0:
            problems.append(Problem(pin.file, pin.ref, f"{flag}: no such option in {pin.ref}"))
    return problems
