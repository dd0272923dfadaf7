"""The readers `capacity --while recovery|backfill` judges the cluster by
(cephbench/ceph/osd_out.py), on `ceph status` and `ceph osd dump` recorded on the lab around an
OSD marked out, and one marked down and out (tests/data/ceph/16.2.15/capacity-recovery.source.md)."""

from __future__ import annotations

import json

import pytest

from cephbench.ceph.osd_out import healthy, osds_out, pick, recovering, recovery
from cephbench.errors import UsageError
from tests.helpers import DATA

CEPH = DATA / "ceph" / "16.2.15"


def load(name: str) -> dict:
    return json.loads((CEPH / name).read_text())


def test_recovery_figures_of_a_recovering_cluster():
    status = load("status-capacity-recovering.json")
    assert dict(recovery(status)) == {
        "recovering_bytes_per_s": 4711962.0,
        "pgs_degraded": 8.0,  # 7 recovery_wait+degraded, 1 recovering+degraded
        "pgs_undersized": 0.0,  # every OSD up: each PG has its size
        "pgs_recovering": 9.0,  # those and 1 recovering
        "objects_misplaced": 4.0,
    }
    assert recovering(status) and not healthy(status)


def test_a_healthy_cluster_is_not_recovering():
    status = load("status-capacity-healthy.json")
    assert healthy(status) and not recovering(status)
    assert dict(recovery(status))["recovering_bytes_per_s"] == 0.0


def test_never_a_second_osd_out():
    dump = load("osd-dump-capacity-one-out.json")
    assert osds_out(dump) == [2]
    with pytest.raises(UsageError, match=r"osd\.2 is out already"):
        pick(dump)


def test_pick_the_highest_osd_up_and_in():
    dump = load("osd-dump-capacity-one-out.json")
    for o in dump["osds"]:
        o["in"] = 1
    assert pick(dump) == 2
    dump["osds"] = dump["osds"][:2]
    with pytest.raises(UsageError, match="too few"):
        pick(dump)


def test_an_osd_failed_leaves_its_pgs_undersized_and_the_cluster_unhealthy():
    status = load("status-capacity-one-down.json")
    assert dict(recovery(status)) == {
        "recovering_bytes_per_s": 49451.0,
        "pgs_degraded": 0.0,  # no object counted degraded yet: the PG stats lag the OSD map
        "pgs_undersized": 12.0,  # 10 backfill_wait, 2 backfilling
        "pgs_recovering": 12.0,
        "objects_misplaced": 0.0,
    }
    assert recovering(status) and not healthy(status)


def test_every_osd_in_is_not_healthy_while_one_is_down():
    status = load("status-capacity-healthy.json")
    status["osdmap"] = {**status["osdmap"], "num_up_osds": status["osdmap"]["num_osds"] - 1}
    assert not healthy(status)


def test_an_osd_with_a_noup_flag_of_its_own_is_never_picked():
    dump = load("osd-dump-capacity-one-down.json")
    assert [o["osd"] for o in dump["osds"] if "noup" in o["state"]] == [3]
    for o in dump["osds"]:  # every OSD up and in, osd.3 still flagged
        o["up"] = o["in"] = 1
    assert pick(dump) == 2  # the highest without a flag of its own
    for o in dump["osds"]:
        o["state"] = [*o["state"], "noup"]
    with pytest.raises(UsageError, match="noup flag of its own"):
        pick(dump)
