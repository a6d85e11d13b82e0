"""Every pin of this repository in the README, the docs, ``action.yml``'s and the hooks'
comments and the examples is a release tag whose tree has what the example uses (pins.py);
the repository's URL is the one ``pyproject.toml`` names.

The checker is tested on a throwaway repository with its own tags (tags are shared by every
worktree of this repository: a test never makes one here); the real test reads this
repository's tags, and fails under ``CI=true`` when a pinned tag does not exist yet.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from needs import unavailable
from pins import Pin, check_pins, iter_pins, recorded_releases

import pytest_cleantree

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
SLUG = "pytest-cleantree/pytest-cleantree"
ACTION = """\
name: x
inputs:
  manifest: {description: m}
  args: {description: a}
runs: {using: composite, steps: []}
"""
HOOKS = "- id: cleantree\n  entry: cleantree check\n  language: python\n"


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True, timeout=60
    ).stdout.strip()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A repository whose tag v1.0.0 (annotated) has the action, the hook and ``--exclude``;
    ``--changed-since`` comes in a commit after it, ``lightweight`` is a plain tag."""
    repo = tmp_path / "project"
    (repo / "pytest_cleantree").mkdir(parents=True)
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "t@example.com")
    git(repo, "config", "user.name", "t")
    (repo / "action.yml").write_text(ACTION)
    (repo / ".pre-commit-hooks.yaml").write_text(HOOKS)
    (repo / "pytest_cleantree" / "options.py").write_text('FLAGS = ["--exclude"]\n')
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "one")
    git(repo, "tag", "-a", "v1.0.0", "-m", "v1.0.0")
    (repo / "pytest_cleantree" / "options.py").write_text(
        'FLAGS = ["--exclude", "--changed-since"]\n'
    )
    git(repo, "commit", "-qam", "two")
    git(repo, "tag", "lightweight")
    return repo


def check(
    project: Path, text: str, name: str = "README.md", recorded: dict[str, str] | None = None
) -> list[str]:
    path = project / name
    path.write_text(text)
    return [str(problem) for problem in check_pins(project, [path], SLUG, recorded)]


def step(ref: str, with_: str = "") -> str:
    return f"```yaml\n- uses: {SLUG}@{ref}\n{with_}```\n"


def test_a_release_tag_with_the_inputs_and_flags_used_holds(project: Path) -> None:
    text = step("v1.0.0", "  with:\n    manifest: m.toml\n    args: --exclude test/\n")
    text += f'`pip install "pytest-cleantree @ git+https://github.com/{SLUG}@v1.0.0"`\n'
    assert check(project, text) == []


@pytest.mark.parametrize(
    ("ref", "why"),
    [
        ("v2.0.0", "README.md: pins v2.0.0, which is no tag of this repository"),
        ("lightweight", "README.md: pins lightweight, a lightweight tag: not a release"),
        ("main", "README.md: pins main, which is no tag of this repository"),
    ],
)
def test_a_ref_that_is_not_a_release_tag_is_named(project: Path, ref: str, why: str) -> None:
    (problem,) = check(project, step(ref))
    assert problem.startswith(why)


def test_a_commit_sha_is_not_a_tag(project: Path) -> None:
    sha = git(project, "rev-parse", "HEAD")
    (problem,) = check(project, step(sha))
    assert problem.startswith(f"README.md: pins {sha}, which is no tag")


def test_what_the_example_uses_is_read_from_the_tags_tree(project: Path) -> None:
    """``--changed-since`` exists at HEAD, not at v1.0.0: the pin is what runs."""
    text = step("v1.0.0", "  with:\n    python: python3\n    args: --changed-since main\n")
    assert check(project, text) == [
        "README.md: input 'python': not in v1.0.0",
        "README.md: --changed-since: no such option in v1.0.0",
    ]


def test_without_the_tag_the_recorded_commit_is_what_runs(project: Path) -> None:
    """A clone of the branch alone has no tags: the release record names the tag's commit,
    and what the example uses is read from that commit's tree."""
    one = git(project, "rev-parse", "v1.0.0^{commit}")
    git(project, "tag", "-d", "v1.0.0")
    text = step("v1.0.0", "  with:\n    args: --exclude x --changed-since main\n")
    assert check(project, text, recorded={"v1.0.0": one}) == [
        "README.md: --changed-since: no such option in v1.0.0",
    ]
    (unrecorded,) = check(project, text)
    assert unrecorded.startswith("README.md: pins v1.0.0, which is no tag")
    foreign = "0" * 40
    assert check(project, step("v1.0.0"), recorded={"v1.0.0": foreign}) == [
        f"README.md: pins v1.0.0, recorded at {foreign}, which this history does not hold"
    ]


def test_a_record_that_disagrees_with_the_tag_is_named(project: Path) -> None:
    head = git(project, "rev-parse", "HEAD")
    one = git(project, "rev-parse", "v1.0.0^{commit}")
    assert check(project, step("v1.0.0"), recorded={"v1.0.0": one}) == []
    assert check(project, step("v1.0.0"), recorded={"v1.0.0": head}) == [
        f"README.md: tag v1.0.0 tags {one}, the release record says {head}"
    ]


def test_a_pre_commit_pin_in_a_comment_is_checked(project: Path) -> None:
    text = (
        "# a hook\n#\n#   repos:\n"
        f"#     - repo: https://github.com/{SLUG}\n"
        "#       rev: v1.0.0\n#       hooks:\n#         - id: cleantree-all\n"
        "#           args: [--no-such-flag]\n#\n- id: x\n"
    )
    assert check(project, text, ".pre-commit-hooks.yaml") == [
        ".pre-commit-hooks.yaml: hook 'cleantree-all': not in v1.0.0",
        ".pre-commit-hooks.yaml: --no-such-flag: no such option in v1.0.0",
    ]


def test_another_owner_and_an_unparsed_pin_are_named(project: Path) -> None:
    text = f"uses: OWNER/pytest-cleantree@v1.0.0 and `uses: {SLUG}@v1.0.0` in prose\n"
    assert check(project, text) == [
        f"README.md: names OWNER/pytest-cleantree, not {SLUG} (pyproject's URL)",
        f"README.md: a `uses: {SLUG}@...` is not in a YAML block or comment",
    ]


# ---------------------------------------------------------------- this repository


def pinned_files() -> list[Path]:
    """Where a user copies a pin from."""
    files = [REPO / "README.md", REPO / "action.yml", REPO / ".pre-commit-hooks.yaml"]
    files += sorted((REPO / "docs").glob("*.md"))
    files += sorted(p for p in (REPO / "pytest_cleantree" / "examples").rglob("*") if p.is_file())
    return [p for p in files if p.suffix in (".md", ".yml", ".yaml", ".sh", ".toml")]


def repository_slug() -> str:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    homepage: str = project["project"]["urls"]["Homepage"]
    assert homepage.startswith("https://github.com/")
    return homepage.removeprefix("https://github.com/")


def test_the_repository_url_is_pyprojects_everywhere() -> None:
    slug = repository_slug()
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    for url in project["project"]["urls"].values():
        assert url.startswith(f"https://github.com/{slug}"), url
    for path in [*pinned_files(), REPO / "CHANGELOG.md", REPO / "pyproject.toml"]:
        text = path.read_text(encoding="utf-8")
        assert "OWNER/" not in text, path
        for named in re.findall(r"github\.com/([^/\s]+/pytest-cleantree)\b", text):
            assert named == slug, f"{path.name}: github.com/{named}"


def test_every_pin_is_a_release_tag_with_what_the_example_uses() -> None:
    slug = repository_slug()
    if not (REPO / ".git").exists():
        unavailable("not a git checkout (an unpacked sdist): no tags to hold the pins to")
    problems = check_pins(REPO, pinned_files(), slug, release_record())
    missing = sorted({p.ref for p in problems if p.missing_tag})
    others = [str(p) for p in problems if not p.missing_tag]
    assert others == []
    if missing:
        how = "; ".join(f"git tag -a {ref} -m 'pytest-cleantree {ref}' <commit>" for ref in missing)
        unavailable(
            f"the pinned releases {missing} are neither tags here nor in the release record: "
            f"{how}, then record it (docs/releasing.md)"
        )


def release_record() -> dict[str, str]:
    return recorded_releases((REPO / "docs" / "releasing.md").read_text(encoding="utf-8"))


def test_the_release_record_names_changelog_versions() -> None:
    """Each recorded tag is a version with a CHANGELOG section (the record is not free text)."""
    record = release_record()
    assert f"v{pytest_cleantree.__version__}" in record
    changelog = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    for tag in record:
        assert f"## [{tag.removeprefix('v')}] - " in changelog, tag


def test_the_pins_name_the_current_version() -> None:
    """A release pins itself: the docs of version X tell users to pin vX."""
    pins = iter_pins(pinned_files(), REPO, repository_slug())
    refs = [pin.ref for pin in pins if isinstance(pin, Pin)]
    assert len(refs) >= 6, refs  # README (action, hook, pip), action.yml, hooks, ci example
    assert set(refs) == {f"v{pytest_cleantree.__version__}"}
