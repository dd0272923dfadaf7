"""The ceiling arithmetic of ``explain`` on recorded capabilities (the lab's diagnoses) and on
capabilities set by hand: replicated size 2 and 3, erasure coding, uneven PG shares, a slow
link on the replication path, a CPU-limited run, a result above its ceiling."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from cephbench.diagnose import capability, client_cache
from cephbench.diagnose.ceiling_inputs import (
    Capabilities,
    CpuUse,
    OsdCapability,
    PoolLayout,
    Workload,
)
from cephbench.diagnose.ceilings import explain

DATA = Path(__file__).parents[1] / "data" / "ceph" / "16.2.15"
MIB = 1 << 20


def evidence(name: str) -> dict:
    return json.loads((DATA / f"diagnose-{name}.evidence.json").read_text())


def osd(n: int, iops: float, mib_s: float, rep: float, prim: float, host: str | None = None):
    return OsdCapability(f"osd.{n}", host or f"host{n}", iops, mib_s * MIB, rep, prim)


def randwrite(iops: float | None = None, qd: int = 32, bs: int = 4096) -> Workload:
    return Workload(
        "rand_wr", "randwrite", bs, qd, 1, iops, None if iops is None else iops * bs, None
    )


def seqwrite(mib_s: float, bs: int = MIB) -> Workload:
    return Workload("seq_wr", "write", bs, 16, 1, mib_s * MIB / bs, mib_s * MIB, None)


THIRD = 1 / 3


def test_an_osds_write_capability_passes_through_both_bench_points():
    o = osd(0, 2000.0, 400.0, THIRD, THIRD)
    assert o.write_iops(4096) == pytest.approx(2000.0)
    assert o.write_iops(4 << 20) == pytest.approx(100.0)  # 400 MiB/s in 4 MiB writes
    mid = o.write_iops(MIB)
    assert mid is not None and 100.0 < mid < 2000.0
    assert OsdCapability("osd.9", None, 2000.0, None, 0.5, 0.5).write_iops(1 << 20) is None


def test_size_3_on_3_osds_each_write_lands_on_every_osd_the_slowest_limits():
    caps = Capabilities(
        [
            osd(0, 3000, 400, THIRD, THIRD),
            osd(1, 1990, 400, THIRD, THIRD),
            osd(2, 3000, 400, THIRD, THIRD),
        ],
        PoolLayout("replicated", 3),
    )
    x = explain(caps, randwrite(1000.0))
    assert x.limit is not None and x.limit.part == "osd.1's device"
    assert x.limit.iops == pytest.approx(1990.0)  # 3 copies x 1/3 each: one write per client write
    assert x.efficiency == pytest.approx(1000 / 1990)
    line = x.line()
    assert line.startswith("rand_wr 4k qd32: 1,000 IOPS = 50 % of the 1,990 that osd.1's device")
    assert "it holds 33 % of the pool's replicas and writes 4k at 1,990 IOPS" in line
    assert "CPU not measured for this run" in x.not_measured


def test_size_2_halves_the_load_on_each_of_three_osds():
    caps = Capabilities(
        [osd(i, 2000, 400, THIRD, THIRD) for i in range(3)], PoolLayout("replicated", 2)
    )
    x = explain(caps, randwrite(500.0))
    # each OSD holds a third of 2 copies per write: 2/3 of a write per client write
    assert x.limit is not None and x.limit.iops == pytest.approx(3000.0)


def test_uneven_pg_shares_the_osd_with_most_replicas_for_its_capability_saturates_first():
    caps = Capabilities(
        [
            osd(0, 2000, 400, 0.41, 0.5),
            osd(1, 2000, 400, 0.30, 0.25),
            osd(2, 2600, 400, 0.29, 0.25),
        ],
        PoolLayout("replicated", 3),
    )
    x = explain(caps, randwrite(1845.0))
    assert x.limit is not None and x.limit.part == "osd.0's device"
    assert x.limit.iops == pytest.approx(2000 / (3 * 0.41))
    assert "41 % of the pool's replicas" in x.line()


def test_erasure_coding_writes_k_plus_m_chunks_of_a_kth_of_the_block():
    lay = PoolLayout("erasure", 3, k=2, m=1)
    assert lay.copies == 3 and lay.piece(MIB) == MIB // 2 and lay.piece(4096) == 4096
    caps = Capabilities([osd(i, 2000, 300, THIRD, THIRD) for i in range(3)], lay)
    x = explain(caps, seqwrite(100.0))
    o = caps.osds[0]
    assert x.limit is not None and x.limit.part.endswith("device")
    assert x.limit.iops == pytest.approx(o.write_iops(MIB // 2) / (3 * THIRD))
    assert "chunks" in x.limit.why and "erasure coded k=2 m=1" in x.limit.why


def test_the_layout_of_a_recorded_pool_and_an_erasure_coded_one_without_its_profile():
    assert capability.layout_of({"type": 1, "size": 2}) == PoolLayout("replicated", 2)
    ec = capability.layout_of({"type": 3, "size": 6, "min_size": 5, "erasure_code_profile": "p"})
    assert (ec.k, ec.m) == (4, 2)
    prof = {"p": {"k": "3", "m": "3"}}
    assert capability.layout_of({"type": 3, "size": 6, "erasure_code_profile": "p"}, prof).k == 3


def test_a_slow_link_on_the_replication_path_limits_large_writes():
    caps = Capabilities(
        [osd(i, 5000, 800, THIRD, THIRD) for i in range(3)],
        PoolLayout("replicated", 3),
        link_bytes_per_s={"host0": 60e6, "host1": 60e6, "host2": 12.5e6},  # 100 Mbit/s
    )
    x = explain(caps, seqwrite(10.0))
    assert x.limit is not None and x.limit.part == "host2's link" and x.limit.layer == "network"
    # host2 takes in its third of the three copies per client write: 1x the block
    assert x.limit.iops == pytest.approx(12.5e6 / MIB)
    assert "100 Mbit/s measured" in x.limit.why


def test_large_reads_have_no_device_ceiling_and_say_so():
    caps = Capabilities(
        [osd(i, 5000, 800, THIRD, 0.5 if i == 0 else 0.25) for i in range(3)],
        PoolLayout("replicated", 3),
        link_bytes_per_s={f"host{i}": 60e6 for i in range(3)},
    )
    w = Workload("seq_rd", "read", MIB, 16, 1, 50.0, 50.0 * MIB, None, "read")
    x = explain(caps, w)
    assert x.limit is not None and x.limit.part == "host0's link"  # half the reads
    assert x.limit.iops == pytest.approx(60e6 / (MIB * 0.5))
    assert any("each OSD's own reads measured at 4 KiB only" in n for n in x.not_measured)


def randread(iops: float, bs: int = 4096) -> Workload:
    return Workload("rand_rd", "randread", bs, 32, 1, iops, iops * bs, None, "read")


def test_small_reads_under_a_slow_disk_are_held_by_its_own_reads_over_its_primaries():
    """The recorded slow disk: osd.1 read 151 IOPS on its own, primary of 11 of 32 PGs."""
    e = evidence("slow-disk-reads")
    caps = capability.capabilities(e, PoolLayout("replicated", 3))
    reads = {o.name: o.read_4k_iops for o in caps.osds}
    assert reads == {"osd.0": 13745.508982, "osd.1": 151.037344, "osd.2": 13617.148554}
    x = explain(caps, randread(479.0))
    assert x.limit is not None and (x.limit.part, x.limit.layer) == ("osd.1's device", "osd")
    share = next(o.primary_share for o in caps.osds if o.name == "osd.1")
    assert x.limit.iops == pytest.approx(151.037344 / share)
    assert "read 4k at 151 IOPS under reads of its own" in x.limit.why
    # healthy: no OSD's reads come near the links' (or anything's) ceiling
    healthy = capability.capabilities(evidence("healthy-reads"), PoolLayout("replicated", 3))
    parts = [p for p in explain(healthy, randread(5000.0)).parts if p.layer == "osd"]
    assert len(parts) == 3 and min(p.iops for p in parts) > 13_000


def test_reads_without_their_figures_or_from_erasure_coding_say_why_not():
    plain = Capabilities(
        [osd(i, 5000, 800, THIRD, THIRD) for i in range(3)], PoolLayout("replicated", 3)
    )
    x = explain(plain, randread(1000.0))
    assert not [p for p in x.parts if p.layer == "osd"]
    assert any("no OSD's own reads measured" in n for n in x.not_measured)
    ec = Capabilities(
        [replace(osd(i, 5000, 800, 0.25, 0.25), read_4k_iops=100.0) for i in range(4)],
        PoolLayout("erasure", 3, k=2, m=1),
    )
    x = explain(ec, randread(1000.0))
    assert not [p for p in x.parts if p.layer == "osd"]
    assert any("erasure-coded pool: not modelled" in n for n in x.not_measured)


def test_cpu_per_io_against_the_cores_can_be_the_limit():
    caps = Capabilities(
        [osd(i, 20000, 800, THIRD, THIRD) for i in range(3)], PoolLayout("replicated", 3)
    )
    cpu = CpuUse(10_000, {"osd.0": 3.0, "osd.1": 3.0, "osd.2": 3.0, "client": 1.0}, 2.0)
    x = explain(caps, randwrite(1800.0), cpu)
    assert x.limit is not None and x.limit.layer == "cpu"
    assert x.limit.iops == pytest.approx(2.0 / (10.0 / 10_000))  # 2,000 IOPS
    assert x.efficiency == pytest.approx(0.9)
    assert "1000 µs of CPU per I/O" in x.limit.why
    assert not any("CPU" in n for n in x.not_measured)


def test_a_result_above_its_ceiling_is_a_model_defect_said_so():
    caps = Capabilities(
        [osd(i, 1000, 400, THIRD, THIRD) for i in range(3)], PoolLayout("replicated", 3)
    )
    x = explain(caps, randwrite(1200.0))
    assert x.model_defect and x.to_json()["model_defect"]
    assert "ABOVE the ceiling by 20 %: a defect of the model" in x.line()
    assert not explain(caps, randwrite(1090.0)).model_defect
    assert "far below every ceiling" in explain(caps, randwrite(100.0)).line()
    assert "far below" not in explain(caps, randwrite(500.0)).line()


def test_the_qd1_floor_is_round_trips_and_the_slowest_commit():
    caps = Capabilities(
        [
            osd(0, 2000, 400, THIRD, THIRD),
            osd(1, 500, 400, THIRD, THIRD),
            osd(2, 2000, 400, THIRD, THIRD),
        ],
        PoolLayout("replicated", 3),
        rtt_ms=0.1,
    )
    w = Workload("lat_wr", "randwrite", 4096, 1, 1, 250.0, 250.0 * 4096, 4000.0)
    x = explain(caps, w)
    assert x.floor_ms == pytest.approx(0.2 + 2.0)  # 2 round trips + 1/500 s on osd.1
    assert "osd.1" in (x.floor_why or "")
    assert x.to_json()["latency_over_floor"] == pytest.approx(4.0 / 2.2, rel=1e-3)
    assert explain(caps, randwrite(100.0)).floor_ms is None  # QD32: no floor reported
    limit = x.limit
    assert limit is not None and limit.part == "osd.1's commit (one I/O at a time)"
    assert limit.iops == pytest.approx(1000 / 2.2)  # Little's law: 1 in flight / 2.2 ms
    slow_net = Capabilities(caps.osds, caps.layout, rtt_ms=5.0)
    got = explain(slow_net, w).limit
    assert got is not None and got.part == "the round trips (one I/O at a time)"
    assert got.layer == "network"


def test_capabilities_from_a_recorded_diagnosis_of_the_lab():
    e = evidence("healthy")
    caps = capability.capabilities(e, capability.layout_of(e["pools"][0]))
    assert [o.name for o in caps.osds] == ["osd.0", "osd.1", "osd.2"]
    assert sum(o.replica_share for o in caps.osds) == pytest.approx(1.0)
    assert sum(o.primary_share for o in caps.osds) == pytest.approx(1.0)
    assert caps.link_bytes_per_s["host0"] == pytest.approx(482186529.81093514 / 8)
    assert caps.rtt_ms == pytest.approx(0.049)
    assert caps.notes  # no placement of the run's pool: the diagnosis' used, said so
    x = explain(caps, randwrite(1500.0))
    assert x.limit is not None and x.efficiency is not None and 0 < x.efficiency < 1


def test_a_slow_disk_in_a_recorded_diagnosis_is_the_limiting_part():
    e = evidence("slow-disk-osd1")
    caps = capability.capabilities(e, capability.layout_of(e["pools"][0]))
    x = explain(caps, randwrite(100.0))
    if caps.osds[1].write_4k_iops is not None:
        assert x.limit is not None and x.limit.part == "osd.1's device", x.limit
        assert x.limit.layer == "osd"


def test_shares_from_a_pools_pg_up_sets():
    pgs = [
        {"pgid": "1.0", "up": [0, 1, 2], "up_primary": 0},
        {"pgid": "1.1", "up": [0, 2, 1], "up_primary": 0},
        {"pgid": "1.2", "up": [1, 0], "up_primary": 1},
    ]
    shares = capability.shares_from_pgs(pgs)
    assert shares["0"] == pytest.approx((3 / 8, 2 / 3))
    assert shares["2"] == pytest.approx((2 / 8, 0.0))


def test_cpu_records_of_a_run_per_workload():
    records = [
        {
            "workloads": ["a"],
            "ios": 1000,
            "cpu_s": {"osd.0": 1.0, "client": 0.5},
            "cores": 2,
            "osd_cpu_measured": True,
            "machine": "this machine",
        },
        {
            "workloads": ["a"],
            "ios": 1000,
            "cpu_s": {"osd.0": 1.0, "client": 0.5},
            "cores": 2,
            "osd_cpu_measured": True,
            "machine": "this machine",
        },
        {
            "workloads": ["b"],
            "ios": 1000,
            "cpu_s": {"client": 0.5},
            "cores": 2,
            "osd_cpu_measured": False,
        },
    ]
    a = capability.cpu_use(records, "a")
    assert a is not None and a.per_io == pytest.approx(3.0 / 2000) and a.cores == 2
    assert capability.cpu_use(records, "b") is None


def test_an_osd_whose_cgroup_caps_its_cpu_is_the_limit_when_its_share_needs_more():
    caps = Capabilities(
        [osd(i, 20000, 800, THIRD, THIRD) for i in range(3)], PoolLayout("replicated", 3)
    )
    spent = {"osd.0": 1.0, "osd.1": 1.0, "osd.2": 1.0, "client": 1.0}
    cpu = CpuUse(10_000, spent, 2.0, limits={"osd.2": 0.15})
    x = explain(caps, randwrite(1000.0), cpu)
    assert x.limit is not None and x.limit.part == "osd.2's CPU allowance"
    assert x.limit.iops == pytest.approx(0.15 / (1.0 / 10_000))  # 1,500 IOPS
    assert "its cgroup allows it 0.15 cores; 100 µs of its CPU per I/O" in x.limit.why


# A 3-host lab, osd.1's disk held to 150 IOPS (bench/diagnose_faults.py, trial 1 of the slow
# disk, 2026-11-27): the diagnosis' osd bench and the 1M write run under it, as recorded.
SLOW_OSD1 = [
    osd(0, 26590.55742819037, 874298751.2858702 / MIB, THIRD, 0.3438),
    osd(1, 1452.4409913365923, 7964181.5534309 / MIB, THIRD, 0.1875),
    osd(2, 14397.67387581444, 816893711.2118034 / MIB, THIRD, 0.4688),
]
LAB_1M_UNDER_SLOW_DISK = Workload(
    "seq_wr_1m", "write", MIB, 16, 1, 9.89854, 10379371.0, None, "write", 8.082
)


def test_above_the_clusters_ceiling_by_what_librbds_cache_completes_early_is_no_defect():
    cache = client_cache.from_config([])  # Ceph's defaults: writearound, 24 MiB
    caps = Capabilities(SLOW_OSD1, PoolLayout("replicated", 3), client_cache=cache)
    x = explain(caps, LAB_1M_UNDER_SLOW_DISK)
    assert x.limit is not None and x.limit.part == "osd.1's device"
    assert x.efficiency == pytest.approx(1.30, abs=0.01)  # above the cluster's ceiling
    assert x.early_iops == pytest.approx(24 / 8.082)  # 24 MiB over 8.082 s, in 1M writes
    assert x.above and not x.model_defect
    doc = x.to_json()
    assert doc["above_ceiling"] and not doc["model_defect"]
    assert doc["client_cache_iops"] == pytest.approx(2.97, abs=0.01)
    assert "which the client's cache accounts for" in x.line()
    assert "24 MiB" in x.line() and "3 MiB/s over this workload's 8.1 s" in x.line()
    # without the cache in the model, the same result is a defect, said so
    bare = explain(Capabilities(SLOW_OSD1, PoolLayout("replicated", 3)), LAB_1M_UNDER_SLOW_DISK)
    assert bare.model_defect and "ABOVE the ceiling by 30 %" in bare.line()


def test_the_cache_accounts_for_no_more_than_it_holds():
    caps = Capabilities(
        SLOW_OSD1, PoolLayout("replicated", 3), client_cache=client_cache.from_config([])
    )
    ceiling = explain(caps, LAB_1M_UNDER_SLOW_DISK).limit
    assert ceiling is not None
    # 24 MiB over 8.082 s is 2.97 MiB/s: 10 % above (ceiling + that) is a defect again
    over = (ceiling.iops + 24 / 8.082) * 1.11
    w = Workload("seq_wr_1m", "write", MIB, 16, 1, over, over * MIB, None, "write", 8.082)
    assert explain(caps, w).model_defect
    # each of numjobs librbd clients has its own cache
    four = Workload("seq_wr_1m", "write", MIB, 16, 4, over, over * MIB, None, "write", 8.082)
    x = explain(caps, four)
    assert x.early_iops == pytest.approx(4 * 24 / 8.082) and not x.model_defect
    assert "x 4 jobs" in x.line()
    # no runtime recorded: nothing is allowed for the cache
    untimed = Workload("seq_wr_1m", "write", MIB, 16, 1, 9.89854, 10379371.0, None, "write")
    assert explain(caps, untimed).model_defect
    # reads: the cache never completes them early
    read = Workload("seq_rd", "read", MIB, 16, 1, 50.0, 50.0 * MIB, None, "read", 8.0)
    assert explain(caps, read).early_iops == 0.0


@pytest.mark.parametrize(
    ("entries", "enabled", "policy", "early"),
    [
        ([], True, "writearound", 24 << 20),
        ([{"section": "client", "name": "rbd_cache", "value": "false"}], False, "writearound", 0),
        (
            [{"section": "global", "name": "rbd_cache_policy", "value": "writethrough"}],
            True,
            "writethrough",
            0,
        ),
        (
            [
                {"section": "client", "name": "rbd_cache_policy", "value": "writethrough"},
                {"section": "client.admin", "name": "rbd_cache_policy", "value": "writeback"},
                {"section": "client.admin", "name": "rbd_cache_max_dirty", "value": "16M"},
            ],
            True,
            "writeback",
            16 << 20,
        ),
        (
            [{"section": "client", "name": "rbd_cache_max_dirty", "value": "0"}],
            True,
            "writearound",
            0,
        ),
        (  # another client's section is not this client's
            [{"section": "client.other", "name": "rbd_cache", "value": "false"}],
            True,
            "writearound",
            24 << 20,
        ),
        (
            [{"section": "osd", "name": "rbd_cache", "value": "false"}],
            True,
            "writearound",
            24 << 20,
        ),
    ],
)
def test_the_clients_cache_from_a_config_dump(entries, enabled, policy, early):
    c = client_cache.from_config(entries, "client.admin")
    assert (c.enabled, c.policy, c.early_bytes) == (enabled, policy, early)


def test_an_osds_mclock_client_limit_over_its_primaries_is_a_ceiling():
    """The recorded Tentacle lab with the first `lab fault mclock osd.1`: a custom profile,
    client lim 0.2 under the profile's reservation 0.5, of a capacity set to 500 IOPS
    (bandwidth the built-in 150 MiB/s); osd.0 and osd.2 run `balanced`, clients unlimited.
    (Its placement is of the manager's one PG: the run's pool spreads its primaries evenly
    here.)"""
    e = json.loads((DATA.parent / "20.2.4" / "diagnose-mclock-osd1.evidence.json").read_text())
    caps = capability.capabilities(e, PoolLayout("replicated", 3))
    even = [replace(o, replica_share=THIRD, primary_share=THIRD) for o in caps.osds]
    caps = replace(caps, osds=even, client_cache=client_cache.ClientCache(False, "writeback", 0))
    limited = {o.name: o.mclock for o in caps.osds if o.mclock}
    assert list(limited) == ["osd.1"]
    m = limited["osd.1"]
    assert (m.lim, m.res, m.capacity_iops, m.bandwidth_bytes) == (0.2, 0.5, 500.0, 150 * MIB)
    assert m.iops == 250.0  # the reservation, above the limit, is what mClock keeps
    # a write is charged its bytes or one I/O at that capacity (150 MiB/s / 500: 307 KiB),
    # whichever is more; a read one I/O whatever its size
    assert m.ops(4096) == 250.0 and m.ops(MIB) == pytest.approx(0.5 * 150)  # 75 MiB/s
    assert m.ops(MIB, writes=False) == 250.0
    x = explain(caps, randwrite(60.0))
    assert x.limit is not None and x.limit.part == "osd.1's mClock limit"
    assert x.limit.iops == pytest.approx(250.0 * 3)
    assert (
        "lets client ops through at 250 IOPS at most (osd_mclock_scheduler_client_lim 0.2, its "
        "reservation 0.5 above it of a capacity of 500 IOPS)" in x.limit.why
    )
    big = explain(caps, seqwrite(10.0))
    assert big.limit is not None and big.limit.part == "osd.1's mClock limit"
    assert "; a 1M op costs 3.33 of them)" in big.limit.why
    assert big.limit.iops == pytest.approx(75.0 * 3)
    reads = explain(caps, randread(60.0, bs=MIB))
    assert any(p.part == "osd.1's mClock limit" and p.iops == 750.0 for p in reads.parts)
    # its own reads in the diagnosis were mClock's client ops too: held at the limit, they
    # are no device figure (a CI run named "osd.1's device" at 798 against the limit's 800)
    own = [replace(o, read_4k_iops=251.0 if o.name == "osd.1" else 13_000.0) for o in even]
    small = explain(replace(caps, osds=own), randread(60.0))
    assert small.limit is not None and small.limit.part == "osd.1's mClock limit"
    assert [p.part for p in small.parts if "device" in p.part] == [
        "osd.0's device",
        "osd.2's device",
    ]
    assert any("osd.1: their own reads ran at their mClock limit" in n for n in small.not_measured)
    fast = [replace(o, read_4k_iops=13_000.0) for o in even]  # a limit it did not meet
    assert "osd.1's device" in [
        p.part for p in explain(replace(caps, osds=fast), randread(60.0)).parts
    ]
    # librbd's writeback cache sends an object's writes as one op: not modelled, said so
    cached = replace(caps, client_cache=client_cache.ClientCache(True, "writeback", 24 * MIB))
    w = explain(cached, randwrite(60.0))
    assert not [p for p in w.parts if "mClock" in p.part]
    assert any(
        "not modelled for writes through librbd's writeback cache" in n for n in w.not_measured
    )
    # Quincy's limit is in IOPS, with no bandwidth in its cost
    quincy = capability.mclock_limit(
        {"queue": "mclock_scheduler", "client": {"lim": 80.0, "res": 40.0}, "capacity_iops": 400.0}
    )
    assert quincy is not None and quincy.ops(MIB) == pytest.approx(80.0)
    assert capability.mclock_limit({"queue": "wpq", "client": {"lim": 0.2}}) is None
