"""Reads a cache on the client served, flagged on the real lab: on CephFS (ceph-fuse) a
buffered re-read the client's cache served reached the data pool for none of its bytes and
is flagged ``cached``; a direct read beside it, and direct reads of an RBD image through
librbd, reached the pool for every byte fio counted, and are not."""

from __future__ import annotations

import pytest

from cephbench.store import Store

JOBS = """\
[global]
ioengine=psync
bs=128k
size=16m
runtime=1
time_based=1

[buffered_rd]
rw=read
direct=0
invalidate=0

[direct_rd]
stonewall
rw=read
direct=1
ioengine=libaio
iodepth=4
"""


@pytest.fixture
def in_lab(lab_cephfs, monkeypatch):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab_cephfs.dir))
    return lab_cephfs


def _served(db, run_id: int) -> dict[str, dict]:
    with Store(db) as store:
        return {v["workload"]: v for s in store.series(run_id, "served") for v in s.values}


def test_a_cephfs_read_the_client_cached_is_flagged(in_lab, invoke, invoke_json, tmp_path, db):
    jobs = tmp_path / "reads.fio"
    jobs.write_text(JOBS)
    invoke("run", str(jobs), "--target", "cephfs:lab")
    run = invoke_json("show", "last")
    got = {r["workload"]: r for r in run["results"]}
    served = _served(db, run["id"])
    why = {w: (got[w]["flags"], got[w]["io_bytes"], got[w]["metrics"], served.get(w)) for w in got}
    assert "cached" in got["buffered_rd"]["flags"], str(why)
    assert "cached" not in got["direct_rd"]["flags"], str(why)
    assert served["buffered_rd"]["layer"] == "pool cephfs.lab.data"
    assert served["buffered_rd"]["served_read_bytes"] < 0.5 * got["buffered_rd"]["io_bytes"]
    # the pool's counters, read once every OSD reported, hold every direct read
    assert served["direct_rd"]["served_read_bytes"] >= got["direct_rd"]["io_bytes"]
    assert "read from a cache on the client" in invoke("show", "last").stdout


def test_direct_reads_of_an_rbd_image_are_served_by_the_pool(in_lab, invoke, invoke_json, db):
    invoke(
        "run", "quick", "--target", "rbd:lab", "--runtime", "1", "--size", "16m", "--rw", "randread"
    )
    run = invoke_json("show", "last")
    served = _served(db, run["id"])
    assert len(run["results"]) == 4 and set(served) == {r["workload"] for r in run["results"]}
    for r in run["results"]:
        assert r["op"] == "read" and "cached" not in r["flags"], r
        s = served[r["workload"]]
        assert s["window"] == [r["workload"]]  # each chained workload read apart
        assert s["served_read_ios"] >= r["total_ios"]
        assert s["layer"].startswith("pool ") and s["cache"] == "librbd's cache"
