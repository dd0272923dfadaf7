"""The network between the lab's hosts: iperf3 (a short run per pair) and ping round trips,
reached as the network suite does (``ip netns exec``). On a cluster whose hosts cephbench
cannot reach, the heartbeat ping times the OSDs keep are all there is: the checks that were
not possible are listed."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

from cephbench.diagnose.probes import Probe
from cephbench.diagnose.session import Session
from cephbench.model import now
from cephbench.system.process import ProcessInterrupted, run, which
from cephbench.tools.base import Step, Stopped, raw_output
from cephbench.tools.iperf3 import steps as iperf3_steps

_RTT = re.compile(r"= [\d.]+/([\d.]+)/[\d.]+/[\d.]+ ms")


class LabNetwork(Probe):
    name = "network"

    def run(self, session: Session) -> Iterator[Step]:
        net = session.evidence.setdefault("network", {})
        conn = session.conn
        hosts = None
        if conn.lab_dir is not None:
            from cephbench.lab.paths import Layout
            from cephbench.lab.spec import rate_bits
            from cephbench.lab.state import load

            state = load(Layout(__import__("pathlib").Path(conn.lab_dir)))
            if state is not None and len(state.namespaces) >= 2:
                hosts = iperf3_steps.lab_hosts(conn)
                net["nominal_bits_per_second"] = (
                    rate_bits(state.spec.rate) if state.spec.rate else None
                )
        if hosts is None:
            session.evidence.setdefault("not_checked", []).extend(
                [
                    "iperf3 between hosts: not possible without access to the hosts",
                    "ping round trips and MTU between hosts: not possible without access to "
                    "the hosts (the OSDs' heartbeat times were read instead)",
                    "sync-write QD1 on each OSD's device: not possible without access to the "
                    "hosts (BlueStore's counters and osd bench were read instead)",
                ]
            )
            return
        session.evidence.setdefault("not_checked", []).append(
            "sync-write QD1 on each OSD's raw device: not done (the lab's devices hold data; "
            "BlueStore's counters and osd bench were read instead)"
        )
        pairs = _pairs([h.name for h in hosts], ring=session.options.quick)
        by_name = {h.name: h for h in hosts}
        found: dict[str, dict] = {}
        for a, b in pairs:
            step, rtt = _ping(by_name[a], by_name[b])
            yield step
            found.setdefault(f"{a}->{b}", {})["rtt_ms"] = rtt
        port = iperf3_steps._port(conn)
        with iperf3_steps.servers(session.ctx, hosts, port):
            for a, b in pairs:
                step = iperf3_steps._pair(
                    session.ctx, 0, by_name[a], by_name[b], port, session.options.iperf_seconds
                )
                yield session.measured(step)
                for o in step.outcomes:
                    for r in o.results:
                        found[f"{a}->{b}"]["bits_per_second"] = dict(r.metrics).get(
                            "bits_per_second"
                        )
        net["pairs"] = found


def _pairs(names: list[str], ring: bool) -> list[tuple[str, str]]:
    """Every ordered pair; or (quick) a ring, which still puts every host in two pairs (one
    sending, one receiving), so a slow host is the one all slow pairs share."""
    if not ring or len(names) <= 2:
        return [(a, b) for a in names for b in names if a != b]
    n = len(names)
    return [(names[i], names[(i + 1) % n]) for i in range(n)]


def _ping(a, b) -> tuple[Step, float | None]:
    argv = [
        "ip",
        "netns",
        "exec",
        a.netns,
        which("ping"),
        "-q",
        "-c",
        "10",
        "-i",
        "0.01",
        "-W",
        "1",
        b.addr,
    ]
    started, t0 = now(), time.monotonic()
    try:
        result = run(argv, timeout=20)
    except ProcessInterrupted:
        raise Stopped from None
    m = _RTT.search(result.stdout)
    del t0
    return Step(0, raw_output("ping", result, started), []), float(m.group(1)) if m else None
