"""Integration tests against the session's real lab (root, Ceph packages)."""

from __future__ import annotations

import os
import signal
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from cephbench.lab import LabError, ceph_json, ensure_pool, remove_pool
from cephbench.lab.ceph import not_ready
from cephbench.system.process import run
from tests import helpers
from tests.helpers import invoke
from tests.lab.helpers import status_json

CEPHBENCH = Path(sys.executable).parent / "cephbench"


def wait_for(predicate, timeout: float, what: str):
    return helpers.wait_for(predicate, what, timeout, poll=0.3)


def test_up_reaches_health_ok_with_clean_pgs(lab):
    status = ceph_json(lab, "status")
    assert status["health"]["status"] == "HEALTH_OK"
    assert status["osdmap"]["num_up_osds"] == 3 == len(lab.osds)
    assert not_ready(status, 3) is None
    pg_stat = ceph_json(lab, "pg", "stat")
    summary = pg_stat.get("pg_summary", pg_stat)
    assert summary["num_pgs"] == sum(p["pg_num"] for p in ceph_json(lab, "osd", "dump")["pools"])
    assert all(s["name"] == "active+clean" for s in summary["num_pg_by_state"])


def test_status_json_has_the_documented_shape(lab):
    data = status_json(lab.dir)
    assert data["running"] is True and data["health"] == "HEALTH_OK"
    assert data["dir"] == str(lab.dir)
    assert [o["id"] for o in data["osds"]] == [0, 1, 2]
    for daemon in data["osds"] + data["mons"] + data["mgrs"]:
        cmdline = Path(f"/proc/{daemon['pid']}/cmdline").read_bytes().split(b"\0")
        assert str(lab.conf_path).encode() in cmdline
        assert daemon["host"] == "host0" and daemon["rss_mib"] > 0
    assert all(o["up"] and o["in"] for o in data["osds"])
    assert [m["name"] for m in data["mons"]] == ["a"] and data["mgrs"][0]["active"]
    assert isinstance(data["pools"], list)


def test_second_up_is_a_no_op(lab):
    before = status_json(lab.dir)
    result = run([CEPHBENCH, "lab", "up", "--dir", lab.dir], timeout=60)
    assert result.returncode == 0, result.stderr
    assert "already running" in result.stdout
    after = status_json(lab.dir)
    pids = [[d["pid"] for d in s["osds"] + s["mons"] + s["mgrs"]] for s in (before, after)]
    assert pids[0] == pids[1]


def test_env_points_the_ceph_cli_at_the_lab(lab):
    lines = invoke("lab", "env", "--dir", lab.dir).stdout.splitlines()
    env = dict(line.removeprefix("export ").split("=", 1) for line in lines)
    ceph_env = {k: v for k, v in env.items() if k.startswith("CEPH_")}
    assert ceph_env == {k: v for k, v in lab.env.items() if k.startswith("CEPH_")}
    assert env["CEPH_CONF"] == str(lab.conf_path)
    if lab.view is not None:  # a release lab: its programs first on PATH
        assert env["PATH"].startswith(f'"{lab.dir / "bin"}:')
    result = run(["ceph", "--connect-timeout", "10", "health"], env=lab.env, timeout=30)
    assert result.stdout.startswith("HEALTH_OK"), result.stderr


def test_no_lab_is_reported_as_such(tmp_path):
    assert "No lab" in invoke("lab", "down", "--dir", tmp_path / "none").stdout
    assert status_json(tmp_path / "none") == {"running": False, "dir": str(tmp_path / "none")}
    assert invoke("lab", "env", "--dir", tmp_path / "none", expect=1).exit_code == 1


def test_pools_on_demand_and_only_ours_removed(lab):
    assert ensure_pool(lab, "cb-unit", pg_num=8) is True
    assert ensure_pool(lab, "cb-unit", pg_num=8) is False
    [pool] = [p for p in status_json(lab.dir)["pools"] if p["name"] == "cb-unit"]
    assert (pool["size"], pool["pg_num"], pool["applications"]) == (3, 8, ["rbd"])
    assert pool["created_by_cephbench"]
    remove_pool(lab, "cb-unit")
    assert "cb-unit" not in ceph_json(lab, "osd", "pool", "ls")
    ceph_json(lab, "osd", "pool", "create", "foreign", "8")
    try:
        with pytest.raises(LabError, match="not created by cephbench"):
            remove_pool(lab, "foreign")
        assert "foreign" in ceph_json(lab, "osd", "pool", "ls")
    finally:
        ceph_json(lab, "osd", "pool", "rm", "foreign", "foreign", "--yes-i-really-really-mean-it")


RUNTIME = 14


def osd_entry(lab, osd: int) -> dict:
    return status_json(lab.dir)["osds"][osd]


def test_osd_killed_during_rbd_write_then_restarted(lab, tmp_path):
    ensure_pool(lab, "cb-kill", pg_num=16)
    run(["rbd", "create", "cb-kill/img", "--size", "256"], env=lab.env, check=True, timeout=60)
    fio = [
        "fio",
        "--name=kill",
        "--ioengine=rbd",
        "--clientname=admin",
        "--pool=cb-kill",
        "--rbdname=img",
        "--rw=randwrite",
        "--bs=4k",
        "--iodepth=16",
        "--time_based",
        f"--runtime={RUNTIME}",
        "--output-format=json",
        f"--write_iops_log={tmp_path}/w",
        "--log_avg_msec=1000",
    ]
    victim = osd_entry(lab, 2)
    with ThreadPoolExecutor(1) as pool:
        job = pool.submit(run, fio, env=lab.env, timeout=RUNTIME + 60)
        started = time.monotonic()
        wait_for(
            lambda: (
                "rbd_data." in run(["rados", "-p", "cb-kill", "ls"], env=lab.env, timeout=30).stdout
            ),
            60,
            "fio's first writes to reach the OSDs",
        )
        os.kill(victim["pid"], signal.SIGKILL)
        wait_for(lambda: not osd_entry(lab, 2)["up"], 30, "osd.2 to be marked down")
        assert time.monotonic() - started < RUNTIME - 4, "too slow to see the OSD down"
        result = job.result()
    assert result.returncode == 0, result.stderr
    assert '"error" : 0' in result.stdout
    [log] = tmp_path.glob("w_iops*.log")
    per_second = [int(line.split(",")[1]) for line in log.read_text().splitlines()]
    assert sum(per_second[-3:]) > 0, f"writes stopped after the kill: {per_second}"
    assert not osd_entry(lab, 2)["running"]

    invoke("lab", "restart-osd", "2", "--dir", lab.dir)
    wait_for(lambda: not_ready(ceph_json(lab, "status"), 3) is None, 120, "HEALTH_OK again")
    assert osd_entry(lab, 2)["pid"] != victim["pid"]


def test_restart_with_the_client_environment_exported(lab, monkeypatch):
    """After `eval "$(cephbench lab env)"` a restarted OSD must not pick up the client keyring."""
    for key, value in lab.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("CEPH_ARGS", "--id admin")
    invoke("lab", "stop-osd", "1", "--kill", "--dir", lab.dir)
    invoke("lab", "restart-osd", "1", "--dir", lab.dir)
    wait_for(lambda: not_ready(ceph_json(lab, "status"), 3) is None, 120, "HEALTH_OK again")
