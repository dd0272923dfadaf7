"""Capabilities read from what was measured: a diagnosis' evidence (each OSD's ``osd bench``,
the links' iperf3 and ping, the PGs per OSD), a run's pool (its fingerprint) and what the run
recorded (its pool's placement, each workload's CPU seconds: ``execution.accounting``). Pure:
recorded dicts in, :mod:`cephbench.diagnose.ceiling_inputs` out."""

from __future__ import annotations

import statistics
from typing import Any

from cephbench.diagnose.ceiling_inputs import Capabilities, CpuUse, OsdCapability, PoolLayout


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


def capabilities(
    e: dict[str, Any],
    layout: PoolLayout,
    pgs: list[dict[str, Any]] | None = None,
) -> Capabilities:
    """What the diagnosis measured, for a pool of ``layout`` (its PGs' up sets ``pgs`` when
    the run recorded them; else the PGs per OSD the diagnosis read)."""
    notes: list[str] = []
    if pgs:
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
            )
        )
    link, rtt = links(e)
    return Capabilities(osds, layout, link, rtt, notes)


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
