"""`cephbench capacity --clients lab` on the 3-host lab: each step's rate split evenly between
the client hosts (each fio offered its share as ``rate_iops``), and the step judged by the
aggregate of every client: IOPS summed, percentiles from the clients' merged latency bins.

What is measured is not the subject (the search is the fio tier's and the pure tests'): a p99
of 1 µs no step can meet halves the rate down to one I/O per second from each client."""

from __future__ import annotations

import json
import math

from cephbench.execution.clients import client_hosts
from cephbench.hosts.load import load_lab
from cephbench.store import Store

ARGS = ["--target", "rbd:lab", "--p99", "1us", "--iodepth", "4", "--size", "16m"]
ARGS += ["--step-time", "2s", "--ramp", "1s", "--clients", "lab"]


def test_capacity_from_clients_splits_the_rate_and_judges_their_merged_bins(
    lab3, invoke_json, db, monkeypatch
):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab3.dir))
    n = len(client_hosts(load_lab(lab3.dir)))
    assert n > 1
    doc = invoke_json("capacity", *ARGS, "--start", str(4 * n))
    assert doc["workload"]["generators"] == n and doc["workload"]["spread"] == "clients"
    offered = [s["offered_iops"] for s in doc["steps"]]
    assert offered == [4 * n, 2 * n, n]  # halving in multiples of n, down to 1 IOPS each
    assert doc["result"]["verdict"] == "inconclusive"
    with Store(db) as store:
        for step in doc["steps"]:
            (agg,) = [r for r in store.get_run(step["run_id"]).results if r.iops is not None]
            assert len(agg.clients) == n
            assert step["achieved_iops"] == agg.iops
            assert math.isclose(agg.iops, sum(c.iops or 0 for c in agg.clients), rel_tol=1e-9)
            # a percentile of the merged bins lies between the clients' own (never a mean)
            p99s = [dict(c.percentiles)[99.0] for c in agg.clients]
            assert min(p99s) <= step["p99_us"] <= max(p99s)
            # each client's fio was offered its share
            shares = [
                job["job options"]["rate_iops"]
                for out in store.outputs(step["run_id"])
                if out["tool"] == "fio"
                for job in _jobs(out["stdout"])
                if "job options" in job  # not the "All clients" sum
            ]
            assert len(shares) >= n, shares
            assert set(shares) == {str(round(step["offered_iops"] / n))}, shares


def _jobs(stdout: str) -> list[dict]:
    """The jobs of fio's JSON output (a client/server run's: every client's)."""
    doc = json.loads(stdout[stdout.find("{") :])
    return doc.get("client_stats", []) + doc.get("jobs", [])
