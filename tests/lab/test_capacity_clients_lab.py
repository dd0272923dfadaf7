"""`cephbench capacity --clients lab` on the 3-host lab: each step's rate split evenly between
the client hosts (each fio offered its share as ``rate_iops``, with arrivals of its own), and
the step judged by the aggregate of every client: IOPS summed, percentiles from the clients'
merged latency bins.

What is measured is not the subject (the search is the fio tier's and the pure tests'): a p99
of 1 µs no step can meet halves the rate down to one I/O per second from each client, over
10 s windows so that every client completes some (a client with none would leave the
aggregate without merged percentiles: e^-10 per client)."""

from __future__ import annotations

from cephbench.execution.clients import client_hosts
from cephbench.hosts.load import load_lab
from tests.helpers import check_capacity_split

ARGS = ["--target", "rbd:lab", "--p99", "1us", "--iodepth", "4", "--size", "16m"]
ARGS += ["--step-time", "10s", "--ramp", "1s", "--clients", "lab"]


def test_capacity_from_clients_splits_the_rate_and_judges_their_merged_bins(
    lab3, invoke_json, db, monkeypatch
):
    monkeypatch.setenv("CEPHBENCH_LAB_DIR", str(lab3.dir))
    n = len(client_hosts(load_lab(lab3.dir)))
    assert n > 1
    doc = invoke_json("capacity", *ARGS, "--start", str(2 * n))
    assert [s["offered_iops"] for s in doc["steps"]] == [2 * n, n]  # halving in multiples of n
    assert doc["result"]["verdict"] == "inconclusive"
    check_capacity_split(db, doc, n, "clients")
