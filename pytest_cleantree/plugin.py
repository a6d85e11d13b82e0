"""The pytest entry point: ``pytest11 cleantree`` and ``-p pytest_cleantree.plugin`` name it.

Its hooks and fixture live in :mod:`pytest_cleantree.frontends.pytest.plugin`, its collectors
and items in :mod:`pytest_cleantree.frontends.pytest.items`;
this module only keeps the public name stable.  Importing it must stay cheap and inert: pytest
loads it in every session on the machine.
"""

from __future__ import annotations

from pytest_cleantree.frontends.pytest.items import (
    CleanTreeFailure,
    CleanTreeItem,
    ManifestFile,
    RevertedCommit,
)
from pytest_cleantree.frontends.pytest.plugin import (
    cleantree,
    pytest_addoption,
    pytest_collect_file,
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_make_collect_report,
    pytest_runtest_makereport,
    pytest_sessionfinish,
    pytest_terminal_summary,
    pytest_unconfigure,
)

__all__ = [
    "CleanTreeFailure",
    "CleanTreeItem",
    "ManifestFile",
    "RevertedCommit",
    "cleantree",
    "pytest_addoption",
    "pytest_collect_file",
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_make_collect_report",
    "pytest_runtest_makereport",
    "pytest_sessionfinish",
    "pytest_terminal_summary",
    "pytest_unconfigure",
]
