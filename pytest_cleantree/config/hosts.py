"""Host specs as the user writes them, parsed without any I/O.

Two spellings are accepted, as ``scp`` and ``ssh`` accept them::

    gpu-a                       gpu-a:/root/sglang          root@gpu-a:~/sglang
    root@gpu-a                  user@[::1]:/p               gpu-a:module:sglang
    ssh://user@host:2222/abs/path                           ssh://[::1]:2222/p

The ``scp`` form has no port (use ``~/.ssh/config`` or the ``ssh://`` form);
everything after the host's ``:`` is the root.  In the ``ssh://`` form the path
is the root (``/~/x`` means ``~/x``, ``%20`` is a space).
"""

from __future__ import annotations

import ipaddress
import re
import urllib.parse
from dataclasses import dataclass

#: POSIX portable user names (and a trailing ``$``, as Samba machine accounts have)
_USER_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*\$?")
_NAME_RE = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?")
_SCP = re.compile(
    r"(?:(?P<user>[^@/:\[\]]+)@)?(?:\[(?P<bracketed>[^\]]*)\]|(?P<name>[^:@/\[\]]+))"
    r"(?::(?P<root>.*))?",
    re.DOTALL,
)
_HOSTPORT = re.compile(r"(?:\[(?P<bracketed>[^\]]*)\]|(?P<name>[^:\[\]]*))(?::(?P<port>.*))?")


@dataclass(frozen=True)
class HostSpec:
    """Where to connect: what the user called it, and the parts of the address they wrote.

    ``None`` means "not written": ``~/.ssh/config`` (or the default) decides.
    ``hostname`` is an alias that ``~/.ssh/config`` may map to another name.
    IPv6 addresses are stored without brackets.
    """

    label: str
    hostname: str
    user: str | None = None
    port: int | None = None
    root: str | None = None
    #: a private key to try first, as ``ssh -i`` (an inventory's
    #: ``ansible_ssh_private_key_file``; no spec text writes it)
    identity_file: str | None = None


def parse_host_spec(text: str, label: str | None = None) -> HostSpec:
    """Parse ``[user@]host[:root]`` or ``ssh://[user@]host[:port][/root]``.

    ``label`` names the host in reports; it defaults to the spec without its
    root (``root@gpu-a`` for ``root@gpu-a:/srv``).  Raises ``ValueError``
    saying what is wrong.
    """
    if label is not None and (not label.strip() or label != label.strip()):
        raise ValueError(f"host label {label!r} is empty or has surrounding whitespace")
    if not text or text.isspace():
        raise ValueError("empty host spec")
    if text != text.strip():
        raise ValueError(f"host spec {text!r} has leading or trailing whitespace")
    if text.lower().startswith("ssh://"):
        return _parse_uri(text, label)
    return _parse_scp(text, label)


def _parse_scp(text: str, label: str | None) -> HostSpec:
    match = _SCP.fullmatch(text)
    if match is None:
        if text.count(":") >= 2 and "[" not in text:
            raise ValueError(f"host spec {text!r}: write an IPv6 address in brackets, as [::1]")
        raise ValueError(
            f"host spec {text!r} is not [user@]host[:root] nor ssh://[user@]host[:port][/root]"
        )
    user, root = match["user"], match["root"]
    if user is not None:
        _check_user(text, user)
    hostname = _check_host(text, match["bracketed"], match["name"])
    if root is not None:
        if not root:
            raise ValueError(f"host spec {text!r}: empty root after ':'")
        if root.isdigit():
            raise ValueError(
                f"host spec {text!r}: {root!r} looks like a port; the host:root form has no port, "
                f"write ssh://{text.replace(':' + root, '')}:{root}/ROOT instead"
            )
        _check_root(text, root)
    default_label = text[: match.start("root") - 1] if root is not None else text
    return HostSpec(label or default_label, hostname, user, None, root)


def _parse_uri(text: str, label: str | None) -> HostSpec:
    rest = text[len("ssh://") :]
    netloc, slash, path = rest.partition("/")
    if "?" in rest or "#" in rest:
        raise ValueError(f"host spec {text!r}: an ssh:// spec has no '?query' nor '#fragment'")
    userinfo, at, hostport = netloc.rpartition("@")
    user: str | None = None
    if at:
        user = urllib.parse.unquote(userinfo)
        if ":" in user:
            raise ValueError(
                f"host spec {text!r}: passwords are not accepted; use a key or an agent"
            )
        _check_user(text, user)
    if "[" not in hostport and hostport.count(":") >= 2:
        raise ValueError(f"host spec {text!r}: write an IPv6 address in brackets, as [::1]")
    if "[" in hostport and "]" not in hostport:
        raise ValueError(f"host spec {text!r}: unclosed '[' in {hostport!r}")
    match = _HOSTPORT.fullmatch(hostport)
    if match is None:
        raise ValueError(f"host spec {text!r}: {hostport!r} is not host[:port]")
    hostname = _check_host(text, match["bracketed"], match["name"])
    port: int | None = None
    if match["port"] is not None:
        if not match["port"].isdigit() or not 0 < int(match["port"]) < 65536:
            raise ValueError(f"host spec {text!r}: port {match['port']!r} is not in 1-65535")
        port = int(match["port"])
    root: str | None = None
    path = urllib.parse.unquote(slash + path)
    if path not in ("", "/"):
        root = path[1:] if path.startswith("/~") else path
        _check_root(text, root)
    return HostSpec(label or netloc, hostname, user, port, root)


def _check_host(text: str, bracketed: str | None, name: str | None) -> str:
    if bracketed is not None:
        try:
            ipaddress.IPv6Address(bracketed)
        except ValueError:
            raise ValueError(f"host spec {text!r}: [{bracketed}] is not an IPv6 address") from None
        return bracketed
    if not name:
        raise ValueError(f"host spec {text!r}: no host name")
    if not _NAME_RE.fullmatch(name):
        raise ValueError(
            f"host spec {text!r}: bad host name {name!r} (letters, digits, '.', '-', '_' only)"
        )
    return name


def _check_user(text: str, user: str) -> None:
    if not _USER_RE.fullmatch(user):
        raise ValueError(
            f"host spec {text!r}: bad user name {user!r} (letters, digits, '.', '-', '_' only)"
        )


def _check_root(text: str, root: str) -> None:
    if "\0" in root:
        raise ValueError(f"host spec {text!r}: the root contains a NUL character")
