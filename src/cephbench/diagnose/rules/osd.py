"""The OSD layer's rules: a slow device, an OSD short of CPU (ops queued, replica writes slow)
against its peers, and the devices' durable-write rate. Pure."""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from typing import Any

from cephbench.ceph import counters
from cephbench.diagnose import codes
from cephbench.diagnose.finding import (
    Check,
    Diagnosis,
    Evidence,
    Finding,
    Outlier,
    Severity,
    Status,
    outliers,
    rounded,
    severity,
)
from cephbench.diagnose.rules import rule
from cephbench.diagnose.rules.mclock import client_limited

DEVICE_CLEAR = 4.0
"""A device wait this many times its peers' median can be the device's whatever else is slow
(see ``_device_first``)."""
DEVICE_FIRST_MS = 10.0
"""With the OSD's queue grown too, a device wait this much above its peers' (ms) is the
device's: a CPU-starved OSD's grew 3-5 ms in the lab, a slow disk's 40-60 ms."""


SYNC_WRITES_INFO = 1000.0
"""Durable 4k writes per second of one device at QD1: drives with power-loss protection do
thousands; consumer drives a few hundred (see the reference figures)."""


@dataclass(frozen=True)
class PeerFigures(Evidence):
    """An OSD's figures beside each peer's, and which of them the finding compared."""

    figures: dict[str, float | None]
    peers: dict[str, dict[str, float | None]]
    compared: str | dict[str, str]
    """The figure compared, in words; or the CPU signals compared (figure -> words)."""


@dataclass(frozen=True)
class SyncWrites(Evidence):
    sync_writes_per_s: dict[str, float | None]
    kv_sync_ms_median: float | None


def osd_figures(e: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """Per OSD, over the whole load and over the QD1 writes alone: device, queue and
    replica-side figures (ms)."""
    out: dict[str, dict[str, float | None]] = {}
    for osd, info in e.get("osds", {}).items():
        load = info.get("load") or {}
        qd1 = info.get("qd1_write") or {}
        q = load.get("op_before_dequeue")
        sub, sub1 = load.get("subop_w"), qd1.get("subop_w")
        b4k = (info.get("bench_4k") or {}).get("iops")
        out[f"osd.{osd}"] = {
            "device_ms": counters.device_ms(load),
            "queued_ms": q["ms"] if q else None,
            "write_queued_ms": counters.queued_ms(load),
            "subop_w_ms": sub["ms"] if sub else None,
            "qd1_write_queued_ms": counters.queued_ms(qd1),
            "qd1_subop_w_ms": sub1["ms"] if sub1 else None,
            "bench_4k_iops": b4k,
            "read_4k_iops": (info.get("read_4k") or {}).get("iops"),
            "osd_perf_commit_ms": info.get("osd_perf_commit_ms"),
            "cpu_peak_cores": (info.get("cpu") or {}).get("peak_cores"),
            "cpu_limit_cores": (info.get("cpu") or {}).get("limit_cores"),
            "bench_4k_throttled_ms": (info.get("cpu_bench_4k") or {}).get("throttled_ms"),
        }
    return out


CPU_SIGNALS: dict[str, tuple[str, float]] = {
    "write_queued_ms": ("client writes queued", 0.3),
    "subop_w_ms": ("replica writes applied in", 2.0),
    "queued_ms": ("ops waited before dequeue", 0.5),
    "qd1_write_queued_ms": ("QD1 writes queued", 0.15),
    "qd1_subop_w_ms": ("QD1 replica writes applied in", 1.0),
}
"""Where an OSD short of CPU shows (figure -> its words, the least excess in ms that counts):
time queued (``op_w_latency`` - ``op_w_process_latency``, ``op_before_dequeue_op_lat``) and
replica writes (``subop_w_latency``), over the whole load and the QD1 writes alone. One of
them 2x its peers' can be a busy machine's noise; two at once, seen in the lab's CPU faults
and in none of its healthy runs, name the OSD."""


def _device_first(
    dev: Outlier | None, figs: dict[str, dict[str, float | None]], name: str, held: bool = False
) -> bool:
    """Whether a slow device, not the CPU, explains an OSD slow on both: its device wait is
    ``DEVICE_CLEAR`` x its peers', and either its client writes' queue time stayed near its
    peers' or its device wait grew three times more (in ms) than that queue time and by
    ``DEVICE_FIRST_MS`` at least. A slow disk's device wait grew ~40-60 ms in the lab, its
    client writes' queue mostly not at all (once 11 ms); a starved OSD's kv sync thread runs
    late too, so its device wait reached 4.7x its peers' on a quiet machine, but by 5 ms at
    most, with its queue time 2.9-13x its peers'. An OSD ``held`` by its CPU limit (named
    already) has its device blamed only when its wait grew that much, whatever its queue."""
    if dev is None or dev.ratio < DEVICE_CLEAR:
        return False
    if held:
        return dev.value - dev.median >= DEVICE_FIRST_MS
    queue = column(figs, "write_queued_ms")
    mine = queue.get(name)
    if mine is None or len(queue) < 3:
        return True
    peers = statistics.median(queue.values())
    grown = mine - peers
    floor = CPU_SIGNALS["write_queued_ms"][1]
    if grown < floor or mine < 2 * peers:
        return True  # the queue did not grow: the disk alone
    return dev.value - dev.median >= max(3 * grown, DEVICE_FIRST_MS)


def _absolutely_slow_device(figs: dict[str, dict[str, float | None]], name: str) -> bool:
    """Whether an OSD's device wait is slow against the best OSD's and an absolute 20 ms
    (the ``osd-capability`` rule's test): its queue then waits for its disk, not its CPU,
    even when its peers' disks are as slow and its median hides it."""
    from cephbench.diagnose.rules.capability import BEST_RATIO, DEVICE_SLOW_MS

    dev = column(figs, "device_ms")
    mine = dev.get(name)
    return mine is not None and mine >= DEVICE_SLOW_MS and mine >= BEST_RATIO * min(dev.values())


def cpu_signals(figs: dict[str, dict[str, float | None]]) -> dict[str, list[tuple[str, Outlier]]]:
    """OSD -> the CPU signals on which it is at least 2x its peers' median (and over the
    figure's least excess), strongest first."""
    out: dict[str, list[tuple[str, Outlier]]] = {}
    for figure, (_, floor) in CPU_SIGNALS.items():
        for o in outliers(column(figs, figure), high=True, min_ratio=2.0, min_excess=floor):
            out.setdefault(o.name, []).append((figure, o))
    for found in out.values():
        found.sort(key=lambda fo: -fo[1].ratio)
    return out


def column(figs: dict[str, dict[str, float | None]], key: str) -> dict[str, float]:
    return {k: v[key] for k, v in figs.items() if v.get(key) is not None}  # type: ignore[misc]


@rule(codes.OSD_CPU_STARVED, codes.DEVICE_SLOW_COMMIT, codes.OSD_SLOW_BENCH)
def osd_findings(e: dict[str, Any], d: Diagnosis) -> None:
    figs = osd_figures(e)
    if len(figs) < 3:
        d.checked.append(
            Check(
                layer="osd",
                check="OSDs compared with their peers",
                status=Status.NOT_POSSIBLE,
                detail=f"{len(figs)} OSD(s): peers need three or more",
            )
        )
        return
    device = {
        o.name: o
        for o in outliers(column(figs, "device_ms"), high=True, min_ratio=2.0, min_excess=1.0)
    }
    # time in the queue alone is noisy on a busy machine (a healthy OSD reached 3x, +1 ms):
    # it names an OSD only far above its peers; the replica writes it applies are steadier
    queued = {
        o.name: o
        for o in outliers(column(figs, "queued_ms"), high=True, min_ratio=4.0, min_excess=2.0)
    }
    # osd bench runs on every OSD at once: a short 4k bench on a busy machine leaves a healthy
    # OSD up to 3.4x below its peers (the lab, another helper's load on its two cores)
    bench = {o.name: o for o in outliers(column(figs, "bench_4k_iops"), high=False, min_ratio=4.0)}
    subops = {
        o.name: o
        for o in outliers(column(figs, "subop_w_ms"), high=True, min_ratio=2.5, min_excess=2.0)
    }
    # two CPU signals at once; or one, with a device wait grown as a starved OSD's does
    # (its kv sync thread runs late too: 2-4x) rather than a slow disk's
    signals = {
        k: v
        for k, v in cpu_signals(figs).items()
        if len(v) >= 2 or (k in device and device[k].ratio < DEVICE_CLEAR)
    }
    held = {f.component for f in d.findings if f.code == codes.OSD_CPU_LIMITED}
    # ops queued behind mClock's client limit wait by design: its rule names the limit
    throttled = client_limited(e)
    for name in sorted(set(device) | set(queued) | set(bench) | set(subops) | set(signals)):
        dev, ben = device.get(name), bench.get(name)
        if name in held:
            # short of CPU, said by its limit: its device only if far slower than a starved
            # OSD's kv sync makes it
            dev, ben = (dev if _device_first(dev, figs, name, held=True) else None), None
        # the OSD's own slowness: ops queued in it, or replica writes slow to apply (far
        # above its peers on one signal, or 2x on two at once)
        candidates = [o for o in (queued.get(name), subops.get(name)) if o is not None]
        candidates += [o for _, o in signals.get(name, [])]
        que = max(candidates, key=lambda o: o.ratio) if candidates else None
        figures = {k: rounded(v) for k, v in figs[name].items()}
        peers = {p: {k: rounded(v) for k, v in f.items()} for p, f in figs.items() if p != name}
        # a slow device backs ops up in the queue and slows the replica writes too: the OSD
        # is short of CPU only when its device wait stayed near its peers' (a starved OSD's
        # kv sync thread runs late too, ~2x; a slow device's grows tenfold)
        if name in held or name in throttled:
            que = None
        if que is not None and not _device_first(dev, figs, name):
            if _absolutely_slow_device(figs, name):
                continue  # most OSDs' disks slow: the osd-capability rule names the device
            shown = signals.get(name) or [
                (f, o)
                for f, o in (("queued_ms", queued.get(name)), ("subop_w_ms", subops.get(name)))
                if o is not None
            ]
            compared = {f: CPU_SIGNALS[f][0] + " (ms)" for f, _ in shown}
            said = "; ".join(
                f"{CPU_SIGNALS[f][0]} {o.value:.2f} ms, {o.ratio:.1f}x its peers' median "
                f"{o.median:.2f} ms"
                for f, o in shown
            )
            d.findings.append(
                Finding(
                    codes.OSD_CPU_STARVED,
                    name,
                    severity(que.ratio),
                    f"{name} is slow where CPU shows ({said}), while its device wait is near "
                    "its peers': the OSD is short of CPU (or its op shards are busy)",
                    PeerFigures(figures, peers, compared),
                    f"check {name}'s CPU (top -p its pid; cgroup or container limits, CPU "
                    "frequency, noisy neighbours) and its osd_op_num_shards/threads",
                    que.ratio,
                )
            )
        elif dev is not None:
            d.findings.append(
                Finding(
                    codes.DEVICE_SLOW_COMMIT,
                    name,
                    severity(dev.ratio),
                    f"{name}'s device takes {dev.value:.2f} ms to make a write durable "
                    f"(BlueStore kv sync + aio wait), {dev.ratio:.1f}x its peers' median "
                    f"{dev.median:.2f} ms",
                    PeerFigures(
                        figures, peers, "ms BlueStore waited on the device (kv sync + aio wait)"
                    ),
                    f"look at {name}'s device (smartctl, its model against its peers', "
                    "iostat -x for await and utilisation); replace it or move its data off",
                    dev.ratio,
                )
            )
        elif ben is not None:
            d.findings.append(
                Finding(
                    codes.OSD_SLOW_BENCH,
                    name,
                    severity(ben.ratio),
                    f"{name} writes {ben.value:.0f} 4 KiB blocks/s in osd bench, "
                    f"{ben.ratio:.1f}x fewer than its peers' median {ben.median:.0f}",
                    PeerFigures(figures, peers, "osd bench 4 KiB writes per second"),
                    f"compare {name}'s device and CPU with its peers'; run "
                    f"`ceph tell {name} bench` again to rule out noise",
                    ben.ratio,
                )
            )
    flagged = set(device) | set(queued) | set(bench) | set(subops) | set(signals)
    if not flagged:
        d.checked.append(
            Check(
                layer="osd",
                check=f"{len(figs)} OSDs: device commit time, queue time, osd bench 4k",
                status=Status.NORMAL,
                detail="no OSD far from its peers' median (MAD z >= 3.5 and 2x)",
            )
        )


@rule(codes.DEVICE_SLOW_SYNC_WRITES)
def device_facts(e: dict[str, Any], d: Diagnosis) -> None:
    """Sync-write QD1 through BlueStore: each OSD's kv sync time during the QD1 writes."""
    syncs = {
        o: (i.get("qd1_write") or {}).get("kv_sync", {}).get("ms")
        for o, i in e.get("osds", {}).items()
    }
    syncs = {o: v for o, v in syncs.items() if v}
    if not syncs:
        return
    med = statistics.median(syncs.values())
    rate = 1000.0 / med
    detail = {f"osd.{o}": rounded(1000.0 / v, 0) for o, v in syncs.items()}
    if rate < SYNC_WRITES_INFO:
        # read through BlueStore, the kv sync time holds the OSD's CPU and the machine's load
        # too: an indication, never more than info (a raw device's fio figure would be more)
        d.findings.append(
            Finding(
                codes.DEVICE_SLOW_SYNC_WRITES,
                "all OSDs",
                Severity.INFO,
                f"the OSDs' devices make about {rate:.0f} sync writes/s durable at QD1 "
                f"(BlueStore kv sync {med:.2f} ms): the rate of drives without power-loss "
                "protection (consumer SSDs, HDDs), which caps small sync writes",
                SyncWrites(detail, rounded(med)),
                "check the drive models for power-loss protection; put the BlueStore "
                "DB/WAL on a device that has it",
                SYNC_WRITES_INFO / rate,
            )
        )
    else:
        d.checked.append(
            Check(
                layer="device",
                check="sync writes at QD1 through BlueStore (kv sync time)",
                status=Status.NORMAL,
                detail=f"about {rate:.0f}/s per device",
            )
        )
