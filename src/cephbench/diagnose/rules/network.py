"""The network layer's rules: links measured slow against their nominal rate or their peers
(iperf3, ping), and OSD heartbeats slow between hosts. Pure."""

from __future__ import annotations

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
    host_of,
    outliers,
    rounded,
    severity,
)
from cephbench.diagnose.rules import rule

LINK_SHORT = 0.6
"""Measured throughput below 60 % of the links' nominal rate."""


@dataclass(frozen=True)
class HostLinks(Evidence):
    """A host's pairs beside the other pairs, each host's median, the nominal rate."""

    mbit_per_s: dict[str, float | None]
    peers_mbit_per_s: dict[str, float | None]
    host_median_mbit_per_s: dict[str, float | None]
    nominal_mbit_per_s: float | None


@dataclass(frozen=True)
class Links(Evidence):
    mbit_per_s: dict[str, float | None]
    nominal_mbit_per_s: float | None


@dataclass(frozen=True)
class Heartbeats(Evidence):
    heartbeat_ms: dict[str, float | None]


@rule(codes.NETWORK_SLOW_LINK, codes.NETWORK_SLOW_LINKS, codes.NETWORK_SLOW_HEARTBEATS)
def network_findings(e: dict[str, Any], d: Diagnosis) -> None:
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
            own = {p: rounded(v / 1e6, 1) for p, v in pairs.items() if o.name in p.split("->")}
            ratio = o.ratio
            if nominal:
                ratio = max(ratio, nominal / o.value)
            d.findings.append(
                Finding(
                    codes.NETWORK_SLOW_LINK,
                    o.name,
                    severity(ratio),
                    f"links to and from {o.name} carry {o.value / 1e6:.0f} Mbit/s, "
                    f"{o.ratio:.1f}x less than the other hosts' median "
                    f"{o.median / 1e6:.0f} Mbit/s",
                    HostLinks(
                        own,
                        {
                            p: rounded(v / 1e6, 1)
                            for p, v in pairs.items()
                            if o.name not in p.split("->")
                        },
                        {h: rounded(v / 1e6, 1) for h, v in host_med.items()},
                        rounded(nominal / 1e6, 1) if nominal else None,
                    ),
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
                    codes.NETWORK_SLOW_LINKS,
                    "all links",
                    severity(nominal / med),
                    f"links between hosts carry {med / 1e6:.0f} Mbit/s, "
                    f"{nominal / med:.1f}x less than their nominal {nominal / 1e6:.0f} Mbit/s",
                    Links(
                        {p: rounded(v / 1e6, 1) for p, v in pairs.items()},
                        rounded(nominal / 1e6, 1),
                    ),
                    "check the switch and every host's NIC settings (speed, duplex, MTU, "
                    "shaping); run iperf3 between two hosts by hand",
                    nominal / med,
                )
            )
        elif not slow_hosts:
            d.checked.append(
                Check(
                    layer="network",
                    check=f"iperf3 over {len(pairs)} host pair(s)"
                    + (f" (run by {net['reached_by']})" if net.get("reached_by") else ""),
                    status=Status.NORMAL,
                    detail=f"median {statistics.median(pairs.values()) / 1e6:.0f} Mbit/s"
                    + (f" of a nominal {nominal / 1e6:.0f} Mbit/s" if nominal else ""),
                )
            )
    rtts = {k: v.get("rtt_ms") for k, v in net.get("pairs", {}).items() if v.get("rtt_ms")}
    if rtts:
        d.checked.append(
            Check(
                layer="network",
                check=f"ping round trips over {len(rtts)} host pair(s)",
                status=Status.MEASURED,
                detail=", ".join(f"{p} {v:.3f} ms" for p, v in sorted(rtts.items())),
            )
        )
    _heartbeats(e, d, slow_hosts, bool(pairs))


def _heartbeats(e: dict[str, Any], d: Diagnosis, slow_hosts: set[str], measured: bool) -> None:
    """The OSDs' heartbeat round trips, by host: a finding only where no iperf3 could be run
    (an OSD short of CPU answers heartbeats late too, so they point at hosts less surely),
    and not on a host whose OSD an earlier rule named (read from its findings' codes)."""
    beats = e.get("network", {}).get("heartbeat_ms", {})
    if not beats:
        return
    per_host: dict[str, list[float]] = {}
    for pair, ms in beats.items():
        a, b = pair.split("->")
        ha, hb = host_of(e, a), host_of(e, b)
        if ha and hb and ha != hb:
            per_host.setdefault(ha, []).append(ms)
            per_host.setdefault(hb, []).append(ms)
    host_med = {h: statistics.median(v) for h, v in per_host.items()}
    found = outliers(host_med, high=True, min_ratio=3.0, min_excess=1.0)
    osd_named = {f.component for f in d.findings if f.code.layer in ("osd", "device")}
    osd_hosts = {host_of(e, o) for o in osd_named}
    for o in found:
        if measured or o.name in slow_hosts or o.name in osd_hosts:
            continue
        d.findings.append(
            Finding(
                codes.NETWORK_SLOW_HEARTBEATS,
                o.name,
                Severity.WARNING if o.ratio >= 3 else Severity.INFO,
                f"heartbeats to and from {o.name}'s OSDs take {o.value:.2f} ms, "
                f"{o.ratio:.1f}x the other hosts' median {o.median:.2f} ms",
                Heartbeats({k: rounded(v) for k, v in beats.items()}),
                f"measure the network to {o.name} (iperf3, ping) and check its NIC",
                o.ratio,
            )
        )
    if not found:
        d.checked.append(
            Check(
                layer="network",
                check="OSD heartbeat round trips (dump_osd_network)",
                status=Status.NORMAL,
                detail=f"median {statistics.median(beats.values()):.3f} ms",
            )
        )
