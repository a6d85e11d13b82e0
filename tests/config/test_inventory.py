"""Ansible inventories, INI and YAML: the hosts, their addresses and groups, as Ansible reads them.

Table tests: each inventory's text against the exact hosts (name, address, port,
user, root, groups) expected, and bad inventories against the exact message.
"""

from __future__ import annotations

import pytest

from pytest_cleantree.config.inventory import (
    InventoryError,
    InventoryHost,
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
