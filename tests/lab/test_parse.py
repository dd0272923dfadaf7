"""Unit tests of what the lab reads: ceph's JSON (real outputs of a lab), logs, status."""

from __future__ import annotations

import json
from pathlib import Path

from cephbench.lab import ceph
from cephbench.lab.daemons import log_tail
from cephbench.lab.paths import Layout
from cephbench.lab.spec import LabSpec
from cephbench.lab.state import Daemon, LabState
from cephbench.lab.status_view import assemble

DATA = Path(__file__).parent / "data"


def load(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def test_not_ready_on_a_healthy_lab():
    assert ceph.not_ready(load("status-ok.json"), osds=3) is None


def test_not_ready_says_what_is_missing():
    status = load("status-ok.json")
    assert ceph.not_ready(status, osds=4) == "3/4 OSDs up, 3 in"
    assert ceph.not_ready(load("status-osd-down.json"), osds=3) == "2/3 OSDs up, 3 in"
    status["mgrmap"]["available"] = False
    assert ceph.not_ready(status, osds=3) == "an active mgr"


def test_not_ready_waits_for_clean_pgs_and_health():
    status = load("status-ok.json")
    status["pgmap"]["pgs_by_state"] = [
        {"state_name": "active+clean", "count": 6},
        {"state_name": "peering", "count": 2},
    ]
    status["pgmap"]["num_pgs"] = 8
    assert ceph.not_ready(status, osds=3) == "PGs active+clean: 6/8"
    status = load("status-osd-down.json")
    status["osdmap"]["num_up_osds"] = 3
    status["pgmap"]["pgs_by_state"] = []
    status["pgmap"]["num_pgs"] = 0
    assert ceph.not_ready(status, osds=3) == "HEALTH_WARN (OSD_DOWN: 1 osds down)"


def test_osd_hosts_and_states():
    assert ceph.osd_hosts(load("osd-tree.json")) == {0: "host0", 1: "host0", 2: "host0"}
    states = ceph.osd_states(load("osd-dump.json"))
    assert states == {i: {"up": True, "in": True} for i in range(3)}


def test_pools_and_clean_pgs():
    [pool] = ceph.pools(load("osd-dump.json"))
    assert pool == {
        "name": "cbpool",
        "id": 1,
        "size": 3,
        "min_size": 2,
        "pg_num": 8,
        "applications": ["rbd"],
    }
    pg_ls = load("pg-ls-by-pool.json")
    assert ceph.pgs_clean(pg_ls, 8)
    assert not ceph.pgs_clean(pg_ls, 16)  # the mgr does not know every PG yet
    pg_ls["pg_stats"][0]["state"] = "active+undersized"
    assert not ceph.pgs_clean(pg_ls, 8)


def test_log_tail_skips_crash_dumps_and_backtraces(tmp_path):
    log = tmp_path / "osd.0.log"
    log.write_text(
        "t 1 starting\nt -1 bluefs _allocate allocation failed\n"
        "*** Caught signal (Aborted) **\n 1: (abort()+0x1) [0x1]\n 2: main()\n"
        " NOTE: a copy of the executable\n\n--- begin dump of recent events ---\n-1> noise\n"
    )
    assert log_tail(log, lines=2) == (
        "t -1 bluefs _allocate allocation failed",
        "*** Caught signal (Aborted) **",
    )
    assert log_tail(tmp_path / "missing.log") == ()


def test_status_assembles_the_documented_shape():
    spec = LabSpec(dir=Path("/tmp/lab-unit"))
    state = LabState(
        lab_id="ab12",
        phase="running",
        spec=spec,
        host_addrs=["127.0.0.1"],
        mon_ports=(20000, 20001),
        pools=["cbpool"],
    )
    for name in ("mon.a", "mgr.x", "osd.0", "osd.1", "osd.2"):
        state.daemons[name] = Daemon(name=name, host="host0", pid=100 + len(state.daemons))
    procs = {n: {"pid": d.pid, "running": True, "rss_mib": 40.0} for n, d in state.daemons.items()}
    out = assemble(
        state,
        Layout(spec.dir),
        procs,
        load("status-osd-down.json"),
        load("osd-dump.json"),
        load("osd-tree.json"),
    )
    assert out["running"] is True and out["health"] == "HEALTH_WARN"
    assert out["dir"] == "/tmp/lab-unit"
    assert out["osds"][0] == {
        "id": 0,
        "host": "host0",
        "up": True,
        "in": True,
        "pid": 102,
        "running": True,
        "rss_mib": 40.0,
    }
    assert out["mons"] == [
        {
            "name": "a",
            "host": "host0",
            "pid": 100,
            "running": True,
            "rss_mib": 40.0,
            "addr": "127.0.0.1:20000",
        }
    ]
    assert out["mgrs"][0]["active"] is True
    assert out["pools"][0]["name"] == "cbpool" and out["pools"][0]["created_by_cephbench"]


def test_status_of_a_lab_whose_monitor_died():
    spec = LabSpec(dir=Path("/tmp/lab-unit"), osds=1)
    state = LabState(lab_id="ab12", phase="running", spec=spec)
    state.daemons["mon.a"] = Daemon(name="mon.a", host="host0", pid=5)
    state.daemons["osd.0"] = Daemon(name="osd.0", host="host0", pid=6)
    procs = {n: {"pid": d.pid, "running": False, "rss_mib": None} for n, d in state.daemons.items()}
    out = assemble(state, Layout(spec.dir), procs)
    assert out["running"] is False and out["health"] is None
    assert out["osds"] == [
        {
            "id": 0,
            "host": "host0",
            "up": False,
            "in": False,
            "pid": 6,
            "running": False,
            "rss_mib": None,
        }
    ]
