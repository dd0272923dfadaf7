"""`cephbench capacity --while recovery|backfill|scrub` on the real lab.

Recovery: one OSD failed (marked down and out, held down by its own noup flag) while the search
measures; backfill: one OSD drained (marked out, still up). What the recovery did is recorded
with every step, and afterwards every OSD is up and in, no flag of cephbench's is left and the
cluster is HEALTH_OK, also after a Ctrl-C in the middle of the search and after a kill and
``cephbench cleanup``; nothing is left in the resource log. The pool has size 2 on the lab's 3
OSDs, so the PGs of the OSD taken out have somewhere to recover to, and recovery sleeps
between objects so that it outlasts a step.

Scrub: every OSD asked to deep-scrub before the first step, the PGs deep-scrubbed during each
step recorded with it; scrubs sleep between chunks of one object so that the pool's outlast
the search. A cluster with ``noscrub`` set is refused.

What is measured is not the subject here (the search is the fio tier's and the pure tests'):
a p99 of 1 µs no step can meet keeps the search to a few steps, halving down to 1 IOPS, and
its result is an honest 'inconclusive'."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Iterator

import pytest

from cephbench.ceph.osd_out import STATS_PERIOD, healthy
from cephbench.ceph.scrub import scrubbing
from cephbench.lab import ceph_json
from cephbench.store import Store
from tests.interrupt_lab import CEPHBENCH, query

POOL, IMAGE = "cb-caprec", "img"
ARGS = ["--target", f"rbd:{POOL}/{IMAGE}", "--p99", "1us", "--iodepth", "16"]
ARGS += ["--step-time", "2s", "--ramp", "1s", "--while", "recovery"]
DEADLINE = 900.0


def _cli(lab, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        list(args), env={**os.environ, **lab.env}, capture_output=True, text=True, check=True
    )


@pytest.fixture(scope="module")
def written_pool(lab) -> Iterator[None]:
    """The pool and its image, written once for the module's tests (each leaves every OSD in
    and the cluster healthy, which the next one checks)."""
    _cli(lab, "ceph", "osd", "pool", "create", POOL, "16", "16")
    try:
        _cli(lab, "ceph", "osd", "pool", "set", POOL, "size", "2", "--yes-i-really-mean-it")
        _cli(lab, "rbd", "pool", "init", POOL)
        _cli(lab, "rbd", "create", f"{POOL}/{IMAGE}", "--size", "128M")
        _cli(
            lab,
            "rbd",
            "bench",
            "--io-type",
            "write",
            "--io-size",
            "4M",
            "--io-total",
            "128M",
            f"{POOL}/{IMAGE}",
        )  # data on every PG, for the OSD out to move
        _cli(lab, "ceph", "config", "set", "osd", "osd_recovery_sleep", "1")
        _wait_healthy(lab)
        yield
    finally:
        _cli(lab, "ceph", "config", "rm", "osd", "osd_recovery_sleep")
        _cli(lab, "ceph", "osd", "pool", "rm", POOL, POOL, "--yes-i-really-really-mean-it")


@pytest.fixture
def pool(lab, written_pool, monkeypatch) -> None:
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab.dir))
    if not healthy(ceph_json(lab, "status")):  # a test before this one failed half-way
        _wait_healthy(lab)


def _wait_healthy(lab) -> None:
    """HEALTH_OK, every OSD in and every PG clean, held across the mgr's stats period (a
    status read just after a change can still show the state before it)."""
    deadline, since = time.monotonic() + DEADLINE, None
    while True:
        now = time.monotonic()
        if healthy(ceph_json(lab, "status")):
            since = now if since is None else since
            if now - since >= STATS_PERIOD:
                return
        else:
            since = None
        assert now < deadline, "the lab did not come back to HEALTH_OK"
        time.sleep(1)


def _all_in_and_healthy(lab, db) -> None:
    dump = ceph_json(lab, "osd", "dump")
    assert [o["osd"] for o in dump["osds"] if not o["in"] or not o["up"]] == []
    assert [o["osd"] for o in dump["osds"] if "noup" in o["state"]] == []
    health = ceph_json(lab, "status")["health"]
    assert health["status"] == "HEALTH_OK", health
    with Store(db) as store:
        assert store.open_resources() == []


@pytest.mark.timeout(900)  # the lab's start, the recovery's end
@pytest.mark.parametrize("during", ["recovery", "backfill"])
def test_capacity_while_recovery_records_it_and_puts_the_osd_back(
    lab, pool, invoke_json, db, during
):
    args = [a if a != "recovery" else during for a in ARGS]
    doc = invoke_json("capacity", *args, "--start", "2")
    assert doc["while"] == during and doc["status"] == "complete"
    ended = [n for n in doc["notes"] if n.startswith(f"the {during} ended")]
    offered = [s["offered_iops"] for s in doc["steps"]]
    assert offered == [2, 1] or (ended and offered == [2])  # a recovery over stops the search
    assert all(s["outcome"] in ("slow", "behind") for s in doc["steps"])
    # Pacific's, as each run found it (a failed OSD may not answer: "wpq [2 of 3 OSDs read]")
    assert all(s["scheduler"].startswith("wpq") for s in doc["steps"]), doc["steps"]
    assert doc["result"]["verdict"] == "inconclusive" and doc["result"]["capacity_iops"] is None
    for step in doc["steps"]:
        assert {"recovering_bytes_per_s", "pgs_degraded", "pgs_recovering"} <= set(
            step["background"]
        )
        assert step["background"]["recovering_bytes_per_s"] >= 0
    # a failed OSD's PGs are degraded (short of a copy, or of an OSD) until the others
    # rebuild them: seen after the first step unless the recovery was over by then
    short = [
        s["background"]["pgs_degraded"] + s["background"]["pgs_undersized"] for s in doc["steps"]
    ]
    if during == "recovery" and not (ended and len(short) == 1):
        assert short[0] > 0, [s["background"] for s in doc["steps"]]
    done = "marked down and out" if during == "recovery" else "marked out"
    out = [n for n in doc["notes"] if f"was {done}, and put back afterwards" in n]
    assert len(out) == 1
    if not ended:  # it outlasted the search: the last step still saw it
        last = doc["steps"][-1]["background"]
        assert last["pgs_degraded"] + last["pgs_recovering"] + last["objects_misplaced"] > 0
    _all_in_and_healthy(lab, db)


@pytest.mark.timeout(900)
def test_ctrl_c_in_the_middle_puts_the_osd_back(lab, pool, db):
    proc = subprocess.Popen(
        [CEPHBENCH, "capacity", *ARGS, "--start", "64"],
        env={**os.environ, **lab.env, "CEPHBENCH_DB": str(db)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + DEADLINE
        # the search is under way: the OSD is out (and down: failed) and a step is stored
        while not (
            query(db, "SELECT 1 FROM capacities WHERE steps != '[]'")
            and (out := [o for o in ceph_json(lab, "osd", "dump")["osds"] if not o["in"]])
        ):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.2)
        assert not out[0]["up"] and "noup" in out[0]["state"], out
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=DEADLINE)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode != 0 and "Interrupted" in err, err
    (status,) = query(db, "SELECT status FROM capacities")
    assert status == ("aborted",)
    _all_in_and_healthy(lab, db)
    assert json.loads(_cli(lab, "ceph", "health", "-f", "json").stdout)["status"] == "HEALTH_OK"


@pytest.mark.timeout(900)
def test_cleanup_marks_in_the_osd_a_killed_search_took_out(lab, pool, db):
    proc = subprocess.Popen(
        [CEPHBENCH, "capacity", *ARGS, "--start", "64"],
        env={**os.environ, **lab.env, "CEPHBENCH_DB": str(db)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + DEADLINE
        while not any(not o["in"] for o in ceph_json(lab, "osd", "dump")["osds"]):
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.2)
    finally:
        proc.kill()
        proc.wait()
    # the OSD out, and what the step under way had begun (its suite's directory, its run's);
    # checked after the clean-up, so that a failure does not leave the shared lab degraded
    left = query(db, "SELECT kind FROM resources WHERE removed_at IS NULL")
    done = subprocess.run(
        [CEPHBENCH, "cleanup"],
        env={**os.environ, **lab.env, "CEPHBENCH_DB": str(db)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert ("osd_out",) in left and "removed osd_out osd." in done.stdout
    assert query(db, "SELECT kind FROM resources WHERE removed_at IS NULL") == []
    _wait_healthy(lab)
    _all_in_and_healthy(lab, db)


@pytest.fixture
def slow_scrubs(lab, pool) -> Iterator[None]:
    """Deep scrubs of one object a chunk, a second apart: the pool's last about 20 seconds.
    Afterwards the settings removed and every scrub ended, for the tests after this one."""
    settings = {"osd_scrub_sleep": "1", "osd_scrub_chunk_min": "1", "osd_scrub_chunk_max": "1"}
    for name, value in settings.items():
        _cli(lab, "ceph", "config", "set", "osd", name, value)
    try:
        yield
    finally:
        for name in settings:
            _cli(lab, "ceph", "config", "rm", "osd", name)
        _wait_no_scrub(lab)


def _wait_no_scrub(lab, quiet: float = 10.0) -> None:
    """Until no PG has deep-scrubbed for ``quiet`` seconds: the OSDs scrub one PG at a time
    with gaps between them, so one look at none says little; ten seconds of none, at the
    default settings again (each of the lab's PGs a fraction of a second), say they are done."""
    deadline, since = time.monotonic() + 300, None
    while True:
        now = time.monotonic()
        if scrubbing(ceph_json(lab, "status")):
            since = None
        else:
            since = now if since is None else since
            if now - since >= quiet:
                return
        assert now < deadline, "the lab's deep scrubs did not end"
        time.sleep(0.5)


@pytest.mark.timeout(600)
def test_capacity_while_scrub_records_the_pgs_scrubbing(lab, slow_scrubs, invoke_json, db):
    args = [a if a != "recovery" else "scrub" for a in ARGS]
    doc = invoke_json("capacity", *args, "--start", "2")
    assert doc["while"] == "scrub" and doc["status"] == "complete"
    ended = [n for n in doc["notes"] if n.startswith("the recovery ended")]
    offered = [s["offered_iops"] for s in doc["steps"]]
    assert offered == [2, 1] or (ended and offered == [2])  # a recovery over stops the search
    backgrounds = [s["background"] for s in doc["steps"]]
    keys = {"pgs_deep_scrubbed", "pgs_deep_scrub_waiting", "pgs_deep_scrubbing"}
    assert all(set(b) == keys for b in backgrounds), backgrounds
    # the OSDs scrub one PG at a time for ~20 s: the two steps' ~10 s saw some done
    assert sum(b["pgs_deep_scrubbed"] for b in backgrounds) > 0, backgrounds
    assert any("every OSD was asked for a deep scrub" in n for n in doc["notes"])
    with Store(db) as store:
        assert store.open_resources() == []


def test_a_cluster_that_holds_scrubs_back_is_refused(lab, pool, invoke, db):
    _cli(lab, "ceph", "osd", "set", "noscrub")
    try:
        args = [a if a != "recovery" else "scrub" for a in ARGS]
        out = invoke("capacity", *args, "--start", "2", expect=2).output
    finally:
        _cli(lab, "ceph", "osd", "unset", "noscrub")
    assert "the cluster has noscrub set: its OSDs start no deep scrub" in out
    assert "Traceback" not in out
    with Store(db) as store:
        assert store.open_resources() == []
