"""The plugin suite runs pytest inside pytest (``pytester``), in a copy of the example."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

#: The example's checks, as node ids: one per rule and file entry, in manifest order.
STORY_IDS = (
    "cleantree.toml::flashinfer-fusion-sm120-reverted[srt/layers/communicator.py]",
    "cleantree.toml::flashinfer-fusion-sm120-reverted[srt/server_args.py]",
    "cleantree.toml::sm90-sm100-paths-kept[srt/layers/communicator.py]",
    "cleantree.toml::nccl-experiment-knobs-removed[sitecustomize.py]",
)


@pytest.fixture(autouse=True)
def _without_hypothesis_plugin(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """Block an unrelated plugin in the inner runs: hypothesis's plugin makes every in-process
    run import (and assertion-rewrite) all of hypothesis again, about a second a run.
    (After ``pytester``, which clears ``PYTEST_ADDOPTS`` when it starts.)"""
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no:hypothesispytest")
    # pytest prints whole failure messages in its short summary when it sees CI set: the inner
    # runs must print the same whether or not this suite itself runs in CI
    monkeypatch.delenv("CI", raising=False)


@pytest.fixture
def example_tree(pytester: pytest.Pytester, example_source: Path) -> Path:
    """The example copied into ``pytester.path`` (the folder the inner pytest runs in)."""
    shutil.copytree(example_source, pytester.path, dirs_exist_ok=True)
    return pytester.path


@pytest.fixture(scope="session")
def story_ids() -> tuple[str, ...]:
    return STORY_IDS
