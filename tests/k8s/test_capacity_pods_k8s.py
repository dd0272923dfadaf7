"""`cephbench capacity --pods 2` on the lab's StorageClass: each step's rate split between
the pods (each fio offered its share, with arrivals of its own), the step judged by the pods'
aggregate (IOPS summed, percentiles from their merged bins), and nothing left in the cluster.
One step: a p99 of 1 µs no step meets, at one I/O per second from each pod (the minimum), over
10 s so that each pod completes some."""

from __future__ import annotations

from tests.helpers import check_capacity_split
from tests.k8s.test_pvc_k8s import nothing_left, volumes


def test_capacity_from_pods_splits_the_rate_and_judges_their_merged_bins(k8s, invoke_json, db):
    before = volumes(k8s)
    doc = invoke_json(
        "capacity", "--target", f"pvc:{k8s.k8s.storage_class}", "--pods", "2",
        "--p99", "1us", "--iodepth", "4", "--size", "16m", "--step-time", "10s",
        "--ramp", "1s", "--start", "2",
    )  # fmt: skip
    assert [s["offered_iops"] for s in doc["steps"]] == [2]
    assert doc["result"]["verdict"] == "inconclusive"
    check_capacity_split(db, doc, 2, "pods")
    nothing_left(k8s, db, before)
