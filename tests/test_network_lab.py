"""The network suite: iperf3 between the hosts (namespaces) of a 2-host lab, servers started
and stopped by cephbench; a single-host lab and a real cluster get a plain message."""

from __future__ import annotations

import pytest

from cephbench.lab import LabSpec, down, up
from cephbench.store import Store

pytestmark = pytest.mark.lab


@pytest.fixture(scope="module")
def two_hosts(tmp_path_factory):
    lab_dir = tmp_path_factory.mktemp("lab2") / "two"
    try:
        yield up(LabSpec(dir=lab_dir, hosts=2, osds=2), timeout=180).info
    finally:
        down(lab_dir, purge=True)


def test_iperf3_between_every_pair_of_lab_hosts(invoke, invoke_json, two_hosts, monkeypatch, db):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(two_hosts.dir))
    invoke("run", "network", "--runtime", "1")
    run = invoke_json("show", "last")
    assert run["status"] == "complete"
    assert [r["workload"] for r in run["results"]] == ["host0->host1", "host1->host0"]
    assert all(
        r["metrics"]["bits_per_second"] > 0 and "retransmits" in r["metrics"]
        for r in run["results"]
    )
    with Store(db) as s:
        servers = [
            r for r in s.conn.execute("SELECT * FROM resources WHERE kind = 'iperf3_server'")
        ]
        assert len(servers) == 2 and all(r["removed_at"] for r in servers)
        assert s.open_resources() == []
    assert "| host0->host1 |" in invoke("show", "last", "--format", "md").stdout


def test_single_host_lab_says_what_to_do(invoke, lab, monkeypatch):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab.dir))
    result = invoke("run", "network", "--runtime", "1", expect=2)
    assert "single host" in result.output and "--hosts 2" in result.output
