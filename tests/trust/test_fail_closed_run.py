"""Fail closed, round 3 (issue 23), classes 6-8 (named files, cache, reports), through the CLI.

Every case here was a false clean (or a crash) before: the tree holds a forbidden needle, or
Python refuses a file, and the check must say so on both engines.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from runs import REPO
from runs import check_tree as check
from runs import one_rule as rule


# class 6: named files
def test_a_named_file_inside_an_absent_folder_fails(tmp_path: Path) -> None:
    manifest = 'root = "."\n[[rule]]\nid = "gone"\nabsent = ["kernels/sm120"]\n'
    files = {"kernels/sm120/k.py": b"x = 1\n"}
    whole = check(tmp_path, manifest, files)
    assert whole.returncode == 1, whole.stdout + whole.stderr
    named = check(tmp_path, manifest, files, "kernels/sm120/k.py")
    assert named.returncode == 1, named.stdout + named.stderr


def test_a_named_file_under_an_entry_outside_the_root_is_checked(tmp_path: Path) -> None:
    manifest = (
        'root = "src"\nallow_outside_root = true\n[[rule]]\nid = "gone"\n'
        'files = ["../scripts/launch.py"]\nforbid = ["sm120"]\n'
    )
    files = {"src/a.py": b"x = 1\n", "scripts/launch.py": b"use_sm120()\n"}
    whole = check(tmp_path, manifest, files)
    assert whole.returncode == 1, whole.stdout + whole.stderr
    named = check(tmp_path, manifest, files, "scripts/launch.py")
    assert named.returncode == 1, named.stdout + named.stderr
    assert "launch.py:1:" in named.stdout


def test_a_named_file_no_rule_covers_is_not_called_clean(tmp_path: Path) -> None:
    files = {"m.py": b"x = 1\n", "other.py": b"use_sm120()\n"}
    done = check(tmp_path, rule('"sm120"'), files, "other.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "clean" not in done.stdout.lower() or "no rule" in done.stdout.lower(), done.stdout
    assert "other.py" in done.stdout, done.stdout


# class 7: the cache
def test_the_engine_is_part_of_the_cache_key(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    tree = tmp_path / "tree"
    tree.mkdir()
    files = {"m.py": b'p = "C:\\\\cuda"\n'}
    env: dict[str, str | None] = {"CLEANTREE_CACHE_DIR": str(cache)}
    check(tree, rule("'C:\\cuda'"), files, engine="fast", env=env)
    reference = check(tree, rule("'C:\\cuda'"), files, engine="reference", env=env)
    alone = check(tree, rule("'C:\\cuda'"), files, engine="reference")
    assert reference.returncode == alone.returncode, reference.stdout + alone.stdout
    # whether or not the engines agree here: a fast run's answer is never the reference's
    dirty = {"n.py": b"use_sm120()\n"}
    assert check(tree, rule('"sm120"', "n.py"), dirty, engine="fast", env=env).returncode == 1
    _tamper(cache)  # every pack now says "nothing here"
    fast = check(tree, rule('"sm120"', "n.py"), dirty, engine="fast", env=env)
    assert fast.returncode == 0, fast.stdout  # the tampering is real: the fast pack is read
    again = check(tree, rule('"sm120"', "n.py"), dirty, engine="reference", env=env)
    assert again.returncode == 1, again.stdout + again.stderr


def test_cache_folders_and_files_are_private_whatever_the_umask(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    tree = tmp_path / "tree"
    tree.mkdir()
    env = {"HOME": str(home)}
    script = (
        "import os, runpy, sys; os.umask(0); sys.argv = ['cleantree'] + sys.argv[1:];"
        "runpy.run_module('pytest_cleantree', run_name='__main__')"
    )
    for name, data in {"m.py": b"use_sm120()\n"}.items():
        (tree / name).write_bytes(data)
    (tree / "cleantree.toml").write_text(rule('"sm120"'))
    done = subprocess.run(
        [sys.executable, "-c", script, "check", "--manifest", "cleantree.toml"],
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": REPO, **env},
    )
    assert done.returncode == 1, done.stdout + done.stderr
    cache = home / ".cache"
    made = [p for p in cache.rglob("*")]
    assert made, "no cache was written"
    for path in made:
        mode = path.stat().st_mode & 0o777
        assert mode & 0o077 == 0, f"{path} is {oct(mode)}"


def _tamper(cache: Path) -> None:
    """Make every pack say that its files hold nothing (what a pack another user wrote can say)."""
    packs = [p for p in cache.rglob("*.json") if p.is_file()]
    assert packs, "no pack was written"
    for pack in packs:
        entries = json.loads(pack.read_text(encoding="utf-8"))
        for entry in entries.values():
            entry[1], entry[3] = [], {}  # no findings, no kept lines
        pack.write_text(json.dumps(entries), encoding="utf-8")


TAMPERED = {
    "group-writable pack": lambda pack: pack.chmod(0o660),
    "other-writable pack": lambda pack: pack.chmod(0o606),
    "group-writable folder": lambda pack: pack.parent.chmod(0o770),
    "another user's pack": lambda pack: os.chown(pack, 65534, 65534),
}


@pytest.mark.parametrize("how", list(TAMPERED))
def test_a_pack_someone_else_can_write_is_not_read(tmp_path: Path, how: str) -> None:
    if how == "another user's pack" and os.geteuid() != 0:
        pytest.skip("giving a file to another user needs root")
    cache = tmp_path / "cache"
    tree = tmp_path / "tree"
    tree.mkdir()
    env: dict[str, str | None] = {"CLEANTREE_CACHE_DIR": str(cache)}
    files = {"m.py": b"use_sm120()\n"}
    first = check(tree, rule('"sm120"'), files, env=env)
    assert first.returncode == 1, first.stdout + first.stderr
    _tamper(cache)
    # the tampering is real: the owner's own pack is trusted (what makes the rest a test)
    trusted = check(tree, rule('"sm120"'), files, env=env)
    assert trusted.returncode == 0, trusted.stdout + trusted.stderr
    for pack in cache.rglob("*.json"):
        TAMPERED[how](pack)
    second = check(tree, rule('"sm120"'), files, env=env)
    assert second.returncode == 1, second.stdout + second.stderr
    assert "m.py:1:" in second.stdout
    assert second.stderr.count("cleantree: cache:") == 1, second.stderr  # says why, once


def test_a_relative_xdg_cache_home_never_writes_into_the_tree(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    tree = tmp_path / "tree"
    tree.mkdir()
    done = check(
        tree,
        rule('"sm120"'),
        {"m.py": b"use_sm120()\n"},
        env={"HOME": str(home), "XDG_CACHE_HOME": "rel-cache", "CLEANTREE_CACHE_DIR": None},
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert not (tree / "rel-cache").exists()
    assert (home / ".cache" / "pytest-cleantree").is_dir()  # relative: ignored, as XDG says


def test_a_cache_inside_the_checked_tree_is_not_used(tmp_path: Path) -> None:
    done = check(
        tmp_path,
        rule('"sm120"'),
        {"m.py": b"use_sm120()\n"},
        env={"CLEANTREE_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert not (tmp_path / "cache").exists()
    assert done.stderr.count("cleantree: cache:") == 1, done.stderr


# class 8: reports take any bytes
@pytest.mark.parametrize("fmt", ["sarif", "json", "github", "text"])
def test_a_file_name_that_is_not_utf8_is_reported_in_every_format(tmp_path: Path, fmt: str) -> None:
    name = os.fsdecode(b"caf\xe9.py")
    (tmp_path / name).write_bytes(b"use_sm120()\n")
    (tmp_path / "cleantree.toml").write_text(rule('"sm120"', files="*.py"))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest_cleantree",
            "check",
            "--manifest",
            "cleantree.toml",
            "--format",
            fmt,
        ],
        cwd=tmp_path,
        capture_output=True,
        check=False,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": REPO, "CLEANTREE_CACHE_DIR": ""},
    )
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout.decode("utf-8")  # must be UTF-8
    if fmt in ("sarif", "json"):
        json.loads(out)
    assert "caf" in out
