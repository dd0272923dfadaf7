"""The objects of each OSD's own reads (diagnose.read_bench.chosen), on the pool and the PG
listing a diagnosis of the lab recorded (diagnose-slow-disk-reads): the names it wrote, each in
a PG of its own whose primary is that OSD."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cephbench.ceph.placement import pg_of
from cephbench.diagnose.read_bench import PGS_PER_OSD, chosen

pytestmark = pytest.mark.pure

DATA = Path(__file__).parents[1] / "data" / "ceph" / "16.2.15"
POOL = "cb-3-8096"


def recorded() -> tuple[list[dict], dict]:
    detail = json.loads((DATA / "diagnose-slow-disk-reads.pool-ls-detail.json").read_text())
    listed = json.loads((DATA / "diagnose-slow-disk-reads.pg-ls-by-pool.json").read_text())
    return detail, listed


def test_the_names_the_diagnosis_wrote_each_in_a_pg_its_osd_is_primary_of():
    detail, listed = recorded()
    names = chosen(detail, listed, POOL, [0, 1, 2])
    assert {osd: [int(n.rsplit(".", 1)[1]) for n in objs] for osd, objs in names.items()} == {
        0: [6, 10, 22, 23, 52, 82],  # primary of 6 PGs: one object in each
        1: [8, 9, 11, 13, 15, 19, 24, 26],
        2: [0, 1, 2, 4, 7, 12, 21, 29],
    }
    primary = {s["pgid"]: s["acting_primary"] for s in listed["pg_stats"]}
    pgs = [pg_of(n, 6, 32) for objs in names.values() for n in objs]
    assert len(pgs) == len(set(pgs)) == 22
    for osd, objs in names.items():
        assert len(objs) <= PGS_PER_OSD
        assert all(primary[pg_of(n, 6, 32)] == osd for n in objs)


def test_an_osd_that_is_down_or_a_pool_not_replicated_gets_nothing():
    detail, listed = recorded()
    assert sorted(chosen(detail, listed, POOL, [0, 2])) == [0, 2]
    erasure = [{**detail[0], "type": 3}]
    assert chosen(erasure, listed, POOL, [0, 1, 2]) == {}
    assert chosen(detail, listed, "another-pool", [0, 1, 2]) == {}
    assert chosen(detail, {"pg_stats": []}, POOL, [0, 1, 2]) == {}
