"""What mClock does to client I/O, when it matters (every release since Quincy; Pacific runs
wpq and this rule says nothing there). Pure: the OSDs' schedulers
(:mod:`cephbench.diagnose.scheduler_probe`) and their 4 KiB ``osd bench`` in, findings out.

- A limit on the client class (only the ``custom`` profile keeps one: the built-in profiles
  leave clients unlimited) caps each OSD's client I/O at that fraction of its capacity (or
  at its reservation, when that is higher: mClock keeps it), whatever the device can do: a
  finding on that OSD, with the bound in small ops a second. Its client ops
  wait in mClock's queue, which is no sign of a CPU short (:func:`client_limited`).
- A capacity far from what the OSD measurably does (its own start-up benchmark rejected, or
  a value set by hand) is noted: mClock's shares between client I/O and recovery or scrub
  are fractions of it, so it matters when those run beside the benchmark, and with a limit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cephbench.ceph.scheduler import client_rate
from cephbench.diagnose.codes import Code
from cephbench.diagnose.finding import Check, Diagnosis, Evidence, Finding, Severity, Status
from cephbench.diagnose.rules import rule

OSD_MCLOCK_CLIENT_LIMIT = Code(
    "osd.mclock_client_limit",
    "mClock's custom profile caps the OSD's client I/O at a fraction of the capacity it assumes",
)
OFF_BY = 4.0
"""A capacity this many times above or below the OSD's measured 4 KiB writes is noted."""


@dataclass(frozen=True)
class ClientLimit(Evidence):
    profile: str | None
    client_lim: float
    capacity_iops: float
    capacity_from: str | None
    limit_iops: float
    bench_4k_iops: float | None


def client_limited(e: dict[str, Any]) -> set[str]:
    """The OSDs (``osd.N``) whose mClock caps client I/O (a custom profile's client limit of
    a known capacity): their client ops wait in mClock's queue by design, so that wait says
    nothing of their CPU (the OSD peers' rule reads it so)."""
    return {
        f"osd.{osd}"
        for osd, s in _mclock(e).items()
        if client_rate(s.get("client") or {}, s.get("capacity_iops")) is not None
    }


def _mclock(e: dict[str, Any]) -> dict[str, dict[str, Any]]:
    schedulers = e.get("osd_scheduler") or {}
    return {osd: s for osd, s in schedulers.items() if s.get("queue") == "mclock_scheduler"}


@rule(OSD_MCLOCK_CLIENT_LIMIT)
def mclock_findings(e: dict[str, Any], d: Diagnosis) -> None:
    mclock = _mclock(e)
    if not mclock:
        return
    off = []
    for osd, s in sorted(mclock.items(), key=lambda kv: int(kv[0])):
        name = f"osd.{osd}"
        bench = ((e.get("osds", {}).get(osd) or {}).get("bench_4k") or {}).get("iops")
        cap = s.get("capacity_iops")
        limit = client_rate(s.get("client") or {}, cap)
        if limit is not None and cap:
            lim = (s.get("client") or {}).get("lim", 0.0)
            res = (s.get("client") or {}).get("res") or 0.0
            above = f", under its reservation {res:g}, which mClock keeps" if res > lim else ""
            can = f"; osd bench writes {bench:,.0f} IOPS" if bench else ""
            d.findings.append(
                Finding(
                    OSD_MCLOCK_CLIENT_LIMIT,
                    name,
                    Severity.WARNING if not bench or bench > 2 * limit else Severity.INFO,
                    f"{name}: mClock's {s.get('profile')} profile holds client I/O to "
                    f"{limit:,.0f} small ops a second at most (osd_mclock_scheduler_client_lim "
                    f"{lim:g}{above}, of a capacity of {cap:,.0f} IOPS, "
                    f"{_FROM.get(str(s.get('capacity_from')), '')}){can}",
                    ClientLimit(s.get("profile"), lim, cap, s.get("capacity_from"), limit, bench),
                    f"ceph config rm {name} osd_mclock_scheduler_client_lim; "
                    f"ceph config set {name} osd_mclock_profile balanced",
                    (bench / limit) if bench else 1.0,
                )
            )
        if bench and cap and not (1 / OFF_BY <= cap / bench <= OFF_BY):
            off.append(f"{name} {cap:,.0f} against {bench:,.0f} measured")
    profiles = sorted({str(s.get("profile")) for s in mclock.values()})
    d.checked.append(
        Check(
            layer="osd",
            check="mClock scheduler",
            status=Status.NORMAL,
            detail=f"profile {', '.join(profiles)} on {len(mclock)} OSDs"
            + (
                f"; capacity far from the measured 4 KiB writes ({'; '.join(off)}): it sets "
                "client and background shares when recovery or scrub run"
                if off
                else ""
            ),
        )
    )


_FROM = {
    "default": "the built-in default",
    "per-osd": "stored for this OSD",
    "set": "set by hand",
}
