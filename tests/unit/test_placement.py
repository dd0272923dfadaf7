"""An object's PG computed as Ceph computes it (ceph.placement), against the monitors' own
``ceph osd map`` answers recorded from the lab (tests/data/ceph/16.2.15/osd-map.txt): the
hash of every name and its PG in a pool of 12 PGs and one of 32; names chosen to land on
each OSD's own PGs; and an RBD image's objects weighing the OSDs as the monitors placed them
(rbd-image-objects.*)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from cephbench.ceph.placement import names_by_primary, pg_mask, pg_of, rjenkins, stable_mod
from cephbench.diagnose.capability import shares_from_objects, shares_from_pgs

pytestmark = pytest.mark.pure

DATA = Path(__file__).parents[1] / "data" / "ceph" / "16.2.15"
LINE = re.compile(
    r"pool '(?P<pool>[^']+)' \((?P<id>\d+)\) object '(?P<name>[^']*)' -> "
    r"pg \d+\.(?P<seed>[0-9a-f]+) \((?P<pg>[\d.a-f]+)\)"
)
PG_NUM = {"cb-maptest": 12, "cb-maptest32": 32}


def recorded() -> list[dict[str, str]]:
    lines = (DATA / "osd-map.txt").read_text().splitlines()
    found = [m.groupdict() for m in map(LINE.search, lines) if m]
    assert len(found) == len(lines) == 28
    return found


def test_every_name_hashes_to_the_seed_the_monitors_gave():
    for m in recorded():
        assert f"{rjenkins(m['name']):08x}" == m["seed"], m["name"]


def test_every_object_lands_in_the_pg_the_monitors_gave():
    folded = 0
    for m in recorded():
        pg_num = PG_NUM[m["pool"]]
        assert pg_of(m["name"], int(m["id"]), pg_num) == m["pg"], m
        folded += (int(m["seed"], 16) & pg_mask(pg_num)) >= pg_num
    assert folded == 2  # 't1' and 'eleven char' in the 12-PG pool: the stable mod folded them


def test_the_stable_mod_by_hand():
    assert pg_mask(12) == 15 and pg_mask(32) == 31 and pg_mask(1) == 0
    assert stable_mod(0x29EEC818, 12, 15) == 0x8  # 8 < 12: kept
    assert stable_mod(0xC44CFDF1, 12, 15) == 0x1  # 1 < 12: kept
    assert stable_mod(0x2A, 12, 15) == 0xA  # 0xa < 12: kept
    assert stable_mod(0xF9746EDF, 12, 15) == 0x7  # 0xf >= 12: folded to 0xf & 7 ('t1')


def test_names_are_spread_one_per_pg_over_each_primarys_own_pgs():
    # the 12-PG pool's primaries as `ceph osd map` gave them above
    primaries = {f"1.{n:x}": n % 3 for n in range(12)}
    names = names_by_primary("cbread.7", 1, 12, primaries, per_osd=3)
    assert sorted(names) == [0, 1, 2]
    pgs = [pg_of(n, 1, 12) for chosen in names.values() for n in chosen]
    assert len(pgs) == len(set(pgs)) == 9  # a PG each
    for osd, chosen in names.items():
        assert len(chosen) == 3
        assert all(primaries[pg_of(n, 1, 12)] == osd for n in chosen)
    # an OSD primary of fewer PGs than asked gets one name per PG it has
    few = names_by_primary("cbread.7", 1, 12, {**primaries, "1.0": 1, "1.3": 1}, per_osd=8)
    assert len(few[0]) == 2 and len(few[1]) == 6 and len(few[2]) == 4


def test_an_images_objects_weigh_the_osds_as_the_monitors_placed_them():
    """16 objects over 32 PGs: osd.2 is primary of 9 of the PGs but of 3 of the objects."""
    info = json.loads((DATA / "rbd-image-objects.rbd-info.json").read_text())
    listed = json.loads((DATA / "rbd-image-objects.pg-ls-by-pool.json").read_text())
    lines = (DATA / "rbd-image-objects.osd-map.txt").read_text().splitlines()
    mapped = [re.search(r"object '([^']+)' .* acting \(\[[\d,]+\], p(\d+)\)", x) for x in lines]
    by_monitors = Counter(m.group(2) for m in mapped if m)
    assert sum(by_monitors.values()) == info["objects"] == 16
    objects = [{"prefix": info["block_name_prefix"], "count": info["objects"]}]
    assert [m.group(1) for m in mapped if m] == [
        f"{info['block_name_prefix']}.{n:016x}" for n in range(16)
    ]
    pgs = [
        {"pgid": s["pgid"], "up": s["up"], "up_primary": s["up_primary"]}
        for s in listed["pg_stats"]
    ]
    shares = shares_from_objects(pgs, objects)
    assert shares is not None
    assert {osd: round(prim * 16) for osd, (_, prim) in shares.items()} == dict(by_monitors)
    assert all(rep == pytest.approx(1 / 3) for rep, _ in shares.values())  # size 3 on 3 OSDs
    by_pgs = shares_from_pgs(pgs)
    assert by_pgs["2"][1] == pytest.approx(9 / 32) and shares["2"][1] == pytest.approx(3 / 16)
    # a PG missing from the listing: not placed, rather than placed wrongly
    assert shares_from_objects(pgs[1:], objects) is None
    assert shares_from_objects(pgs, []) is None


def test_a_large_images_objects_are_sampled_evenly():
    listed = json.loads((DATA / "rbd-image-objects.pg-ls-by-pool.json").read_text())
    pgs = [
        {"pgid": s["pgid"], "up": s["up"], "up_primary": s["up_primary"]}
        for s in listed["pg_stats"]
    ]
    shares = shares_from_objects(pgs, [{"prefix": "rbd_data.14e25a1be1a4", "count": 262_144}])
    assert shares is not None  # 1 TiB of 4 MiB objects: 4,096 of them hashed
    by_pgs = shares_from_pgs(pgs)
    for osd, (_, prim) in shares.items():
        assert prim == pytest.approx(by_pgs[osd][1], abs=0.04)  # many objects: near the PGs'
