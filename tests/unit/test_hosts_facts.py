"""``hosts check``'s facts, parsed from real outputs of its script recorded over the lab's
ssh, and the warnings that name what spoils a benchmark across hosts (pure)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephbench.hosts.facts import (
    parse_disks,
    parse_facts,
    parse_iperf3_version,
    primary_nic,
    sections,
    warnings,
)
from cephbench.hosts.inventory import Host

DATA = Path(__file__).parents[1] / "data" / "hosts-facts" / "debian12"
RECORDED = {"lab-host1": "10.254.252.12", "lab-host2-mtu1400": "10.254.252.13"}


def facts(name: str) -> dict:
    host = Host(name, RECORDED[name])
    out = parse_facts((DATA / f"{name}.txt").read_text(), host)
    return {"name": name, "address": host.address, "reachable": True, **out}


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_recorded_facts(name):
    got = parse_facts((DATA / f"{name}.txt").read_text(), Host(name, RECORDED[name]))
    assert got == json.loads((DATA / f"{name}.expected.json").read_text())


def test_figures_as_the_host_printed_them():
    f = facts("lab-host1")
    assert (f["fio"], f["iperf3"], f["kernel"], f["cpus"]) == (
        "fio-3.33",
        "3.12",
        "6.18.44-fc-v769",
        2,
    )
    assert f["root"] and f["governor"] is None  # no cpufreq in this VM
    nic = primary_nic(f)
    assert nic is not None and (nic["name"], nic["mtu"], nic["speed_mbps"]) == ("eth0", 1500, 10000)
    assert {d["name"]: d["rotational"] for d in f["disks"]} == {"zram0": False, "vda": True}
    assert primary_nic(facts("lab-host2-mtu1400"))["mtu"] == 1400


def test_mtu_differing_on_one_host_is_named_with_the_fix():
    (w,) = warnings([facts("lab-host1"), facts("lab-host2-mtu1400")])
    assert w.startswith("MTU differs on the benchmark network: 1500 on lab-host1; 1400 on")
    assert "ip link set dev NIC mtu" in w


def test_same_hosts_no_warning():
    assert warnings([facts("lab-host1"), {**facts("lab-host1"), "name": "twin"}]) == []


def test_versions_missing_tools_governor_and_root():
    a = facts("lab-host1")
    b = {**a, "name": "b", "fio": "fio-3.28", "governor": "powersave", "root": False}
    c = {**a, "name": "c", "iperf3": None}
    down = {"name": "d", "address": "x", "reachable": False, "error": "cannot reach"}
    got = warnings([a, b, c, down])
    assert got[0].startswith("fio versions differ: fio-3.33 on lab-host1, c; fio-3.28 on b")
    assert got[1] == "iperf3 is not installed on c (apt-get install iperf3)"
    assert "powersave on b" in got[2] and "cpupower frequency-set -g performance" in got[2]
    assert got[3].startswith("neither root nor passwordless sudo on b")
    assert len(got) == 4  # the unreachable host is not compared


def test_sections_and_small_parsers():
    assert sections("junk\n== a\nx\n\n== b\n== c\ny\nz\n") == {"a": ["x"], "b": [], "c": ["y", "z"]}
    assert parse_iperf3_version("iperf 3.12 (cJSON 1.7.15)") == "3.12"
    assert parse_iperf3_version(None) is None
    assert parse_disks("") == [] and parse_disks("not json") == []
