"""Where the analysis cache lives, and which of its folders and files are read (issue 23)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from pytest_cleantree.analysis import ENGINE_ENV
from pytest_cleantree.run import cachedir
from pytest_cleantree.run.cache import AnalysisStore, CacheChoice, choose_cache_dir
from pytest_cleantree.run.cachedir import untrusted

HOME = "/home/u"
CACHE = "/home/u/.cache/pytest-cleantree"


@pytest.mark.parametrize(
    ("env", "folder", "why"),
    [
        ({"HOME": HOME}, CACHE, ""),
        ({"HOME": HOME, "XDG_CACHE_HOME": "/x"}, "/x/pytest-cleantree", ""),
        ({"HOME": HOME, "XDG_CACHE_HOME": "rel"}, CACHE, ""),  # relative: ignored (XDG)
        ({"HOME": HOME, "XDG_CACHE_HOME": ""}, CACHE, ""),
        ({"XDG_CACHE_HOME": "/x"}, "/x/pytest-cleantree", ""),  # no HOME needed
        ({}, None, "no home folder to keep it in (HOME is '')"),
        ({"HOME": ""}, None, "no home folder to keep it in (HOME is '')"),
        ({"HOME": "/"}, None, "no home folder to keep it in (HOME is '/')"),
        ({"HOME": "//"}, None, "no home folder to keep it in (HOME is '//')"),
        ({"HOME": "home"}, None, "no home folder to keep it in (HOME is 'home')"),
        ({"HOME": HOME, "CLEANTREE_CACHE_DIR": ""}, None, ""),  # turned off: nothing to say
        ({"CLEANTREE_CACHE_DIR": "/c"}, "/c", ""),
    ],
)
def test_the_cache_folder_is_a_function_of_the_environment(
    env: dict[str, str], folder: str | None, why: str
) -> None:
    assert choose_cache_dir(env) == CacheChoice(Path(folder) if folder else None, why)


@pytest.mark.parametrize("tree", [HOME, "/home", "/", CACHE, "/home/u/"])
def test_never_a_cache_inside_the_checked_tree(tree: str) -> None:
    choice = choose_cache_dir({"HOME": HOME}, tree)
    assert choice == CacheChoice(None, f"{CACHE} is inside the checked tree {tree}: not used")


@pytest.mark.parametrize("tree", ["/home/u/src", "/home/u/.cache/other", "/home/uu", "/srv"])
def test_a_cache_beside_the_checked_tree_is_used(tree: str) -> None:
    assert choose_cache_dir({"HOME": HOME}, tree) == CacheChoice(Path(CACHE))


def test_a_relative_cache_dir_is_taken_from_here_and_still_not_in_the_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    env = {"CLEANTREE_CACHE_DIR": "c"}
    assert choose_cache_dir(env, "/elsewhere") == CacheChoice(tmp_path / "c")
    assert choose_cache_dir(env, str(tmp_path)).folder is None


def test_the_engine_variable_is_the_analysis_one() -> None:
    assert cachedir.ENGINE_ENV == ENGINE_ENV  # the cache does not import analysis: a copy


def stat(uid: int, mode: int) -> os.stat_result:
    return os.stat_result((mode, 0, 0, 1, uid, 0, 0, 0, 0, 0))


@pytest.mark.parametrize(
    ("uid", "mode", "why"),
    [
        (1000, 0o40700, ""),
        (1000, 0o100600, ""),
        (1000, 0o40755, ""),  # readable by others: harmless, it holds no secret
        (1000, 0o40770, "writable by group (mode 0o770)"),
        (1000, 0o100602, "writable by others (mode 0o602)"),
        (0, 0o100600, "owned by uid 0, not by this user (1000)"),
    ],
)
def test_only_the_users_own_unshared_files_are_trusted(uid: int, mode: int, why: str) -> None:
    assert untrusted(stat(uid, mode), 1000) == why


def test_folders_and_packs_are_private_whatever_the_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        store = AnalysisStore(tmp_path / "a" / "b")
        store._save("p", {"x.py": ["d", [], None, {}, None]})
    finally:
        os.umask(old)
    made = [tmp_path / "a", *(tmp_path / "a").rglob("*")]
    assert any(p.name == "p.json" for p in made)
    assert {oct(p.stat().st_mode & 0o777) for p in made if p.is_dir()} == {"0o700"}
    assert {oct(p.stat().st_mode & 0o777) for p in made if p.is_file()} == {"0o600"}


@pytest.mark.parametrize("mode", [0o620, 0o602])
def test_a_pack_others_can_write_is_not_read_and_the_run_says_so_once(
    tmp_path: Path, mode: int, capsys: pytest.CaptureFixture[str]
) -> None:
    entry = ["d", [], None, {}, None]
    AnalysisStore(tmp_path)._save("p", {"x.py": entry})
    AnalysisStore(tmp_path)._save("q", {"x.py": entry})
    store = AnalysisStore(tmp_path)
    assert store._load("p") == {"x.py": entry}
    for pack in ("p", "q"):
        os.chmod(store._file(pack), mode)
    assert store._load("p") == store._load("q") == {}
    err = capsys.readouterr().err
    assert err.count("cleantree: cache:") == 1, err
    assert "not read" in err, err


def test_a_cache_folder_others_can_write_is_not_used(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    AnalysisStore(tmp_path / "c")._save("p", {"x.py": ["d", [], None, {}, None]})
    os.chmod(tmp_path / "c", 0o777)
    store = AnalysisStore(tmp_path / "c")
    assert store._load("p") == {}
    store._save("p", {"y.py": ["d", [], None, {}, None]})
    assert "y.py" not in (Path(store._file("p"))).read_text()  # nor written to
    assert capsys.readouterr().err.count("not used") == 1


@pytest.mark.parametrize(
    "name", ["astroid", "re2", "json", "sys", "pytest_cleantree", "no_such_module_at_all"]
)
def test_a_top_level_spec_is_found_as_importlib_finds_it(name: str) -> None:
    """The kept answer's own find_spec (no importlib.util) against importlib's: installed,
    standard, built in, already imported, missing."""
    import importlib.util

    mine, theirs = cachedir.find_top_spec(name), importlib.util.find_spec(name)
    assert (mine is None) == (theirs is None)
    if mine is not None and theirs is not None:
        assert (mine.name, mine.origin) == (theirs.name, theirs.origin)
        assert mine.submodule_search_locations == theirs.submodule_search_locations


def test_a_module_not_yet_imported_is_found_by_the_finders(monkeypatch: pytest.MonkeyPatch) -> None:
    """Control: the finders are asked, not only sys.modules (astroid out of it here)."""
    import importlib.util

    for name in [m for m in list(sys.modules) if m.split(".")[0] == "astroid"]:
        monkeypatch.delitem(sys.modules, name)
    mine = cachedir.find_top_spec("astroid")
    theirs = importlib.util.find_spec("astroid")
    assert mine is not None
    assert theirs is not None
    assert mine.origin == theirs.origin


def test_a_record_is_read_back_as_written_by_its_user_alone(tmp_path: Path) -> None:
    """The kept answer's record (marshal: no json import on the warm path): plain values
    round-trip; a file others can write, a damaged one, a non-record, none: ``{}``."""
    uid = os.geteuid()
    file = str(tmp_path / "answers" / "typed-x.marshal")
    record = {"version": 1, "root": "/t\udcff", "starts": [""], "code": 1, "stdout": None}
    cachedir.save_private_record(file, record, uid)
    assert cachedir.load_private_record(file, uid) == record
    assert oct(os.stat(file).st_mode & 0o777) == oct(0o600)
    assert cachedir.load_private_record(file, uid + 1) == {}  # another user's
    os.chmod(file, 0o620)
    assert cachedir.load_private_record(file, uid) == {}  # the group may write it
    os.chmod(file, 0o600)
    for damaged in (b"", b"\x00garbage", __import__("marshal").dumps([1, 2])):
        Path(file).write_bytes(damaged)
        assert cachedir.load_private_record(file, uid) == {}
    assert cachedir.load_private_record(str(tmp_path / "none"), uid) == {}


def test_a_json_entry_is_still_read_and_written_as_json(tmp_path: Path) -> None:
    uid = os.geteuid()
    file = str(tmp_path / "answers" / "q.json")
    cachedir.save_private(file, {"state": "s", "stdout": "é"}, uid)
    assert Path(file).read_bytes() == '{"state":"s","stdout":"é"}'.encode()
    assert cachedir.load_private(file, uid) == ({"state": "s", "stdout": "é"}, "")
    Path(file).write_text("{not json")
    assert cachedir.load_private(file, uid) == ({}, "")
