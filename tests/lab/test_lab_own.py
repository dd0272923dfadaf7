"""Integration tests that need a lab of their own: a failed ``up``, three hosts, ``down``."""

from __future__ import annotations

import json
import os
from pathlib import Path

from cephbench.lab import ceph_json, down, faults, find_running
from cephbench.system.process import run
from tests.helpers import invoke
from tests.lab.helpers import assert_nothing_left, link_names, netns_names, status_json


def test_failed_up_cleans_up_after_itself(tmp_path):
    lab_dir = tmp_path / "bad"
    result = invoke(
        "lab", "up", "--dir", lab_dir, "--hosts", "2", "--osds", "2", "--osd-size", "16M", expect=1
    )
    assert "mkfs failed" in result.output
    assert "last lines of the daemon's log" in result.output
    assert "unable to allocate" in result.output  # BlueStore's own words: 16M is too small
    [archive] = (tmp_path / "bad-logs").iterdir()
    state = json.loads((archive / "state.json").read_text())
    assert len(state["namespaces"]) == 2 and len(state["links"]) == 2 and state["bridge"]
    assert_nothing_left(lab_dir, state["namespaces"], [*state["links"], state["bridge"]])
    # nor anything else named the lab's way (only this lab's: other programs make links too)
    own = f"cb-{state['lab_id']}-"
    assert all(n.startswith(own) for n in [*state["namespaces"], *state["links"], state["bridge"]])
    assert not {n for n in netns_names() | link_names() if n.startswith(own)}


def test_three_hosts_then_down_leaves_nothing(tmp_path):
    lab_dir = tmp_path / "h3"
    try:
        result = invoke(
            "lab",
            "up",
            "--dir",
            lab_dir,
            "--hosts",
            "3",
            "--osds",
            "3",
            "--store",
            "memstore",
            "--osd-size",
            "1G",
            "--rate",
            "1gbit",
        )
        assert "HEALTH_OK" in result.stdout
        info = find_running(lab_dir)
        assert info is not None and info.hosts == ("host0", "host1", "host2")
        tree = ceph_json(info, "osd", "tree")
        hosts = {n["name"]: n["children"] for n in tree["nodes"] if n["type"] == "host"}
        assert sorted(hosts) == ["host0", "host1", "host2"]
        assert all(len(children) == 1 for children in hosts.values())
        rule = ceph_json(info, "osd", "crush", "rule", "dump", "replicated_rule")
        assert {"op": "chooseleaf_firstn", "num": 0, "type": "host"} in rule["steps"]

        state = json.loads((lab_dir / "state.json").read_text())
        for osd in status_json(lab_dir)["osds"]:
            netns = f"/run/netns/{state['namespaces'][osd['id']]}"
            assert os.stat(f"/proc/{osd['pid']}/ns/net").st_ino == os.stat(netns).st_ino
        for link in state["links"]:
            qdisc = run(["tc", "qdisc", "show", "dev", link], check=True).stdout
            assert "tbf" in qdisc and "rate 1Gbit" in qdisc

        # faults still injected at `down` go with the lab
        invoke("lab", "fault", "cpu", "osd.1", "--percent", "15", "--dir", lab_dir)
        invoke("lab", "fault", "slow-link", "host1", "--rate", "100mbit", "--dir", lab_dir)
        fault_cgroups = [Path(p) for f in faults.list_faults(lab_dir) for p in f.cgroups]
        assert len(fault_cgroups) == 1 and fault_cgroups[0].is_dir()

        assert "nothing left behind" in invoke("lab", "down", "--dir", lab_dir).stdout
        assert_nothing_left(lab_dir, state["namespaces"], [*state["links"], state["bridge"]])
        assert not fault_cgroups[0].exists()
        assert "No lab" in invoke("lab", "down", "--dir", lab_dir).stdout
    finally:
        down(lab_dir, purge=True)
