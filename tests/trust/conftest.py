"""Hypothesis profiles: CI runs a fixed seed and a bounded number of examples.

``HYPOTHESIS_PROFILE=long python -m pytest tests/trust`` runs the long campaign by hand.

The real-sshd fixtures of ``tests/integration/conftest.py`` (``sshd``, ``ssh_setup``,
``disposable_setup``, ``make_ssh_source``, ``make_client_setup`` and the ones they need)
are shared here: that file is loaded once more under a module name of its own, and its
fixtures are re-exported (a ``pytest_plugins`` list is only allowed in the root conftest).
Added here: ``make_proxy`` (a :class:`faultproxy.FaultProxy`) and ``make_sshd``.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from faultproxy import FaultProxy
from hypothesis import HealthCheck, settings

SSHServer = Any  # tests/integration/conftest.py's SSHServer

settings.register_profile(
    "ci",
    max_examples=300,
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("long", max_examples=20_000, deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config: pytest.Config) -> None:
    # To explain a failure, hypothesis reads attributes of the loaded modules; reading
    # mypy_extensions.TypedDict (mypy is installed for the lint) warns, and under
    # ``filterwarnings = error`` the warning turns the failure into an INTERNALERROR that
    # hides the falsifying example.
    config.addinivalue_line(
        "filterwarnings", "ignore:mypy_extensions.TypedDict is deprecated:DeprecationWarning"
    )


def _load_integration_fixtures() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "integration" / "conftest.py"
    name = "cleantree_trust_sshd_fixtures"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None, path
    assert spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


sshd_fixtures = _load_integration_fixtures()

sshd_binary = sshd_fixtures.sshd_binary
ssh_keygen = sshd_fixtures.ssh_keygen
ssh_folder = sshd_fixtures.ssh_folder
host_key = sshd_fixtures.host_key
client_key = sshd_fixtures.client_key
authorized_keys = sshd_fixtures.authorized_keys
sshd = sshd_fixtures.sshd
known_hosts = sshd_fixtures.known_hosts
ssh_config = sshd_fixtures.ssh_config
ssh_setup = sshd_fixtures.ssh_setup
disposable_setup = sshd_fixtures.disposable_setup
make_ssh_source = sshd_fixtures.make_ssh_source
make_client_setup = sshd_fixtures.make_client_setup


@pytest.fixture
def make_proxy() -> Iterator[Callable[[tuple[str, int]], FaultProxy]]:
    """``make_proxy((host, port))``: a started :class:`FaultProxy`, closed after the test."""
    made: list[FaultProxy] = []

    def make(upstream: tuple[str, int]) -> FaultProxy:
        proxy = FaultProxy(upstream)
        made.append(proxy)
        return proxy

    yield make
    for proxy in made:
        proxy.close()
    for proxy in made:
        assert proxy.join(timeout=10), f"{proxy!r}: a forwarding thread did not stop"


@pytest.fixture
def make_sshd(
    sshd_binary: str, tmp_path: Path, host_key: Path, authorized_keys: Path
) -> Iterator[Callable[..., SSHServer]]:
    """``make_sshd(host_key=None, extra=())``: another sshd of the test's own (the session's
    host key by default, else the one given; ``extra`` sshd_config lines), stopped after the
    test."""
    with contextlib.ExitStack() as stack:
        count = 0

        def make(key: Path | None = None, extra: Sequence[str] = ()) -> SSHServer:
            nonlocal count
            count += 1
            folder = tmp_path / f"sshd{count}"
            return stack.enter_context(
                sshd_fixtures.running_sshd(
                    sshd_binary, folder, key or host_key, authorized_keys, extra
                )
            )

        yield make
