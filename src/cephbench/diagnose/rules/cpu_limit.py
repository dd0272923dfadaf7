"""An OSD held by its CPU limit, from each OSD's CPU use under the diagnosis' load and the
cores it may use, or from its quota throttling it under a load of its own, its ``osd bench``
(:mod:`cephbench.diagnose.cpu_use`, the lab only); and why "short of CPU" from peer figures
alone cannot stand where those figures show no limit. Pure."""

from __future__ import annotations

from typing import Any

from cephbench.diagnose import codes
from cephbench.diagnose.finding import (
    Check,
    Diagnosis,
    Finding,
    Status,
    outliers,
    rounded,
    severity,
)
from cephbench.diagnose.rules import rule
from cephbench.diagnose.rules.osd import PeerFigures, column, cpu_signals, osd_figures

CPU_LIMIT_SHARE = 0.85
"""An OSD that used this share of the cores it may use (its cgroup's quota or its CPU
affinity), at its peak under the load, was held by that limit (the kernel enforces a quota
every 100 ms period: the lab's OSD at 15 % of a core peaks at 0.14-0.15 cores)."""


BENCH_THROTTLED_SHARE = 0.5
"""An OSD its quota throttled, while it ran its own 4 KiB ``osd bench``, for this share of the
time that bench took or more (the throttled time summed over the CPUs it ran on, as the
kernel counts it) is held by that quota under a load of its own. Under a slow disk elsewhere
the client's load never reaches a starved OSD (0.03 of its 0.15 cores); its own bench does:
the lab's OSD at 15 % of a core was throttled for 60 ms while its bench took 84 ms."""


def throttled_in_bench(e: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """OSD -> what its quota counted during its own 4 KiB bench, for each OSD the quota
    throttled for ``BENCH_THROTTLED_SHARE`` of the bench's time or more."""
    out: dict[str, dict[str, Any]] = {}
    for osd, info in (e.get("osds") or {}).items():
        b = info.get("cpu_bench_4k") or {}
        took, throttled = b.get("bench_ms") or 0.0, b.get("throttled_ms") or 0.0
        judged = b.get("limit_cores") and b.get("throttled") and took > 0
        if judged and throttled >= BENCH_THROTTLED_SHARE * took:
            out[f"osd.{osd}"] = b
    return out


def held_by_cpu_limit(figs: dict[str, dict[str, float | None]]) -> dict[str, tuple[float, float]]:
    """OSD -> (the most cores it used, the cores it may use), for each OSD whose peak
    reached ``CPU_LIMIT_SHARE`` of its limit."""
    out: dict[str, tuple[float, float]] = {}
    for name, f in figs.items():
        peak, limit = f.get("cpu_peak_cores"), f.get("cpu_limit_cores")
        if peak is not None and limit and peak >= CPU_LIMIT_SHARE * limit:
            out[name] = (peak, limit)
    return out


def uncapped_on_one_machine(e: dict[str, Any], name: str) -> str | None:
    """Why "short of CPU" cannot stand for ``name``, or None: its CPU was read beside its
    peers' on one machine, and no limit held it. The scheduler shares that machine's CPUs
    among processes that may all use them; what queues in one OSD alone is then its op
    shards or a passing burst of the machine's load (a healthy lab OSD, right after another
    lab's teardown: client writes queued 6x its peers', replica writes 2.9x), not a CPU it
    lacked. The words end a finding left at info."""
    measured = e.get("osd_cpu") or {}
    cpu = ((e.get("osds") or {}).get(name.removeprefix("osd.")) or {}).get("cpu")
    if not measured.get("measured") or not cpu:  # measured: on this one machine
        return None
    if cpu.get("limit_cores"):
        return None
    return (
        f"; but it shares one machine's CPUs with its peers and no CPU limit holds it (it "
        f"used up to {cpu['peak_cores']:.2f} cores): inconclusive, its op shards may have "
        "been busy or the machine's load fell on it"
    )


@rule(codes.OSD_CPU_LIMITED)
def cpu_limit_findings(e: dict[str, Any], d: Diagnosis) -> None:
    """An OSD held by its CPU limit, judged on itself (not against peers): a slow disk makes
    an OSD use less CPU, never more, so one pinned at its limit is short of CPU whatever else
    is slow. Its peer figures, when three OSDs or more show them, grade how far it is from
    normal (at least a warning: its limit caps every I/O it serves)."""
    measured = e.get("osd_cpu")
    if not measured:
        return  # a diagnosis stored before the OSDs' CPU was read
    if not measured.get("measured"):
        d.checked.append(
            Check(
                layer="osd",
                check="each OSD's CPU use under load against its CPU limit",
                status=Status.NOT_POSSIBLE,
                detail="the OSD processes are not this machine's (only the lab's are read)",
            )
        )
        return
    figs = osd_figures(e)
    held = held_by_cpu_limit(figs)
    benched = throttled_in_bench(e)
    shown = {n: f for n, f in figs.items() if f.get("cpu_peak_cores") is not None}
    if not held and not benched:
        d.checked.append(
            Check(
                layer="osd",
                check="each OSD's CPU use under load against its CPU limit",
                status=Status.NORMAL,
                detail="no OSD near a CPU limit; at most "
                + ", ".join(
                    f"{n} {f['cpu_peak_cores']:.2f} cores"
                    + (f" of {f['cpu_limit_cores']:.2f}" if f.get("cpu_limit_cores") else "")
                    for n, f in sorted(shown.items())
                ),
            )
        )
        return
    ratios: dict[str, list[float]] = {}
    if len(figs) >= 3:
        for name, found in cpu_signals(figs).items():
            ratios.setdefault(name, []).extend(o.ratio for _, o in found)
        for o in outliers(column(figs, "device_ms"), high=True, min_ratio=2.0, min_excess=1.0):
            ratios.setdefault(o.name, []).append(o.ratio)
    for name in sorted({*held, *benched}):
        impact = max([2.0, *ratios.get(name, [])])
        cpu = e["osds"].get(name.removeprefix("osd."), {}).get("cpu") or {}
        others = {p: f for p, f in figs.items() if p != name}
        if name in held:
            peak, limit = held[name]
            by = cpu.get("limit_by") or "its limit"
            said = (
                f"{name} used up to {peak:.2f} of the {limit:.2f} cores {by} allows "
                f"({peak / limit:.0%}) while the load ran: its CPU limit holds it back"
            )
        else:
            b = benched[name]
            by = b.get("limit_by") or "its limit"
            under = (
                f"; under the client's load it used at most {cpu['peak_cores']:.2f} cores, "
                "as that load waited on another part"
                if cpu.get("peak_cores") is not None
                else ""
            )
            said = (
                f"{name} is held by {by} ({b['limit_cores']:.2f} cores): its own 4k osd "
                f"bench took {b['bench_ms']:g} ms, and the quota throttled it "
                f"{b['throttled']} time(s), for {b['throttled_ms']:g} ms in all{under}"
            )
        d.findings.append(
            Finding(
                codes.OSD_CPU_LIMITED,
                name,
                severity(impact),
                said,
                PeerFigures(
                    {k: rounded(v) for k, v in figs[name].items()},
                    {p: {k: rounded(v) for k, v in f.items()} for p, f in others.items()},
                    {
                        "cpu_peak_cores": "cores used at most over 2 s",
                        "cpu_limit_cores": f"cores {by} allows",
                        "bench_4k_throttled_ms": "time its quota throttled it while its own "
                        "4k osd bench ran (summed over CPUs)",
                    },
                ),
                f"raise or remove {name}'s CPU limit (its container's or cgroup's CPU quota: "
                "Rook's resources.limits.cpu for OSDs, a systemd CPUQuota; or its cpuset) "
                "and compare",
                impact,
            )
        )
