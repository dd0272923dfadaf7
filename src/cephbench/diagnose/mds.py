"""The MDS probe: where the cluster has a CephFS filesystem, what its metadata servers say.

For each filesystem (``ceph fs dump``): its ranks and their state; for each active MDS, its
perf counters (``ceph tell mds.X perf dump``: requests and their mean reply latency since it
started, per request type, the dispatch queue, slow replies, caps and inodes) and its client
sessions with the caps each holds (``session ls``); the MDS health checks (slow requests,
clients failing to release caps); and the OSDs that serve the metadata pool (``pg
ls-by-pool``), so a rule can tell when a slow OSD slows the metadata too. A cluster without
CephFS adds nothing but the check's "not possible".
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from cephbench.ceph.cephfs import fs_summaries
from cephbench.diagnose.probes import Probe
from cephbench.diagnose.session import Session
from cephbench.tools.base import Step

MDS_CHECKS = (
    "MDS_SLOW_REQUEST",
    "MDS_SLOW_METADATA_IO",
    "MDS_CLIENT_LATE_RELEASE",
    "MDS_CLIENT_RECALL",
    "MDS_CACHE_OVERSIZED",
    "MDS_TRIM",
    "FS_DEGRADED",
    "MDS_ALL_DOWN",
    "MDS_UP_LESS_THAN_MAX",
)


def perf_figures(dump: dict[str, Any]) -> dict[str, Any]:
    """What the rule reads of one MDS's ``perf dump`` (pure): cumulative since it started."""
    mds = dump.get("mds") or {}
    server = dump.get("mds_server") or {}
    reply = mds.get("reply_latency") or {}
    count = float(reply.get("avgcount") or 0)
    per_type = {
        name.removeprefix("req_").removesuffix("_latency"): {
            "count": int(v["avgcount"]),
            "ms": round(float(v["sum"]) / float(v["avgcount"]) * 1000.0, 4),
        }
        for name, v in server.items()
        if isinstance(v, dict) and v.get("avgcount")
    }
    return {
        "requests": int(mds.get("request") or 0),
        "reply_ms": round(float(reply.get("sum") or 0) / count * 1000.0, 4) if count else None,
        "slow_replies": int(mds.get("slow_reply") or 0),
        "queue": int(mds.get("q") or 0),
        "caps": int(mds.get("caps") or 0),
        "inodes": int(mds.get("inodes") or 0),
        "request_ms": per_type,
    }


def sessions(listing: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """Each client session of ``session ls``: client, caps held, state (pure)."""
    return [
        {
            "client": str(s.get("inst", s.get("id"))).split()[0],
            "caps": int(s.get("num_caps") or 0),
            "state": s.get("state"),
        }
        for s in listing or []
    ]


def pool_osds(pg_ls: dict | list | None) -> list[int]:
    """The OSDs acting for any PG of ``pg ls-by-pool`` (pure)."""
    stats = (pg_ls or {}).get("pg_stats", []) if isinstance(pg_ls, dict) else pg_ls or []
    return sorted({o for pg in stats for o in pg.get("acting", [])})


def mds_health(status: dict[str, Any] | None) -> dict[str, str]:
    """The MDS and filesystem health checks of ``ceph status`` -> their summary (pure)."""
    checks = (status or {}).get("health", {}).get("checks", {})
    return {
        name: c.get("summary", {}).get("message", "")
        for name, c in checks.items()
        if name in MDS_CHECKS
    }


class MdsProbe(Probe):
    """The MDS layer, where a filesystem exists."""

    name = "mds"
    reads = (("fs", "dump"),)

    def run(self, session: Session) -> Iterator[Step]:
        [(step, dump)] = session.read(*self.reads)
        if step is not None:
            yield step
        filesystems = fs_summaries(dump or {})
        if not filesystems:
            session.evidence["mds"] = None
            return
        step, pools = session.ceph("osd", "pool", "ls", "detail")
        yield step
        names = {p.get("pool_id"): p.get("pool_name") for p in pools or []}
        active = [r["name"] for fs in filesystems for r in fs["ranks"] if r["state"] == "up:active"]
        commands: list[tuple[str, ...]] = [("status",)]
        for name in active:
            commands += [
                ("tell", f"mds.{name}", "perf", "dump"),
                ("tell", f"mds.{name}", "session", "ls"),
            ]
        for fs in filesystems:
            commands.append(("pg", "ls-by-pool", str(names.get(fs["metadata_pool"]))))
        got = session.ceph_many(*commands)
        for step, _ in got:
            yield step
        data = [d for _, d in got]
        status, data = data[0], data[1:]
        daemons = {}
        for i, name in enumerate(active):
            perf, listing = data[2 * i], data[2 * i + 1]
            daemons[f"mds.{name}"] = {
                **(perf_figures(perf) if isinstance(perf, dict) else {}),
                "sessions": sessions(listing if isinstance(listing, list) else None),
            }
        pg_lists = data[2 * len(active) :]
        session.evidence["mds"] = {
            "filesystems": [
                {
                    **fs,
                    "metadata_pool_name": names.get(fs["metadata_pool"]),
                    "metadata_osds": pool_osds(pg),
                }
                for fs, pg in zip(filesystems, pg_lists, strict=True)
            ],
            "daemons": daemons,
            "health": mds_health(status),
        }
