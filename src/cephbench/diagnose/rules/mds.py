"""The MDS rule: a filesystem without an active MDS, slow or queued metadata requests,
clients that hold on to caps, and a metadata pool served by an OSD another rule found slow.
Reads what :mod:`cephbench.diagnose.mds` collected; adds nothing where there is no CephFS
but the check's "not possible". Pure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cephbench.diagnose import codes
from cephbench.diagnose.finding import Check, Diagnosis, Evidence, Finding, Severity, Status
from cephbench.diagnose.rules import rule

QUEUE_LIMIT = 100
"""Requests waiting in an MDS's dispatch queue (``q``) beyond which it is behind."""
REPLY_MS_LIMIT = 100.0
"""Mean reply latency of an MDS, ms, beyond which its requests are slow: a lookup or create
served from its cache takes well under a millisecond, one that waits on the metadata pool's
OSDs a few; 100 ms on average means requests wait on something."""
SLOW_OSD_CODES = (codes.DEVICE_SLOW_COMMIT, codes.OSD_CPU_STARVED, codes.OSD_SLOW_BENCH)


@dataclass(frozen=True)
class MdsRanks(Evidence):
    filesystem: str
    ranks: list[dict[str, Any]]
    standby: int


@dataclass(frozen=True)
class MdsRequests(Evidence):
    requests: int
    reply_ms: float | None
    slow_replies: int
    queue: int
    health: dict[str, str]


@dataclass(frozen=True)
class MdsCaps(Evidence):
    caps: int
    sessions: list[dict[str, Any]]
    health: dict[str, str]


@dataclass(frozen=True)
class MetadataOsds(Evidence):
    pool: str | None
    osds: list[int]
    slow: list[str]


def _checked(d: Diagnosis, check: str, status: Status, detail: str) -> None:
    d.checked.append(Check("mds", check, status, detail))


@rule(
    codes.MDS_NOT_ACTIVE,
    codes.MDS_SLOW_REQUESTS,
    codes.MDS_QUEUED,
    codes.MDS_CAPS_HELD,
    codes.MDS_METADATA_ON_SLOW_OSD,
)
def mds_findings(e: dict[str, Any], d: Diagnosis) -> None:
    mds = e.get("mds")
    if not mds:
        _checked(
            d, "MDS requests, caps and metadata pool", Status.NOT_POSSIBLE, "no CephFS filesystem"
        )
        return
    health = mds.get("health", {})
    for fs in mds["filesystems"]:
        _filesystem(fs, d)
    for name, fig in mds["daemons"].items():
        _requests(name, fig, health, d)
        _caps(name, fig, health, d)
    slow = {f.component for f in d.findings if f.code in SLOW_OSD_CODES}
    for fs in mds["filesystems"]:
        _metadata_osds(fs, slow, d)


def _filesystem(fs: dict[str, Any], d: Diagnosis) -> None:
    evidence = MdsRanks(fs["name"], fs["ranks"], fs["standby"])
    if not fs["active"]:
        d.findings.append(
            Finding(
                codes.MDS_NOT_ACTIVE,
                f"cephfs {fs['name']}",
                Severity.CRITICAL,
                f"CephFS {fs['name']} has no active MDS: its clients' metadata requests wait",
                evidence,
                "start an MDS for it, or see why it is not active (ceph fs status)",
                10.0,
            )
        )
        return
    ranks = ", ".join(f"rank {r['rank']} {r['name']} {r['state']}" for r in fs["ranks"])
    _checked(d, f"MDS ranks of {fs['name']}", Status.READ, f"{ranks}; {fs['standby']} standby")


def _requests(name: str, fig: dict[str, Any], health: dict[str, str], d: Diagnosis) -> None:
    if "requests" not in fig:
        _checked(d, f"{name} perf counters", Status.NOT_POSSIBLE, "perf dump gave no answer")
        return
    reply, slow = fig["reply_ms"], fig["slow_replies"]
    evidence = MdsRequests(fig["requests"], reply, slow, fig["queue"], health)
    slow_health = {k: v for k, v in health.items() if k == "MDS_SLOW_REQUEST"}
    if slow_health or slow or (reply is not None and reply > REPLY_MS_LIMIT):
        why = slow_health.get("MDS_SLOW_REQUEST") or (
            f"{slow} slow replies" if slow else f"mean reply {reply:.1f} ms"
        )
        d.findings.append(
            Finding(
                codes.MDS_SLOW_REQUESTS,
                name,
                Severity.WARNING,
                f"{name} answers metadata requests slowly: {why}",
                evidence,
                f"ceph tell {name} dump_ops_in_flight shows what they wait on; check the "
                "metadata pool's OSDs",
                max(1.0, (reply or 0) / REPLY_MS_LIMIT),
            )
        )
    if fig["queue"] > QUEUE_LIMIT:
        d.findings.append(
            Finding(
                codes.MDS_QUEUED,
                name,
                Severity.WARNING,
                f"{name} has {fig['queue']} requests waiting in its queue (over {QUEUE_LIMIT})",
                evidence,
                "the MDS is CPU-bound or waits on its journal: add active ranks (max_mds) "
                "or pin busy directories",
                fig["queue"] / QUEUE_LIMIT,
            )
        )
    mean = "no requests yet" if reply is None else f"mean reply {reply:.3f} ms"
    _checked(
        d,
        f"{name} requests",
        Status.READ,
        f"{fig['requests']} requests since it started, {mean}, {slow} slow, queue {fig['queue']}",
    )


def _caps(name: str, fig: dict[str, Any], health: dict[str, str], d: Diagnosis) -> None:
    held = {
        k: v for k, v in health.items() if k in ("MDS_CLIENT_LATE_RELEASE", "MDS_CLIENT_RECALL")
    }
    sessions = sorted(fig.get("sessions", []), key=lambda s: -s["caps"])
    if held:
        top = sessions[0]["client"] if sessions else "a client"
        d.findings.append(
            Finding(
                codes.MDS_CAPS_HELD,
                top,
                Severity.WARNING,
                f"clients do not release caps when {name} asks: {'; '.join(held.values())}",
                MdsCaps(fig.get("caps", 0), sessions[:5], held),
                "see ceph tell mds.X session ls; evict or fix the client that holds them",
                2.0,
            )
        )
    most = f", most {sessions[0]['caps']} by {sessions[0]['client']}" if sessions else ""
    _checked(
        d,
        f"{name} caps",
        Status.READ,
        f"{fig.get('caps', 0)} caps held by {len(sessions)} client session(s){most}",
    )


def _metadata_osds(fs: dict[str, Any], slow: set[str], d: Diagnosis) -> None:
    osds = fs.get("metadata_osds", [])
    hit = sorted(f"osd.{o}" for o in osds if f"osd.{o}" in slow)
    if hit:
        d.findings.append(
            Finding(
                codes.MDS_METADATA_ON_SLOW_OSD,
                ", ".join(hit),
                Severity.WARNING,
                f"the metadata pool of CephFS {fs['name']} ({fs['metadata_pool_name']}) is "
                f"served by {', '.join(hit)}, found slow above: every metadata write waits on it",
                MetadataOsds(fs["metadata_pool_name"], osds, hit),
                "fix the slow OSD first; put the metadata pool on faster devices "
                "(a CRUSH rule on an ssd device class)",
                2.0,
            )
        )
        return
    _checked(
        d,
        f"metadata pool of {fs['name']}",
        Status.NORMAL,
        f"{fs['metadata_pool_name']} on osd {', '.join(map(str, osds)) or 'none'}; none found slow",
    )
