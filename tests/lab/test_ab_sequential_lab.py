"""`cephbench ab` end to end, the paths the other A/B lab tests do not take: `--target-ci` on
the shared 3-host lab (rounds continue until every workload's CI is within the target, or
`--max-rounds`), and a `conf-set` change on the shared one-host lab, where the tests that kill
and restart OSDs run (the 3-host lab's OSDs are left undisturbed for the diagnosis tests): it
restarts every OSD, waits for HEALTH_OK, and is restored (the lab's ceph.conf byte for byte,
each OSD running its old value again).

Rounds are short fio runs on a file. For the `--target-ci` stop the workload is rate-limited
by fio (`rate_iops`), so the rounds' IOPS agree closely and the confidence sequence closes
within the (wide) target after a few blocks. fio catches up on a stall in the middle of a
paced round, not on one at its end: on a loaded machine (the fio tier beside the lab tier) a
stall of a few hundred ms cost 0.5 s rounds so much that ±100 % was not reached in 40 rounds,
so paced rounds run 2 s, where such a stall costs a round 10-20 %. For the `--max-rounds` stop
(0.5 s rounds) the target is far narrower than a few blocks of unlimited reads can give."""

from __future__ import annotations

import json
from pathlib import Path

from cephbench.errors import ToolFailed
from cephbench.lab import ceph_json
from cephbench.lab.ceph import ceph
from cephbench.lab.paths import Layout
from cephbench.lab.state import load
from cephbench.tuning.rounds import order
from tests.contract import validate
from tests.helpers import invoke, wait_for

CHANGE = "ceph config set client rbd_cache false"
SUITE = """name: paced
description: 4k random reads for {runtime}{pace}
global: {{ioengine: psync, time_based: true, runtime: {runtime}, size: 4m}}
workloads:
  - {{name: rand_rd, rw: randread, bs: 4k, iodepth: 1, numjobs: 1{options}}}
"""
KEY, VALUE = "osd_op_num_threads_per_shard", "3"


def suite(tmp_path: Path, bench_dir: Path, rate: int | None) -> list[str]:
    path = tmp_path / "paced.yaml"
    path.write_text(
        SUITE.format(
            runtime="2s" if rate else "500ms",
            pace=f", paced at {rate} IOPS" if rate else "",
            options=f", options: {{rate_iops: {rate}}}" if rate else "",
        )
    )
    return [str(path), "--target", f"file:{bench_dir}"]


def ab(db: Path, *args: str) -> dict:
    return validate(json.loads(invoke("ab", *args, "--format", "json", db=db).stdout))


def iops_row(doc: dict) -> dict:
    (row,) = [r for r in doc["rows"] if r["metric"] == "iops"]
    return row


def test_target_ci_stops_once_every_interval_is_within_the_target(
    lab3, db, tmp_path, bench_dir, monkeypatch
):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab3.dir))
    paced = suite(tmp_path, bench_dir, rate=400)
    doc = ab(db, *paced, "--b", CHANGE, "--target-ci", "100%", "--max-rounds", "40")
    assert doc["stopped"] == "target_ci" and doc["target_ci_pct"] == 100
    rounds = len(doc["order"])  # a look after every block from the second on
    assert rounds % 2 == 0 and 4 <= rounds < 40 and doc["order"] == order(rounds)
    row = iops_row(doc)
    lo, hi = row["pct_diff_ci95"]["b"]
    assert (hi - lo) / 2 <= 100 and row["blocks"] == rounds // 2
    assert doc["sequential"]  # the intervals are the confidence sequence's, valid at any look


def test_target_ci_gives_up_at_max_rounds(lab3, db, tmp_path, bench_dir, monkeypatch):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab3.dir))
    free = suite(tmp_path, bench_dir, rate=None)
    doc = ab(db, *free, "--b", CHANGE, "--target-ci", "0.001%", "--max-rounds", "6")
    assert doc["stopped"] == "max_rounds" and doc["order"] == "ABBAAB"
    assert iops_row(doc)["blocks"] == 3
    assert doc["reverted"] == [
        {"setting": "config client rbd_cache", "value": "true", "verified": True}
    ]


def running(info, key: str) -> dict[str, str]:
    """What every OSD runs with (``ceph config show``), once each has reported it (an OSD
    just started answers ENOENT for a few seconds)."""

    def shown() -> dict[str, str] | None:
        try:
            return {
                f"osd.{i}": ceph(info, "config", "show", f"osd.{i}", key).stdout.strip()
                for i in info.osds
            }
        except ToolFailed:
            return None

    return wait_for(shown, f"every OSD's {key}")


def osd_pids(info) -> dict[str, int | None]:
    state = load(Layout(info.dir))
    assert state is not None
    return {d.name: d.pid for d in state.osds()}


def test_conf_set_restarts_the_osds_and_puts_the_conf_back(
    lab, db, tmp_path, bench_dir, monkeypatch
):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab.dir))
    conf = Path(lab.dir) / "ceph.conf"
    before, pids = conf.read_bytes(), osd_pids(lab)
    old = running(lab, KEY)
    assert old and VALUE not in old.values()
    doc = ab(
        db,
        *suite(tmp_path, bench_dir, rate=None),
        "--b",
        f"conf-set {KEY}={VALUE}",
        "--rounds",
        "4",
    )
    # B was tried before the rounds and applied again for rounds 2-3; each time the OSDs ran
    # with it (cephbench checks `ceph config show` of every OSD, or the experiment fails)
    assert doc["status"] == "complete" and doc["order"] == "ABBA"
    assert doc["applied"] == [
        {
            "setting": f"conf_set {KEY}",
            "original": "the lab's ceph.conf as it was",
            "times_applied": 2,
        }
    ]
    assert doc["reverted"] == [
        {"setting": f"conf_set {KEY}", "value": "the lab's ceph.conf as it was", "verified": True}
    ]
    assert conf.read_bytes() == before
    after = osd_pids(lab)
    assert after.keys() == pids.keys() and all(after[i] != pids[i] for i in pids)  # restarted
    assert running(lab, KEY) == old
    wait_for(lambda: ceph_json(lab, "status")["health"]["status"] == "HEALTH_OK", "HEALTH_OK")


def test_an_invalid_conf_set_value_fails_before_anything_changes(
    lab, db, tmp_path, bench_dir, monkeypatch
):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab.dir))
    conf = Path(lab.dir) / "ceph.conf"
    before, pids = conf.read_bytes(), osd_pids(lab)
    out = invoke(
        "ab", *suite(tmp_path, bench_dir, None), "--b", f"conf-set {KEY}=three", db=db, expect=2
    )
    assert f"{KEY} is of type" in out.output and "Traceback" not in out.output
    assert conf.read_bytes() == before and osd_pids(lab) == pids
