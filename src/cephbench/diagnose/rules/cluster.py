"""The placement, cluster and client rules: PGs and primaries spread unevenly beyond chance,
a cluster not healthy or recovering while it was measured, and the client's cache settings.
Pure."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Any

from cephbench.diagnose import codes
from cephbench.diagnose.finding import (
    Check,
    Diagnosis,
    Evidence,
    Finding,
    Severity,
    Status,
    rounded,
)
from cephbench.diagnose.rules import rule

PG_SPREAD = 0.30
"""PGs per OSD more than 30 % from the mean: what Ceph's monitoring rules flag."""


PG_CHANCE_SDS = 3.0
"""...and only beyond what chance placement gives: CRUSH places PGs pseudo-randomly, so an
OSD's count varies by about the square root of the mean (Poisson). With a few PGs per OSD
(a lab, a test pool) 30 % is noise: 1 primary against a mean of 2.7 is 62 % off and means
nothing. The rule was written for clusters with about 100 PGs per OSD, where 30 % is 3
standard deviations; below that a deviation must also exceed 3 of them."""


SKEW = {"pgs": codes.PLACEMENT_PG_SKEW, "primaries": codes.PLACEMENT_PRIMARY_SKEW}


@dataclass(frozen=True)
class Spread(Evidence):
    """Each OSD's count of PGs (``what`` "pgs") or primaries ("primaries"), and the mean."""

    what: str
    counts: dict[str, int]
    mean: float | None

    def to_json(self) -> dict[str, Any]:
        return {self.what: self.counts, "mean": self.mean}


@dataclass(frozen=True)
class Copies(Evidence):
    size: int
    min_size: int | None


@dataclass(frozen=True)
class FailureDomain(Evidence):
    failure_domain: str
    hosts: int


@dataclass(frozen=True)
class Health(Evidence):
    health: list[str]


@dataclass(frozen=True)
class Flags(Evidence):
    flags: list[str]


@dataclass(frozen=True)
class FlagsAndHealth(Evidence):
    flags: list[str]
    health: list[str]


@rule(*SKEW.values(), codes.PLACEMENT_SINGLE_COPY, codes.PLACEMENT_OSD_FAILURE_DOMAIN)
def placement_findings(e: dict[str, Any], d: Diagnosis) -> None:
    pl = e.get("placement", {})
    per = pl.get("per_osd", {})
    if pl.get("own_pool_only") or len(per) < 2:
        d.checked.append(
            Check(
                layer="placement",
                check="PGs and primaries per OSD",
                status=Status.NOT_POSSIBLE,
                detail="no pools besides the diagnosis' own",
            )
        )
    else:
        for what in ("pgs", "primaries"):
            counts = {f"osd.{o}": v[what] for o, v in per.items()}
            mean = statistics.fmean(counts.values())
            if mean <= 0:
                continue
            worst = max(counts, key=lambda k: abs(counts[k] - mean))
            spread = abs(counts[worst] - mean) / mean
            by_chance = abs(counts[worst] - mean) <= PG_CHANCE_SDS * math.sqrt(mean)
            if spread > PG_SPREAD and by_chance:
                d.checked.append(
                    Check(
                        layer="placement",
                        check=f"{what} per OSD",
                        status=Status.NORMAL,
                        detail=f"{worst} {spread:.0%} from the mean {mean:.1f}, within "
                        f"what chance placement gives with so few (3 x sqrt(mean))",
                    )
                )
            elif spread > PG_SPREAD:
                d.findings.append(
                    Finding(
                        SKEW[what],
                        worst,
                        Severity.WARNING,
                        f"{worst} holds {counts[worst]} {what.replace('pgs', 'PGs')}, "
                        f"{spread:.0%} from the mean {mean:.1f} (over 30 %)",
                        Spread(what, counts, rounded(mean, 2)),
                        "enable the balancer (ceph balancer mode upmap) or adjust pg_num "
                        "and CRUSH weights",
                        1 + spread,
                    )
                )
            else:
                d.checked.append(
                    Check(
                        layer="placement",
                        check=f"{what} per OSD",
                        status=Status.NORMAL,
                        detail=f"within {spread:.0%} of the mean {mean:.1f}",
                    )
                )
    hosts = len(e.get("hosts", []))
    for p in e.get("pools", []):
        name = f"pool {p['name']}"
        if p.get("ours"):
            continue
        if p.get("type") == "replicated" and p.get("size") == 1:
            d.findings.append(
                Finding(
                    codes.PLACEMENT_SINGLE_COPY,
                    name,
                    Severity.WARNING,
                    f"{name} keeps one copy of its data (size 1): one lost OSD loses data",
                    Copies(p["size"], p.get("min_size")),
                    f"ceph osd pool set {p['name']} size 3",
                    1.0,
                )
            )
        elif p.get("failure_domain") == "osd" and hosts > 1:
            d.findings.append(
                Finding(
                    codes.PLACEMENT_OSD_FAILURE_DOMAIN,
                    name,
                    Severity.INFO,
                    f"{name} places copies across OSDs, not hosts: copies may share a host",
                    FailureDomain("osd", hosts),
                    "use a CRUSH rule with failure domain host",
                    1.0,
                )
            )
    d.checked.append(
        Check(
            layer="placement",
            check="pool settings and failure domains",
            status=Status.READ,
            detail="; ".join(
                f"{p['name']}: {p.get('type')} size {p.get('size')}/{p.get('min_size')}, "
                f"{p.get('pg_num')} PGs, failure domain {p.get('failure_domain')}"
                for p in e.get("pools", [])
            ),
        )
    )


@rule(codes.CLUSTER_NOT_QUIET, codes.CLUSTER_SCRUBBING, codes.CLUSTER_UNHEALTHY)
def cluster_findings(e: dict[str, Any], d: Diagnosis) -> None:
    samples = e.get("health", {}).get("samples", [])
    flags = sorted({f for s in samples for f in s.get("flags", [])})
    statuses = [s.get("status") for s in samples if s.get("status")]
    busy = [f for f in flags if f in ("recovery", "backfill", "degraded", "osd_down")]
    if busy:
        d.findings.append(
            Finding(
                codes.CLUSTER_NOT_QUIET,
                "cluster",
                Severity.CRITICAL,
                f"the cluster was not quiet during the measurement ({', '.join(busy)}): "
                "the figures say little about its configuration",
                FlagsAndHealth(flags, statuses),
                "wait for HEALTH_OK and active+clean PGs, then diagnose again",
                10.0,
            )
        )
    elif "scrub" in flags:
        d.findings.append(
            Finding(
                codes.CLUSTER_SCRUBBING,
                "cluster",
                Severity.INFO,
                "PGs were scrubbing during the measurement",
                Flags(flags),
                "diagnose again with noscrub and nodeep-scrub set",
                1.0,
            )
        )
    worst = (
        "HEALTH_ERR"
        if "HEALTH_ERR" in statuses
        else ("HEALTH_WARN" if "HEALTH_WARN" in statuses else None)
    )
    if worst and not busy:
        d.findings.append(
            Finding(
                codes.CLUSTER_UNHEALTHY,
                "cluster",
                Severity.WARNING if worst == "HEALTH_ERR" else Severity.INFO,
                f"the cluster reported {worst} during the measurement",
                Health(statuses),
                "ceph health detail",
                1.0,
            )
        )
    if not flags and not worst:
        d.checked.append(
            Check(
                layer="cluster",
                check=f"health during the run ({len(samples)} samples)",
                status=Status.NORMAL,
                detail="HEALTH_OK, no recovery, backfill or scrub",
            )
        )


@rule()
def client_facts(e: dict[str, Any], d: Diagnosis) -> None:
    client = e.get("client", {})
    cache = client.get("rbd_cache") or {}
    if cache:
        d.checked.append(
            Check(
                layer="client",
                check="librbd cache settings (client section of the configuration)",
                status=Status.READ,
                detail=", ".join(f"{k}={v}" for k, v in cache.items())
                + "; the load ran with the cache off, to measure the cluster",
            )
        )
    wl = client.get("workloads") or {}
    if wl:
        d.checked.append(
            Check(
                layer="client",
                check="fio rbd 4k random I/O on the diagnosis' own image, cache off",
                status=Status.MEASURED,
                detail=", ".join(
                    f"{n} {w['iops']:.0f} IOPS {w['lat_mean_us'] / 1000:.2f} ms"
                    for n, w in wl.items()
                    if w.get("iops") is not None and w.get("lat_mean_us") is not None
                ),
            )
        )
