"""``cephbench explain``: every workload of a stored Ceph run beside the ceiling the measured
parts of its cluster allow (:mod:`cephbench.diagnose.ceilings`), from the most recent stored
diagnosis of the same cluster (its fsid) and what the run recorded itself (its pool's
placement, each workload's CPU seconds). The document is ``cephbench.explanation/1``; the
tables and the one line per workload are what people paste."""

from __future__ import annotations

import statistics
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from cephbench.contracts import EXPLANATION
from cephbench.diagnose import cached, capability, client_cache
from cephbench.diagnose.ceiling_inputs import Capabilities, PoolLayout, Workload
from cephbench.diagnose.ceilings import Explained, explain
from cephbench.errors import StoreError, UsageError
from cephbench.tables.table import Table

if TYPE_CHECKING:
    from cephbench.model import Result, StoredRun
    from cephbench.store import Store

RECENT_S = 24 * 3600.0
"""A diagnosis older than this is not recent: ``--measure`` measures again."""


def fsid_of(store: Store, run_id: int) -> tuple[str | None, str | None, dict[str, Any]]:
    """(the cluster's fsid, the run's pool, its fingerprint) of a stored run."""
    fp = store.fingerprint(run_id)
    if fp is None:
        return None, None, {}
    data, pool = fp
    status = data.get("status")
    fsid = status.get("fsid") if isinstance(status, dict) else None
    return fsid, pool, data


def latest_diagnosis(store: Store, fsid: str, before: float | None = None) -> int | None:
    """The newest stored diagnosis of the cluster ``fsid`` that reached its findings."""
    from cephbench.diagnose.stored import evidence

    for run in reversed(store.runs()):
        if run.suite != "diagnose":
            continue
        if fsid_of(store, run.id)[0] != fsid:
            continue
        if before is not None and _epoch(run.started_at) < before:
            return None
        if evidence(store, run.id):
            return run.id
    return None


def time_now() -> float:
    import time

    return time.time()


def _epoch(text: str) -> float:
    try:
        t = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return 0.0
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    return t.timestamp()


def ceph_run(store: Store, ref: str | int) -> tuple[StoredRun, str, str | None, dict[str, Any]]:
    run = store.get_run(ref)
    fsid, pool, fp = fsid_of(store, run.id)
    if fsid is None or run.suite == "diagnose":
        raise UsageError(
            f"run {run.id} is not a benchmark of a Ceph cluster (target {run.target})",
            hint="explain a run on an rbd: or rados: target; `cephbench runs` lists them",
        )
    return run, fsid, pool, fp


def workloads(run: StoredRun) -> list[Workload]:
    """Each (workload, direction) of the run, its figures the mean over its repeats."""
    groups: dict[tuple[str, str], list[Result]] = {}
    for r in run.results:
        if r.bs and r.op in ("read", "write") and (r.iops or r.bw_bytes_per_s):
            groups.setdefault((r.workload, r.op), []).append(r)
    out = []
    for (name, op), rs in groups.items():
        first = rs[0]
        out.append(
            Workload(
                name,
                first.rw or op,
                int(first.bs or 0),
                int(first.iodepth or 1),
                int(first.numjobs or 1),
                _mean([r.iops for r in rs]),
                _mean([r.bw_bytes_per_s for r in rs]),
                _mean([r.lat_mean_us for r in rs]),
                op,
                _mean([r.runtime_s for r in rs]),
            )
        )
    return out


def _mean(xs: list[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return statistics.fmean(vals) if vals else None


def _records(store: Store, run_id: int, metric: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for s in store.series(run_id, metric):
        out.extend(v for v in s.values if isinstance(v, dict))
    return out


def run_capabilities(
    store: Store, run_id: int, evidence: dict[str, Any], fp: dict[str, Any], pool: str | None
) -> tuple[Capabilities, list[dict[str, Any]]]:
    """The capabilities for the run's pool, and its CPU records."""
    listed = fp.get("pools")
    pools: list[dict[str, Any]] = listed if isinstance(listed, list) else []
    entry = next((p for p in pools if p.get("pool_name") == pool), None)
    layout = capability.layout_of(entry)
    placement = _records(store, run_id, "placement")
    pgs = placement[0].get("pgs") if placement else None
    objects = placement[0].get("objects") if placement else None
    caps = capability.capabilities(evidence, layout, pgs, objects)
    run = store.get_run(run_id)
    if run.target.startswith("rbd:"):  # fio's rbd engine: librbd, and its cache
        client = ((run.environment or {}).get("target") or {}).get("client") or "client.admin"
        caps = replace(caps, client_cache=client_cache.from_config(fp.get("config"), client))
    return caps, _records(store, run_id, "cpu")


def document(store: Store, run_id: int, diag_id: int) -> dict[str, Any]:
    """``cephbench.explanation/1`` of run ``run_id`` against the diagnosis ``diag_id``."""
    from cephbench.diagnose.stored import evidence

    run, fsid, pool, fp = ceph_run(store, run_id)
    e = evidence(store, diag_id)
    if not e:
        raise StoreError(f"run {diag_id} holds no diagnosis evidence", hint="cephbench diagnose")
    caps, cpu = run_capabilities(store, run.id, e, fp, pool)
    explained = [explain(caps, w, capability.cpu_use(cpu, w.name)) for w in workloads(run)]
    described = [x.to_json() for x in explained]
    cached.annotate(described, run, cached.served_records(_records(store, run.id, "served")))
    return {
        "schema": EXPLANATION,
        "run": run.id,
        "diagnosis_run": diag_id,
        "fsid": fsid,
        "pool": pool,
        "layout": caps.layout.describe(),
        "capabilities": capabilities_json(caps),
        "cpu_measured": bool(cpu) and any(r.get("osd_cpu_measured") for r in cpu),
        "workloads": described,
        "model_defects": sum(1 for x in described if x["model_defect"]),
    }


def capabilities_json(caps: Capabilities) -> dict[str, Any]:
    return {
        "osds": [
            {
                "osd": o.name,
                "host": o.host,
                "write_4k_iops": o.write_4k_iops,
                "write_4m_bytes_per_s": o.write_4m_bytes_per_s,
                "replica_share": round(o.replica_share, 4),
                "primary_share": round(o.primary_share, 4),
                "commit_ms": o.commit_ms,
                "read_4k_iops": o.read_4k_iops,
                "mclock_client_limit_iops": o.mclock.iops if o.mclock else None,
            }
            for o in caps.osds
        ],
        "links": [
            {"host": h, "bytes_per_s": round(v, 1)}
            for h, v in sorted(caps.link_bytes_per_s.items())
        ],
        "rtt_ms": caps.rtt_ms,
        "shares_of": caps.shares_of,
        "client_cache": caps.client_cache.to_json() if caps.client_cache else None,
        "notes": list(caps.notes),
    }


def _eff(x: float | None) -> str:
    return "n/a" if x is None else f"{x * 100:.0f} %"


def _measured(w: dict[str, Any]) -> str:
    if w["bs_bytes"] >= 1 << 20:
        return f"{(w['bw_bytes_per_s'] or 0) / (1 << 20):,.0f} MiB/s"
    return f"{(w['iops'] or 0):,.0f} IOPS"


def _ceiling(w: dict[str, Any]) -> str:
    if w["ceiling_iops"] is None:
        return "n/a"
    if w["bs_bytes"] >= 1 << 20:
        return f"{w['ceiling_bytes_per_s'] / (1 << 20):,.0f} MiB/s"
    return f"{w['ceiling_iops']:,.0f} IOPS"


def tables(doc: dict[str, Any]) -> list[Table]:
    rows = []
    for w in doc["workloads"]:
        eff = _eff(w["efficiency"])
        if w.get("served_from_cache"):  # a cache's figure: no efficiency of the cluster
            eff += " (served from a cache)"
        elif w["model_defect"]:
            eff += " (above the ceiling: a model defect)"
        elif w.get("above_ceiling"):
            eff += " (above: the client's cache)"
        floor = ""
        if w.get("latency_floor_ms") is not None:
            floor = f"{w['latency_floor_ms']:.2f} ms"
            if w.get("latency_over_floor"):
                floor += f" ({w['latency_over_floor']:.1f}x)"
        rows.append(
            (
                f"{w['workload']} ({w['op']})",
                _measured(w),
                _ceiling(w),
                eff,
                w["limiting_part"] or "n/a",
                floor,
            )
        )
    notes = [w["line"] for w in doc["workloads"]]
    if not doc["cpu_measured"]:
        notes.append("CPU not measured for this run (runs on the lab record it from now on).")
    out = [
        Table(
            ("Workload", "Measured", "Ceiling", "Efficiency", "Limiting part", "QD1 floor"),
            tuple(rows),
            title=(
                f"Run {doc['run']} explained by diagnosis {doc['diagnosis_run']} "
                f"(pool {doc['pool']}, {doc['layout']})"
            ),
            notes=tuple(notes),
            align=("l", "r", "r", "r", "l", "r"),
        )
    ]
    out += capability_tables(doc["capabilities"])
    return out


def capability_tables(caps: dict[str, Any]) -> list[Table]:
    """Each OSD's and link's measured capability."""
    osd_rows = tuple(
        (
            o["osd"],
            o["host"] or "",
            "n/a" if o["write_4k_iops"] is None else f"{o['write_4k_iops']:,.0f}",
            "n/a"
            if o["write_4m_bytes_per_s"] is None
            else f"{o['write_4m_bytes_per_s'] / (1 << 20):,.1f}",
            "n/a" if o.get("read_4k_iops") is None else f"{o['read_4k_iops']:,.0f}",
            f"{o['replica_share'] * 100:.0f} %",
            f"{o['primary_share'] * 100:.0f} %",
        )
        for o in caps["osds"]
    )
    shares_of = caps.get("shares_of") or "the pool's PGs"
    out = [
        Table(
            (
                "OSD",
                "Host",
                "4k write IOPS",
                "4M write MiB/s",
                "4k read IOPS",
                "Copies held",
                "Primaries",
            ),
            osd_rows,
            title="Capabilities: each OSD (osd bench, all OSDs at once; reads, one OSD at a "
            f"time) and its share of {shares_of}",
            notes=tuple(caps.get("notes", [])) + _cache_note(caps.get("client_cache")),
            align=("l", "l", "r", "r", "r", "r", "r"),
        )
    ]
    if caps["links"]:
        rtt = caps.get("rtt_ms")
        out.append(
            Table(
                ("Host", "Link Mbit/s"),
                tuple((x["host"], f"{x['bytes_per_s'] * 8 / 1e6:,.0f}") for x in caps["links"]),
                title="Capabilities: each host's link (iperf3, its best pair)"
                + (f"; round trip {rtt:.3f} ms" if rtt else ""),
                align=("l", "r"),
            )
        )
    return out


def _cache_note(cache: dict[str, Any] | None) -> tuple[str, ...]:
    if not cache:
        return ()
    c = client_cache.ClientCache(
        cache["enabled"], cache["policy"], cache["max_dirty_bytes"], cache["source"]
    )
    return (f"The client: {c.describe()} (as {c.source} say).",)


def diagnosis_ceilings(e: dict[str, Any]) -> dict[str, Any] | None:
    """What a diagnosis' own capabilities imply for the diagnosis' pool (no run): the
    ceilings of 4k random writes and 4M writes, for ``diagnose``'s output."""
    if not e.get("osds"):
        return None
    ours = next((p for p in e.get("pools", []) if p.get("ours")), None)
    layout = capability.layout_of(ours) if ours else PoolLayout("replicated", 3)
    caps = capability.capabilities(e, layout)
    caps.notes.clear()
    rows = []
    for label, rw, bs, qd in (
        ("4k random write QD32", "randwrite", 4096, 32),
        ("4M write QD16", "write", 4 << 20, 16),
        ("4k random write QD1", "randwrite", 4096, 1),
    ):
        x: Explained = explain(caps, Workload(label, rw, bs, qd, 1, None, None, None, "write"))
        lim = x.limit
        rows.append(
            {
                "workload": label,
                "ceiling_iops": round(lim.iops, 1) if lim else None,
                "ceiling_bytes_per_s": round(lim.iops * bs, 1) if lim else None,
                "limiting_part": lim.part if lim else None,
                "why": lim.why if lim else None,
                "latency_floor_ms": None if x.floor_ms is None else round(x.floor_ms, 4),
            }
        )
    return {"layout": layout.describe(), "capabilities": capabilities_json(caps), "ceilings": rows}


def _large_blocks(r: dict[str, Any]) -> bool:
    """Whether a ceiling is of I/Os of 1 MiB or more (then in MiB/s, as a run's): its block
    size is its bytes over its I/Os (the stored row holds no block size), to 512 bytes."""
    iops, per_s = r["ceiling_iops"], r["ceiling_bytes_per_s"]
    if not iops or per_s is None:
        return False
    return round(per_s / iops / 512) * 512 >= 1 << 20


def ceilings_table(c: dict[str, Any]) -> Table:
    rows = []
    for r in c["ceilings"]:
        if r["ceiling_iops"] is None:
            ceiling = "n/a"
        elif _large_blocks(r):
            ceiling = f"{r['ceiling_bytes_per_s'] / (1 << 20):,.0f} MiB/s"
        else:
            ceiling = f"{r['ceiling_iops']:,.0f} IOPS"
        floor = "" if r["latency_floor_ms"] is None else f"{r['latency_floor_ms']:.2f} ms"
        rows.append((r["workload"], ceiling, r["limiting_part"] or "n/a", r["why"] or "", floor))
    return Table(
        ("Workload", "Ceiling", "Limiting part", "Why", "QD1 floor"),
        tuple(rows),
        title=f"Ceilings the measured parts imply ({c['layout']}; CPU is measured by a run, "
        "see `cephbench explain`)",
        align=("l", "r", "l", "l", "r"),
    )
