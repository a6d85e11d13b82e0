"""File sources: which source reads each host's tree (this machine's, or one over SSH).

:func:`resolve_hosts` turns host specs into targets, :func:`open_local_source` opens this
machine's tree and :func:`open_remote_source` a host's over SSH.  There is no registry of
transports: SSH is the one remote transport, and a new one is a branch of
:func:`open_remote_source`.  The SSH source is imported only when a host is actually named,
so local runs (and pytest sessions that never pass ``--cleantree``) never pay for
``paramiko``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from pytest_cleantree.config.hosts import HostSpec, parse_host_spec
from pytest_cleantree.core.errors import SourceError
from pytest_cleantree.sources.base import RemoteOptions, Source
from pytest_cleantree.sources.local import LocalSource, resolve_local_root

__all__ = ["LOCAL", "HostTarget", "RemoteOptions", "Source", "open_local_source", "resolve_hosts"]

#: the host name that means "this machine" in ``--cleantree-host`` / ``--host``
LOCAL = "local"


@dataclass(frozen=True)
class HostTarget:
    """A host to check: its label in reports and test ids, and its parsed spec (None: local)."""

    label: str
    spec: HostSpec | None


def resolve_hosts(names: Sequence[str], manifest_hosts: Mapping[str, str]) -> list[HostTarget]:
    """Turn ``--cleantree-host`` values into targets, without any I/O; each spec parsed once.

    A name from the manifest's ``[hosts]`` table stands for its URL; ``local``
    is this machine; anything else is a host spec (``root@gpu-a:/root/sglang``,
    an alias from ``~/.ssh/config``).  Two specs that would share a label
    (``gpu:/srv/a`` and ``gpu:/srv/b`` are both ``gpu``) are labelled as
    written instead: results are keyed by label, and one tree must never stand
    for another.  Raises ``ValueError`` on a bad spec.
    """
    parsed: list[tuple[str, HostSpec | None]] = []
    for name in names:
        if name == LOCAL:
            spec = None
        elif name in manifest_hosts:
            spec = parse_host_spec(manifest_hosts[name], name)
        else:
            spec = parse_host_spec(name)
        if (name, spec) not in parsed:
            parsed.append((name, spec))
    labels: dict[str, set[HostSpec | None]] = {}
    for _, spec in parsed:
        labels.setdefault(spec.label if spec else "", set()).add(spec)
    targets: list[HostTarget] = []
    for name, spec in parsed:
        if spec is None:
            target = HostTarget("", None)
        elif len(labels[spec.label]) > 1 and name != spec.label:
            target = HostTarget(name, dataclasses.replace(spec, label=name))
        else:
            target = HostTarget(spec.label, spec)
        if target not in targets:
            targets.append(target)
    if len({target.label for target in targets}) != len(targets):
        clash = sorted(label for label in labels if len(labels[label]) > 1)
        raise ValueError(
            f"two hosts would both be reported as {clash[0]!r}: name them apart (user@, a root "
            "or a [hosts] name)"
        )
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
    from pytest_cleantree.sources.ssh import SSHSource

    assert target.spec is not None
    chosen = target.spec.root or root
    if not chosen:
        raise SourceError(f"{target.label}: no root: give host:/path, or a root in the manifest")
    source = SSHSource(target.spec, chosen, options, allow_outside_root=allow_outside_root)
    # connected while the run plans; the analysis (what a check runs next) imported while it
    # waits for the first answer
    source.start(then_import=("pytest_cleantree.analysis",))
    return source
