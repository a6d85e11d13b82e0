"""The host spec parser, as a table: what users write, and what it means."""

from __future__ import annotations

import re

import pytest

from pytest_cleantree.config.hosts import HostSpec, parse_host_spec
from pytest_cleantree.sources import resolve_hosts

GOOD: list[tuple[str, HostSpec]] = [
    ("gpu-a", HostSpec("gpu-a", "gpu-a")),
    ("root@gpu-a", HostSpec("root@gpu-a", "gpu-a", user="root")),
    ("root@gpu-a:/root/sglang", HostSpec("root@gpu-a", "gpu-a", "root", None, "/root/sglang")),
    ("gpu-a:/path", HostSpec("gpu-a", "gpu-a", root="/path")),
    ("gpu-a:~/sglang", HostSpec("gpu-a", "gpu-a", root="~/sglang")),
    ("gpu-a:~", HostSpec("gpu-a", "gpu-a", root="~")),
    ("gpu-a:relative/path", HostSpec("gpu-a", "gpu-a", root="relative/path")),
    ("gpu-a:module:sglang.srt", HostSpec("gpu-a", "gpu-a", root="module:sglang.srt")),
    ("gpu-a:/a path/with:colon", HostSpec("gpu-a", "gpu-a", root="/a path/with:colon")),
    ("gpu-a:/odd@name", HostSpec("gpu-a", "gpu-a", root="/odd@name")),
    ("10.0.0.7:/srv", HostSpec("10.0.0.7", "10.0.0.7", root="/srv")),
    ("node_3.cluster.local", HostSpec("node_3.cluster.local", "node_3.cluster.local")),
    ("user@[::1]:/p", HostSpec("user@[::1]", "::1", "user", None, "/p")),
    ("[fe80::1%eth0]", HostSpec("[fe80::1%eth0]", "fe80::1%eth0")),
    (
        "ssh://user@host:2222/abs/path",
        HostSpec("user@host:2222", "host", "user", 2222, "/abs/path"),
    ),
    ("ssh://[::1]:2222/p", HostSpec("[::1]:2222", "::1", None, 2222, "/p")),
    ("ssh://[2001:db8::2]/srv", HostSpec("[2001:db8::2]", "2001:db8::2", root="/srv")),
    ("ssh://gpu-a", HostSpec("gpu-a", "gpu-a")),
    ("ssh://gpu-a/", HostSpec("gpu-a", "gpu-a")),
    ("ssh://gpu-a:22", HostSpec("gpu-a:22", "gpu-a", port=22)),
    ("ssh://gpu-a/~/sglang", HostSpec("gpu-a", "gpu-a", root="~/sglang")),
    ("ssh://gpu-a/srv/a%20b", HostSpec("gpu-a", "gpu-a", root="/srv/a b")),
    ("SSH://gpu-a/srv", HostSpec("gpu-a", "gpu-a", root="/srv")),
    ("svc$@gpu-a", HostSpec("svc$@gpu-a", "gpu-a", user="svc$")),
]


@pytest.mark.parametrize(("text", "expected"), GOOD, ids=[text for text, _ in GOOD])
def test_a_spec_parses_to(text: str, expected: HostSpec) -> None:
    assert parse_host_spec(text) == expected


def test_a_label_names_the_host_in_reports() -> None:
    assert parse_host_spec("root@10.0.0.7:/srv", "gpu-a") == HostSpec(
        "gpu-a", "10.0.0.7", "root", None, "/srv"
    )


BAD: list[tuple[str, str]] = [
    ("", "empty host spec"),
    ("   ", "empty host spec"),
    (" gpu-a", "leading or trailing whitespace"),
    ("gpu a", "bad host name 'gpu a'"),
    ("gpu-a:", "empty root after ':'"),
    ("gpu-a:2222", "looks like a port; .* write ssh://gpu-a:2222/ROOT"),
    ("root@gpu-a:22", "write ssh://root@gpu-a:22/ROOT"),
    ("a@b@c", "is not \\[user@\\]host\\[:root\\]"),
    ("::1", "IPv6 address in brackets"),
    ("[zz]:/p", "\\[zz\\] is not an IPv6 address"),
    ("[::1", "is not \\[user@\\]host"),
    ("@gpu-a", "is not \\[user@\\]host"),
    ("$(touch x)@gpu-a", "bad user name"),
    ("-oProxyCommand=sh", "bad host name"),
    ("gpu-a;rm", "bad host name"),
    ("gpu-a:/p\0q", "NUL"),
    ("ssh://", "no host name"),
    ("ssh://user@", "no host name"),
    ("ssh://@gpu-a", "bad user name ''"),
    ("ssh://u:secret@gpu-a/p", "passwords are not accepted"),
    ("ssh://gpu-a:0/p", "port '0' is not in 1-65535"),
    ("ssh://gpu-a:65536/p", "port '65536' is not in 1-65535"),
    ("ssh://gpu-a:ssh/p", "port 'ssh' is not in 1-65535"),
    ("ssh://gpu-a:/p", "port '' is not in 1-65535"),
    ("ssh://[::1/p", "unclosed '\\['"),
    ("ssh://::1/p", "IPv6 address in brackets"),
    ("ssh://[::1]x/p", "is not host\\[:port\\]"),
    ("ssh://gpu-a/p?x=1", "no '\\?query'"),
    ("ssh://gpu-a/p#frag", "nor '#fragment'"),
]


@pytest.mark.parametrize(("text", "message"), BAD, ids=[repr(text) for text, _ in BAD])
def test_garbage_is_refused_saying_why(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_host_spec(text)


@pytest.mark.parametrize("label", ["", " ", " gpu-a"])
def test_a_blank_label_is_refused(label: str) -> None:
    with pytest.raises(ValueError, match="host label"):
        parse_host_spec("gpu-a", label)


@pytest.mark.parametrize(
    ("names", "labels"),
    [
        pytest.param(["gpu:/srv/a", "gpu:/srv/b"], ["gpu:/srv/a", "gpu:/srv/b"], id="two-roots"),
        pytest.param(["gpu", "gpu:/srv/b"], ["gpu", "gpu:/srv/b"], id="bare-and-root"),
        pytest.param(["gpu:/srv/a", "gpu:/srv/a"], ["gpu"], id="same-spec-once"),
        pytest.param(["gpu:/srv/a", "root@gpu:/srv/a"], ["gpu", "root@gpu"], id="users-apart"),
        pytest.param(["fleet1", "fleet1:/x"], ["fleet1", "fleet1:/x"], id="manifest-name"),
        pytest.param(["local", "gpu:/a", "local"], ["", "gpu"], id="local"),
    ],
)
def test_every_spec_gets_a_label_of_its_own(names: list[str], labels: list[str]) -> None:
    targets = resolve_hosts(names, {"fleet1": "root@10.0.0.1:/srv"})
    assert [target.label for target in targets] == labels
    assert [t.spec.label for t in targets if t.spec is not None] == [x for x in labels if x]


#: every refusal's whole message: what users read must not change unnoticed
MESSAGES: list[tuple[str, str]] = [
    ("", "empty host spec"),
    ("   ", "empty host spec"),
    (" gpu-a", "host spec ' gpu-a' has leading or trailing whitespace"),
    ("gpu a", "host spec 'gpu a': bad host name 'gpu a' (letters, digits, '.', '-', '_' only)"),
    ("gpu-a:", "host spec 'gpu-a:': empty root after ':'"),
    (
        "gpu-a:2222",
        "host spec 'gpu-a:2222': '2222' looks like a port; the host:root form has no port, "
        "write ssh://gpu-a:2222/ROOT instead",
    ),
    (
        "root@gpu-a:22",
        "host spec 'root@gpu-a:22': '22' looks like a port; the host:root form has no port, "
        "write ssh://root@gpu-a:22/ROOT instead",
    ),
    ("a@b@c", "host spec 'a@b@c' is not [user@]host[:root] nor ssh://[user@]host[:port][/root]"),
    ("::1", "host spec '::1': write an IPv6 address in brackets, as [::1]"),
    ("[zz]:/p", "host spec '[zz]:/p': [zz] is not an IPv6 address"),
    ("[::1", "host spec '[::1' is not [user@]host[:root] nor ssh://[user@]host[:port][/root]"),
    ("@gpu-a", "host spec '@gpu-a' is not [user@]host[:root] nor ssh://[user@]host[:port][/root]"),
    (
        "$(touch x)@gpu-a",
        "host spec '$(touch x)@gpu-a': bad user name '$(touch x)' "
        "(letters, digits, '.', '-', '_' only)",
    ),
    (
        "-oProxyCommand=sh",
        "host spec '-oProxyCommand=sh': bad host name '-oProxyCommand=sh' "
        "(letters, digits, '.', '-', '_' only)",
    ),
    (
        "gpu-a;rm",
        "host spec 'gpu-a;rm': bad host name 'gpu-a;rm' (letters, digits, '.', '-', '_' only)",
    ),
    ("gpu-a:/p\x00q", "host spec 'gpu-a:/p\\x00q': the root contains a NUL character"),
    ("ssh://", "host spec 'ssh://': no host name"),
    ("ssh://user@", "host spec 'ssh://user@': no host name"),
    (
        "ssh://@gpu-a",
        "host spec 'ssh://@gpu-a': bad user name '' (letters, digits, '.', '-', '_' only)",
    ),
    (
        "ssh://u:secret@gpu-a/p",
        "host spec 'ssh://u:secret@gpu-a/p': passwords are not accepted; use a key or an agent",
    ),
    ("ssh://gpu-a:0/p", "host spec 'ssh://gpu-a:0/p': port '0' is not in 1-65535"),
    ("ssh://gpu-a:65536/p", "host spec 'ssh://gpu-a:65536/p': port '65536' is not in 1-65535"),
    ("ssh://gpu-a:ssh/p", "host spec 'ssh://gpu-a:ssh/p': port 'ssh' is not in 1-65535"),
    ("ssh://gpu-a:/p", "host spec 'ssh://gpu-a:/p': port '' is not in 1-65535"),
    ("ssh://[::1/p", "host spec 'ssh://[::1/p': unclosed '[' in '[::1'"),
    ("ssh://::1/p", "host spec 'ssh://::1/p': write an IPv6 address in brackets, as [::1]"),
    ("ssh://[::1]x/p", "host spec 'ssh://[::1]x/p': '[::1]x' is not host[:port]"),
    (
        "ssh://gpu-a/p?x=1",
        "host spec 'ssh://gpu-a/p?x=1': an ssh:// spec has no '?query' nor '#fragment'",
    ),
    (
        "ssh://gpu-a/p#frag",
        "host spec 'ssh://gpu-a/p#frag': an ssh:// spec has no '?query' nor '#fragment'",
    ),
    ("ssh://gpu-a/p\x00", "host spec 'ssh://gpu-a/p\\x00': the root contains a NUL character"),
    (
        "ssh://u%40x@gpu-a",
        "host spec 'ssh://u%40x@gpu-a': bad user name 'u@x' (letters, digits, '.', '-', '_' only)",
    ),
    ("ssh://[zz]/p", "host spec 'ssh://[zz]/p': [zz] is not an IPv6 address"),
    ("gpu-a.", "host spec 'gpu-a.': bad host name 'gpu-a.' (letters, digits, '.', '-', '_' only)"),
    ("-a", "host spec '-a': bad host name '-a' (letters, digits, '.', '-', '_' only)"),
    ("a-", "host spec 'a-': bad host name 'a-' (letters, digits, '.', '-', '_' only)"),
    ("-u@gpu", "host spec '-u@gpu': bad user name '-u' (letters, digits, '.', '-', '_' only)"),
]


@pytest.mark.parametrize(("text", "message"), MESSAGES, ids=[repr(text) for text, _ in MESSAGES])
def test_the_whole_message_of_a_refusal(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        parse_host_spec(text)


@pytest.mark.parametrize("label", ["", " ", " gpu-a", "gpu-a "])
def test_the_whole_message_of_a_bad_label(label: str) -> None:
    message = f"host label {label!r} is empty or has surrounding whitespace"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        parse_host_spec("gpu-a", label)


MORE: list[tuple[str, HostSpec]] = [
    ("ssh://gpu-a/%7E/x", HostSpec("gpu-a", "gpu-a", root="~/x")),
    ("ssh://gpu-a/~", HostSpec("gpu-a", "gpu-a", root="~")),
    ("a@[::1]", HostSpec("a@[::1]", "::1", "a")),
    ("ssh://gpu-a:65535/p", HostSpec("gpu-a:65535", "gpu-a", port=65535, root="/p")),
    ("ssh://gpu-a:1", HostSpec("gpu-a:1", "gpu-a", port=1)),
    ("ssh://u%2Ex@gpu-a", HostSpec("u%2Ex@gpu-a", "gpu-a", "u.x")),
    ("a_", HostSpec("a_", "a_")),
    ("_a", HostSpec("_a", "_a")),
    ("x", HostSpec("x", "x")),
    ("u.-x@gpu", HostSpec("u.-x@gpu", "gpu", "u.-x")),
    ("gpu-a:root:2", HostSpec("gpu-a", "gpu-a", root="root:2")),
    ("gpu-a:0x1", HostSpec("gpu-a", "gpu-a", root="0x1")),
]


@pytest.mark.parametrize(("text", "expected"), MORE, ids=[text for text, _ in MORE])
def test_more_specs_parse_to(text: str, expected: HostSpec) -> None:
    assert parse_host_spec(text) == expected


def test_a_label_replaces_the_default_in_both_forms() -> None:
    assert parse_host_spec("ssh://u@h:2/p", "lab") == HostSpec("lab", "h", "u", 2, "/p")
    assert parse_host_spec("h", "lab") == HostSpec("lab", "h")
