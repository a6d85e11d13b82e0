"""Starting with cleantree, run as a user would (``python -m pytest_cleantree``): which version
am I running (``-V``, ``--version``), and ``cleantree init``'s starter manifest."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from needs import missing

import pytest_cleantree
from pytest_cleantree.config.manifest import parse_manifest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib

PACKAGE = Path(pytest_cleantree.__file__).resolve().parent
SCHEMA = PACKAGE / "schemas" / "manifest-v1.json"


def cleantree(
    *args: str, cwd: Path, pythonpath: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    done = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert "Traceback" not in done.stderr
    return done


# ---------------------------------------------------------------- --version


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_the_version_names_the_commit_of_a_checkout(flag: str, tmp_path: Path) -> None:
    commit = subprocess.run(
        ["git", "-C", str(PACKAGE), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    done = cleantree(flag, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    version = pytest_cleantree.__version__
    assert done.stdout == f"cleantree (pytest-cleantree) {version} (commit {commit})\n"


def test_an_installed_copy_reports_its_metadata_and_no_commit(tmp_path: Path) -> None:
    """A wheel's files in site-packages (no git checkout): the metadata's version, no commit,
    and nothing on stderr even though git is asked."""
    site = tmp_path / "site"
    shutil.copytree(
        PACKAGE, site / "pytest_cleantree", ignore=shutil.ignore_patterns("__pycache__")
    )
    info = site / "pytest_cleantree-9.8.7.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: pytest-cleantree\nVersion: 9.8.7\n", encoding="utf-8"
    )
    done = cleantree("--version", cwd=tmp_path, pythonpath=str(site))
    assert (done.returncode, done.stdout, done.stderr) == (
        0,
        "cleantree (pytest-cleantree) 9.8.7\n",
        "",
    )


def test_the_version_is_silent_about_a_commit_when_git_is_missing(tmp_path: Path) -> None:
    env_path = tmp_path / "bin"
    env_path.mkdir()
    (env_path / "python").symlink_to(sys.executable)
    done = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", "-V"],
        cwd=tmp_path,
        env={**os.environ, "PATH": str(env_path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout == f"cleantree (pytest-cleantree) {pytest_cleantree.__version__}\n"


# ---------------------------------------------------------------- init


def _package(folder: Path) -> None:
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text("", encoding="utf-8")
    (folder / "engine.py").write_text("def run():\n    return 1\n", encoding="utf-8")


LAYOUTS = {
    "src": (("src/demo",), "src", "demo"),
    "python-pkg": (("python/sglang", "test/unit"), "python", "sglang"),
    "flat": (("fakeserve", "tests"), ".", "fakeserve"),
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_init_writes_a_starter_for_the_layout_that_checks_clean(
    layout: str, tmp_path: Path
) -> None:
    folders, root, package = LAYOUTS[layout]
    for folder in folders:
        _package(tmp_path / folder)
    done = cleantree("init", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "wrote cleantree.toml" in done.stdout
    text = (tmp_path / "cleantree.toml").read_text(encoding="utf-8")
    document = tomllib.loads(text)
    assert document["root"] == root
    assert all(
        entry == f"{package}/**/*.py"
        for rule in document["rule"]
        for entry in rule.get("files", [])
    )
    kinds = {
        key
        for rule in document["rule"]
        for key in ("forbid", "forbid_lines", "absent")
        if key in rule
    }
    assert kinds == {"forbid", "forbid_lines", "absent"}
    assert "# expect = [" in text  # the fourth kind, commented out: only the user knows it
    checked = cleantree("check", cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.startswith("cleantree: clean (3 rules, 2 files)")


def test_init_in_a_tree_without_a_package_checks_every_python_file(tmp_path: Path) -> None:
    (tmp_path / "script.py").write_text("print(1)\n", encoding="utf-8")
    assert cleantree("init", cwd=tmp_path).returncode == 0
    document = tomllib.loads((tmp_path / "cleantree.toml").read_text(encoding="utf-8"))
    assert document["root"] == "."
    assert document["rule"][0]["files"] == ["**/*.py"]
    assert cleantree("check", cwd=tmp_path).returncode == 0


def _uncommented(text: str) -> str:
    """The starter with its commented example rule taken in."""
    block = text[text.index("# [[rule]]") :]
    return text.replace(block, "\n".join(line[2:] for line in block.splitlines()) + "\n")


def test_what_init_writes_parses_and_matches_the_schema(tmp_path: Path) -> None:
    _package(tmp_path / "src" / "demo")
    done = cleantree("init", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "cleantree.schema.json" in done.stdout
    text = (tmp_path / "cleantree.toml").read_text(encoding="utf-8")
    written = tmp_path / "cleantree.schema.json"
    assert written.read_bytes() == SCHEMA.read_bytes()  # this version's schema, as shipped
    schema = json.loads(written.read_text(encoding="utf-8"))
    for manifest in (text, _uncommented(text)):
        parsed = parse_manifest(manifest, str(tmp_path / "cleantree.toml"))
        jsonschema.validate(tomllib.loads(manifest), schema)
        assert parsed.root == "src"
    assert len(parse_manifest(_uncommented(text), "cleantree.toml").rules) == 4
    assert text.splitlines()[0] == "#:schema ./cleantree.schema.json"
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "cleantree.schema.json",
        "cleantree.toml",
        "src",
    ]  # nothing else written into the tree


def _schema_target(manifest: Path) -> Path:
    """The file a manifest's ``#:schema`` line names, resolved as taplo does: from the
    manifest's folder."""
    first = manifest.read_text(encoding="utf-8").split("\n", 1)[0]
    match = re.fullmatch(r"#:schema (\S+)", first)
    assert match, first
    return manifest.parent / match[1]


def test_the_schema_line_resolves_in_a_clone_elsewhere(tmp_path: Path) -> None:
    """A teammate's clone: the folder copied to another path (the venv that ran init gone)."""
    _package(tmp_path / "mine" / "demo")
    assert cleantree("init", cwd=tmp_path / "mine").returncode == 0
    clone = Path(shutil.copytree(tmp_path / "mine", tmp_path / "elsewhere" / "clone"))
    shutil.rmtree(tmp_path / "mine")
    target = _schema_target(clone / "cleantree.toml")
    assert not Path(target.name).is_absolute()
    assert target.resolve().is_relative_to(clone)
    assert target.read_bytes() == SCHEMA.read_bytes()


def test_taplo_checks_the_starter_in_a_clone_through_its_schema_line(tmp_path: Path) -> None:
    """taplo, reading only the ``#:schema`` line, finds the schema and accepts the starter; a
    mistake then is reported (so the schema is really read)."""
    taplo = shutil.which("taplo")
    if taplo is None:
        missing("taplo", "npm install -g @taplo/cli; .ci/run installs it")
    _package(tmp_path / "mine" / "demo")
    assert cleantree("init", cwd=tmp_path / "mine").returncode == 0
    clone = Path(shutil.copytree(tmp_path / "mine", tmp_path / "clone"))
    command = [taplo, "check", "--no-auto-config", "--colors", "never", "cleantree.toml"]
    ok = subprocess.run(command, cwd=clone, capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    manifest = clone / "cleantree.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + "rooot = 1\n", encoding="utf-8")
    bad = subprocess.run(command, cwd=clone, capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0
    assert bad.stderr.count("error: ") == 1, bad.stderr


def test_init_keeps_an_identical_schema_and_refuses_a_different_one(tmp_path: Path) -> None:
    shutil.copyfile(SCHEMA, tmp_path / "cleantree.schema.json")
    done = cleantree("init", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "cleantree.schema.json kept" in done.stdout
    assert (tmp_path / "cleantree.schema.json").read_bytes() == SCHEMA.read_bytes()

    other = tmp_path / "other"
    other.mkdir()
    (other / "cleantree.schema.json").write_text("{}\n", encoding="utf-8")
    refused = cleantree("init", cwd=other)
    assert refused.returncode == 2
    assert refused.stderr == (
        f"cleantree: error: {other / 'cleantree.schema.json'} exists and is not this "
        "version's manifest schema: nothing written (remove it, or rename it, to have it "
        "written again)\n"
    )
    assert sorted(p.name for p in other.iterdir()) == ["cleantree.schema.json"]
    assert (other / "cleantree.schema.json").read_text(encoding="utf-8") == "{}\n"


def test_init_never_overwrites_a_manifest(tmp_path: Path) -> None:
    (tmp_path / "cleantree.toml").write_text("# mine\n", encoding="utf-8")
    done = cleantree("init", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == (
        "cleantree: error: cleantree.toml already exists here: not overwritten "
        "(remove it first to start again)\n"
    )
    assert (tmp_path / "cleantree.toml").read_text(encoding="utf-8") == "# mine\n"


def test_no_manifest_suggests_init(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    done = cleantree("check", cwd=tmp_path)
    assert done.returncode == 2
    assert "run `cleantree init` to write a starter cleantree.toml here" in done.stderr
