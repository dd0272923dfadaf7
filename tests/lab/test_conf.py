"""Unit tests of the lab's pure parts: spec, ceph.conf, keys, names, parsers (no root)."""

from __future__ import annotations

import base64
import struct
from pathlib import Path

import pytest
from pydantic import ValidationError

from cephbench.lab import keys, net
from cephbench.lab.conf import Endpoints, conf_sections, render_conf
from cephbench.lab.paths import Layout
from cephbench.lab.preflight import missing_packages, root_problem, space_problem
from cephbench.lab.spec import GIB, LabSpec, parse_size, rate_bits

EP = Endpoints(("127.0.0.1",), (20000, 20001), (20002, 20049))
EP3 = Endpoints(("10.254.9.11", "10.254.9.12", "10.254.9.13"), (20000, 20001), (20002, 20049))


def spec(**kw) -> LabSpec:
    return LabSpec(dir=Path("/tmp/lab-unit"), **kw)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("8G", 8 * GIB),
        ("512M", 512 * 1024**2),
        ("1.5T", int(1.5 * 1024**4)),
        ("4096", 4096),
        ("2GiB", 2 * GIB),
        ("16m", 16 * 1024**2),
        (123, 123),
    ],
)
def test_parse_size(text, expected):
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "G", "8X", "-1G", "eight"])
def test_parse_size_rejects(text):
    with pytest.raises(ValueError):
        parse_size(text)


def test_rate_bits():
    assert rate_bits("1gbit") == 10**9
    assert rate_bits("100mbit") == 10**8
    with pytest.raises(ValueError):
        rate_bits("1 gigabit")


def test_spec_defaults_match_the_issue():
    s = LabSpec()
    assert (s.osds, s.hosts, s.store, s.osd_size, s.auth, s.rate) == (
        3,
        1,
        "bluestore",
        8 * GIB,
        "cephx",
        None,
    )
    assert s.dir.parts[-2:] == ("cephbench", "lab")
    assert s.failure_domain == "osd" and s.pool_size == 3


def test_default_dir_follows_xdg(monkeypatch):
    monkeypatch.delenv("CEPHBENCH_LAB_DIR", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", "/x/state")
    assert LabSpec().dir == Path("/x/state/cephbench/lab")


@pytest.mark.parametrize(
    ("kw", "message"),
    [
        ({"hosts": 4, "osds": 3}, "at least as many OSDs"),
        ({"rate": "1gbit"}, "needs --hosts 2"),
        ({"hosts": 2, "rate": "fast"}, "not a tc rate"),
        ({"osd_size": "100k"}, "at least 1M"),
        ({"conf_set": {"pid_file": "/x"}}, "set by the lab itself"),
        ({"conf_set": {"bad key!": "1"}}, "not a ceph.conf option"),
        ({"colour": "red"}, "Extra inputs"),
        ({"store": "filestore"}, "bluestore"),
        ({"osds": 0}, "greater than or equal"),
    ],
)
def test_spec_rejects(kw, message):
    with pytest.raises(ValidationError, match=message):
        spec(**kw)


def test_failure_domain_and_pool_size():
    assert spec(hosts=2, osds=4).failure_domain == "osd"
    assert spec(hosts=3, osds=3).failure_domain == "host"
    assert spec(osds=2).pool_size == 2
    assert [spec(hosts=3, osds=6).host_of(i) for i in range(6)] == [0, 1, 2, 0, 1, 2]


def test_render_conf_single_host():
    s = spec(osds=2)
    text = render_conf(s, Layout(s.dir), "f00", EP)
    assert "fsid = f00" in text
    assert "mon_host = [v2:127.0.0.1:20000,v1:127.0.0.1:20001]" in text
    assert "ms_bind_port_min = 20002" in text and "ms_bind_port_max = 20049" in text
    assert "osd_crush_chooseleaf_type = 0" in text
    assert "bluestore_block_path = /tmp/lab-unit/disk/osd.$id.img" in text
    assert "[osd.1]\npublic_addr = 127.0.0.1\ncluster_addr = 127.0.0.1" in text
    assert "[osd.2]" not in text
    assert "mon_pg_warn_min_per_osd = 0" in text


def test_render_conf_hosts_place_osds_and_failure_domain():
    s = spec(osds=4, hosts=3)
    sections = conf_sections(s, Layout(s.dir), "f", EP3)
    assert sections["global"]["osd_crush_chooseleaf_type"] == 1
    assert sections["mon.a"]["public_addr"] == "10.254.9.11"
    assert sections["osd.3"]["public_addr"] == "10.254.9.11"
    assert sections["osd.2"]["crush_location"] == "root=default host=host2"


def test_conf_set_overrides_the_labs_choice_everywhere():
    s = spec(conf_set={"osd-memory-target": "2147483648", "rbd_cache": "false"})
    sections = conf_sections(s, Layout(s.dir), "f", EP)
    assert "osd_memory_target" not in sections["osd"]
    assert "rbd_cache" not in sections["client"]
    assert sections["global"]["osd_memory_target"] == "2147483648"
    assert sections["global"]["rbd_cache"] == "false"


def test_gen_key_is_a_cephx_secret():
    raw = base64.b64decode(keys.gen_key(now=1700000000.5, secret=b"k" * 16))
    kind, sec, nsec, length = struct.unpack("<HIIH", raw[:12])
    assert (kind, sec, nsec, length, raw[12:]) == (1, 1700000000, 500000000, 16, b"k" * 16)
    assert keys.gen_key() != keys.gen_key()
    assert len(keys.gen_key()) == 40


def test_render_keyring():
    text = keys.render_keyring({"client.admin": ("KEY", {"osd": "allow *", "mon": "allow *"})})
    assert text == '[client.admin]\n\tkey = KEY\n\tcaps mon = "allow *"\n\tcaps osd = "allow *"\n'


def test_names_fit_linux_interface_limits():
    assert len(net.veth_name("ffff", 31)) <= 15
    assert len(net.bridge_name("ffff")) <= 15
    assert net.netns_name("ab12", 0) == "cb-ab12-host0"
    assert all(n.startswith("cb-") for n in (net.veth_name("a", 0), net.bridge_name("a")))


def test_choose_subnet_avoids_used_networks():
    assert net.choose_subnet([]) == "10.254.254"
    assert net.choose_subnet(["10.254.254.1/24", "192.168.1.0/24"]) == "10.254.253"
    assert net.choose_subnet(["10.254.0.0/17"]) == "10.254.254"  # only .0-.127 taken
    with pytest.raises(Exception, match="no free"):
        net.choose_subnet(["10.254.0.0/16"])


def test_host_addrs():
    assert net.host_addrs(None, 1) == ["127.0.0.1"]
    assert net.host_addrs("10.254.7", 3) == ["10.254.7.11", "10.254.7.12", "10.254.7.13"]


def test_tbf_burst_grows_with_rate():
    assert net.tbf_args("100mbit") == [
        "tbf",
        "rate",
        "100mbit",
        "burst",
        "262144",
        "latency",
        "100ms",
    ]
    assert net.tbf_args("10gbit")[4] == str(10**10 // 8 // 100)


def test_free_port_block_is_free():
    first = net.free_port_block("127.0.0.1", 20)
    assert net.PORT_RANGE[0] <= first < net.PORT_RANGE[1] - 20
    assert all(net._port_free("127.0.0.1", p) for p in range(first, first + 20))


def test_preflight_rules():
    assert missing_packages(spec(), which=lambda p: None) == [
        "ceph-base",
        "ceph-common",
        "ceph-mgr",
        "ceph-mon",
        "ceph-osd",
    ]
    assert missing_packages(spec(hosts=2), which=lambda p: None if p == "tc" else p) == ["iproute2"]
    assert root_problem(spec(), euid=1000) is None
    assert "needs root" in root_problem(spec(hosts=3), euid=1000)
    assert root_problem(spec(hosts=3), euid=0) is None
    assert "not enough disk" in space_problem(spec(), disk_free=10 * GIB, mem_available=0)
    assert space_problem(spec(), disk_free=30 * GIB, mem_available=0) is None
    assert "memory" in space_problem(spec(store="memstore"), disk_free=0, mem_available=GIB)


def test_layout_archive_is_beside_the_lab_dir():
    archive = Layout(Path("/s/lab")).archive("ab12", when=0)
    assert archive.parent == Path("/s/lab-logs") and archive.name.endswith("-ab12")
