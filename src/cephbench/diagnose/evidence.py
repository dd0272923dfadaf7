"""Pure readers: Ceph's JSON outputs (as recorded) to the figures a diagnosis compares."""

from __future__ import annotations

import statistics
from datetime import datetime
from typing import Any

from cephbench.ceph import health


def osd_hosts(tree: dict[str, Any]) -> dict[int, str | None]:
    """OSD id -> the host bucket above it in ``ceph osd tree``."""
    host_of: dict[int, str | None] = {}
    for node in tree.get("nodes", []):
        if node.get("type") == "host":
            for child in node.get("children", []):
                host_of[child] = node.get("name")
    return {n["id"]: host_of.get(n["id"]) for n in tree.get("nodes", []) if n.get("type") == "osd"}


def _failure_domain(rule: dict[str, Any]) -> str | None:
    for step in rule.get("steps", []):
        if str(step.get("op", "")).startswith("choose"):
            return step.get("type")
    return None


def pools(
    detail: list[dict[str, Any]], rules: list[dict[str, Any]], tree: dict, ours: str | None
) -> list[dict[str, Any]]:
    """Every pool's replication, PG count and failure domain (``ours``: the diagnosis' own)."""
    by_id = {r.get("rule_id"): r for r in rules}
    out = []
    for p in detail:
        rule = by_id.get(p.get("crush_rule"), {})
        out.append(
            {
                "name": p.get("pool_name"),
                "type": "replicated" if p.get("type") == 1 else "erasure",
                "size": p.get("size"),
                "min_size": p.get("min_size"),
                "pg_num": p.get("pg_num"),
                "failure_domain": _failure_domain(rule),
                "ours": p.get("pool_name") == ours,
                "applications": sorted(p.get("application_metadata") or {}),
            }
        )
    return out


def pool_id(detail: list[dict[str, Any]], name: str | None) -> str | None:
    return next((str(p["pool_id"]) for p in detail if p.get("pool_name") == name), None)


def placement(pgs: dict[str, Any], ours_id: str | None) -> dict[str, Any]:
    """PGs and primaries per OSD over the pools other than the diagnosis' own (its PGs would
    hide the placement users have); all pools when there are no others."""
    stats = pgs.get("pg_stats") or pgs.get("pg_map", {}).get("pg_stats") or []
    others = [s for s in stats if s["pgid"].split(".")[0] != ours_id]
    chosen = others or stats
    per_osd: dict[str, dict[str, int]] = {}
    states: dict[str, int] = {}
    for s in chosen:
        for osd in s.get("up", []):
            per_osd.setdefault(str(osd), {"pgs": 0, "primaries": 0})["pgs"] += 1
        prim = s.get("up_primary")
        if prim is not None and prim >= 0:
            per_osd.setdefault(str(prim), {"pgs": 0, "primaries": 0})["primaries"] += 1
        states[s.get("state", "?")] = states.get(s.get("state", "?"), 0) + 1
    return {"per_osd": per_osd, "pgs": len(chosen), "states": states, "own_pool_only": not others}


def health_sample(status: dict[str, Any]) -> dict[str, Any]:
    """What one ``ceph status`` says about health, recovery and scrubbing."""
    return {
        "status": status.get("health", {}).get("status"),
        "flags": sorted(health.flags(status)),
        "pg_states": health.pg_states(status),
    }


def osd_perf(data: dict[str, Any]) -> dict[int, float]:
    """``ceph osd perf``: OSD -> commit latency (ms); on BlueStore apply is the same figure."""
    infos = data.get("osdstats", data).get("osd_perf_infos", [])
    return {i["id"]: float(i["perf_stats"]["commit_latency_ms"]) for i in infos}


def heartbeats(data: dict[str, Any]) -> dict[str, float]:
    """``dump_osd_network 0``: "osd.A->osd.B" -> mean heartbeat round trip over the last
    minute (ms), the worse of the front and back interfaces."""
    out: dict[str, float] = {}
    for entry in data.get("entries", []):
        avg = entry.get("average", {}).get("1min")
        if avg is None or entry.get("stale"):
            continue
        key = f"osd.{entry['from osd']}->osd.{entry['to osd']}"
        out[key] = max(out.get(key, 0.0), float(avg))
    return out


def _t(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def historic_writes(data: dict[str, Any], since: float | None = None) -> dict[str, Any] | None:
    """Client writes in ``dump_historic_ops`` on their primary: median milliseconds queued
    (``queued_for_pg`` to ``reached_pg``), waiting for replicas after the local commit
    (``op_commit`` to the last ``sub_op_commit_rec``) and in all; None without such ops.

    ``since`` (seconds since the epoch): only ops that began then or later (the history
    may still hold slow ops of an earlier load)."""
    queued, replicas, total = [], [], []
    for op in data.get("ops", []):
        desc = op.get("description", "")
        if not desc.startswith("osd_op(") or "write" not in desc:
            continue
        began = op.get("initiated_at")
        if since is not None and began and _t(began) < since:
            continue
        events = op.get("type_data", {}).get("events", [])
        at: dict[str, float] = {}
        last_sub = None
        for ev in events:
            name = ev.get("event", "")
            t = _t(ev["time"])
            if name == "sub_op_commit_rec" or name.startswith("sub_op_commit_rec"):
                last_sub = t
            elif name.startswith("waiting for subops"):
                at["waiting"] = t
            else:
                at.setdefault(name, t)
        if "queued_for_pg" in at and "reached_pg" in at:
            queued.append((at["reached_pg"] - at["queued_for_pg"]) * 1000)
        if last_sub is not None and "op_commit" in at:
            replicas.append(max(0.0, last_sub - at["op_commit"]) * 1000)
        total.append(float(op.get("duration", 0.0)) * 1000)
    if not total:
        return None

    def med(xs: list[float]) -> float | None:
        return round(statistics.median(xs), 4) if xs else None

    return {
        "ops": len(total),
        "queued_ms": med(queued),
        "replica_wait_ms": med(replicas),
        "duration_ms": med(total),
    }
