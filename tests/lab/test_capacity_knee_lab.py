"""`cephbench capacity` on the shared one-host lab under a slow disk on osd.1 (its device
throttled to 150 IOPS, as diagnose's and explain's tests): every step records each OSD's
latencies from its perf counters, and the search names osd.1 as the part that slowed down
first at the knee, with the layer of it that grew the most.

The cluster is named as a user names one that is not the lab (``-c``, ``-k``; no lab in
the environment): the steps' runs and the OSDs' counters both reach it through those options.

4k random writes to an image written once beforehand (a step is fio alone), p99 under 2 s:
loose enough that several rates pass below the knee. What the capacity is does not matter
here (the search is the fio tier's and the pure tests'); which OSD the counters point at does.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from cephbench.lab import ensure_pool, faults, remove_pool
from cephbench.lab.info import LabInfo
from cephbench.system.process import run

POOL, IMAGE = "cb-capknee", "img"
ARGS = ["--target", f"rbd:{POOL}/{IMAGE}", "--p99", "2s", "--iodepth", "16", "--size", "64m"]
ARGS += ["--step-time", "2s", "--ramp", "1s", "--start", "20", "--max-repeats", "3"]


@pytest.fixture
def image(lab: LabInfo, monkeypatch) -> Iterator[None]:
    monkeypatch.delenv("CEPHBENCH_LAB_DIR", raising=False)  # the cluster as -c and -k name it
    ensure_pool(lab, POOL, pg_num=16)
    rbd = ["rbd", "-p", POOL]
    try:
        run([*rbd, "create", IMAGE, "--size", "64M"], env=lab.env, check=True, timeout=60)
        write = ["bench", "--io-type", "write", "--io-size", "4M", "--io-total", "64M", IMAGE]
        run([*rbd, *write], env=lab.env, check=True, timeout=120)
        yield
    finally:
        remove_pool(lab, POOL)


@pytest.mark.quiet  # the OSDs share one disk: under the other tiers' bursts all slow alike
@pytest.mark.timeout(900 + 900)  # its own run, and the wait for the other tiers to end
def test_under_a_slow_disk_the_knee_names_that_osd(lab: LabInfo, image: None, invoke_json):
    with faults.injected(lab, "slow-disk", "osd.1", iops=150):
        named = ["-c", str(lab.conf_path), "-k", str(lab.keyring_path)]
        doc = invoke_json("capacity", *ARGS, *named)
    part = doc["part_at_knee"]
    assert part is not None, doc["steps"]
    assert part["osd"] == "osd.1", evidence(doc)
    # the layer that grew most: its device or store here, its queue on a CI run under load
    # (ops wait in the OSD's queue behind the slow device too): named, whichever it is
    assert part["layer"] is not None, part
    assert all(set(s["osd_latency_ms"]) == {"osd.0", "osd.1", "osd.2"} for s in doc["steps"])
    assert faults.list_faults(lab) == []


def evidence(doc: dict) -> str:
    """What the knee was judged from, for a failure: the part, each step's rate, outcome and
    every OSD's own latency by layer."""
    lines = [json.dumps(doc["part_at_knee"])]
    for s in doc["steps"]:
        head = f"repeat {s['repeat']} {s['offered_iops']:g} IOPS {s['outcome']}"
        lines.append(f"{head}: {json.dumps(s.get('osd_latency_ms'))}")
    return "\n".join(lines)
