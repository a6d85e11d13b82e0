"""The whole-answer store's own rules: what it refuses to key, and what its signature sees."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pytest_cleantree.run import answers
from pytest_cleantree.run.answers import Answer, ask_warm, canonical, tree_signature

MANIFEST = 'root = "."\n[[rule]]\nid = "r"\nfiles = ["**/*.py"]\nforbid = ["sm120"]\n'

PLAIN = {"command": "check", "manifest": None, "root": None, "exclude": [], "format": "text"}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    folder = tmp_path / "tree"
    (folder / "pkg").mkdir(parents=True)
    (folder / "cleantree.toml").write_text(MANIFEST)
    (folder / "pkg" / "a.py").write_text("x = 1\n")
    return folder


def ask(tree: Path, tmp_path: Path, manifest: str = MANIFEST, **options: object) -> object:
    (tree / "cleantree.toml").write_text(manifest)
    env = {"CLEANTREE_CACHE_DIR": str(tmp_path / "cache")}
    return ask_warm({**PLAIN, **options}, tree / "cleantree.toml", str(tree), env, False)


def test_a_plain_local_check_has_a_warm_question(tree: Path, tmp_path: Path) -> None:
    assert ask(tree, tmp_path) is not None


@pytest.mark.parametrize(
    "option",
    [
        {"files": ["pkg/a.py"]},
        {"changed_since": "HEAD"},
        {"reverted": "HEAD"},
        {"host": ["gpu"]},
        {"inventory": Path("hosts.ini")},
        {"group": ["g"]},
        {"json_output": Path("out.json")},
        {"sarif_output": Path("out.sarif")},
        {"no_cache": True},
        {"an_option_added_later": 1},
    ],
)
def test_runs_on_git_hosts_or_writing_files_are_always_full(
    option: dict[str, object], tree: Path, tmp_path: Path
) -> None:
    assert ask(tree, tmp_path, **option) is None


@pytest.mark.parametrize(
    "manifest",
    [
        'root = "module:json"\n[[rule]]\nid = "r"\nfiles = ["*.py"]\nforbid = ["x"]\n',
        'allow_outside_root = true\n[[rule]]\nid = "r"\nfiles = ["../*.py"]\nforbid = ["x"]\n',
    ],
    ids=["module root", "allow_outside_root"],
)
def test_roots_outside_the_walk_are_always_full(manifest: str, tree: Path, tmp_path: Path) -> None:
    assert ask(tree, tmp_path, manifest) is None


def test_no_cache_folder_no_warm_answer(tree: Path) -> None:
    env = {"CLEANTREE_CACHE_DIR": ""}
    assert ask_warm(PLAIN, tree / "cleantree.toml", str(tree), env, False) is None


def test_an_answer_is_not_kept_while_the_tree_is_racy(
    tree: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a window no machine outlasts between writing the tree and asking (2 s can be, loaded)
    monkeypatch.setattr(answers, "RACY_NS", 86_400 * 10**9)
    question = ask(tree, tmp_path)
    assert isinstance(question, answers.WarmQuestion)
    assert question.newest >= question.since - answers.RACY_NS  # just written
    assert question.keep(Answer(0, None)) is False
    assert question.lookup() is None


def test_a_kept_answer_is_found_for_the_same_state_only(tree: Path, tmp_path: Path) -> None:
    question = ask(tree, tmp_path)
    assert isinstance(question, answers.WarmQuestion)
    old = question.since - answers.RACY_NS - 1
    aged = answers.WarmQuestion(**{**question.__dict__, "newest": old})
    assert aged.keep(Answer(1, "report"))
    assert aged.lookup() == Answer(1, "report")
    (tree / "pkg" / "b.py").write_text("")
    again = ask(tree, tmp_path)
    assert isinstance(again, answers.WarmQuestion)
    assert again.file == question.file
    assert again.lookup() is None


def test_a_manifest_rewritten_during_the_run_keeps_nothing(tree: Path, tmp_path: Path) -> None:
    question = ask(tree, tmp_path)
    assert isinstance(question, answers.WarmQuestion)
    aged = answers.WarmQuestion(**{**question.__dict__, "newest": 0})
    (tree / "cleantree.toml").write_text(MANIFEST + "# changed\n")
    assert aged.keep(Answer(0, None)) is False


def test_the_signature_sees_dot_folders_only_where_the_walk_enters(tmp_path: Path) -> None:
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "a.py").write_text("")
    plain = tree_signature(str(tmp_path), ["**/*.py"])[0]
    named = tree_signature(str(tmp_path), [".hidden/*.py"])[0]
    (tmp_path / ".hidden" / "b.py").write_text("")
    assert tree_signature(str(tmp_path), ["**/*.py"])[0] == plain  # the walk does not enter
    assert tree_signature(str(tmp_path), [".hidden/*.py"])[0] != named


def test_the_signature_sees_a_literal_entry_appear(tmp_path: Path) -> None:
    before = tree_signature(str(tmp_path), [".env/x.py"])[0]
    (tmp_path / ".env").mkdir()
    (tmp_path / ".env" / "x.py").write_text("")
    assert tree_signature(str(tmp_path), [".env/x.py"])[0] != before


def test_a_link_out_of_the_root_is_recorded_not_followed(tmp_path: Path) -> None:
    outside, root = tmp_path / "out", tmp_path / "root"
    outside.mkdir()
    root.mkdir()
    (root / "link").symlink_to(outside)
    before = tree_signature(str(root), ["**/*.py"])[0]
    (outside / "x.py").write_text("")
    assert tree_signature(str(root), ["**/*.py"])[0] == before
    os.unlink(root / "link")
    (root / "link").symlink_to(tmp_path)
    assert tree_signature(str(root), ["**/*.py"])[0] != before


def test_canonical_is_the_same_whatever_the_set_order() -> None:
    assert canonical(frozenset({"b", "a", "c"})) == ["a", "b", "c"]
    assert canonical({"k": {2, 1}}) == [["k", [1, 2]]]
