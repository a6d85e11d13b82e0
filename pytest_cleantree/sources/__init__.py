"""File sources, found through a registry that imports lazily.

``paramiko`` is imported only when a host is actually named, so local runs
(and pytest sessions that never pass ``--cleantree``) never pay for it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_cleantree.errors import SourceError
from pytest_cleantree.hosts import parse_host_spec
from pytest_cleantree.sources.base import Source
from pytest_cleantree.sources.local import LocalSource, resolve_local_root

__all__ = ["LOCAL", "HostTarget", "RemoteOptions", "Source", "open_local_source", "resolve_hosts"]

#: the host name that means "this machine" in ``--cleantree-host`` / ``--host``
LOCAL = "local"


@dataclass(frozen=True)
class RemoteOptions:
    """How to reach remote hosts; the defaults verify host keys against ``~/.ssh/known_hosts``.

    The fields are :func:`~pytest_cleantree.sources.ssh.open_ssh_source`'s keyword options.
    """

    known_hosts: Path | None = None
    accept_new_host_key: bool = False
    ssh_config: Path | None = None
    connect_timeout: float = 10
    command_timeout: float = 60
    python: str = "python3"


@dataclass(frozen=True)
class HostTarget:
    """A host to check: its label in reports and test ids, and its SSH spec (None: local)."""

    label: str
    spec: str | None


def resolve_hosts(names: Sequence[str], manifest_hosts: Mapping[str, str]) -> list[HostTarget]:
    """Turn ``--cleantree-host`` values into targets, without any I/O.

    A name from the manifest's ``[hosts]`` table stands for its URL; ``local``
    is this machine; anything else is a host spec (``root@gpu-a:/root/sglang``,
    an alias from ``~/.ssh/config``).  Raises ``ValueError`` on a bad spec.
    """
    targets: list[HostTarget] = []
    for name in names:
        if name == LOCAL:
            target = HostTarget("", None)
        elif name in manifest_hosts:
            parse_host_spec(manifest_hosts[name], name)
            target = HostTarget(name, manifest_hosts[name])
        else:
            target = HostTarget(parse_host_spec(name).label, name)
        if target not in targets:
            targets.append(target)
    return targets


def open_local_source(root: str, manifest_dir: Path, *, allow_outside_root: bool = False) -> Source:
    """The manifest's ``root`` on this machine, relative to the manifest's folder."""
    return LocalSource(
        resolve_local_root(root, manifest_dir), allow_outside_root=allow_outside_root
    )


def open_remote_source(
    target: HostTarget, root: str, options: RemoteOptions, *, allow_outside_root: bool = False
) -> Source:
    """The tree on a remote host; the host spec's own root wins over ``root``."""
    from pytest_cleantree.sources.ssh import open_ssh_source

    assert target.spec is not None
    own_root = parse_host_spec(target.spec, target.label).root
    if own_root is None and not root:
        raise SourceError(f"{target.label}: no root: give host:/path, or a root in the manifest")
    return open_ssh_source(
        target.spec,
        own_root or root,
        label=target.label,
        allow_outside_root=allow_outside_root,
        **dataclasses.asdict(options),
    )
