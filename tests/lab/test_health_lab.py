"""Failures during Ceph runs on the real lab: an OSD stopped mid-run flags the results and
the run still completes (and a new run is refused while PGs are degraded); Ctrl-C leaves no
pool, image, blocklist entry or noscrub flag (looped by bench/ctrl_c_loop.py); `cleanup` after
SIGKILL restores the cluster."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cephbench.ceph.health import refuse_reason
from cephbench.lab import ceph_json, restart_osd, stop_osd
from cephbench.store import Store
from tests.interrupt_lab import Run, blocklist, leftovers, start

CEPHBENCH = str(Path(sys.executable).with_name("cephbench"))


@pytest.fixture
def in_lab(lab, monkeypatch):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab.dir))
    return lab


def _start(db: Path, lab, *args: str) -> subprocess.Popen:
    env = {**os.environ, "CEPHBENCH_DB": str(db), "CEPHBENCH_LAB_DIR": str(lab.dir)}
    return subprocess.Popen(
        [CEPHBENCH, "run", *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _wait_for(what, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        if proc.poll() is not None:
            _out, err = proc.communicate()
            raise AssertionError(f"the run ended early: {err}")
        assert time.monotonic() < deadline, "timed out waiting for the run"
        time.sleep(0.1)


def _store_has(db: Path, sql: str) -> bool:
    """Read-only peek (opening a Store would race the run's own first migration)."""
    if not db.exists():
        return False
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        return conn.execute(sql).fetchone()[0] > 0
    except sqlite3.OperationalError:  # tables not created yet
        return False
    finally:
        conn.close()


def _wait_clean(lab, timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while refuse_reason(ceph_json(lab, "status")) is not None:
        assert time.monotonic() < deadline, "the lab did not return to active+clean"
        time.sleep(0.5)


def _leftovers(lab, run_id: int) -> list[str]:
    flags = ceph_json(lab, "osd", "dump")["flags"].split(",")
    pools = ceph_json(lab, "osd", "pool", "ls")
    return [f for f in flags if f in ("noscrub", "nodeep-scrub")] + [
        p for p in pools if p.startswith(f"cb-{run_id}-")
    ]


def test_osd_stopped_mid_run_flags_results_and_run_completes(invoke, invoke_json, in_lab, db):
    proc = _start(
        db, in_lab, "rados", "--runtime", "3", "--concurrent-ios", "4", "--health-interval", "1"
    )
    try:
        _wait_for(
            lambda: _store_has(db, "SELECT COUNT(*) FROM outputs WHERE tool = 'rados-bench'"), proc
        )
        assert stop_osd(in_lab, 2)
        _out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err
        run = invoke_json("show", "last")
        assert run["status"] == "complete" and len(run["results"]) == 3
        flagged = [r["workload"] for r in run["results"] if "osd_down" in r["flags"]]
        assert "rand" in flagged
        assert any("osd_down" in s["flags"] for _t, s in run["health_samples"])
        assert "an OSD was down" in invoke("show", "last").stderr
        subprocess.run(
            ["ceph", "osd", "pool", "create", "degraded", "8", "8"],
            env={**os.environ, **in_lab.env},
            check=True,
            capture_output=True,
        )  # its PGs cannot be active+clean with an OSD down
        deadline = time.monotonic() + 60  # the mgr reports new PGs within a few seconds
        while refuse_reason(ceph_json(in_lab, "status")) is None and time.monotonic() < deadline:
            time.sleep(0.5)
        refused = invoke("run", "osd", "--size", "4M", expect=1)
        assert "not benchmarking" in refused.output and "--allow-unhealthy" in refused.output
        invoke("run", "osd", "--size", "4M", "--allow-unhealthy")
        unhealthy = invoke_json("show", "last")
        assert [r["workload"] for r in unhealthy["results"]] == ["osd.0", "osd.1"]
        assert all("osd_down" in r["flags"] for r in unhealthy["results"])
    finally:
        if proc.poll() is None:
            proc.kill()
        subprocess.run(
            ["ceph", "osd", "pool", "rm", "degraded", "degraded", "--yes-i-really-really-mean-it"],
            env={**os.environ, **in_lab.env},
            check=False,
            capture_output=True,
        )
        restart_osd(in_lab, 2)
        _wait_clean(in_lab)


def _interrupted_run(db, lab, sig: int) -> tuple[int, Run]:
    """A run stopped by ``sig`` once fio is starting on the image (noscrub set, pool and image made)."""
    run = start(db, lab, "quick", "--runtime", "30", "--size", "64m", "--quiesce")
    try:
        run.wait_for(lambda: run.child("fio", "job.fio"))
        run.proc.send_signal(sig)
        run.proc.communicate(timeout=120)
    finally:
        if run.proc.poll() is None:
            run.proc.kill()
    with Store(db) as s:
        return max(r.id for r in s.runs()), run


LOOP = int(os.environ.get("CEPHBENCH_CTRL_C_LOOP", "1"))
"""Times to run the Ctrl-C test (bench/ctrl_c_loop.py sets it): it must pass every time."""


@pytest.mark.parametrize("attempt", range(LOOP))
def test_ctrl_c_leaves_no_pool_image_or_noscrub(invoke, in_lab, db, attempt):
    before = blocklist(in_lab)
    run_id, run = _interrupted_run(db, in_lab, signal.SIGINT)
    assert run.proc.returncode == 130
    assert _leftovers(in_lab, run_id) == []
    assert leftovers(in_lab, run, before) == []  # nor image, watcher's blocklist entry, process
    with Store(db) as s:
        assert s.open_resources() == []
        assert s.get_run(run_id).status == "aborted", s.get_run(run_id).error


def test_cleanup_after_sigkill_restores_the_cluster(invoke, in_lab, db):
    before = blocklist(in_lab)
    run_id, run = _interrupted_run(db, in_lab, signal.SIGKILL)
    try:
        assert "noscrub" in _leftovers(in_lab, run_id)
    finally:
        out = invoke("cleanup").stdout
    assert "ceph_pool" in out and "osd_flag noscrub" in out and "rbd_image" in out
    assert _leftovers(in_lab, run_id) == []
    assert leftovers(in_lab, run, before) == []
    with Store(db) as s:
        assert s.open_resources() == []
