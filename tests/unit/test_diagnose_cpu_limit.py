"""An OSD held by its CPU limit (``osd-cpu-limit``), and "short of CPU" where no limit holds
an OSD that shares one machine with its peers, on recorded diagnoses of the lab with each
OSD's CPU read during the QD32 load: the ``cpu`` fault (``diagnose-cpu-osd2-h``), a healthy
lab (``diagnose-healthy-e``) and one right after another lab's teardown
(``diagnose-healthy-f``); the peak over a span, by hand; and a starved OSD hidden behind
another's slow disk, named from its own osd bench (``diagnose-cpu-and-disk``; not from a
bench too short to spend its quota, ``diagnose-cpu-and-disk-short-bench``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephbench.diagnose import codes, findings
from cephbench.diagnose.cpu_use import peak, used
from cephbench.diagnose.finding import Status
from cephbench.diagnose.rules.cpu_limit import throttled_in_bench

DATA = Path(__file__).parents[1] / "data" / "ceph" / "16.2.15"


def evidence(name: str) -> dict:
    return json.loads((DATA / f"diagnose-{name}.evidence.json").read_text())


def test_the_capped_osd_is_named_by_its_limit_with_its_figures():
    d = findings.diagnose(evidence("cpu-osd2-h"))
    top = d.findings[0]
    assert (top.code, top.component, top.severity) == (codes.OSD_CPU_LIMITED, "osd.2", "critical")
    ev = top.to_json()["evidence"]
    assert ev["figures"]["cpu_limit_cores"] == 0.15
    assert ev["figures"]["cpu_peak_cores"] == 0.145  # recorded 0.1447: 96 % of its limit
    assert "0.14 of the 0.15 cores its cgroup's CPU quota allows (96%)" in top.summary
    # its peers have no limit; said once, not again by the peer rule
    assert all(p["cpu_limit_cores"] is None for p in ev["peers"].values())
    assert [f.component for f in d.findings if f.component.startswith("osd.")] == ["osd.2"]


def test_without_its_cpu_figures_the_same_evidence_falls_to_the_peer_rule():
    e = evidence("cpu-osd2-h")
    del e["osd_cpu"]
    for info in e["osds"].values():
        del info["cpu"]
    top = findings.diagnose(e).findings[0]
    assert (top.code, top.component) == (codes.OSD_CPU_STARVED, "osd.2")
    assert not any("CPU limit" in c.check for c in findings.diagnose(e).checked)


def test_a_healthy_lab_says_no_osd_is_near_a_limit_and_what_each_used():
    d = findings.diagnose(evidence("healthy-e"))
    [check] = [c for c in d.checked if "CPU limit" in c.check]
    assert check.status == Status.NORMAL and check.layer == "osd"
    assert "osd.0 0.53 cores" in (check.detail or "")  # recorded peak 0.5337


def test_uncapped_on_one_machine_short_of_cpu_is_inconclusive():
    e = evidence("healthy-f")
    [f] = [f for f in findings.diagnose(e).findings if f.code == codes.OSD_CPU_STARVED]
    assert (f.component, f.severity) == ("osd.1", "info")
    assert "no CPU limit holds it (it used up to 0.42 cores): inconclusive" in f.summary
    del e["osd_cpu"]  # as a cluster whose OSDs' CPU cannot be read
    [f] = [f for f in findings.diagnose(e).findings if f.code == codes.OSD_CPU_STARVED]
    assert f.severity == "critical" and "inconclusive" not in f.summary


def test_against_the_best_osd_too():
    e = evidence("most-cpu")  # osd.1 and osd.2 at 15 % of a core: found against osd.0
    top = findings.diagnose(e).findings[0]
    assert top.code == codes.OSD_CPU_STARVED_VS_BEST and top.severity != "info"
    # the same figures, were the OSDs read on one machine and found under no limit
    e["osd_cpu"] = {"measured": True}
    for info in e["osds"].values():
        info["cpu"] = {"used_cores": 0.1, "peak_cores": 0.14, "limit_cores": None}
    top = findings.diagnose(e).findings[0]
    assert top.code == codes.OSD_CPU_STARVED_VS_BEST and top.severity == "info"
    assert "inconclusive" in top.summary


def _device_slowed(e: dict, osd: str, factor: float, plus_ms: float = 0.0) -> dict:
    """The recorded evidence with one OSD's kv sync made ``factor`` x its peers' device wait
    (and ``plus_ms`` more): what CI's starved OSD showed (2.0x, its queue near its peers')."""
    loads = {o: i["load"] for o, i in e["osds"].items()}
    waits = sorted(
        v["kv_sync"]["ms"] + v.get("aio_wait", {}).get("ms", 0.0)
        for o, v in loads.items()
        if o != osd
    )
    loads[osd]["kv_sync"]["ms"] = factor * (sum(waits) / len(waits)) + plus_ms
    return e


def _held(e: dict, osd: str, peak_cores: float, limit: float = 0.15) -> dict:
    e["osds"][osd]["cpu"] = {"used_cores": peak_cores, "peak_cores": peak_cores}
    e["osds"][osd]["cpu"]["limit_cores"] = limit
    return e


def test_an_osd_at_its_limit_is_short_of_cpu_though_its_device_wait_doubled():
    e = _device_slowed(evidence("healthy-e"), "2", 2.2, plus_ms=1.0)
    top = findings.diagnose(e).findings[0]
    assert (top.code, top.component) == (codes.DEVICE_SLOW_COMMIT, "osd.2")  # peers alone
    d = findings.diagnose(_held(e, "2", 0.149))
    assert [(f.code, f.component) for f in d.findings if f.severity != "info"] == [
        (codes.OSD_CPU_LIMITED, "osd.2")
    ]


def test_a_slow_disk_under_a_capped_osd_is_named_too():
    e = _held(_device_slowed(evidence("healthy-e"), "2", 5.0, plus_ms=40.0), "2", 0.149)
    named = {f.code for f in findings.diagnose(e).findings if f.component == "osd.2"}
    assert {codes.OSD_CPU_LIMITED, codes.DEVICE_SLOW_COMMIT} <= named


@pytest.mark.parametrize(("peak_cores", "held"), [(0.15, True), (0.128, True), (0.12, False)])
def test_held_from_85_percent_of_the_limit(peak_cores, held):
    d = findings.diagnose(_held(evidence("healthy-e"), "1", peak_cores))
    assert any(f.code == codes.OSD_CPU_LIMITED for f in d.findings) is held


def test_stored_on_another_cluster_it_says_the_cpu_was_not_read():
    e = evidence("healthy-e")
    e["osd_cpu"] = {"measured": False}
    for info in e["osds"].values():
        info.pop("cpu")
    [check] = [c for c in findings.diagnose(e).checked if "CPU limit" in c.check]
    assert check.status == Status.NOT_POSSIBLE and "lab" in (check.detail or "")


def test_used_and_peak_over_a_span():
    # CPU seconds sampled every 0.5 s: idle 1 s, then 0.8 cores for 2 s, then idle
    series = [(0.0, 10.0), (0.5, 10.0), (1.0, 10.0), (1.5, 10.4), (2.0, 10.8)]
    series += [(2.5, 11.2), (3.0, 11.6), (3.5, 11.6), (4.0, 11.6)]
    assert used(series[0], series[-1]) == pytest.approx(0.4)
    assert peak(series, 2.0) == pytest.approx(0.8)
    assert peak(series, 1.0) == pytest.approx(0.8)
    assert peak(series, 3.0) == pytest.approx(1.6 / 3.0)
    # shorter than the span: the whole series
    assert peak(series[:3], 2.0) == pytest.approx(0.0)
    assert peak([(0.0, 1.0), (1.0, 1.5)], 2.0) == pytest.approx(0.5)


def test_a_starved_osd_behind_a_slow_disk_is_named_by_its_own_bench():
    """Under the client's load osd.2 idled behind osd.1's slow disk (0.03 of its 0.15 cores);
    its own 4k osd bench ran it out of its quota: both faults named."""
    e = evidence("cpu-and-disk")
    assert e["osds"]["2"]["cpu"]["peak_cores"] < 0.85 * 0.15  # the load alone shows nothing
    d = findings.diagnose(e)
    above = [(f.code, f.component) for f in d.findings if f.severity != "info"]
    assert above[0] == (codes.DEVICE_SLOW_COMMIT, "osd.1")
    [cpu] = [f for f in d.findings if f.code == codes.OSD_CPU_LIMITED]
    assert cpu.component == "osd.2" and cpu.severity != "info"
    assert (
        "osd.2 is held by its cgroup's CPU quota (0.15 cores): its own 4k osd bench took "
        "598.6 ms, and the quota throttled it 7 time(s), for 916.3 ms in all; under the "
        "client's load it used at most 0.03 cores" in cpu.summary
    )
    assert cpu.to_json()["evidence"]["figures"]["bench_4k_throttled_ms"] == 916.3


def test_a_bench_too_short_to_spend_the_quota_names_no_limit():
    """1,024 writes took osd.2 24 ms: its quota was never spent, nothing to judge on."""
    e = evidence("cpu-and-disk-short-bench")
    assert e["osds"]["2"]["cpu_bench_4k"]["throttled"] == 0
    d = findings.diagnose(e)
    assert not [f for f in d.findings if f.code == codes.OSD_CPU_LIMITED]
    assert [(f.code, f.component) for f in d.findings if f.severity != "info"][:1] == [
        (codes.DEVICE_SLOW_COMMIT, "osd.1")
    ]


def test_the_bench_rule_needs_a_limit_a_throttle_and_half_the_bench_time():
    base = {"limit_cores": 0.15, "throttled": 2, "periods": 8, "bench_ms": 100.0}
    judged = {
        "held": {**base, "throttled_ms": 50.0},
        "short": {**base, "throttled_ms": 49.9},
        "no-limit": {**base, "limit_cores": None, "throttled_ms": 90.0},
        "never": {**base, "throttled": 0, "throttled_ms": 0.0},
        "no-time": {**base, "bench_ms": None, "throttled_ms": 90.0},
    }
    e = {"osds": {k: {"cpu_bench_4k": v} for k, v in judged.items()}}
    assert list(throttled_in_bench(e)) == ["osd.held"]
