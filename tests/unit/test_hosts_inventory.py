"""Inventories from every source a user has: a list, cephbench YAML, Ansible INI and YAML,
host-per-line files, and the Ceph cluster's own metadata (pure parsing)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephbench.errors import UsageError
from cephbench.hosts.discovery import ceph_addr_ip, from_ceph_metadata, parse_orch_hosts
from cephbench.hosts.formats import expand_range, file_format, parse_file, parse_list
from cephbench.hosts.inventory import Host, Inventory
from cephbench.hosts.load import load_inventory


def test_list_with_users_and_ports():
    inv = parse_list("h1, root@h2:2222,[fe80::1]:22,10.0.0.4")
    assert [h.name for h in inv.hosts] == ["h1", "h2", "fe80::1", "10.0.0.4"]
    assert inv.host("h2") == Host("h2", "h2", "root", 2222)
    assert inv.host("fe80::1").port == 22
    assert inv.source == "list" and inv.ssh_config is None


def test_unknown_host_names_the_known_ones():
    with pytest.raises(UsageError) as e:
        parse_list("a,b").host("c")
    assert "known hosts: a, b" in str(e.value)


@pytest.mark.parametrize(
    "spec", ["-oProxyCommand=evil", "a,-p", "h1,h1", "root@h:99999", "bad host", "x@@y"]
)
def test_list_rejects_what_ssh_would_misread(spec):
    with pytest.raises(UsageError):
        parse_list(spec)


CEPHBENCH_YAML = """
user: admin
sudo: true
hosts:
  - name: node1
    address: 10.0.0.1
    roles: [osd, mon]
  - name: node2
    address: 10.0.0.2
    user: root
    port: 2200
    roles: client,osd
  - node3
"""


def test_cephbench_yaml():
    inv = parse_file(CEPHBENCH_YAML, "hosts.yaml")
    assert file_format(CEPHBENCH_YAML) == "cephbench"
    n1, n2, n3 = inv.hosts
    assert n1 == Host("node1", "10.0.0.1", "admin", None, frozenset({"osd", "mon"}), True)
    assert n2 == Host("node2", "10.0.0.2", "root", 2200, frozenset({"client", "osd"}), True)
    assert n3 == Host("node3", "node3", "admin", None, frozenset(), True)
    assert [h.name for h in inv.with_role("osd")] == ["node1", "node2"]


def test_cephbench_yaml_as_mapping_and_unknown_key():
    inv = parse_file("hosts:\n  a: {address: 1.2.3.4}\n  b:\n", "f")
    assert [(h.name, h.address) for h in inv.hosts] == [("a", "1.2.3.4"), ("b", "b")]
    with pytest.raises(UsageError, match="unknown key adress"):
        parse_file("hosts:\n  - {name: a, adress: 1.2.3.4}\n", "f")


ANSIBLE_INI = """
# ceph-ansible style
[mons]
mon1 ansible_host=192.168.1.10

[osds]
osd[01:03] ansible_user=ceph ansible_become=true
mon1

[clients]
client1 ansible_host=192.168.1.50 ansible_port=2222 ansible_user=root ansible_become=yes

[ceph:children]
mons
osds

[ceph:vars]
ansible_user="deploy"
"""


def test_ansible_ini():
    assert file_format(ANSIBLE_INI) == "ini"
    inv = parse_file(ANSIBLE_INI, "inv.ini")
    assert [h.name for h in inv.hosts] == ["mon1", "osd01", "osd02", "osd03", "client1"]
    mon1 = inv.host("mon1")
    assert mon1.address == "192.168.1.10" and mon1.roles == {"mon", "osd"}
    assert mon1.user == "deploy" and not mon1.sudo  # group vars of the parent group
    osd2 = inv.host("osd02")
    assert (osd2.user, osd2.sudo, osd2.roles) == ("ceph", True, {"osd"})
    c = inv.host("client1")
    assert (c.address, c.port, c.user, c.sudo) == ("192.168.1.50", 2222, "root", False)


ANSIBLE_YAML = """
all:
  vars:
    ansible_user: ubuntu
  children:
    mons:
      hosts:
        ceph1: {ansible_host: 10.1.0.1}
    osds:
      vars: {ansible_become: true}
      hosts:
        ceph1:
        ceph2: {ansible_host: 10.1.0.2, ansible_port: 2022}
"""


def test_ansible_yaml():
    assert file_format(ANSIBLE_YAML) == "ansible-yaml"
    inv = parse_file(ANSIBLE_YAML, "inv.yml")
    c1, c2 = inv.hosts
    assert c1 == Host("ceph1", "10.1.0.1", "ubuntu", None, frozenset({"mon", "osd"}), True)
    assert c2 == Host("ceph2", "10.1.0.2", "ubuntu", 2022, frozenset({"osd"}), True)


def test_host_per_line():
    text = "# fio --client host file\nnode1\n\nroot@node2:2022  # the second\n10.0.0.3\n"
    assert file_format(text) == "lines"
    inv = parse_file(text, "hosts.txt")
    assert [(h.name, h.user, h.port) for h in inv.hosts] == [
        ("node1", None, None),
        ("node2", "root", 2022),
        ("10.0.0.3", None, None),
    ]
    with pytest.raises(UsageError, match="line 2"):
        parse_file("a\nb c\n", "hosts.txt")


def test_load_inventory_file_or_list(tmp_path: Path):
    f = tmp_path / "hosts.yaml"
    f.write_text(CEPHBENCH_YAML)
    assert load_inventory(str(f)).source == str(f)
    assert [h.name for h in load_inventory("a,b").hosts] == ["a", "b"]
    with pytest.raises(UsageError, match="no inventory file"):
        load_inventory(str(tmp_path / "missing.yaml"))
    with pytest.raises(UsageError, match="names no hosts"):
        load_inventory(" , ")


def test_lab_inventory_missing_names_the_fix(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(tmp_path))
    with pytest.raises(UsageError, match="lab up --hosts 3 --ssh"):
        load_inventory("lab")


def test_inventory_json_round_trip():
    inv = parse_file(ANSIBLE_INI, "inv.ini")
    assert Inventory.from_json(json.loads(json.dumps(inv.to_json()))) == inv


def test_ranges():
    assert expand_range("n[8:10]") == ["n8", "n9", "n10"]
    assert expand_range("osd[01:02].lan") == ["osd01.lan", "osd02.lan"]
    assert expand_range("plain") == ["plain"]


@pytest.mark.parametrize(
    "addr, ip",
    [
        ("[v2:10.0.0.1:6800/1234,v1:10.0.0.1:6801/1234]", "10.0.0.1"),
        ("10.0.0.2:6789/0", "10.0.0.2"),
        ("[v2:[fd00::5]:3300/0,v1:[fd00::5]:6789/0]", "fd00::5"),
        ("", None),
        ("-", None),
    ],
)
def test_ceph_addresses(addr, ip):
    assert ceph_addr_ip(addr) == ip


def test_ceph_discovery_prefers_orchestrator_addresses_and_labels():
    osds = [
        {"id": 0, "hostname": "n1", "front_addr": "[v2:10.0.0.1:6800/1,v1:10.0.0.1:6801/1]"},
        {"id": 1, "hostname": "n2", "front_addr": "[v2:10.0.0.2:6800/1,v1:10.0.0.2:6801/1]"},
    ]
    mons = [{"name": "a", "hostname": "n1", "addrs": "[v2:10.0.0.1:3300/0,v1:10.0.0.1:6789/0]"}]
    orch = [{"addr": "192.168.0.2", "hostname": "n2", "labels": ["client"], "status": ""}]
    inv = from_ceph_metadata(osds, mons, orch)
    assert [(h.name, h.address, sorted(h.roles)) for h in inv.hosts] == [
        ("n2", "192.168.0.2", ["client", "osd"]),
        ("n1", "10.0.0.1", ["mon", "osd"]),
    ]
    assert inv.source == "ceph"


def test_ceph_discovery_on_recorded_lab_metadata():
    ceph = Path(__file__).parents[1] / "data" / "ceph" / "16.2.15"
    osds = json.loads((ceph / "osd-metadata-3hosts.json").read_text())
    mons = json.loads((ceph / "mon-metadata-3hosts.json").read_text())
    inv = from_ceph_metadata(osds, mons, None)
    assert [(h.name, h.address, sorted(h.roles)) for h in inv.hosts] == [
        ("vm", "10.254.252.11", ["mon", "osd"])
    ]
    assert parse_orch_hosts((ceph / "orch-host-ls-no-orchestrator.stderr").read_text()) is None
