"""OSDs judged against what a healthy OSD does, not against their peers' median: with two of
three OSDs slow the median is slow, and the peer rule (``osd-peers``) finds none of them. Pure.

Each OSD the peer rule did not name is compared with the best OSD of the cluster (the
fastest device wait, the most ``osd bench`` 4k writes) and, for the device wait, with an
absolute expectation: BlueStore's device wait (kv sync + aio wait) of a healthy OSD on a
lab's loop device or an SSD is a few ms; a throttled or failing disk's is tens of ms. A
finding says which it was judged against; when every OSD is slow only the absolute
expectation can tell, and the finding says so.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from cephbench.diagnose import codes
from cephbench.diagnose.finding import (
    SEVERITIES,
    Check,
    Diagnosis,
    Evidence,
    Finding,
    Status,
    rounded,
    severity,
)
from cephbench.diagnose.rules import rule
from cephbench.diagnose.rules.mclock import client_limited
from cephbench.diagnose.rules.osd import column, osd_figures

DEVICE_SLOW_MS = 20.0
"""A device wait above this is a slow device whatever its peers do (healthy lab OSDs: 1-8 ms
under the diagnosis' load; a disk capped at 150 IOPS: 60-70 ms)."""
DEVICE_HEALTHY_MS = 3.0
"""What a healthy OSD's device wait is taken to be when no OSD is healthy."""
BEST_RATIO = 5.0
"""A device wait this many times the best OSD's (and over DEVICE_SLOW_MS) is slow."""
BENCH_RATIO = 8.0
"""osd bench 4k writes this many times fewer than the best OSD's is slow (healthy OSDs of
the lab, benched at once, differ by 1.5x; one at a time by up to 6x)."""


@dataclass(frozen=True)
class AgainstBest(Evidence):
    """An OSD's figure beside the best OSD's and the absolute expectation it was judged on."""

    figure: str
    value: float | None
    best: dict[str, float | None]
    expectation: float | None
    judged_against: str
    all_osds: dict[str, float | None]


def _named(d: Diagnosis) -> set[str]:
    return {f.component for f in d.findings if f.code.layer in ("osd", "device")}


def _named_devices(d: Diagnosis) -> set[str]:
    return {f.component for f in d.findings if f.code.layer == "device"}


@rule(
    codes.DEVICE_SLOW_COMMIT_ABSOLUTE, codes.OSD_SLOW_BENCH_VS_BEST, codes.OSD_CPU_STARVED_VS_BEST
)
def capability_findings(e: dict[str, Any], d: Diagnosis) -> None:
    figs = osd_figures(e)
    if not figs:
        return
    named = _named(d)
    # an OSD another rule named for its CPU keeps its device judged: under a machine-wide disk
    # load the CPU rule can take a throttled OSD first (CI12: osd.1's kv sync 93 ms, its peers'
    # 34-42 ms), and its device must still rank by its own wait
    slow_devices = _devices(figs, _named_devices(d), d)
    named |= slow_devices
    _bench(figs, named, d)
    _cpu(figs, named | _named(d) | client_limited(e), d)  # mClock's limit queues by design
    _own_reads(figs, d)


def _own_reads(figs: dict[str, dict[str, float | None]], d: Diagnosis) -> None:
    """Each OSD's own 4 KiB reads, for reference: the ceiling ``explain`` draws for reads."""
    reads = column(figs, "read_4k_iops")
    if reads:
        d.checked.append(
            Check(
                layer="osd",
                check="each OSD's own 4k random reads (objects whose primary it is, QD32, "
                "one OSD at a time)",
                status=Status.MEASURED,
                detail=", ".join(f"{n} {v:,.0f} IOPS" for n, v in sorted(reads.items())),
            )
        )


def _devices(figs: dict[str, dict[str, float | None]], named: set[str], d: Diagnosis) -> set[str]:
    dev = column(figs, "device_ms")
    if not dev:
        return set()
    best_name = min(dev, key=lambda k: dev[k])
    best = dev[best_name]
    healthy_best = best < DEVICE_SLOW_MS
    if healthy_best:
        _on_one_yardstick(d, dev, best)
    found = set()
    for name, ms in sorted(dev.items()):
        if name in named or ms < DEVICE_SLOW_MS:
            continue
        if healthy_best and ms < BEST_RATIO * best:
            continue
        if healthy_best:
            judged = (
                f"the best OSD ({best_name}, {best:.2f} ms) and an absolute {DEVICE_SLOW_MS:g} ms; "
                "most OSDs are slow, so their median could not judge it"
                if _most_slow(dev)
                else f"the best OSD ({best_name}, {best:.2f} ms) and an absolute "
                f"{DEVICE_SLOW_MS:g} ms"
            )
            ratio = ms / max(best, 0.1)
        else:
            judged = (
                f"an absolute {DEVICE_SLOW_MS:g} ms only: every OSD is slow, none is left to "
                "compare with"
            )
            ratio = ms / DEVICE_HEALTHY_MS
        found.add(name)
        d.findings.append(
            Finding(
                codes.DEVICE_SLOW_COMMIT_ABSOLUTE,
                name,
                severity(ratio),
                f"{name}'s device takes {ms:.2f} ms to make a write durable (BlueStore kv sync "
                f"+ aio wait), judged against {judged}",
                AgainstBest(
                    "device_ms",
                    rounded(ms),
                    {best_name: rounded(best)},
                    DEVICE_SLOW_MS,
                    "best OSD and absolute" if healthy_best else "absolute only",
                    {k: rounded(v) for k, v in dev.items()},
                ),
                f"look at {name}'s device (smartctl, iostat -x for await and utilisation); "
                "replace it or move its data off",
                ratio,
            )
        )
    return found


def _on_one_yardstick(d: Diagnosis, dev: dict[str, float], best: float) -> None:
    """Grade the slow devices the peer rule named against the best OSD too, as this rule grades
    the rest: with two devices slow the peers' median is a slow one, and the slower device
    (94 ms against a median of 22) would rank below the less slow one judged against the best
    (22 ms against 1)."""
    for i, f in enumerate(d.findings):
        ms = dev.get(f.component)
        if f.code != codes.DEVICE_SLOW_COMMIT or ms is None or ms < DEVICE_SLOW_MS:
            continue
        ratio = ms / max(best, 0.1)
        if ratio > f.impact:
            graded = max(f.severity, severity(ratio), key=SEVERITIES.index)
            d.findings[i] = replace(f, severity=graded, impact=ratio)


def _most_slow(dev: dict[str, float]) -> bool:
    slow = sum(1 for v in dev.values() if v >= DEVICE_SLOW_MS)
    return slow * 2 >= len(dev)


def _bench(figs: dict[str, dict[str, float | None]], named: set[str], d: Diagnosis) -> None:
    bench = column(figs, "bench_4k_iops")
    if len(bench) < 2:
        return
    best_name = max(bench, key=lambda k: bench[k])
    best = bench[best_name]
    for name, iops in sorted(bench.items()):
        if name in named or iops <= 0 or best / iops < BENCH_RATIO:
            continue
        d.findings.append(
            Finding(
                codes.OSD_SLOW_BENCH_VS_BEST,
                name,
                severity(best / iops),
                f"{name} writes {iops:.0f} 4 KiB blocks/s in osd bench, {best / iops:.1f}x fewer "
                f"than the best OSD ({best_name}, {best:.0f}/s), judged against the best OSD "
                "(no absolute expectation without the device class)",
                AgainstBest(
                    "bench_4k_iops",
                    rounded(iops),
                    {best_name: rounded(best)},
                    None,
                    "best OSD",
                    {k: rounded(v) for k, v in bench.items()},
                ),
                f"compare {name}'s device and CPU with {best_name}'s; run `ceph tell {name} "
                "bench` again to rule out noise",
                best / iops,
            )
        )


CPU_SIGNALS = {
    "queued_ms": ("ops queued", 3.0, 1.5),
    "subop_w_ms": ("replica writes applied in", 2.0, 8.0),
    "write_queued_ms": ("client writes queued", 3.0, 0.8),
    "qd1_write_queued_ms": ("QD1 writes queued", 3.0, 0.25),
}
"""figure -> (words, ratio to the best OSD, least excess in ms): where a starved OSD shows.
The best is taken among OSDs no rule named (a slow disk's OSD queues few client writes). osd
bench is no signal here: benched at once on a busy machine, healthy OSDs differ by 3x."""


def _cpu(figs: dict[str, dict[str, float | None]], named: set[str], d: Diagnosis) -> None:
    """An OSD short of CPU on two signals at once against the best OSD (never on one)."""
    dev = column(figs, "device_ms")
    columns = {k: column(figs, k) for k in CPU_SIGNALS}
    for name in sorted(figs):
        if name in named or dev.get(name, 0.0) >= DEVICE_SLOW_MS:
            continue
        said, ratios = [], []
        for key, (words, ratio, excess) in CPU_SIGNALS.items():
            col = columns[key]
            others = [v for k, v in col.items() if k != name and k not in named]
            if name not in col or not others:
                continue
            best = min(others)
            mine = col[name]
            if mine >= ratio * max(best, 0.05) and mine - best >= excess:
                said.append(f"{words} {mine:.2f} ms (the best OSD {best:.2f} ms)")
                ratios.append(mine / max(best, 0.05))
        if len(said) < 2:
            continue
        ratio = sorted(ratios)[-2]  # the weaker of its two strongest signals
        d.findings.append(
            Finding(
                codes.OSD_CPU_STARVED_VS_BEST,
                name,
                severity(ratio),
                f"{name} is slow where CPU shows ({'; '.join(said)}) while its device wait is "
                "normal: short of CPU, judged against the best OSD (most OSDs may be slow, so "
                "their median is no guide)",
                AgainstBest(
                    "queued_ms",
                    rounded(columns["queued_ms"].get(name)),
                    {k: rounded(min(c.values())) if c else None for k, c in columns.items()},
                    None,
                    "best OSD",
                    {k: rounded(v) for k, v in columns["queued_ms"].items()},
                ),
                f"check {name}'s CPU (top -p its pid; cgroup or container limits, CPU frequency, "
                "noisy neighbours)",
                ratio,
            )
        )
