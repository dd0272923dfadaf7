"""The network between the lab's hosts: iperf3 (a short run per pair) and ping round trips,
run on the hosts over ssh when the lab has them (``lab up --ssh``), else reached as the
network suite does (``ip netns exec``). On a cluster whose hosts cephbench
cannot reach, the heartbeat ping times the OSDs keep are all there is: the checks that were
not possible are listed."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cephbench.diagnose import unchecked
from cephbench.diagnose.probes import Probe
from cephbench.diagnose.session import Session
from cephbench.diagnose.together import together
from cephbench.model import now
from cephbench.system.process import ProcessInterrupted
from cephbench.tools.base import Step, Stopped, raw_output
from cephbench.tools.iperf3 import steps as iperf3_steps
from cephbench.tools.iperf3.hostexec import HostExec, NetHost

if TYPE_CHECKING:
    from cephbench.hosts.ssh import Ssh
    from cephbench.store import ResourceLog

_RTT = re.compile(r"= [\d.]+/([\d.]+)/[\d.]+/[\d.]+ ms")


class LabNetwork(Probe):
    name = "network"

    def begin(self, session: Session) -> None:
        """The ssh connections to the lab's hosts, made while the cluster is read (each host's
        first connection takes most of a second); the load waits for them to be made. With
        the diagnosis' own pool (:class:`~cephbench.diagnose.target.DiagnoseTarget`) they were
        made, and the network measured, while the pool was: nothing to begin."""
        inventory = Path(session.conn.lab_dir or "") / "inventory.yaml"
        if session.conn.lab_dir is None or not inventory.is_file():
            return
        early = getattr(session.ctx.target, "early_network", None)
        if early is not None:  # its servers stopped before the load, as the load waits
            session.background(early.ended.exception)
            return
        from cephbench.hosts.load import load_lab
        from cephbench.hosts.ssh import Ssh

        inv = load_lab(Path(session.conn.lab_dir))
        ssh = Ssh(inv)
        session.shared["ssh"] = ssh

        def close() -> None:
            session.settle()
            ssh.close()

        session.restore.callback(close)
        # an unreachable host is met (and said) by the probe itself, as without this
        session.background(lambda: ssh.each(inv.hosts, lambda h: ssh.run(h, ["true"], timeout=10)))

    def run(self, session: Session) -> Iterator[Step]:
        net = session.evidence.setdefault("network", {})
        conn = session.conn
        early = getattr(session.ctx.target, "early_network", None)
        lab = lab_hosts(Path(conn.lab_dir)) if conn.lab_dir is not None else None
        if lab is not None:
            hosts, port, net["nominal_bits_per_second"] = lab
        if lab is None:
            session.evidence.setdefault("not_checked", []).extend(
                u.text
                for u in (
                    unchecked.IPERF3_OUT_OF_REACH,
                    unchecked.PING_OUT_OF_REACH,
                    unchecked.SYNC_WRITE_OUT_OF_REACH,
                )
            )
            return
        session.evidence.setdefault("not_checked", []).append(unchecked.SYNC_WRITE_HOLDS_DATA.text)
        pairs = host_pairs(hosts, ring=session.options.quick)
        inventory = Path(conn.lab_dir or "") / "inventory.yaml"
        if inventory.is_file():  # the lab's hosts answer ssh: measure from the hosts
            net["reached_by"] = "ssh"
            if early is not None:  # measured while the diagnosis' pool was made
                measured = early.measured.result()
            else:
                ctx = session.ctx
                measured = over_ssh(
                    session.shared["ssh"],
                    Path(conn.lab_dir or ""),
                    pairs,
                    port,
                    session.options.iperf_seconds,
                    ctx.run_id,
                    ctx.resources,
                )
            for step in measured.steps:
                yield session.measured(step) if step.outcomes else step
            net["pairs"] = measured.pairs
            return
        net["reached_by"] = "ip netns exec"
        ex = iperf3_steps.executor(session.ctx)  # the network suite's: namespaces here
        try:
            by_name = {h.name: h for h in ex.hosts}
            found: dict[str, dict] = {}
            for a, b in pairs:
                step, rtt = _ping(ex, by_name[a], by_name[b])
                yield step
                found.setdefault(f"{a}->{b}", {})["rtt_ms"] = rtt
            seconds = session.options.iperf_seconds
            with iperf3_steps.servers(ex, {b: 1 for _, b in pairs}) as running:
                for a, b in pairs:
                    server = running.ports[b][0]
                    client = iperf3_steps._client(ex, by_name[a], by_name[b], server, seconds)
                    for step in iperf3_steps._pair_steps(f"{a}->{b}", [client], {}, 0, seconds):
                        if step.outcomes:
                            found[f"{a}->{b}"]["bits_per_second"] = _bits(step)
                            step = session.measured(step)
                        yield step
        finally:
            ex.close()
        net["pairs"] = found


@dataclass(frozen=True)
class Measured:
    """The network between the lab's hosts as measured over ssh: each pair's round trip and
    received rate, and the steps that recorded them (the iperf3 ones with their workloads)."""

    pairs: dict[str, dict]
    steps: list[Step]


def lab_hosts(lab_dir: Path) -> tuple[list[str], int, float | None] | None:
    """The lab's hosts (two or more), the port their iperf3 servers take and the links'
    nominal rate (bits/s; None when not limited); None for a lab of one host or none."""
    from cephbench.lab.paths import Layout
    from cephbench.lab.spec import rate_bits
    from cephbench.lab.state import load

    state = load(Layout(lab_dir))
    if state is None or len(state.namespaces) < 2:
        return None
    hosts = [f"host{i}" for i in range(len(state.namespaces))]
    return hosts, _port(state), rate_bits(state.spec.rate) if state.spec.rate else None


def over_ssh(
    ssh: Ssh,
    lab_dir: Path,
    pairs: list[tuple[str, str]],
    port: int,
    seconds: int,
    run_id: int,
    resources: ResourceLog,
    measured: Callable[[Measured], None] | None = None,
) -> Measured:
    """Pings, then iperf3, for ``pairs`` of the lab's hosts, run on the hosts over ``ssh``.
    The iperf3 servers start while the pings run (a listening server sends nothing), and
    ``measured`` is told the figures before they stop (the caller's wait ends sooner)."""
    from cephbench.diagnose import sshnet
    from cephbench.hosts.load import load_lab

    by_name = {h.name: h for h in load_lab(lab_dir).hosts}
    found: dict[str, dict] = {}
    hosts = sorted({h for p in pairs for h in p})
    with ThreadPoolExecutor(1, thread_name_prefix="diagnose-ping") as pinging:
        pinged = pinging.submit(sshnet.pings, ssh, [(by_name[a], by_name[b]) for a, b in pairs])
        with sshnet.servers(ssh, [by_name[h] for h in hosts], port, run_id, resources):
            steps = pinged.result()
            for (a, b), step in zip(pairs, steps, strict=True):
                m = _RTT.search(step.raw.stdout if step.raw else "")
                found.setdefault(f"{a}->{b}", {})["rtt_ms"] = float(m.group(1)) if m else None
            calls: list[Callable[[], Step]] = [
                functools.partial(sshnet.pair, ssh, by_name[a], by_name[b], port, seconds)
                for a, b in pairs
            ]
            # a ring's pairs at once: each host sends to one and receives from one, and its
            # link carries each direction at full rate (one server per host, one client
            # each); every ordered pair shares links, so one after another
            sent = together(calls) if _is_ring(pairs) else [c() for c in calls]
            for (a, b), step in zip(pairs, sent, strict=True):
                found[f"{a}->{b}"]["bits_per_second"] = _bits(step)
            result = Measured(found, [*steps, *sent])
            if measured is not None:
                measured(result)
    return result


def _port(state) -> int:
    """A port no lab daemon binds: iperf3's 5201 unless the lab's port blocks cover it."""
    taken = [r for r in (state.mon_ports, state.bind_ports) if r]
    port = 5201
    while any(lo <= port <= hi for lo, hi in taken):
        port += 1
    return port


def _bits(step: Step) -> float | None:
    """Received bits/s of an iperf3 pair's step (None when it failed)."""
    for o in step.outcomes:
        for r in o.results:
            return dict(r.metrics).get("bits_per_second")
    return None


def _is_ring(pairs: list[tuple[str, str]]) -> bool:
    """Every host sends in one pair and receives in one (so the pairs can run at once)."""
    senders, receivers = [a for a, _ in pairs], [b for _, b in pairs]
    return len(pairs) > 2 and len(set(senders)) == len(pairs) == len(set(receivers))


def host_pairs(names: list[str], ring: bool) -> list[tuple[str, str]]:
    """Every ordered pair; or (quick) a ring, which still puts every host in two pairs (one
    sending, one receiving), so a slow host is the one all slow pairs share."""
    if not ring or len(names) <= 2:
        return [(a, b) for a in names for b in names if a != b]
    n = len(names)
    return [(names[i], names[(i + 1) % n]) for i in range(n)]


def _ping(ex: HostExec, a: NetHost, b: NetHost) -> tuple[Step, float | None]:
    argv = [
        "ping",
        "-q",
        "-c",
        "10",
        "-i",
        "0.01",
        "-W",
        "1",
        b.address,
    ]
    started = now()
    try:
        result = ex.run(a, argv, 20)
    except ProcessInterrupted:
        raise Stopped from None
    m = _RTT.search(result.stdout)
    return Step(0, raw_output("ping", result, started), []), float(m.group(1)) if m else None
