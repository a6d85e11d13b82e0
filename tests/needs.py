"""What a test needs that the small test install may lack, said one way for the whole suite.

Outside CI a missing tool skips the test with the command that installs it; under ``CI=true``
it fails: CI installs everything, and a suite that ran nothing must not pass.
"""

from __future__ import annotations

import importlib.util
import os

import pytest


def in_ci() -> bool:
    """Is this CI's run (``CI=true``, as GitHub Actions and ``.ci/run`` set it)?"""
    return os.environ.get("CI", "").lower() in ("true", "1", "yes")


def unavailable(message: str) -> None:
    """What the test needs is not here: fail under CI, else skip saying ``message``."""
    if in_ci():
        pytest.fail(message + "; CI=true: refusing to pass having run nothing")
    pytest.skip(message)


def missing(what: str, install: str) -> None:
    """``what`` is not installed: fail under CI, else skip saying how to install it."""
    unavailable(f"{what} is not installed ({install})")


def need_module(module: str, extra: str = "test-tools") -> None:
    """Import ``module`` must work, else :func:`missing` (it is in the ``extra`` extra)."""
    if importlib.util.find_spec(module) is None:
        missing(module, f"pip install -e '.[{extra}]'")
