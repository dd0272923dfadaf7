"""The network suite: iperf3 between the hosts of a 2-host lab through its namespaces (no
ssh), between the 3 hosts of the shared lab3 over ssh (6 directed pairs at its 500 Mbit/s
links), servers started and stopped by cephbench; a single-host lab gets a plain message."""

from __future__ import annotations

from pathlib import Path

import pytest

from cephbench.lab import down, up
from cephbench.lab.paths import Layout
from cephbench.lab.state import load
from cephbench.store import Store
from tests.lab.conftest import as_a_shell, spec


@pytest.fixture(scope="module")
def two_hosts(tmp_path_factory):
    lab_dir = tmp_path_factory.mktemp("lab2") / "two"
    try:
        yield as_a_shell(up(spec(dir=lab_dir, hosts=2, osds=2), timeout=180).info)
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


# tbf on every lab link counts whole Ethernet frames: at 500 Mbit/s a TCP stream of 1448-byte
# segments in 1514-byte frames carries at most 500 * 1448 / 1514 = 478 Mbit/s of payload,
# which is what iperf3 reports as received (0.47-0.48 Gbit/s measured; tbf's burst adds a
# little over 1 s). "Close to 0.5 Gbit/s" is 0.35 to 0.525: the 1 s tests run on 2 shared
# cores, where a scheduling stall of a few hundred ms costs a pair up to a quarter (0.44 seen
# at a load average of 13); it still fails if the rate limit is not applied (several Gbit/s),
# if a pair's figures are counted twice (0.96) or a pair shares its link with another pair
# (0.24, what --all-pairs-at-once measures).
CLOSE_TO_500M = (0.35e9, 0.525e9)


def _iperf3_of(addrs: list[str]) -> list[str]:
    """Command lines of iperf3 processes that bind or reach one of the lab's addresses."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        words = [w.decode(errors="replace") for w in argv]
        if words and words[0].endswith("iperf3") and set(words) & set(addrs):
            found.append(" ".join(words))
    return found


def test_network_between_the_lab3_hosts_over_ssh(invoke, invoke_json, lab3, monkeypatch, db):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab3.dir))
    state = load(Layout(lab3.dir))
    assert state is not None
    out = invoke("run", "network", "--hosts", "lab", "--runtime", "1", "--format", "md").stdout
    run = invoke_json("show", "last")
    assert run["status"] == "complete"
    pairs = {r["workload"]: r["metrics"] for r in run["results"]}
    hosts = ["host0", "host1", "host2"]
    assert sorted(pairs) == [f"{a}->{b}" for a in hosts for b in hosts if a != b]
    lo, hi = CLOSE_TO_500M
    for name, m in pairs.items():
        assert lo <= m["bits_per_second"] <= hi, (name, m)
        assert m["rtt_ms"] > 0 and m["mtu"] == 1500 and m["mtu_ok"] == 1, (name, m)
        assert m["processes"] == 1 and m["retransmits"] >= 0
    assert "| from \\ to | host0 | host1 | host2 |" in out
    assert "| host0 | — |" in out
    # the servers went through ssh (recorded on each host) and are gone, as is every pidfile dir
    with Store(db) as s:
        kinds = [r["kind"] for r in s.conn.execute("SELECT kind FROM resources")]
        assert kinds.count("remote_process") == 3 and kinds.count("remote_dir") == 3
        assert s.open_resources() == []
    assert _iperf3_of(list(state.host_addrs)) == []
