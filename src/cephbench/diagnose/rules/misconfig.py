"""Misconfigurations admins really leave behind, each answered by a ``tune`` remedy: debug
logging raised in the OSDs, librbd's cache turned off, a pool with fewer PGs than OSDs.
Pure: the evidence in (``config_db`` from :mod:`cephbench.diagnose.config_db`, the client's
cache settings and the pools from the cluster probe), findings out.

Their codes are defined here, next to the rule (:mod:`cephbench.diagnose.codes` says a rule
may), and ``tune``'s remedies name them."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from cephbench.diagnose.codes import Code
from cephbench.diagnose.finding import Check, Diagnosis, Evidence, Finding, Severity, Status
from cephbench.diagnose.rules import rule

OSD_DEBUG_LOGGING = Code(
    "osd.debug_logging",
    "debug logging raised for the OSDs in the configuration database (a level of 10 or more)",
)
CLIENT_RBD_CACHE_OFF = Code(
    "client.rbd_cache_off", "librbd's cache is turned off in the client section"
)
PLACEMENT_TOO_FEW_PGS = Code(
    "placement.too_few_pgs",
    "a pool has fewer PGs than the cluster has OSDs: its I/O cannot spread over them all",
)

DEBUG_LEVEL = 10
"""A subsystem logged (or gathered in memory) at 10 or more: Ceph's defaults are 0-5; 10 and
20 are what support cases ask for, and they cost every op log lines."""
_OSD_SECTION = re.compile(r"^(global|osd(\.\d+)?)$")


def level(value: str) -> int:
    """The higher of a debug setting's log and memory levels (``20/20``, ``5``)."""
    nums = [int(x) for x in re.findall(r"\d+", value)]
    return max(nums) if nums else 0


@dataclass(frozen=True)
class DebugLevels(Evidence):
    entries: list[dict[str, str]]


@dataclass(frozen=True)
class CacheSetting(Evidence):
    rbd_cache: str


@dataclass(frozen=True)
class PgCount(Evidence):
    pool: str
    pg_num: int
    size: int | None
    osds: int


@rule(OSD_DEBUG_LOGGING, CLIENT_RBD_CACHE_OFF, PLACEMENT_TOO_FEW_PGS)
def misconfig_findings(e: dict[str, Any], d: Diagnosis) -> None:
    db = e.get("config_db")
    if db is not None:
        raised = [
            x
            for x in db
            if x["name"].startswith("debug_")
            and _OSD_SECTION.match(x["section"])
            and level(x["value"]) >= DEBUG_LEVEL
        ]
        if raised:
            listed = ", ".join(f"{x['name']} {x['value']} ({x['section']})" for x in raised)
            d.findings.append(
                Finding(
                    OSD_DEBUG_LOGGING,
                    "osd",
                    Severity.WARNING,
                    f"debug logging is raised for the OSDs: {listed}; every op pays for "
                    "the log lines",
                    DebugLevels(raised),
                    "ceph config rm "
                    + "; ceph config rm ".join(f"{x['section']} {x['name']}" for x in raised),
                    float(max(level(x["value"]) for x in raised)) / 5,
                )
            )
        else:
            d.checked.append(
                Check(
                    layer="osd",
                    check="debug levels in the configuration database",
                    status=Status.NORMAL,
                    detail=f"no debug_* at {DEBUG_LEVEL} or more for the OSDs",
                )
            )
    cache = (e.get("client", {}).get("rbd_cache") or {}).get("rbd_cache")
    if cache is not None and cache.split()[0].lower() in ("false", "0", "no"):
        d.findings.append(
            Finding(
                CLIENT_RBD_CACHE_OFF,
                "client",
                Severity.WARNING,
                "librbd's cache is off (rbd_cache false in the client section): every write "
                "waits for the OSDs",
                CacheSetting(cache),
                "ceph config set client rbd_cache true",
                1.0,
            )
        )
    osds = len(e.get("osds", {}))
    for p in e.get("pools", []):
        pg = p.get("pg_num")
        if p.get("ours") or not isinstance(pg, int) or osds < 2 or pg >= osds:
            continue
        if p.get("applications") == ["mgr"]:
            continue  # the manager's own pool (Reef's .mgr): one PG by design, no client I/O
        d.findings.append(
            Finding(
                PLACEMENT_TOO_FEW_PGS,
                f"pool {p['name']}",
                Severity.WARNING,
                f"pool {p['name']} has {pg} PGs for {osds} OSDs: some OSDs serve none of its I/O",
                PgCount(p["name"], pg, p.get("size"), osds),
                f"ceph osd pool set {p['name']} pg_num N (moves data)",
                osds / max(pg, 1),
            )
        )
