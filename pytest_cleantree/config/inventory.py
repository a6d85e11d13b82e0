"""Ansible inventories (INI or YAML) as a fleet: host names, addresses and groups.

``cleantree check --inventory hosts.ini --group gpu`` checks the hosts a
playbook would reach, without Ansible: what is read is what Ansible reads to
connect (``ansible_host``, ``ansible_port``, ``ansible_user``, with group
``vars`` and ``children``), plus ``cleantree_root`` for a host whose tree lies
elsewhere.  Host patterns ``gpu[01:16]`` and ``node[a:c]`` are expanded.
Dynamic inventories (scripts, plugins) and vaulted values are out of reach:
``ansible-inventory -i SRC --list -y > hosts.yml`` writes one this reads.
"""

from __future__ import annotations

import re
import shlex
import urllib.parse
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_cleantree.core.errors import CleanTreeError


class InventoryError(CleanTreeError):
    """An inventory that cannot be read, or a group that names no host."""


#: the variables read, and the older names Ansible still accepts for them
_ALIASES = {
    "ansible_host": ("ansible_host", "ansible_ssh_host"),
    "ansible_port": ("ansible_port", "ansible_ssh_port"),
    "ansible_user": ("ansible_user", "ansible_ssh_user"),
    "ansible_connection": ("ansible_connection",),
    "ansible_ssh_private_key_file": (
        "ansible_ssh_private_key_file",
        "ansible_private_key_file",
    ),
    "cleantree_root": ("cleantree_root",),
}
_RANGE = re.compile(r"\[([0-9a-zA-Z]+):([0-9a-zA-Z]+)(?::([0-9]+))?\]")
_YAML_SUFFIXES = (".yml", ".yaml", ".json")


@dataclass(frozen=True)
class InventoryHost:
    """One host as Ansible would connect to it; ``None``: not set (ssh config decides)."""

    name: str
    address: str | None = None
    port: int | None = None
    user: str | None = None
    root: str | None = None
    #: ``local`` for ``ansible_connection=local``, else ``ssh``
    connection: str = "ssh"
    groups: frozenset[str] = frozenset()
    #: ``ansible_ssh_private_key_file``: tried before the ssh config's keys (``ssh -i``)
    key_file: str | None = None

    def spec(self) -> str:
        """The host as ``--host`` takes it: ``ssh://user@address:port/root``, or ``local``."""
        if self.connection == "local":
            return "local"
        address = self.address or self.name
        netloc = f"[{address}]" if ":" in address else address
        if self.user:
            netloc = f"{urllib.parse.quote(self.user, safe='')}@{netloc}"
        if self.port:
            netloc += f":{self.port}"
        path = ""
        if self.root:
            root = self.root if self.root.startswith("/") else "/" + self.root
            path = urllib.parse.quote(root, safe="/~")
        return f"ssh://{netloc}{path}"


@dataclass
class _Group:
    hosts: dict[str, dict[str, Any]] = field(default_factory=dict)
    vars: dict[str, Any] = field(default_factory=dict)
    children: list[str] = field(default_factory=list)


def load_inventory(path: Path) -> dict[str, InventoryHost]:
    """Read an inventory file; :class:`InventoryError` names the file (and line) at fault."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InventoryError(f"inventory {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise InventoryError(f"inventory {str(path)!r}: not UTF-8 text ({exc.reason})") from None
    return parse_inventory(text, str(path))


def parse_inventory(text: str, path: str) -> dict[str, InventoryHost]:
    """The hosts of an inventory's text, in the order written; YAML by suffix or by look."""
    if path.endswith(_YAML_SUFFIXES) or _looks_like_yaml(text):
        groups = _parse_yaml(text, path)
    else:
        groups = _parse_ini(text, path)
    return _resolve(groups, path)


def select_hosts(inventory: Mapping[str, InventoryHost], groups: Sequence[str]) -> list[str]:
    """The names of the hosts in any of ``groups`` (every host without one), in order.

    A group that does not exist, or an inventory with no host, is an error:
    checking no host would be a silent pass.
    """
    known = {group for host in inventory.values() for group in host.groups}
    unknown = [group for group in groups if group not in known]
    if unknown:
        listed = ", ".join(sorted(known - {"all"})) or "none"
        raise InventoryError(f"--group {unknown[0]!r}: no such group (groups: {listed})")
    chosen = [
        name
        for name, host in inventory.items()
        if not groups or any(group in host.groups for group in groups)
    ]
    if not chosen:
        raise InventoryError("the inventory names no host")
    return chosen


# --------------------------------------------------------------------------- INI


def _looks_like_yaml(text: str) -> bool:
    for line in text.splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue
        return stripped == "---" or bool(re.fullmatch(r"[\w.-]+:(\s.*)?", stripped))
    return False


def _parse_ini(text: str, path: str) -> dict[str, _Group]:
    groups: dict[str, _Group] = {"all": _Group(), "ungrouped": _Group()}
    section, kind = "ungrouped", "hosts"
    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        where = f"{path}:{number}"
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            match = re.fullmatch(r"\[([^\]:\s]+)(?::(vars|children))?\]", line)
            if match is None:
                raise InventoryError(f"{where}: bad section header {line!r}")
            section, kind = match[1], match[2] or "hosts"
            groups.setdefault(section, _Group())
            continue
        try:
            words = shlex.split(line, comments=True)
        except ValueError as exc:
            raise InventoryError(f"{where}: {exc}") from None
        if not words:
            continue
        group = groups[section]
        if kind == "vars":
            key, equals, value = line.partition("=")
            if not equals or not key.strip():
                raise InventoryError(f"{where}: expected key=value in [{section}:vars]")
            group.vars[key.strip()] = _ini_value(value.strip())
        elif kind == "children":
            group.children.append(words[0])
            groups.setdefault(words[0], _Group())
        else:
            variables: dict[str, Any] = {}
            for word in words[1:]:
                key, equals, value = word.partition("=")
                if not equals or not key:
                    raise InventoryError(
                        f"{where}: expected key=value after the host, not {word!r}"
                    )
                variables[key] = value
            name, port = _split_port(words[0], where)
            if port is not None:
                variables.setdefault("ansible_port", port)
            for expanded in _expand(name, where):
                group.hosts.setdefault(expanded, {}).update(variables)
    return groups


def _ini_value(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value.split(" #", 1)[0].strip()


def _split_port(name: str, where: str) -> tuple[str, int | None]:
    """``host:2222`` (not an IPv6 address, not a range ``[1:3]``): the name and the port."""
    head, colon, tail = name.rpartition(":")
    if colon and tail.isdigit() and "]" not in tail and head.count(":") == 0:
        return head, _port(tail, where, name)
    return name, None


# --------------------------------------------------------------------------- YAML


def _parse_yaml(text: str, path: str) -> dict[str, _Group]:
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML comes with Ansible
        raise InventoryError(
            f"inventory {path!r}: reading YAML needs PyYAML (pip install pyyaml)"
        ) from None
    try:
        document = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else path
        raise InventoryError(f"{where}: not valid YAML: {getattr(exc, 'problem', exc)}") from None
    if document is None:
        document = {}
    if not isinstance(document, dict):
        raise InventoryError(f"{path}: a YAML inventory is a mapping of groups")
    groups: dict[str, _Group] = {"all": _Group(), "ungrouped": _Group()}
    for name, body in document.items():
        _yaml_group(groups, str(name), body, path)
        if name not in ("all", "ungrouped") and name not in groups["all"].children:
            groups["all"].children.append(str(name))
    return groups


def _yaml_group(groups: dict[str, _Group], name: str, body: Any, path: str) -> None:
    group = groups.setdefault(name, _Group())
    if body is None:
        return
    if not isinstance(body, dict):
        raise InventoryError(f"{path}: group {name!r}: expected hosts, vars or children")
    unknown = sorted(set(body) - {"hosts", "vars", "children"})
    if unknown:
        raise InventoryError(f"{path}: group {name!r}: unknown key {unknown[0]!r}")
    for key, kind in (("hosts", dict), ("vars", dict), ("children", dict)):
        if body.get(key) is not None and not isinstance(body[key], kind):
            raise InventoryError(f"{path}: group {name!r}: {key} must be a mapping")
    for host, variables in (body.get("hosts") or {}).items():
        if variables is not None and not isinstance(variables, dict):
            raise InventoryError(f"{path}: host {host!r}: its variables must be a mapping")
        for expanded in _expand(str(host), f"{path}: host {host!r}"):
            group.hosts.setdefault(expanded, {}).update(variables or {})
    group.vars.update(body.get("vars") or {})
    for child, child_body in (body.get("children") or {}).items():
        if str(child) not in group.children:
            group.children.append(str(child))
        _yaml_group(groups, str(child), child_body, path)


# --------------------------------------------------------------------------- both


def _expand(pattern: str, where: str) -> Iterator[str]:
    """``gpu[01:03]`` -> gpu01, gpu02, gpu03; ``n[a:c]`` -> na, nb, nc (Ansible's host ranges)."""
    match = _RANGE.search(pattern)
    if match is None:
        yield pattern
        return
    start, end, step_text = match.groups()
    step = int(step_text) if step_text else 1
    head, tail = pattern[: match.start()], pattern[match.end() :]
    if step < 1:  # before range(), which refuses a step of 0
        raise InventoryError(f"{where}: empty host range in {pattern!r}")
    if start.isdigit() and end.isdigit():
        width = len(start) if start.startswith("0") else 0
        values = [str(i).zfill(width) for i in range(int(start), int(end) + 1, step)]
    elif len(start) == len(end) == 1 and start.isalpha() and end.isalpha():
        values = [chr(i) for i in range(ord(start), ord(end) + 1, step)]
    else:
        raise InventoryError(f"{where}: bad host range [{match[0][1:-1]}] in {pattern!r}")
    if not values:
        raise InventoryError(f"{where}: empty host range in {pattern!r}")
    for value in values:
        yield from _expand(head + value + tail, where)


def _port(value: object, where: str, name: str) -> int:
    text = str(value)
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise InventoryError(f"{where}: {name}: port {text!r} is not in 1-65535")
    return int(text)


def _resolve(groups: dict[str, _Group], path: str) -> dict[str, InventoryHost]:
    """Each host with its groups (children included) and variables (host over group over all)."""
    for name, group in groups.items():
        for child in group.children:
            if child == name:
                raise InventoryError(f"{path}: group {name!r} is its own child")
    parents: dict[str, set[str]] = {name: set() for name in groups}
    for name, group in groups.items():
        for child in group.children:
            parents.setdefault(child, set()).add(name)
    for name in groups:
        if name != "all" and not parents.get(name):
            parents[name].add("all")

    def ancestors(name: str, seen: frozenset[str] = frozenset()) -> set[str]:
        if name in seen:
            raise InventoryError(f"{path}: group {name!r} is its own ancestor")
        found = {name}
        for parent in parents.get(name, ()):
            found |= ancestors(parent, seen | {name})
        return found

    def depth(name: str) -> int:
        return 0 if name == "all" else 1 + max((depth(p) for p in parents.get(name, ())), default=0)

    order: list[str] = []
    direct: dict[str, set[str]] = {}
    host_vars: dict[str, dict[str, Any]] = {}
    for name, group in groups.items():
        for host, variables in group.hosts.items():
            if host not in direct:
                order.append(host)
                direct[host] = set()
                host_vars[host] = {}
            direct[host].add(name)
            host_vars[host].update(variables)
    hosts: dict[str, InventoryHost] = {}
    for host in order:
        member = set().union(*(ancestors(group) for group in direct[host])) | {"all"}
        if direct[host] - {"ungrouped"}:
            member.discard("ungrouped")
        merged: dict[str, Any] = {}
        for member_name in sorted(member, key=lambda g: (depth(g), g)):
            if member_name in groups:
                merged.update(_canonical(groups[member_name].vars))
        merged.update(_canonical(host_vars[host]))
        hosts[host] = _host(host, merged, frozenset(member), path)
    return hosts


_CANONICAL = {alias: key for key, aliases in _ALIASES.items() for alias in aliases}


def _canonical(variables: Mapping[str, Any]) -> dict[str, Any]:
    """Variables with the older names (``ansible_ssh_user``) under the current ones: a host's
    ``ansible_ssh_user`` overrides its group's ``ansible_user``."""
    return {_CANONICAL.get(key, key): value for key, value in variables.items()}


def _host(name: str, merged: Mapping[str, Any], groups: frozenset[str], path: str) -> InventoryHost:
    def get(key: str) -> str | None:
        value = merged.get(key)
        return None if value is None or str(value) == "" else str(value)

    where = f"{path}: host {name!r}"
    connection = get("ansible_connection") or "ssh"
    if connection not in ("ssh", "paramiko", "smart", "local"):
        raise InventoryError(
            f"{where}: ansible_connection={connection} is not SSH; cleantree reaches hosts by "
            "SSH (or checks this machine for 'local')"
        )
    port = get("ansible_port")
    return InventoryHost(
        name=name,
        address=get("ansible_host"),
        port=_port(port, where, "ansible_port") if port is not None else None,
        user=get("ansible_user"),
        root=get("cleantree_root"),
        connection="local" if connection == "local" else "ssh",
        groups=groups,
        key_file=get("ansible_ssh_private_key_file"),
    )
