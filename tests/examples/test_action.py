"""``action.yml``, run as the runner runs it: its own steps, from a copy of this checkout.

The slow test does what a workflow's ``uses: pytest-cleantree/pytest-cleantree@REF`` does: a
fresh venv stands for the job's Python, the install step installs the action's checkout into it
(so the installed metadata is this version), and the check step runs against a tree with a
leftover (exit 1, an annotation, a valid SARIF file) and a clean one (exit 0). The upload step is a
``uses:`` step the runner alone can run: only its condition and inputs are checked.
"""

from __future__ import annotations

import json
import re
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest
import yaml
from actionsteps import (
    ACTION_USE,
    BRIDGE_STEP,
    CHECK_STEP,
    REPO,
    VENV,
    VENV_STEP,
    action_use,
    context_of,
    load_action,
    make_venv,
    run_step,
    runner_environ,
    step_named,
    validate_sarif,
)
from test_release import newest_changelog_version

import pytest_cleantree

INSTALL = "Install pytest-cleantree from the action's own checkout"
UPLOAD = "Upload the SARIF file to code scanning"
MANIFEST = '[[rule]]\nid = "sm120"\nfiles = ["server_args.py"]\nforbid = ["sm120"]\n'
#: what the action's checkout holds that an install does not need
NOT_CHECKED_OUT = shutil.ignore_patterns(
    ".git", "__pycache__", "*.egg-info", ".ci-venv*", ".hypothesis", ".*_cache", "build", "dist"
)


def workspace(tmp_path: Path, name: str, body: str) -> Path:
    """A repository checkout (``$GITHUB_WORKSPACE``) with the manifest and one file."""
    folder = tmp_path / name
    folder.mkdir()
    (folder / "cleantree.toml").write_text(MANIFEST)
    (folder / "server_args.py").write_text(body)
    return folder


def check(
    tmp_path: Path, folder: Path, python: str, environ: dict[str, str] | None = None, **inputs: str
) -> subprocess.CompletedProcess[str]:
    """The check step, from the venv the install step made under ``tmp_path/runner-temp``
    (made here, without the install, when no install step ran)."""
    action, runner_temp = load_action(), tmp_path / "runner-temp"
    if not (runner_temp / VENV).exists():
        runner_temp.mkdir(exist_ok=True)
        make_venv(python, runner_temp)
    context = context_of(action, tmp_path / "action", {"python": python, **inputs}, runner_temp)
    return run_step(step_named(action, CHECK_STEP), context, folder, environ=environ)


#: a Debian-style Python (PEP 668): ``-m pip`` refused as the marker makes pip refuse it
EXTERNALLY_MANAGED = """#!/bin/sh
if [ "$1" = "-m" ] && [ "$2" = "pip" ]; then
    echo "error: externally-managed-environment" >&2
    exit 1
fi
exec {python} "$@"
"""


def externally_managed(python: str, folder: Path) -> str:
    """An interpreter that runs as ``python`` but refuses ``pip install``, as Debian's does."""
    wrapper = folder / "python3"
    wrapper.write_text(EXTERNALLY_MANAGED.format(python=python), encoding="utf-8")
    wrapper.chmod(0o755)
    return str(wrapper)


@pytest.mark.slow
def test_the_action_installs_its_own_checkout_and_checks_the_tree(tmp_path: Path) -> None:
    """With a Python that refuses ``pip install`` (externally managed): the action installs
    into its own venv and runs from there."""
    action_path = Path(shutil.copytree(REPO, tmp_path / "action", ignore=NOT_CHECKED_OUT))
    venv.create(tmp_path / "venv", with_pip=True)
    system = externally_managed(str(tmp_path / "venv" / "bin" / "python"), tmp_path)
    refused = subprocess.run([system, "-m", "pip", "--version"], capture_output=True, text=True)
    assert "externally-managed-environment" in refused.stderr  # the wrapper does refuse
    action, environ = load_action(), runner_environ()
    (tmp_path / "runner-temp").mkdir()

    context = context_of(action, action_path, {"python": system}, tmp_path / "runner-temp")
    made = run_step(step_named(action, VENV_STEP), context, tmp_path, environ=environ)
    assert made.returncode == 0, made.stdout + made.stderr
    install = step_named(action, INSTALL)
    installed = run_step(install, context, tmp_path, timeout=600, environ=environ)
    assert installed.returncode == 0, installed.stdout + installed.stderr
    bridged = run_step(step_named(action, BRIDGE_STEP), context, tmp_path, environ=environ)
    assert bridged.returncode == 0, bridged.stdout + bridged.stderr
    python = str(tmp_path / "runner-temp" / VENV / "bin" / "python")
    assert f"(pytest-cleantree) {pytest_cleantree.__version__}" in installed.stdout
    probe = (
        "import importlib.metadata as m, importlib.resources as r, pytest_cleantree as p; "
        "print(m.version('pytest-cleantree'), p.__version__, p.__file__, "
        "r.files(p).joinpath('schemas', 'manifest-v1.json').is_file())"
    )
    metadata, version, where, schema = subprocess.run(
        [python, "-c", probe], capture_output=True, text=True, check=True, env=environ, cwd=tmp_path
    ).stdout.split()
    assert metadata == version == pytest_cleantree.__version__ == newest_changelog_version()
    assert Path(where).is_relative_to(tmp_path / "runner-temp" / VENV), where  # its own venv
    assert schema == "True"

    dirty = workspace(tmp_path, "dirty", "if is_sm120_supported():\n    pass\n")
    completed = check(tmp_path, dirty, system, environ)
    assert completed.returncode == 1, completed.stderr
    errors = [line for line in completed.stdout.splitlines() if line.startswith("::error ")]
    assert len(errors) == 1, completed.stdout
    assert errors[0].startswith(
        "::error file=server_args.py,line=1,col=4,title=cleantree sm120::"
    ), errors
    document = json.loads((dirty / "cleantree.sarif").read_text())
    validate_sarif(document)
    assert len(document["runs"][0]["results"]) == 1

    clean = workspace(tmp_path, "clean", "x = 1\n")
    completed = check(tmp_path, clean, system, environ, manifest="cleantree.toml")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "::error" not in completed.stdout
    document = json.loads((clean / "cleantree.sarif").read_text())
    validate_sarif(document)
    assert document["runs"][0]["results"] == []


def test_the_check_step_passes_the_manifest_and_the_extra_arguments(tmp_path: Path) -> None:
    """Without the install (this checkout's Python already has the package)."""
    folder = workspace(tmp_path, "tree", "x = 1\n")
    (folder / "dirty").mkdir()
    (folder / "dirty" / "server_args.py").write_text("use_sm120 = True\n")
    (folder / "ci").mkdir()
    (folder / "cleantree.toml").rename(folder / "ci" / "manifest.toml")

    found = check(tmp_path, folder, sys.executable)
    assert found.returncode == 2  # no manifest where the check looks
    assert "::error" in found.stdout

    extra = check(
        tmp_path, folder, sys.executable, manifest="ci/manifest.toml", args="--root  dirty"
    )
    assert extra.returncode == 1, extra.stderr
    assert "::error file=dirty/server_args.py,line=1,col=1," in extra.stdout
    clean = check(tmp_path, folder, sys.executable, manifest="ci/manifest.toml", args="--root .")
    assert clean.returncode == 0, clean.stdout + clean.stderr


def test_pip_runs_only_in_the_actions_venv_and_its_downloads_are_cached() -> None:
    """``inputs.python`` makes the venv and nothing else: pip never runs on it (a Debian-style
    Python refuses), and the check runs the venv's Python; pip's cache is the cached folder."""
    action = load_action()
    install, run = step_named(action, INSTALL), step_named(action, CHECK_STEP)
    made, bridge = step_named(action, VENV_STEP), step_named(action, BRIDGE_STEP)
    pip_lines = [line for line in install["run"].splitlines() if "-m pip" in line]
    assert pip_lines, install["run"]
    assert all(line.strip().startswith('"$venv/bin/python" -m pip') for line in pip_lines)
    assert "CLEANTREE_PYTHON" not in install["run"]
    assert "-m pip" not in made["run"] + bridge["run"]
    assert '"$CLEANTREE_PYTHON" -m venv --system-site-packages' in made["run"]
    assert "CLEANTREE_PYTHON" not in run["run"]
    assert "CLEANTREE_PYTHON" not in run.get("env", {})
    assert f'"$RUNNER_TEMP/{VENV}/bin/python" -m pytest_cleantree check' in run["run"]
    cache = step_named(action, "Cache pip's downloads")
    assert cache["uses"].startswith("actions/cache@")
    assert cache["with"]["path"] == install["env"]["PIP_CACHE_DIR"]
    assert "github.action_ref" in cache["with"]["key"]
    steps = [step.get("name") for step in action["runs"]["steps"]]
    order = ["Cache pip's downloads", VENV_STEP, INSTALL, BRIDGE_STEP, CHECK_STEP]
    assert [steps.index(name) for name in order] == sorted(steps.index(name) for name in order)


def editable_in_new_venv(tmp_path: Path, package: str, body: str) -> str:
    """A user's venv (made from this process's Python, without its system site-packages) where
    ``package`` is an editable install, as ``pip install -e`` leaves one: a ``.pth`` file naming
    a source folder. What this process imports (pytest_cleantree) is another ``.pth`` there."""
    source = tmp_path / "src" / package
    source.mkdir(parents=True)
    (source / "__init__.py").write_text("")
    (source / "server_args.py").write_text(body)
    folder = tmp_path / "user-venv"
    venv.create(folder, with_pip=False)
    python = str(folder / "bin" / "python")
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
        env=runner_environ(),
    ).stdout.strip()
    here = "; ".join(f"site.addsitedir({d!r})" for d in site.getsitepackages())
    (Path(purelib) / "this-checkout.pth").write_text(f"import site; {here}\n")
    (Path(purelib) / f"__editable__.{package}.pth").write_text(f"{tmp_path / 'src'}\n")
    return python


def test_a_module_root_in_the_given_pythons_venv_resolves_in_the_actions_venv(
    tmp_path: Path,
) -> None:
    """The given Python is a venv's (``python: .venv/bin/python``, the project installed in it
    editable): the action's venv, made from it, imports what it imports, so ``module:`` names
    the editable source folder (a venv made from a venv's Python alone sees the base's)."""
    python = editable_in_new_venv(tmp_path, "leftover_pkg", "use_sm120 = True\n")
    folder = workspace(tmp_path, "checkout", "x = 1\n")
    manifest = MANIFEST.replace("[[rule]]", 'root = "module:leftover_pkg"\n[[rule]]')
    (folder / "cleantree.toml").write_text(manifest)
    completed = check(tmp_path, folder, python, runner_environ())
    assert completed.returncode == 1, completed.stdout + completed.stderr
    (error,) = [line for line in completed.stdout.splitlines() if line.startswith("::error ")]
    assert "file=../src/leftover_pkg/server_args.py,line=1," in error  # as the workspace sees it


def test_the_upload_step_runs_when_asked_also_after_a_failed_check() -> None:
    action = load_action()
    upload = step_named(action, UPLOAD)
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["if"].startswith("always() && ")
    assert "inputs.sarif == 'true'" in upload["if"]
    assert upload["with"]["sarif_file"] == "cleantree.sarif"
    assert "--sarif-output cleantree.sarif" in step_named(action, CHECK_STEP)["run"]
    assert action["inputs"]["sarif"]["default"] == "true"


def check_flags() -> set[str]:
    """The options ``cleantree check --help`` lists."""
    completed = subprocess.run(
        [sys.executable, "-m", "pytest_cleantree", "check", "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", completed.stdout))


def flags_in(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", text))


def test_the_action_names_only_flags_the_command_has() -> None:
    action = load_action()
    flags = flags_in(step_named(action, CHECK_STEP)["run"])
    assert {"--format", "--sarif-output", "--manifest"} <= flags
    assert flags <= check_flags()


def hooks() -> dict[str, dict[str, object]]:
    defined = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text())
    return {hook["id"]: hook for hook in defined}


def readme_yaml_blocks() -> list[object]:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    return [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", readme, re.S)]


def test_the_readme_pre_commit_snippet_names_a_hook_and_flags_that_exist() -> None:
    """The snippet's hook ids are hooks of ``.pre-commit-hooks.yaml``, and no flag, in the
    hook's entry and args or in the snippet's args, is one ``cleantree check`` lacks."""
    snippets = [b for b in readme_yaml_blocks() if isinstance(b, dict) and "repos" in b]
    assert snippets, "the README has no pre-commit snippet"
    defined, flags = hooks(), check_flags()
    for snippet in snippets:
        for repo in snippet["repos"]:
            for hook in repo["hooks"]:
                assert hook["id"] in defined, f"no such hook: {hook['id']}"
                definition = defined[hook["id"]]
                assert str(definition["entry"]).split()[:2] == ["cleantree", "check"]
                args = [*definition.get("args", []), *hook.get("args", [])]
                named = " ".join([str(definition["entry"]), *map(str, args)])
                assert flags_in(named) <= flags, named


def test_the_readme_and_the_workflow_give_the_action_only_inputs_and_flags_it_has() -> None:
    workflow = yaml.safe_load(
        (REPO / "pytest_cleantree" / "examples" / "ci" / "cleantree.yml").read_text()
    )
    uses = [action_use(workflow["jobs"]["cleantree"]["steps"])]
    for block in readme_yaml_blocks():
        if isinstance(block, list):
            uses += [step for step in block if "pytest-cleantree@" in str(step.get("uses", ""))]
    assert len(uses) == 2, "the README shows no step that uses the action"
    inputs, flags = set(load_action()["inputs"]), check_flags()
    for use in uses:
        assert ACTION_USE.fullmatch(use["uses"]), use["uses"]
        assert set(use.get("with", {})) <= inputs
        assert flags_in(str(use.get("with", {}).get("args", ""))) <= flags
