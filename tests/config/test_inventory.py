"""Ansible inventories, INI and YAML: the hosts, their addresses and groups, as Ansible reads them.

Table tests: each inventory's text against the exact hosts (name, address, port,
user, root, groups) expected, and bad inventories against the exact message.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pytest_cleantree.config.inventory import (
    InventoryError,
    InventoryHost,
    load_inventory,
    parse_inventory,
    select_hosts,
)

INI = """\
# a comment
bastion.example.com ansible_user=ops

[gpu]
gpu-a ansible_host=10.0.0.1 ansible_port=2222
gpu-b:2200 ansible_ssh_user=ubuntu  # the old name of ansible_user
node[01:03].lab

[gpu:vars]
ansible_user=root
cleantree_root=/opt/sglang/python/sglang

[cpu]
worker[a:b] ansible_host=192.168.1.5

[serving:children]
gpu

[all:vars]
ansible_user=admin
ansible_port=22
"""

YAML = """\
all:
  vars:
    ansible_user: admin
  hosts:
    bastion.example.com:
      ansible_user: ops
  children:
    serving:
      children:
        gpu:
          vars:
            ansible_user: root
            cleantree_root: /opt/sglang/python/sglang
          hosts:
            gpu-a:
              ansible_host: 10.0.0.1
              ansible_port: 2222
            node[01:03].lab:
    cpu:
      hosts:
        worker[a:b]:
          ansible_host: 192.168.1.5
"""

GPU_GROUPS = frozenset({"all", "gpu", "serving"})
ROOT = "/opt/sglang/python/sglang"


def hosts_of(text: str, path: str) -> dict[str, InventoryHost]:
    return parse_inventory(text, path)


@pytest.mark.parametrize(
    ("text", "path", "expected"),
    [
        pytest.param(
            "gpu-a\ngpu-b ansible_host=::1\n",
            "hosts",
            {
                "gpu-a": InventoryHost("gpu-a", groups=frozenset({"all", "ungrouped"})),
                "gpu-b": InventoryHost(
                    "gpu-b", address="::1", groups=frozenset({"all", "ungrouped"})
                ),
            },
            id="ini-ungrouped",
        ),
        pytest.param(
            "[gpu]\nn[1:5:2]\n",
            "hosts.ini",
            {
                name: InventoryHost(name, groups=frozenset({"all", "gpu"}))
                for name in ("n1", "n3", "n5")
            },
            id="ini-range-with-step",
        ),
        pytest.param(
            "localhost ansible_connection=local\n",
            "hosts",
            {
                "localhost": InventoryHost(
                    "localhost", connection="local", groups=frozenset({"all", "ungrouped"})
                )
            },
            id="ini-local-connection",
        ),
        pytest.param(
            "[a]\nh1 ansible_user=x\n[b]\nh1 ansible_port=2022\n[a:vars]\nansible_port=1\n",
            "hosts",
            {"h1": InventoryHost("h1", port=2022, user="x", groups=frozenset({"all", "a", "b"}))},
            id="ini-host-in-two-groups-host-vars-win",
        ),
        pytest.param(
            "all:\n  hosts:\n    solo:\n",
            "inventory",
            {"solo": InventoryHost("solo", groups=frozenset({"all"}))},
            id="yaml-by-look",
        ),
        pytest.param(
            "---\ngpu:\n  hosts:\n    g1:\n      ansible_port: 2201\n",
            "inv.yml",
            {"g1": InventoryHost("g1", port=2201, groups=frozenset({"all", "gpu"}))},
            id="yaml-top-level-group",
        ),
        pytest.param("", "hosts", {}, id="empty-ini"),
        pytest.param("", "hosts.yml", {}, id="empty-yaml"),
    ],
)
def test_small_inventories(text: str, path: str, expected: dict[str, InventoryHost]) -> None:
    assert hosts_of(text, path) == expected


@pytest.mark.parametrize(("text", "path"), [(INI, "hosts.ini"), (YAML, "hosts.yml")])
def test_the_same_inventory_in_ini_and_yaml(text: str, path: str) -> None:
    hosts = hosts_of(text, path)
    gpu = {"user": "root", "root": ROOT, "groups": GPU_GROUPS}
    expected = {
        "bastion.example.com": InventoryHost(
            "bastion.example.com",
            user="ops",
            port=22 if path.endswith(".ini") else None,
            groups=frozenset({"all", "ungrouped"} if path.endswith(".ini") else {"all"}),
        ),
        "gpu-a": InventoryHost("gpu-a", address="10.0.0.1", port=2222, **gpu),  # type: ignore[arg-type]
        **{
            f"node0{n}.lab": InventoryHost(
                f"node0{n}.lab",
                port=22 if path.endswith(".ini") else None,
                **gpu,  # type: ignore[arg-type]
            )
            for n in (1, 2, 3)
        },
        **{
            f"worker{x}": InventoryHost(
                f"worker{x}",
                address="192.168.1.5",
                user="admin",
                port=22 if path.endswith(".ini") else None,
                groups=frozenset({"all", "cpu"}),
            )
            for x in "ab"
        },
    }
    if path.endswith(".ini"):  # the INI file also has gpu-b, with a port in its name
        expected["gpu-b"] = InventoryHost(
            "gpu-b", port=2200, user="ubuntu", root=ROOT, groups=GPU_GROUPS
        )
    assert hosts == expected
    assert select_hosts(hosts, ["serving"]) == [n for n in hosts if "serving" in hosts[n].groups]
    assert select_hosts(hosts, ["cpu", "gpu"]) == [
        n for n in hosts if n.startswith(("gpu", "node", "worker"))
    ]
    assert select_hosts(hosts, []) == list(hosts)


@pytest.mark.parametrize(
    ("host", "spec"),
    [
        (InventoryHost("gpu-a"), "ssh://gpu-a"),
        (
            InventoryHost("gpu-a", address="10.0.0.1", port=2222, user="root"),
            "ssh://root@10.0.0.1:2222",
        ),
        (InventoryHost("v6", address="::1", root="/srv/my tree"), "ssh://[::1]/srv/my%20tree"),
        (InventoryHost("h", root="~/sglang"), "ssh://h/~/sglang"),
        (InventoryHost("h", root="module:sglang"), "ssh://h/module%3Asglang"),
        (InventoryHost("localhost", connection="local"), "local"),
    ],
)
def test_each_host_becomes_a_host_spec(host: InventoryHost, spec: str) -> None:
    assert host.spec() == spec


@pytest.mark.parametrize(
    ("text", "path", "message"),
    [
        ("[gpu\nh1\n", "hosts", "hosts:1: bad section header '[gpu'"),
        ("[gpu:vars]\njust-a-word\n", "hosts", "hosts:2: expected key=value in [gpu:vars]"),
        ("h1 port2222\n", "hosts", "hosts:1: expected key=value after the host, not 'port2222'"),
        (
            "h1 ansible_port=http\n",
            "hosts",
            "hosts: host 'h1': ansible_port: port 'http' is not in 1-65535",
        ),
        ("h[3:1]\n", "hosts", "hosts:1: empty host range in 'h[3:1]'"),
        ("h[1:z]\n", "hosts", "hosts:1: bad host range [1:z] in 'h[1:z]'"),
        ("h1 'unclosed\n", "hosts", "hosts:1: No closing quotation"),
        (
            "h1 ansible_connection=winrm\n",
            "hosts",
            "hosts: host 'h1': ansible_connection=winrm is not SSH; cleantree reaches hosts by SSH "
            "(or checks this machine for 'local')",
        ),
        (
            "[a:children]\nb\n[b:children]\na\n[b]\nh\n",
            "hosts",
            "hosts: group 'b' is its own ancestor",
        ),
        ("all:\n  hosts: [a, b]\n", "h.yml", "h.yml: group 'all': hosts must be a mapping"),
        ("all:\n  host:\n    a:\n", "h.yml", "h.yml: group 'all': unknown key 'host'"),
        ("- a\n- b\n", "h.yml", "h.yml: a YAML inventory is a mapping of groups"),
        (
            "all:\n  hosts:\n    a: [1]\n",
            "h.yml",
            "h.yml: host 'a': its variables must be a mapping",
        ),
        ("all:\n  hosts: {a\n", "h.yml", "h.yml:3: not valid YAML: "),
    ],
)
def test_bad_inventories_name_the_place(text: str, path: str, message: str) -> None:
    with pytest.raises(InventoryError) as raised:
        parse_inventory(text, path)
    assert str(raised.value).startswith(message), str(raised.value)


def test_a_group_that_does_not_exist_or_names_no_host_is_an_error() -> None:
    hosts = parse_inventory(INI, "hosts")
    with pytest.raises(InventoryError, match=r"--group 'gpus': no such group \(groups: cpu, gpu"):
        select_hosts(hosts, ["gpus"])
    with pytest.raises(InventoryError, match="the inventory names no host"):
        select_hosts({}, [])


def _table(hosts: dict[str, InventoryHost]) -> dict[str, tuple[object, ...]]:
    """Each host's (address, port, user, root, connection, groups): a compact expectation."""
    return {
        name: (h.address, h.port, h.user, h.root, h.connection, sorted(h.groups))
        for name, h in hosts.items()
    }


G = ["all", "g"]
UNGROUPED = ["all", "ungrouped"]
PLAIN: tuple[object, ...] = (None, None, None, None, "ssh")


@pytest.mark.parametrize(
    ("text", "path", "expected"),
    [
        pytest.param(
            "[g]\nn[08:10]\n",
            "hosts",
            {f"n{n}": (*PLAIN, G) for n in ("08", "09", "10")},
            id="zero-padded",
        ),
        pytest.param(
            "[g]\nn[8:10]\n",
            "hosts",
            {f"n{n}": (*PLAIN, G) for n in ("8", "9", "10")},
            id="not-padded",
        ),
        pytest.param(
            "[g]\nn[a:e:2]\n",
            "hosts",
            {f"n{x}": (*PLAIN, G) for x in "ace"},
            id="letters-with-step",
        ),
        pytest.param(
            "[g]\nn[1:2]x[a:b]\n",
            "hosts",
            {name: (*PLAIN, G) for name in ("n1xa", "n1xb", "n2xa", "n2xb")},
            id="two-ranges",
        ),
        pytest.param(
            "h:2222\n",
            "hosts",
            {"h": (None, 2222, None, None, "ssh", UNGROUPED)},
            id="port-in-name",
        ),
        pytest.param(
            "h:22 ansible_port=2\n",
            "hosts",
            {"h": (None, 2, None, None, "ssh", UNGROUPED)},
            id="port-variable-wins",
        ),
        pytest.param("a:b:22\n", "hosts", {"a:b:22": (*PLAIN, UNGROUPED)}, id="two-colons-no-port"),
        pytest.param(
            "[g:vars]\nansible_user=\"root\"\nansible_port='2222'\n"
            "cleantree_root=/x # note\n[g]\nh\n",
            "hosts",
            {"h": (None, 2222, "root", "/x", "ssh", G)},
            id="ini-values-unquoted-and-comment",
        ),
        pytest.param(
            "[g]\nh ansible_connection=paramiko ansible_host=\n[h2]\nk ansible_connection=smart\n",
            "hosts",
            {"h": (*PLAIN, G), "k": (*PLAIN, ["all", "h2"])},
            id="ssh-connections-and-an-empty-value",
        ),
        pytest.param(
            "# c\n\nall:\n  hosts:\n    a:\n",
            "hosts",
            {"a": (*PLAIN, ["all"])},
            id="yaml-after-comments",
        ),
        pytest.param(
            "gpu-a:2222\n",
            "inventory",
            {"gpu-a": (None, 2222, None, None, "ssh", UNGROUPED)},
            id="ini-colon-no-space",
        ),
        pytest.param(
            "x:\n  children:\n    y:\n  hosts:\n    h:\ny:\n  hosts:\n    k:\n",
            "h.yml",
            {"h": (*PLAIN, ["all", "x"]), "k": (*PLAIN, ["all", "x", "y"])},
            id="yaml-child-declared-twice",
        ),
        pytest.param(
            "all:\n  hosts:\n    a:\n      ansible_ssh_port: 2\n      ansible_ssh_host: 1.2.3.4\n",
            "h.yml",
            {"a": ("1.2.3.4", 2, None, None, "ssh", ["all"])},
            id="yaml-old-names",
        ),
        pytest.param(
            "g:\n  vars:\n    ansible_user: u\n  hosts:\n    a:\n      ansible_ssh_user: v\n",
            "h.yml",
            {"a": (None, None, "v", None, "ssh", G)},
            id="host-old-name-over-group-new-name",
        ),
        pytest.param(
            "all:\n  hosts:\n    h[1:2]:\n      ansible_port: 3\n",
            "h.yml",
            {f"h{n}": (None, 3, None, None, "ssh", ["all"]) for n in (1, 2)},
            id="yaml-range",
        ),
        pytest.param("g:\n", "h.yml", {}, id="yaml-empty-group"),
        pytest.param(
            "[a]\nh\n[b]\nh\n[b:children]\nc\n[c]\nk\n"
            "[c:vars]\nansible_user=c\n[b:vars]\nansible_user=b\n[all:vars]\nansible_user=all\n",
            "hosts",
            {
                "h": (None, None, "b", None, "ssh", ["a", "all", "b"]),
                "k": (None, None, "c", None, "ssh", ["all", "b", "c"]),
            },
            id="deeper-group-vars-win",
        ),
    ],
)
def test_more_inventories(text: str, path: str, expected: dict[str, tuple[object, ...]]) -> None:
    assert _table(parse_inventory(text, path)) == expected


@pytest.mark.parametrize(
    ("text", "path", "message"),
    [
        ("[g]\nn[1:3:0]\n", "hosts", "hosts:2: empty host range in 'n[1:3:0]'"),
        ("[g]\nn[a:c:0]\n", "hosts", "hosts:2: empty host range in 'n[a:c:0]'"),
        ("[g]\nn[a:ab]\n", "hosts", "hosts:2: bad host range [a:ab] in 'n[a:ab]'"),
        ("h:0\n", "hosts", "hosts:1: h:0: port '0' is not in 1-65535"),
        (
            "h ansible_port=65536\n",
            "hosts",
            "hosts: host 'h': ansible_port: port '65536' is not in 1-65535",
        ),
        ("[g:vars]\n=x\n", "hosts", "hosts:2: expected key=value in [g:vars]"),
        ("[g]\nh\n[g:children]\ng\n", "hosts", "hosts: group 'g' is its own child"),
        ("[ g ]\n", "hosts", "hosts:1: bad section header '[ g ]'"),
        ("[g:other]\n", "hosts", "hosts:1: bad section header '[g:other]'"),
        ("h =x\n", "hosts", "hosts:1: expected key=value after the host, not '=x'"),
        ("[gpu\nh1\n", "hosts", "hosts:1: bad section header '[gpu'"),
        ("[gpu:vars]\njust-a-word\n", "hosts", "hosts:2: expected key=value in [gpu:vars]"),
        ("h1 port2222\n", "hosts", "hosts:1: expected key=value after the host, not 'port2222'"),
        ("h[3:1]\n", "hosts", "hosts:1: empty host range in 'h[3:1]'"),
        ("g:\n  vars: [1]\n", "h.yml", "h.yml: group 'g': vars must be a mapping"),
        ("g:\n  children: [1]\n", "h.yml", "h.yml: group 'g': children must be a mapping"),
        ("g: [1]\n", "h.yml", "h.yml: group 'g': expected hosts, vars or children"),
        (
            "all:\n  hosts:\n    h[2:1]:\n",
            "h.yml",
            "h.yml: host 'h[2:1]': empty host range in 'h[2:1]'",
        ),
        ("all:\n  host:\n    a:\n  vars:\n", "h.yml", "h.yml: group 'all': unknown key 'host'"),
        ("- a\n", "h.yml", "h.yml: a YAML inventory is a mapping of groups"),
        ("a:\n  b: 1\n  c\n", "h.yml", "h.yml:4: not valid YAML: could not find expected ':'"),
    ],
)
def test_the_whole_message_of_a_bad_inventory(text: str, path: str, message: str) -> None:
    with pytest.raises(InventoryError) as raised:
        parse_inventory(text, path)
    assert str(raised.value) == message


def test_load_inventory_reads_utf8_and_names_the_file(tmp_path: Path) -> None:
    good = tmp_path / "hosts"
    good.write_text("h ansible_user=é\n", encoding="utf-8")
    assert _table(load_inventory(good)) == {"h": (None, None, "é", None, "ssh", UNGROUPED)}
    missing = tmp_path / "nope"
    with pytest.raises(InventoryError) as raised:
        load_inventory(missing)
    assert str(raised.value) == f"inventory {str(missing)!r}: No such file or directory"
    latin = tmp_path / "latin"
    latin.write_bytes(b"h ansible_user=\xe9\n")
    with pytest.raises(InventoryError) as raised:
        load_inventory(latin)
    assert (
        str(raised.value) == f"inventory {str(latin)!r}: not UTF-8 text (invalid continuation byte)"
    )
    yaml_file = tmp_path / "inv.yaml"
    yaml_file.write_text("g:\n  hosts:\n    a:\n", encoding="utf-8")
    assert list(load_inventory(yaml_file)) == ["a"]


def test_select_hosts_in_order_and_its_errors() -> None:
    hosts = parse_inventory("[a]\nh1\nh2\n[b]\nh3\nh1\n", "hosts")
    assert select_hosts(hosts, ["b"]) == ["h1", "h3"]
    assert select_hosts(hosts, ["b", "a"]) == ["h1", "h2", "h3"]
    with pytest.raises(InventoryError) as raised:
        select_hosts(hosts, ["a", "c", "d"])
    assert str(raised.value) == "--group 'c': no such group (groups: a, b)"
    with pytest.raises(InventoryError) as raised:
        select_hosts({}, ["x"])
    assert str(raised.value) == "--group 'x': no such group (groups: none)"
    with pytest.raises(InventoryError) as raised:
        select_hosts({}, [])
    assert str(raised.value) == "the inventory names no host"
    only_all = parse_inventory("all:\n  hosts:\n    h:\n", "h.yml")
    assert select_hosts(only_all, ["all"]) == ["h"]


@pytest.mark.parametrize(
    ("host", "spec"),
    [
        (InventoryHost("h", user="a b@c"), "ssh://a%20b%40c@h"),
        (InventoryHost("h", address="10.0.0.1", root="/srv/x"), "ssh://10.0.0.1/srv/x"),
        (InventoryHost("h", root="rel/x"), "ssh://h/rel/x"),
        (InventoryHost("h", port=22), "ssh://h:22"),
        (InventoryHost("v6::1"), "ssh://[v6::1]"),
    ],
)
def test_more_host_specs(host: InventoryHost, spec: str) -> None:
    assert host.spec() == spec


@pytest.mark.parametrize(
    ("text", "path", "expected"),
    [
        pytest.param(
            "---\na:\n  hosts:\n    h:\n",
            "hosts",
            {"h": (*PLAIN, ["a", "all"])},
            id="yaml-document-start",
        ),
        pytest.param("; only a comment\n", "hosts", {}, id="ini-only-comments"),
        pytest.param(
            "[g]\nh\n; c\nk\n",
            "hosts",
            {"h": (*PLAIN, G), "k": (*PLAIN, G)},
            id="ini-semicolon-comment",
        ),
        pytest.param(
            "[g:vars]\ncleantree_root=/a=b\n[g]\nh cleantree_root=/c=d\nk\n",
            "hosts",
            {"h": (None, None, None, "/c=d", "ssh", G), "k": (None, None, None, "/a=b", "ssh", G)},
            id="values-holding-equals",
        ),
        pytest.param(
            '[g:vars]\nansible_user=""\nansible_host=XhX\n'
            "cleantree_root=/my tree # a # b\n[g]\nh\n",
            "hosts",
            {"h": ("XhX", None, None, "/my tree", "ssh", G)},
            id="ini-values-empty-quoted-spaces-comments",
        ),
        pytest.param(
            "h ansible_port=1\n",
            "hosts",
            {"h": (None, 1, None, None, "ssh", UNGROUPED)},
            id="port-1",
        ),
        pytest.param(
            "[zz:vars]\nansible_user=zz\n[zz:children]\naa\n[aa:vars]\nansible_user=aa\n[aa]\nh\n",
            "hosts",
            {"h": (None, None, "aa", None, "ssh", ["aa", "all", "zz"])},
            id="a-child-s-vars-win-whatever-its-name",
        ),
        pytest.param(
            "[aaa:vars]\nansible_user=a\n[all:vars]\nansible_user=all\n[aaa]\nh\n",
            "hosts",
            {"h": (None, None, "a", None, "ssh", ["aaa", "all"])},
            id="all-is-below-every-group",
        ),
        pytest.param("h\n[g]\nh\n", "hosts", {"h": (*PLAIN, G)}, id="not-ungrouped-once-grouped"),
    ],
)
def test_inventories_at_the_edges(
    text: str, path: str, expected: dict[str, tuple[object, ...]]
) -> None:
    assert _table(parse_inventory(text, path)) == expected


def test_yaml_by_look_after_an_ini_comment_is_refused_not_read_as_hosts() -> None:
    # the look skips ';' comments, which YAML does not have: the text is refused, where
    # reading it as INI would make a host of 'all:'
    with pytest.raises(InventoryError, match=r"^hosts:2: not valid YAML: "):
        parse_inventory("; c\nall:\n", "hosts")


def test_a_bad_child_is_named_with_its_file() -> None:
    with pytest.raises(InventoryError) as raised:
        parse_inventory("p:\n  children:\n    c: [1]\n", "h.yml")
    assert str(raised.value) == "h.yml: group 'c': expected hosts, vars or children"


def test_a_yaml_error_without_a_position() -> None:
    with pytest.raises(InventoryError) as raised:
        parse_inventory("a: \x07\n", "h.yml")
    assert str(raised.value).startswith("h.yml: not valid YAML: unacceptable character #x0007")


def test_yaml_needs_pyyaml(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "yaml", None)  # import yaml raises ImportError
    with pytest.raises(InventoryError) as raised:
        parse_inventory("a:\n", "h.yml")
    assert str(raised.value) == "inventory 'h.yml': reading YAML needs PyYAML (pip install pyyaml)"


def test_load_inventory_names_the_file_in_parse_errors(tmp_path: Path) -> None:
    path = tmp_path / "hosts.yml"
    path.write_text("- a\n", encoding="utf-8")
    with pytest.raises(InventoryError) as raised:
        load_inventory(path)
    assert str(raised.value) == f"{path}: a YAML inventory is a mapping of groups"


def test_a_user_name_is_quoted_whole_in_a_spec() -> None:
    assert InventoryHost("h", user="a/b").spec() == "ssh://a%2Fb@h"


def test_a_bad_second_range_is_named_with_its_file_and_line() -> None:
    with pytest.raises(InventoryError) as raised:
        parse_inventory("[g]\nn[1:2]x[3:1]\n", "hosts")
    assert str(raised.value) == "hosts:2: empty host range in 'n1x[3:1]'"


def test_a_private_key_file_is_read_by_either_of_its_names() -> None:
    hosts = parse_inventory(
        "a ansible_ssh_private_key_file=~/.ssh/a\nb ansible_private_key_file=/k/b\nc\n", "hosts"
    )
    assert {name: host.key_file for name, host in hosts.items()} == {
        "a": "~/.ssh/a",
        "b": "/k/b",
        "c": None,
    }
