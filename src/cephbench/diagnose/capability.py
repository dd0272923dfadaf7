"""Capabilities read from what was measured: a diagnosis' evidence (each OSD's ``osd bench``
and its own reads,
the links' iperf3 and ping, the PGs per OSD), a run's pool (its fingerprint) and what the run
recorded (its pool's placement, each workload's CPU seconds: ``execution.accounting``). Pure:
recorded dicts in, :mod:`cephbench.diagnose.ceiling_inputs` out."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from cephbench.ceph import placement
from cephbench.diagnose.ceiling_inputs import (
    Capabilities,
    CpuUse,
    MclockLimit,
    OsdCapability,
    PoolLayout,
)


def layout_of(pool: dict[str, Any] | None, profiles: dict[str, Any] | None = None) -> PoolLayout:
    """A pool of ``osd pool ls detail`` (or the diagnosis' ``pools`` entry) as a layout.

    An erasure-coded pool's k and m come from its profile when given; else k is taken as
    ``min_size - 1`` (Ceph's default min_size for EC is k + 1) and m as ``size - k``."""
    if not pool:
        return PoolLayout("replicated", 3)
    kind = pool.get("type")
    erasure = kind in (3, "erasure")
    size = int(pool.get("size") or 3)
    if not erasure:
        return PoolLayout("replicated", size)
    prof = (profiles or {}).get(pool.get("erasure_code_profile", ""), {})
    if prof.get("k") and prof.get("m"):
        k, m = int(prof["k"]), int(prof["m"])
    else:
        k = max(1, int(pool.get("min_size") or size) - 1)
        m = max(1, size - k)
    return PoolLayout("erasure", k + m, k, m)


def shares_from_pgs(pgs: list[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """PG up sets -> OSD id -> (share of the copies, share of the primaries)."""
    return _counted(pgs)


def _counted(pgs: Iterable[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """Each OSD's copies and primaries over ``pgs`` (a PG counted once per time it comes),
    as shares."""
    held: dict[str, int] = {}
    prim: dict[str, int] = {}
    for pg in pgs:
        for osd in pg.get("up", []):
            if osd is not None and osd >= 0:
                held[str(osd)] = held.get(str(osd), 0) + 1
        p = pg.get("up_primary")
        if p is not None and p >= 0:
            prim[str(p)] = prim.get(str(p), 0) + 1
    return _normalise(held, prim)


MAX_OBJECTS = 4096
"""Objects placed one by one (a hash each); a larger image's are sampled evenly: 4,096 of
them put each OSD's share within about a percent of the whole image's."""


def shares_from_objects(
    pgs: list[dict[str, Any]], objects: list[dict[str, Any]]
) -> dict[str, tuple[float, float]] | None:
    """PG up sets and the objects the data lives in (each ``{"prefix", "count"}``: an RBD
    image's ``PREFIX.N``, N as 16 hex digits) -> OSD id -> (share of the copies, share of the
    primaries), each object counted where Ceph places it; None when they cannot be placed
    (no objects, or PGs missing from the listing). A small image's few objects fall on its
    PGs unevenly, and its reads on the primaries with them, not as the PGs do."""
    by_pg = {str(pg.get("pgid")): pg for pg in pgs}
    names = [
        f"{o['prefix']}.{n:016x}"
        for o in objects
        for n in _spread(int(o.get("count") or 0), MAX_OBJECTS // max(1, len(objects)))
    ]
    seeds = {int(pgid.split(".")[1], 16) for pgid in by_pg}
    if not names or not by_pg or seeds != set(range(len(by_pg))):
        return None  # nothing to place, or a listing without every PG: pg_num not known
    pool_id = int(next(iter(by_pg)).split(".")[0])
    return _counted(by_pg[placement.pg_of(name, pool_id, len(by_pg))] for name in names)


def _spread(count: int, most: int) -> range | list[int]:
    """Object numbers 0..count-1, or ``most`` of them evenly spaced."""
    if count <= most:
        return range(count)
    return [i * count // most for i in range(most)]


def shares_from_counts(per_osd: dict[str, dict[str, int]]) -> dict[str, tuple[float, float]]:
    """The diagnosis' placement (``per_osd``: pgs, primaries) -> shares."""
    held = {k: int(v.get("pgs", 0)) for k, v in per_osd.items()}
    prim = {k: int(v.get("primaries", 0)) for k, v in per_osd.items()}
    return _normalise(held, prim)


def _normalise(held: dict[str, int], prim: dict[str, int]) -> dict[str, tuple[float, float]]:
    th, tp = sum(held.values()), sum(prim.values())
    return {
        k: (held.get(k, 0) / th if th else 0.0, prim.get(k, 0) / tp if tp else 0.0)
        for k in sorted(set(held) | set(prim), key=int)
    }


def links(e: dict[str, Any]) -> tuple[dict[str, float], float | None]:
    """Host -> its link's capability (bytes/s: the best pair it took part in, as a pair
    carries no more than its slower end), and the median round trip (ms)."""
    pairs = e.get("network", {}).get("pairs", {}) or {}
    best: dict[str, float] = {}
    rtts = []
    for pair, v in pairs.items():
        bps = v.get("bits_per_second")
        if v.get("rtt_ms"):
            rtts.append(float(v["rtt_ms"]))
        if not bps:
            continue
        for h in pair.split("->"):
            best[h] = max(best.get(h, 0.0), float(bps) / 8.0)
    return best, (statistics.median(rtts) if rtts else None)


def mclock_limit(s: dict[str, Any] | None) -> MclockLimit | None:
    """An OSD's mClock client limit from its recorded scheduler (``ceph/scheduler.py``):
    None when it runs no mClock, or leaves clients unlimited (``lim`` 0, every built-in
    profile), or its capacity is unknown. A ``lim`` above 1 is Quincy's, in IOPS (its
    ``res`` too)."""
    if not s or s.get("queue") != "mclock_scheduler":
        return None
    client = s.get("client") or {}
    lim, res = float(client.get("lim") or 0.0), float(client.get("res") or 0.0)
    cap = s.get("capacity_iops")
    if lim <= 0 or not cap:
        return None
    if lim > 1:  # Quincy: IOPS, no bandwidth in its cost
        return MclockLimit(lim / float(cap), res / float(cap), float(cap), None, s.get("profile"))
    return MclockLimit(lim, res, float(cap), s.get("bandwidth_bytes"), s.get("profile"))


def capabilities(
    e: dict[str, Any],
    layout: PoolLayout,
    pgs: list[dict[str, Any]] | None = None,
    objects: list[dict[str, Any]] | None = None,
) -> Capabilities:
    """What the diagnosis measured, for a pool of ``layout`` (its PGs' up sets ``pgs`` when
    the run recorded them, each OSD weighed by the run's data ``objects`` it holds when
    recorded too; else the PGs per OSD the diagnosis read)."""
    notes: list[str] = []
    placed = shares_from_objects(pgs, objects) if pgs and objects else None
    if placed is not None:
        shares = placed
    elif pgs:
        shares = shares_from_pgs(pgs)
    else:
        shares = shares_from_counts(e.get("placement", {}).get("per_osd", {}))
        notes.append("placement of the run's pool not recorded: the diagnosis' PGs per OSD used")
    osds = []
    for osd, info in sorted(e.get("osds", {}).items(), key=lambda kv: int(kv[0])):
        rep, prim = shares.get(osd, (0.0, 0.0))
        osds.append(
            OsdCapability(
                f"osd.{osd}",
                info.get("host"),
                (info.get("bench_4k") or {}).get("iops"),
                (info.get("bench_4m") or {}).get("bytes_per_sec"),
                rep,
                prim,
                ((info.get("qd1_write") or {}).get("commit") or {}).get("ms"),
                (info.get("read_4k") or {}).get("iops"),
                mclock_limit((e.get("osd_scheduler") or {}).get(osd)),
            )
        )
    link, rtt = links(e)
    total = sum(int(o.get("count") or 0) for o in objects or [])
    basis = f"the run's {total:,} data objects" if placed else None
    caps = Capabilities(osds, layout, link, rtt, notes)
    return replace(caps, shares_of=basis) if basis else caps


def cpu_use(records: list[dict[str, Any]], workload: str) -> CpuUse | None:
    """A workload's CPU seconds (summed over its repeats) from the run's ``cpu`` records;
    None when the OSDs' CPU was not measured."""
    ios, spent = 0.0, dict[str, float]()
    cores, machine = 1.0, "this machine"
    limits: dict[str, float] = {}
    limit_by: dict[str, str] = {}
    machines: dict[str, tuple[float, tuple[str, ...]]] = {}
    for r in records:
        if workload not in r.get("workloads", []) or not r.get("osd_cpu_measured"):
            continue
        # a step with several workloads: its CPU is theirs together, split by their I/Os
        share = 1.0 / len(r["workloads"])
        ios += float(r.get("ios") or 0) * share
        for k, v in r.get("cpu_s", {}).items():
            spent[k] = spent.get(k, 0.0) + float(v) * share
        cores, machine = float(r.get("cores") or 1), r.get("machine", machine)
        limits.update(r.get("cpu_limit_cores") or {})
        limit_by.update(r.get("cpu_limit_by") or {})
        for name, m in (r.get("machines") or {}).items():
            machines[name] = (float(m.get("cores") or 1), tuple(m.get("processes") or ()))
    if not spent or ios <= 0:
        return None
    return CpuUse(ios, spent, cores, machine, limits, machines, limit_by)
