"""Health before and during a run, read from real ``ceph status`` JSON recorded in the lab:
healthy, noscrub set, an OSD down (PGs degraded), and PGs peering after its restart."""

from __future__ import annotations

import json

from cephbench.ceph import health
from cephbench.ceph.connection import Connection
from cephbench.ceph.health import Sample, Sampler
from tests.helpers import DATA

CEPH = DATA / "ceph" / "16.2.15"


def _status(name: str) -> dict:
    return json.loads((CEPH / f"{name}.json").read_text())


def test_healthy_cluster_raises_no_flags_and_is_not_refused():
    assert health.flags(_status("status")) == set()
    assert health.refuse_reason(_status("status")) is None


def test_noscrub_warning_is_not_a_problem():
    s = _status("status-noscrub")
    assert s["health"]["status"] == "HEALTH_WARN"
    assert health.flags(s) == set() and health.refuse_reason(s) is None


def test_osd_down_flags_and_refusal():
    s = _status("status-osd-down")
    assert health.flags(s) == {"osd_down", "degraded"}
    reason = health.refuse_reason(s)
    assert reason and "not active+clean" in reason and "undersized" in reason


def test_peering_after_restart():
    assert "pgs_inactive" in health.flags(_status("status-peering"))


def test_health_err_is_refused():
    s = _status("status")
    s["health"] = {
        "status": "HEALTH_ERR",
        "checks": {"OSD_FULL": {"summary": {"message": "1 full osd(s)"}}},
    }
    assert "HEALTH_ERR (OSD_FULL: 1 full osd(s))" in health.refuse_reason(s)
    assert health.flags(s) == {"health_err"}


def test_scrub_and_recovery_states():
    s = _status("status")
    s["pgmap"]["pgs_by_state"] = [
        {"state_name": "active+clean+scrubbing+deep", "count": 1},
        {"state_name": "active+recovering+degraded", "count": 2},
        {"state_name": "active+remapped+backfilling", "count": 1},
    ]
    assert health.flags(s) == {"scrub", "recovery", "degraded", "backfill"}


def test_flags_between_windows():
    sampler = Sampler.__new__(Sampler)
    sampler.__init__(conn=None, interval=5)  # no thread started, no cluster needed
    sampler.samples += [
        Sample(1.0, 0, frozenset(), {}),
        Sample(5.0, 0, frozenset({"osd_down"}), {}),
        Sample(9.0, 0, frozenset(), {}),
    ]
    assert sampler.flags_between(0.0, 4.0) == ()
    assert sampler.flags_between(2.0, 6.0) == ("osd_down",)
    assert sampler.flags_between(6.0, 8.0) == ("osd_down",)  # the state seen at 5 s held until 9 s
    assert sampler.flags_between(9.5, 12.0) == ()


def test_new_pool_pgs_are_worth_waiting_for_but_a_down_osd_is_not():
    s = _status("status")
    s["pgmap"]["pgs_by_state"] = [
        {"state_name": "unknown", "count": 8},
        {"state_name": "active+clean", "count": 4},
    ]
    assert health.settling(s) and health.refuse_reason(s)
    assert not health.settling(_status("status-osd-down"))


def test_a_status_read_just_before_is_the_first_sample_and_none_is_read_again():
    sampler = Sampler(Connection(), interval=3600)  # no cluster: nothing may be read
    sampler.sample = lambda: (_ for _ in ()).throw(AssertionError("read again"))  # type: ignore[method-assign]
    sampler.seed(_status("status-osd-down"))
    with sampler:  # the thread's first read would come an hour later
        pass
    [first] = sampler.samples
    assert "osd_down" in first.flags and first.summary["health"] == "HEALTH_WARN"
    assert sampler.flags_between(first.t + 1, first.t + 2) == tuple(sorted(first.flags))
