"""``cleantree example`` and ``cleantree scripts``, run as a user runs them (a subprocess):
the material a wheel's user writes out is the material a clone runs, and it runs."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pytest_cleantree.config.bundle import BUNDLES, EXAMPLES, iter_bundle
from pytest_cleantree.config.starter import SCHEMA_FILE

#: the lines the partial revert leaves, as the README shows them (path after the folder)
LEFTOVERS = (
    "partial-revert/python/sglang/srt/layers/communicator.py:15:5 ",
    "partial-revert/python/sglang/srt/layers/communicator.py:24:1 ",
    "partial-revert/python/sglang/srt/layers/communicator.py:53:32 ",
    "partial-revert/python/sglang/srt/server_args.py:17:5 ",
    "partial-revert/python/sglang/srt/server_args.py:46:36 ",
)


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def test_every_shipped_file_belongs_to_a_command() -> None:
    """A file added under examples/ that no command writes would reach clones only."""
    shipped = {p for p in EXAMPLES.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    written = [source for name in BUNDLES for source, _ in iter_bundle(name)]
    assert len(written) == len(set(written))
    assert set(written) == shipped | {SCHEMA_FILE}  # the schema, beside the example's manifest


def test_the_example_written_out_fails_then_its_revert_passes(tmp_path: Path) -> None:
    work = tmp_path / "elsewhere"  # not the source tree, not the folder written
    work.mkdir()
    done = run("-m", "pytest_cleantree", "example", str(tmp_path / "ct"), cwd=work)
    assert done.returncode == 0, done.stderr
    assert f"--cleantree {tmp_path / 'ct' / 'cleantree.toml'}" in done.stdout
    for source, relative in iter_bundle("example"):
        if relative.name != "cleantree.toml":
            assert (tmp_path / "ct" / relative).read_bytes() == source.read_bytes()
    manifest = str(tmp_path / "ct" / "cleantree.toml")
    # -rN: no short summary (under CI=true pytest repeats each whole message there)
    pytest_args = ("-p", "no:cacheprovider", "-rN", "--cleantree", manifest)
    checked = run("-m", "pytest", *pytest_args, cwd=work)
    assert checked.returncode == 1, checked.stdout
    remaining = [line for line in checked.stdout.splitlines() if "/partial-revert/" in line]
    assert len(remaining) == 5, checked.stdout
    for line, expected in zip(remaining, LEFTOVERS, strict=True):
        assert f"/ct/{expected}" in line
    reverted = str(tmp_path / "ct" / "reverted" / "python" / "sglang")
    clean = run(
        "-m", "pytest_cleantree", "check", "--manifest", manifest, "--root", reverted, cwd=work
    )
    assert clean.returncode == 0, clean.stdout + clean.stderr


def test_the_written_manifest_names_the_schema_written_beside_it(tmp_path: Path) -> None:
    """As ``cleantree init`` does: the folder works wherever it is copied."""
    assert run("-m", "pytest_cleantree", "example", "ct", cwd=tmp_path).returncode == 0
    first = (tmp_path / "ct" / "cleantree.toml").read_text(encoding="utf-8").split("\n")[0]
    assert first == "#:schema ./cleantree.schema.json"
    shipped = EXAMPLES.parent / "schemas" / "manifest-v1.json"
    assert (tmp_path / "ct" / "cleantree.schema.json").read_bytes() == shipped.read_bytes()


def test_the_example_goes_to_a_default_folder(tmp_path: Path) -> None:
    assert run("-m", "pytest_cleantree", "example", cwd=tmp_path).returncode == 0
    assert (tmp_path / "cleantree-example" / "cleantree.toml").is_file()


@pytest.mark.parametrize("command", sorted(BUNDLES))
def test_a_folder_that_holds_anything_is_refused(command: str, tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.mkdir()
    (target / "notes.txt").write_text("mine\n")
    done = run("-m", "pytest_cleantree", command, str(target), cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr == f"cleantree: error: {target} is not empty: nothing written " + (
        "(name a new or empty folder)\n"
    )
    assert [p.name for p in target.iterdir()] == ["notes.txt"]
    assert (target / "notes.txt").read_text() == "mine\n"


def test_a_file_in_the_way_is_refused(tmp_path: Path) -> None:
    (tmp_path / "ct").write_text("")
    done = run("-m", "pytest_cleantree", "example", "ct", cwd=tmp_path)
    assert done.returncode == 2
    assert "cleantree: error: ct exists and is not a folder: nothing written" in done.stderr


def test_an_empty_folder_is_written_into(tmp_path: Path) -> None:
    (tmp_path / "ct").mkdir()
    assert run("-m", "pytest_cleantree", "scripts", "ct", cwd=tmp_path).returncode == 0
    assert (tmp_path / "ct" / "ci" / "cleantree.yml").is_file()


def test_the_scripts_written_out_are_the_shipped_ones(tmp_path: Path) -> None:
    done = run("-m", "pytest_cleantree", "scripts", "out", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    files = sorted(str(p.relative_to(tmp_path / "out")) for p in (tmp_path / "out").rglob("*.*"))
    assert files == [
        "ansible/cleantree.yml",
        "ci/cleantree-pip.yml",
        "ci/cleantree.yml",
        "prelaunch/launch_server.sh",
    ]
    for name in files:
        shipped = (EXAMPLES / name).read_bytes().replace(b"pytest_cleantree/examples/", b"out/")
        assert (tmp_path / "out" / name).read_bytes() == shipped
        assert f"out/{name}" in done.stdout
    assert os.access(tmp_path / "out" / "prelaunch" / "launch_server.sh", os.X_OK)
    assert not os.access(tmp_path / "out" / "ci" / "cleantree.yml", os.X_OK)


def test_the_scripts_name_where_they_were_written(tmp_path: Path) -> None:
    """Usage lines in a written script name the copy (``DIR/ansible/cleantree.yml``), not the
    path in a clone, which a server with only the wheel does not have."""
    done = run("-m", "pytest_cleantree", "scripts", "ops/ct", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    playbook = (tmp_path / "ops" / "ct" / "ansible" / "cleantree.yml").read_text()
    assert "ansible-playbook -i inventory ops/ct/ansible/cleantree.yml" in playbook
    for written in (tmp_path / "ops" / "ct").rglob("*.*"):
        assert "pytest_cleantree/examples" not in written.read_text(), written


def test_scripts_needs_a_folder(tmp_path: Path) -> None:
    done = run("-m", "pytest_cleantree", "scripts", cwd=tmp_path)
    assert done.returncode == 2
    assert "the following arguments are required: DIR" in done.stderr
    assert list(tmp_path.iterdir()) == []
