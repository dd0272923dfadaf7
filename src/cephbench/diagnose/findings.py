"""The findings engine: evidence (figures read from the cluster) in, findings out. Pure.

Most findings are peer-relative: an OSD, a host or a link whose figure is far from its
peers' median, measured in MADs (median absolute deviations) and as a ratio, so one slow
OSD among three is found and normal jitter is not. The rest are the few absolute facts
with a documented meaning: a sync-write rate that says "no power-loss protection", a PG
spread over 30 % from the mean, recovery or an unhealthy cluster during the measurement.
Every finding carries the figures it rests on and the peers they were compared with.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from cephbench.diagnose import counters
from cephbench.diagnose.budget import budget

SEVERITIES = ("info", "warning", "critical")
MAD_Z = 3.5
"""A robust z-score (0.6745 x deviation / MAD) above this is an outlier (Iglewicz-Hoaglin)."""
PG_SPREAD = 0.30
"""PGs per OSD more than 30 % from the mean: what Ceph's monitoring rules flag."""
PG_CHANCE_SDS = 3.0
"""...and only beyond what chance placement gives: CRUSH places PGs pseudo-randomly, so an
OSD's count varies by about the square root of the mean (Poisson). With a few PGs per OSD
(a lab, a test pool) 30 % is noise: 1 primary against a mean of 2.7 is 62 % off and means
nothing. The rule was written for clusters with about 100 PGs per OSD, where 30 % is 3
standard deviations; below that a deviation must also exceed 3 of them."""
SYNC_WRITES_INFO = 1000.0
"""Durable 4k writes per second of one device at QD1: drives with power-loss protection do
thousands; consumer drives a few hundred (see the reference figures)."""
DEVICE_CLEAR = 4.0
"""A device wait this many times its peers' median is the device's, whatever else is slow."""
LINK_SHORT = 0.6
"""Measured throughput below 60 % of the links' nominal rate."""


@dataclass(frozen=True)
class Finding:
    layer: str
    component: str
    severity: str
    summary: str
    evidence: dict[str, Any]
    next_step: str
    impact: float
    """How far from normal (a ratio to the peers' median or to the nominal figure); orders
    findings of one severity."""

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["impact"] = round(self.impact, 3)
        return d


@dataclass(frozen=True)
class Outlier:
    name: str
    value: float
    median: float
    ratio: float
    z: float


@dataclass
class Diagnosis:
    findings: list[Finding] = field(default_factory=list)
    checked: list[dict[str, str]] = field(default_factory=list)
    budget: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "findings": [f.to_json() for f in self.findings],
            "checked": self.checked,
            "budget": self.budget,
        }


def outliers(
    values: dict[str, float], *, high: bool, min_ratio: float, min_excess: float = 0.0
) -> list[Outlier]:
    """Members far above (``high``) or below their peers' median: robust z over ``MAD_Z``,
    at least ``min_ratio`` times the median (or a ``min_ratio``-th of it), and at least
    ``min_excess`` away in the figure's unit. Needs three members or more."""
    clean = {k: v for k, v in values.items() if v is not None and math.isfinite(v)}
    if len(clean) < 3:
        return []
    med = statistics.median(clean.values())
    mad = statistics.median(abs(v - med) for v in clean.values())
    out = []
    for name, v in clean.items():
        dev = (v - med) if high else (med - v)
        if dev <= 0 or dev < min_excess:
            continue
        z = math.inf if mad == 0 else 0.6745 * dev / mad
        ratio = (v / med if med > 0 else math.inf) if high else med / v if v > 0 else math.inf
        if z >= MAD_Z and ratio >= min_ratio:
            out.append(Outlier(name, v, med, ratio, z))
    return out


def _severity(ratio: float) -> str:
    return "critical" if ratio >= 4 else "warning" if ratio >= 2 else "info"


def _r(x: float | None, n: int = 3) -> float | None:
    return None if x is None else round(x, n)


def _peers(values: dict[str, float | None], name: str) -> dict[str, float | None]:
    return {k: _r(v) for k, v in values.items() if k != name}


def diagnose(e: dict[str, Any]) -> Diagnosis:
    d = Diagnosis()
    _osd_findings(e, d)
    _network_findings(e, d)
    _device_facts(e, d)
    _placement_findings(e, d)
    _cluster_findings(e, d)
    _client_facts(e, d)
    for item in e.get("not_checked", []):
        d.checked.append({"layer": _layer_of(item), "check": item, "status": "not possible"})
    _behind_network(e, d)
    d.findings.sort(key=lambda f: (-SEVERITIES.index(f.severity), -f.impact))
    d.budget = budget(e)
    return d


def _behind_network(e: dict[str, Any], d: Diagnosis) -> None:
    """An OSD that keeps ops queued behind a link measured slow (iperf3) may only be waiting
    for the network: its "short of CPU" finding becomes info, the network's stands first."""
    slow = {f.component for f in d.findings if f.layer == "network" and f.severity != "info"}
    if not slow:
        return
    for i, f in enumerate(d.findings):
        host = _host_of(e, f.component)
        if f.layer == "osd" and "CPU" in f.summary and ("all links" in slow or host in slow):
            d.findings[i] = replace(
                f,
                severity="info",
                summary=f"{f.summary}; its host's links were measured slow, which may be "
                "all it waits for",
            )


def _layer_of(text: str) -> str:
    if "iperf3" in text or "ping" in text:
        return "network"
    if "device" in text:
        return "device"
    return "osd"


def _osd_figures(e: dict[str, Any]) -> dict[str, dict[str, float | None]]:
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
            "osd_perf_commit_ms": info.get("osd_perf_commit_ms"),
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


def _device_first(dev: Outlier | None, figs: dict[str, dict[str, float | None]], name: str) -> bool:
    """Whether a slow device, not the CPU, explains an OSD slow on both: its device wait is
    ``DEVICE_CLEAR`` x its peers' and grew three times more (in ms) than its client writes'
    queue time. A slow disk's grew ~60 ms, its queue ~1-3 ms; a starved OSD's device wait
    can reach 5x its peers' on a quiet machine, but its queue grew as much."""
    if dev is None or dev.ratio < DEVICE_CLEAR:
        return False
    queue = _column(figs, "write_queued_ms")
    mine = queue.get(name)
    if mine is None or len(queue) < 3:
        return True
    return dev.value - dev.median >= 3 * max(0.0, mine - statistics.median(queue.values()))


def _cpu_signals(figs: dict[str, dict[str, float | None]]) -> dict[str, list[tuple[str, Outlier]]]:
    """OSD -> the CPU signals on which it is at least 2x its peers' median (and over the
    figure's least excess), strongest first."""
    out: dict[str, list[tuple[str, Outlier]]] = {}
    for figure, (_, floor) in CPU_SIGNALS.items():
        for o in outliers(_column(figs, figure), high=True, min_ratio=2.0, min_excess=floor):
            out.setdefault(o.name, []).append((figure, o))
    for found in out.values():
        found.sort(key=lambda fo: -fo[1].ratio)
    return out


def _column(figs: dict[str, dict[str, float | None]], key: str) -> dict[str, float]:
    return {k: v[key] for k, v in figs.items() if v.get(key) is not None}  # type: ignore[misc]


def _osd_findings(e: dict[str, Any], d: Diagnosis) -> None:
    figs = _osd_figures(e)
    if len(figs) < 3:
        d.checked.append(
            {
                "layer": "osd",
                "check": "OSDs compared with their peers",
                "status": "not possible",
                "detail": f"{len(figs)} OSD(s): peers need three or more",
            }
        )
        return
    device = {
        o.name: o
        for o in outliers(_column(figs, "device_ms"), high=True, min_ratio=2.0, min_excess=1.0)
    }
    # time in the queue alone is noisy on a busy machine (a healthy OSD reached 3x, +1 ms):
    # it names an OSD only far above its peers; the replica writes it applies are steadier
    queued = {
        o.name: o
        for o in outliers(_column(figs, "queued_ms"), high=True, min_ratio=4.0, min_excess=2.0)
    }
    bench = {o.name: o for o in outliers(_column(figs, "bench_4k_iops"), high=False, min_ratio=2.5)}
    subops = {
        o.name: o
        for o in outliers(_column(figs, "subop_w_ms"), high=True, min_ratio=2.5, min_excess=2.0)
    }
    # two CPU signals at once; or one, with a device wait grown as a starved OSD's does
    # (its kv sync thread runs late too: 2-4x) rather than a slow disk's
    signals = {
        k: v
        for k, v in _cpu_signals(figs).items()
        if len(v) >= 2 or (k in device and device[k].ratio < DEVICE_CLEAR)
    }
    for name in sorted(set(device) | set(queued) | set(bench) | set(subops) | set(signals)):
        dev, ben = device.get(name), bench.get(name)
        # the OSD's own slowness: ops queued in it, or replica writes slow to apply (far
        # above its peers on one signal, or 2x on two at once)
        candidates = [o for o in (queued.get(name), subops.get(name)) if o is not None]
        candidates += [o for _, o in signals.get(name, [])]
        que = max(candidates, key=lambda o: o.ratio) if candidates else None
        evidence = {
            "figures": {k: _r(v) for k, v in figs[name].items()},
            "peers": {p: {k: _r(v) for k, v in f.items()} for p, f in figs.items() if p != name},
        }
        # a slow device backs ops up in the queue and slows the replica writes too: the OSD
        # is short of CPU only when its device wait stayed near its peers' (a starved OSD's
        # kv sync thread runs late too, ~2x; a slow device's grows tenfold)
        if que is not None and not _device_first(dev, figs, name):
            shown = signals.get(name) or [
                (f, o)
                for f, o in (("queued_ms", queued.get(name)), ("subop_w_ms", subops.get(name)))
                if o is not None
            ]
            evidence["compared"] = {f: CPU_SIGNALS[f][0] + " (ms)" for f, _ in shown}
            said = "; ".join(
                f"{CPU_SIGNALS[f][0]} {o.value:.2f} ms, {o.ratio:.1f}x its peers' median "
                f"{o.median:.2f} ms"
                for f, o in shown
            )
            d.findings.append(
                Finding(
                    "osd",
                    name,
                    _severity(que.ratio),
                    f"{name} is slow where CPU shows ({said}), while its device wait is near "
                    "its peers': the OSD is short of CPU (or its op shards are busy)",
                    evidence,
                    f"check {name}'s CPU (top -p its pid; cgroup or container limits, CPU "
                    "frequency, noisy neighbours) and its osd_op_num_shards/threads",
                    que.ratio,
                )
            )
        elif dev is not None:
            evidence["compared"] = "ms BlueStore waited on the device (kv sync + aio wait)"
            d.findings.append(
                Finding(
                    "device",
                    name,
                    _severity(dev.ratio),
                    f"{name}'s device takes {dev.value:.2f} ms to make a write durable "
                    f"(BlueStore kv sync + aio wait), {dev.ratio:.1f}x its peers' median "
                    f"{dev.median:.2f} ms",
                    evidence,
                    f"look at {name}'s device (smartctl, its model against its peers', "
                    "iostat -x for await and utilisation); replace it or move its data off",
                    dev.ratio,
                )
            )
        elif ben is not None:
            evidence["compared"] = "osd bench 4 KiB writes per second"
            d.findings.append(
                Finding(
                    "osd",
                    name,
                    _severity(ben.ratio),
                    f"{name} writes {ben.value:.0f} 4 KiB blocks/s in osd bench, "
                    f"{ben.ratio:.1f}x fewer than its peers' median {ben.median:.0f}",
                    evidence,
                    f"compare {name}'s device and CPU with its peers'; run "
                    f"`ceph tell {name} bench` again to rule out noise",
                    ben.ratio,
                )
            )
    flagged = set(device) | set(queued) | set(bench) | set(subops) | set(signals)
    if not flagged:
        d.checked.append(
            {
                "layer": "osd",
                "check": f"{len(figs)} OSDs: device commit time, queue time, osd bench 4k",
                "status": "normal",
                "detail": "no OSD far from its peers' median (MAD z >= 3.5 and 2x)",
            }
        )


def _host_of(e: dict[str, Any], osd: str) -> str | None:
    return (e.get("osds", {}).get(osd.removeprefix("osd.")) or {}).get("host")


def _network_findings(e: dict[str, Any], d: Diagnosis) -> None:
    net = e.get("network", {})
    pairs = {k: v.get("bits_per_second") for k, v in net.get("pairs", {}).items()}
    pairs = {k: v for k, v in pairs.items() if v}
    nominal = net.get("nominal_bits_per_second")
    slow_hosts: set[str] = set()
    if pairs:
        per_host: dict[str, list[float]] = {}
        for pair, bps in pairs.items():
            for h in pair.split("->"):
                per_host.setdefault(h, []).append(bps)
        host_med = {h: statistics.median(v) for h, v in per_host.items()}
        for o in outliers(host_med, high=False, min_ratio=1.5):
            slow_hosts.add(o.name)
            own = {p: _r(v / 1e6, 1) for p, v in pairs.items() if o.name in p.split("->")}
            ratio = o.ratio
            if nominal:
                ratio = max(ratio, nominal / o.value)
            d.findings.append(
                Finding(
                    "network",
                    o.name,
                    _severity(ratio),
                    f"links to and from {o.name} carry {o.value / 1e6:.0f} Mbit/s, "
                    f"{o.ratio:.1f}x less than the other hosts' median "
                    f"{o.median / 1e6:.0f} Mbit/s",
                    {
                        "mbit_per_s": own,
                        "peers_mbit_per_s": {
                            p: _r(v / 1e6, 1)
                            for p, v in pairs.items()
                            if o.name not in p.split("->")
                        },
                        "host_median_mbit_per_s": {h: _r(v / 1e6, 1) for h, v in host_med.items()},
                        "nominal_mbit_per_s": _r(nominal / 1e6, 1) if nominal else None,
                    },
                    f"check {o.name}'s NIC, cable and switch port (ethtool: speed, duplex, "
                    "errors), and any traffic shaping or bonding on it",
                    ratio,
                )
            )
        rest = [v for p, v in pairs.items() if not slow_hosts & set(p.split("->"))]
        if nominal and rest and statistics.median(rest) < LINK_SHORT * nominal:
            med = statistics.median(rest)
            d.findings.append(
                Finding(
                    "network",
                    "all links",
                    _severity(nominal / med),
                    f"links between hosts carry {med / 1e6:.0f} Mbit/s, "
                    f"{nominal / med:.1f}x less than their nominal {nominal / 1e6:.0f} Mbit/s",
                    {
                        "mbit_per_s": {p: _r(v / 1e6, 1) for p, v in pairs.items()},
                        "nominal_mbit_per_s": _r(nominal / 1e6, 1),
                    },
                    "check the switch and every host's NIC settings (speed, duplex, MTU, "
                    "shaping); run iperf3 between two hosts by hand",
                    nominal / med,
                )
            )
        elif not slow_hosts:
            d.checked.append(
                {
                    "layer": "network",
                    "check": f"iperf3 over {len(pairs)} host pair(s)"
                    + (f" (run by {net['reached_by']})" if net.get("reached_by") else ""),
                    "status": "normal",
                    "detail": f"median {statistics.median(pairs.values()) / 1e6:.0f} Mbit/s"
                    + (f" of a nominal {nominal / 1e6:.0f} Mbit/s" if nominal else ""),
                }
            )
    rtts = {k: v.get("rtt_ms") for k, v in net.get("pairs", {}).items() if v.get("rtt_ms")}
    if rtts:
        d.checked.append(
            {
                "layer": "network",
                "check": f"ping round trips over {len(rtts)} host pair(s)",
                "status": "measured",
                "detail": ", ".join(f"{p} {v:.3f} ms" for p, v in sorted(rtts.items())),
            }
        )
    _heartbeats(e, d, slow_hosts, bool(pairs))


def _heartbeats(e: dict[str, Any], d: Diagnosis, slow_hosts: set[str], measured: bool) -> None:
    """The OSDs' heartbeat round trips, by host: a finding only where no iperf3 could be run
    (an OSD short of CPU answers heartbeats late too, so they point at hosts less surely)."""
    beats = e.get("network", {}).get("heartbeat_ms", {})
    if not beats:
        return
    per_host: dict[str, list[float]] = {}
    for pair, ms in beats.items():
        a, b = pair.split("->")
        ha, hb = _host_of(e, a), _host_of(e, b)
        if ha and hb and ha != hb:
            per_host.setdefault(ha, []).append(ms)
            per_host.setdefault(hb, []).append(ms)
    host_med = {h: statistics.median(v) for h, v in per_host.items()}
    found = outliers(host_med, high=True, min_ratio=3.0, min_excess=1.0)
    osd_named = {f.component for f in d.findings if f.layer in ("osd", "device")}
    osd_hosts = {_host_of(e, o) for o in osd_named}
    for o in found:
        if measured or o.name in slow_hosts or o.name in osd_hosts:
            continue
        d.findings.append(
            Finding(
                "network",
                o.name,
                "warning" if o.ratio >= 3 else "info",
                f"heartbeats to and from {o.name}'s OSDs take {o.value:.2f} ms, "
                f"{o.ratio:.1f}x the other hosts' median {o.median:.2f} ms",
                {"heartbeat_ms": {k: _r(v) for k, v in beats.items()}},
                f"measure the network to {o.name} (iperf3, ping) and check its NIC",
                o.ratio,
            )
        )
    if not found:
        d.checked.append(
            {
                "layer": "network",
                "check": "OSD heartbeat round trips (dump_osd_network)",
                "status": "normal",
                "detail": f"median {statistics.median(beats.values()):.3f} ms",
            }
        )


def _device_facts(e: dict[str, Any], d: Diagnosis) -> None:
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
    detail = {f"osd.{o}": _r(1000.0 / v, 0) for o, v in syncs.items()}
    if rate < SYNC_WRITES_INFO:
        # read through BlueStore, the kv sync time holds the OSD's CPU and the machine's load
        # too: an indication, never more than info (a raw device's fio figure would be more)
        d.findings.append(
            Finding(
                "device",
                "all OSDs",
                "info",
                f"the OSDs' devices make about {rate:.0f} sync writes/s durable at QD1 "
                f"(BlueStore kv sync {med:.2f} ms): the rate of drives without power-loss "
                "protection (consumer SSDs, HDDs), which caps small sync writes",
                {"sync_writes_per_s": detail, "kv_sync_ms_median": _r(med)},
                "check the drive models for power-loss protection; put the BlueStore "
                "DB/WAL on a device that has it",
                SYNC_WRITES_INFO / rate,
            )
        )
    else:
        d.checked.append(
            {
                "layer": "device",
                "check": "sync writes at QD1 through BlueStore (kv sync time)",
                "status": "normal",
                "detail": f"about {rate:.0f}/s per device",
            }
        )


def _placement_findings(e: dict[str, Any], d: Diagnosis) -> None:
    pl = e.get("placement", {})
    per = pl.get("per_osd", {})
    if pl.get("own_pool_only") or len(per) < 2:
        d.checked.append(
            {
                "layer": "placement",
                "check": "PGs and primaries per OSD",
                "status": "not possible",
                "detail": "no pools besides the diagnosis' own",
            }
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
                    {
                        "layer": "placement",
                        "check": f"{what} per OSD",
                        "status": "normal",
                        "detail": f"{worst} {spread:.0%} from the mean {mean:.1f}, within "
                        f"what chance placement gives with so few (3 x sqrt(mean))",
                    }
                )
            elif spread > PG_SPREAD:
                d.findings.append(
                    Finding(
                        "placement",
                        worst,
                        "warning",
                        f"{worst} holds {counts[worst]} {what.replace('pgs', 'PGs')}, "
                        f"{spread:.0%} from the mean {mean:.1f} (over 30 %)",
                        {what: counts, "mean": _r(mean, 2)},
                        "enable the balancer (ceph balancer mode upmap) or adjust pg_num "
                        "and CRUSH weights",
                        1 + spread,
                    )
                )
            else:
                d.checked.append(
                    {
                        "layer": "placement",
                        "check": f"{what} per OSD",
                        "status": "normal",
                        "detail": f"within {spread:.0%} of the mean {mean:.1f}",
                    }
                )
    hosts = len(e.get("hosts", []))
    for p in e.get("pools", []):
        name = f"pool {p['name']}"
        if p.get("ours"):
            continue
        if p.get("type") == "replicated" and p.get("size") == 1:
            d.findings.append(
                Finding(
                    "placement",
                    name,
                    "warning",
                    f"{name} keeps one copy of its data (size 1): one lost OSD loses data",
                    {"size": p["size"], "min_size": p.get("min_size")},
                    f"ceph osd pool set {p['name']} size 3",
                    1.0,
                )
            )
        elif p.get("failure_domain") == "osd" and hosts > 1:
            d.findings.append(
                Finding(
                    "placement",
                    name,
                    "info",
                    f"{name} places copies across OSDs, not hosts: copies may share a host",
                    {"failure_domain": "osd", "hosts": hosts},
                    "use a CRUSH rule with failure domain host",
                    1.0,
                )
            )
    d.checked.append(
        {
            "layer": "placement",
            "check": "pool settings and failure domains",
            "status": "read",
            "detail": "; ".join(
                f"{p['name']}: {p.get('type')} size {p.get('size')}/{p.get('min_size')}, "
                f"{p.get('pg_num')} PGs, failure domain {p.get('failure_domain')}"
                for p in e.get("pools", [])
            ),
        }
    )


def _cluster_findings(e: dict[str, Any], d: Diagnosis) -> None:
    samples = e.get("health", {}).get("samples", [])
    flags = sorted({f for s in samples for f in s.get("flags", [])})
    statuses = [s.get("status") for s in samples if s.get("status")]
    busy = [f for f in flags if f in ("recovery", "backfill", "degraded", "osd_down")]
    if busy:
        d.findings.append(
            Finding(
                "cluster",
                "cluster",
                "critical",
                f"the cluster was not quiet during the measurement ({', '.join(busy)}): "
                "the figures say little about its configuration",
                {"flags": flags, "health": statuses},
                "wait for HEALTH_OK and active+clean PGs, then diagnose again",
                10.0,
            )
        )
    elif "scrub" in flags:
        d.findings.append(
            Finding(
                "cluster",
                "cluster",
                "info",
                "PGs were scrubbing during the measurement",
                {"flags": flags},
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
                "cluster",
                "cluster",
                "warning" if worst == "HEALTH_ERR" else "info",
                f"the cluster reported {worst} during the measurement",
                {"health": statuses},
                "ceph health detail",
                1.0,
            )
        )
    if not flags and not worst:
        d.checked.append(
            {
                "layer": "cluster",
                "check": f"health during the run ({len(samples)} samples)",
                "status": "normal",
                "detail": "HEALTH_OK, no recovery, backfill or scrub",
            }
        )


def _client_facts(e: dict[str, Any], d: Diagnosis) -> None:
    client = e.get("client", {})
    cache = client.get("rbd_cache") or {}
    if cache:
        d.checked.append(
            {
                "layer": "client",
                "check": "librbd cache settings (client section of the configuration)",
                "status": "read",
                "detail": ", ".join(f"{k}={v}" for k, v in cache.items())
                + "; the load ran with the cache off, to measure the cluster",
            }
        )
    wl = client.get("workloads") or {}
    if wl:
        d.checked.append(
            {
                "layer": "client",
                "check": "fio rbd 4k random writes and reads at QD1 and QD32",
                "status": "measured",
                "detail": ", ".join(
                    f"{n} {w['iops']:.0f} IOPS {w['lat_mean_us'] / 1000:.2f} ms"
                    for n, w in wl.items()
                    if w.get("iops") is not None and w.get("lat_mean_us") is not None
                ),
            }
        )
