"""The ``network`` suite: iperf3 between every ordered pair of hosts, with ping's RTT and an
MTU check per pair, stored as one workload per directed pair (``host0->host1``): an N×N
matrix.

Hosts come from ``--hosts`` (lab, ceph, a file, h1,h2,...); without it, the running lab's.
A lab started without ``--ssh`` is reached through its namespaces, everything else over ssh
(:mod:`.hostexec`). Per repeat:

1. on every host, the MTU of the interface holding its address and the ports in use;
2. per pair, ping's RTT (idle network) and ``ping -M do`` at the sender's MTU;
3. iperf3 servers on free ports of every host (recorded before they start, always stopped),
   then per pair ``--streams-procs`` client processes at once, each to its own server port
   (Debian 12's iperf3 3.12 runs all streams of a process on one thread: one process may
   not fill a fast link); one pair at a time, or every pair at once (``--all-pairs-at-once``).

The pair's figures are the sums over its processes (received bits/s, sent bits/s,
retransmits); ``rtt_ms`` is ping's average, ``mtu`` the sender's MTU in bytes and ``mtu_ok``
1 when packets of that size crossed unfragmented, else 0.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from cephbench.errors import CephbenchError, ParseError, ToolFailed, UsageError
from cephbench.lab.paths import Layout
from cephbench.lab.state import LabState, load
from cephbench.model import Result, WorkloadOutcome, now
from cephbench.system.process import ProcessResult
from cephbench.tools.base import RunContext, Step, raw_output
from cephbench.tools.iperf3 import driver as iperf3
from cephbench.tools.iperf3 import probe
from cephbench.tools.iperf3.checks import PairChecks, pair_checks
from cephbench.tools.iperf3.fanout import PROBE_TIMEOUT, bind, together
from cephbench.tools.iperf3.hostexec import (
    HostExec,
    NetHost,
    NetnsExec,
    Server,
    SshExec,
    thread_log,
)
from cephbench.tools.iperf3.options import NetworkOptions

LISTEN_SECONDS = 10.0
CONNECT_RETRIES = 20
SKEW_SHARE = 0.05
"""A pair's processes starting further apart than this share of the runtime get a warning."""


# -- which hosts, reached how ---------------------------------------------------------------


def _lab_state(lab_dir: str) -> LabState:
    """The state of the lab, with two hosts or more; a clear error elsewhere."""
    state = load(Layout(Path(lab_dir)))
    if state is None or len(state.namespaces) < 2:
        raise UsageError(
            "the lab has a single host: there is no network between hosts to measure",
            hint="cephbench lab down && cephbench lab up --hosts 2",
        )
    return state


def executor(ctx: RunContext) -> HostExec:
    """The hosts of ``--hosts`` (or the running lab's), through namespaces or ssh."""
    from cephbench.hosts.load import load_inventory, load_lab

    lab_dir = ctx.conn.lab_dir
    spec = ctx.options.hosts or ("lab" if lab_dir else None)
    if spec is None:
        raise UsageError(
            "the network suite needs the hosts to measure between",
            hint="--hosts ceph (the cluster's hosts, over ssh), --hosts FILE or --hosts h1,h2",
        )
    if spec == "lab":
        if lab_dir is None:
            raise UsageError("--hosts lab needs a running lab", hint="cephbench lab up --hosts 3")
        state = _lab_state(lab_dir)
        avoid = tuple(r for r in (state.mon_ports, state.bind_ports) if r)
        if (Path(lab_dir) / "inventory.yaml").is_file():
            inv = load_lab(Path(lab_dir))
            ssh_exec = SshExec(inv, ctx.resources)
            ssh_exec.avoid_ports = avoid
            return _two_or_more(ssh_exec)
        hosts = [
            NetHost(f"host{i}", addr)
            for i, addr in enumerate(state.host_addrs[: len(state.namespaces)])
        ]
        names = {h.name: ns for h, ns in zip(hosts, state.namespaces, strict=True)}
        return NetnsExec(hosts, names, ctx.resources, ctx.run_id, avoid)
    return _two_or_more(SshExec(load_inventory(spec, ctx.conn), ctx.resources))


def _two_or_more(ex: HostExec) -> HostExec:
    if len(ex.hosts) < 2:
        ex.close()
        raise UsageError(
            f"the network suite needs two hosts or more; --hosts gives {len(ex.hosts)}",
            hint="name more hosts: --hosts h1,h2,...",
        )
    return ex


# -- iperf3 servers ------------------------------------------------------------------------


@contextmanager
def servers(ex: HostExec, count: dict[str, int]) -> Iterator[ServerSet]:
    """``count[host]`` iperf3 servers on free ports of each host, listening when the block
    starts, every one stopped when it ends (success, error or Ctrl-C). Hosts are set up at
    the same time, each from its own thread (and its own connection to the store)."""
    running = ServerSet(ex)
    try:
        taken = together(
            [bind(ex.run, h, probe.SS_ARGV, PROBE_TIMEOUT) for h in ex.hosts], running.stop_all
        )
        plan = []
        for h, ss in zip(ex.hosts, taken, strict=True):
            busy = probe.listening_ports(ss.stdout) if ss.returncode == 0 else set()
            plan.append((h, probe.free_ports(busy, count.get(h.name, 0), ex.avoid_ports)))
        together([bind(running.start, h, ports) for h, ports in plan if ports], running.stop_all)
        running.wait_listening()
        yield running
    finally:
        running.stop_all()


class ServerSet:
    """The servers of a repeat: ``ports[host]`` in start order."""

    def __init__(self, ex: HostExec):
        self.ex = ex
        self.servers: list[Server] = []
        self.ports: dict[str, list[int]] = {}

    def start(self, host: NetHost, ports: list[int]) -> None:
        """Servers on ``ports`` of ``host``, one after the other (from a worker thread)."""
        with thread_log(self.ex.resources) as log:
            for port in ports:
                pidfile = self.ex.pidfile(host, port, log)
                argv = iperf3.server_argv(host.address, port, pidfile)
                server = self.ex.start_server(host, argv, port, pidfile, log)
                self.servers.append(server)
                self.ports.setdefault(host.name, []).append(port)

    def wait_listening(self) -> None:
        """Until every server's port listens on its host (ToolFailed after LISTEN_SECONDS)."""
        deadline = time.monotonic() + LISTEN_SECONDS
        hosts = [h for h in self.ex.hosts if self.ports.get(h.name)]
        while hosts:
            results = together([bind(self.ex.run, h, probe.SS_ARGV, PROBE_TIMEOUT) for h in hosts])
            hosts = [
                h
                for h, ss in zip(hosts, results, strict=True)
                if not set(self.ports[h.name]) <= probe.listening_ports(ss.stdout)
            ]
            if hosts and time.monotonic() > deadline:
                h = hosts[0]
                raise ToolFailed(
                    f"the iperf3 servers on {h.name} (ports {self.ports[h.name]}) do not listen",
                    hint="is iperf3 installed there, and the ports free? try: iperf3 -s",
                )
            if hosts:
                time.sleep(0.05)

    def stop_all(self) -> None:
        """Stop every server still running, each host's from its own thread; the first
        failure raised once all are done."""
        by_host: dict[str, list[Server]] = {}
        while self.servers:
            server = self.servers.pop()
            by_host.setdefault(server.host.name, []).append(server)
        together([bind(self._stop, group) for group in by_host.values()])

    def _stop(self, group: list[Server]) -> None:
        first: CephbenchError | None = None
        with thread_log(self.ex.resources) as log:
            for server in group:
                try:
                    self.ex.stop_server(server, log)
                except CephbenchError as e:
                    first = first or e
        if first is not None:
            raise first


# -- the suite ------------------------------------------------------------------------------


def network_options(ctx: RunContext) -> NetworkOptions:
    return ctx.options.network


def network_steps(ctx: RunContext, repeat: int) -> Iterator[Step]:
    opts = network_options(ctx)
    seconds = max(1, int(ctx.plan.runtime or 10))
    ex = executor(ctx)
    try:
        hosts = ex.hosts
        pairs = [(a, b) for a in hosts for b in hosts if a != b]
        checks, host_raws = pair_checks(ex, pairs)
        for raw in [*host_raws, *(r for c in checks.values() for r in c.raws)]:
            yield Step(repeat, raw, [])
        per_host = opts.procs * (len(hosts) - 1 if opts.all_pairs_at_once else 1)
        with servers(ex, {h.name: per_host for h in hosts}) as running:
            if opts.all_pairs_at_once:
                yield from _mesh(ctx, ex, running, pairs, checks, repeat, seconds, opts.procs)
            else:
                for a, b in pairs:
                    ctx.before_each()
                    ports = running.ports[b.name][: opts.procs]
                    outs = together(
                        [bind(_client, ex, a, b, p, seconds) for p in ports], running.stop_all
                    )
                    yield from _pair_steps(f"{a.name}->{b.name}", outs, checks, repeat, seconds)
    finally:
        ex.close()


def _mesh(
    ctx: RunContext,
    ex: HostExec,
    running: ServerSet,
    pairs: list[tuple[NetHost, NetHost]],
    checks: dict[str, PairChecks],
    repeat: int,
    seconds: int,
    procs: int,
) -> Iterator[Step]:
    """Every pair at once: sender a's k-th process to receiver b's port
    ``slot(a) * procs + k``, ``slot(a)`` the index of a among b's peers."""
    ctx.before_each()
    calls, names = [], []
    for a, b in pairs:
        peers = [h.name for h in ex.hosts if h.name != b.name]
        slot = peers.index(a.name)
        for port in running.ports[b.name][slot * procs : (slot + 1) * procs]:
            calls.append(bind(_client, ex, a, b, port, seconds))
            names.append(f"{a.name}->{b.name}")
    outs = together(calls, running.stop_all)
    by_pair: dict[str, list[ClientRun]] = {}
    for name, out in zip(names, outs, strict=True):
        by_pair.setdefault(name, []).append(out)
    for name, runs in by_pair.items():
        yield from _pair_steps(name, runs, checks, repeat, seconds)


@dataclass(frozen=True)
class ClientRun:
    result: ProcessResult
    started: str
    window: tuple[float, float]


def _client(ex: HostExec, a: NetHost, b: NetHost, port: int, seconds: int) -> ClientRun:
    """One iperf3 client on ``a`` sending to ``b``'s server on ``port``."""
    argv = iperf3.client_argv(b.address, port, seconds, bind=a.address)
    for _attempt in range(CONNECT_RETRIES):  # a server that listens may not accept yet
        started, t0 = now(), time.monotonic()
        result = ex.run(a, argv, seconds + 60)
        if "Connection refused" not in result.stdout:
            break
        time.sleep(0.1)
    return ClientRun(result, started, (t0, time.monotonic()))


def pair_flags(metrics: dict[str, float], skew: float, seconds: int) -> tuple[str, ...]:
    """A pair's validity flags: its processes started apart (``procs_skewed``), its MTU
    check failed (``mtu_fails``), ping got no reply (``no_rtt``)."""
    flags = []
    if skew > SKEW_SHARE * seconds:
        flags.append("procs_skewed")
    if metrics.get("mtu_ok") == 0:
        flags.append("mtu_fails")
    if "rtt_ms" not in metrics:
        flags.append("no_rtt")
    return tuple(flags)


def start_skew(runs: list[ClientRun]) -> float:
    """Seconds between the first and the last start of a pair's processes (as started here:
    an ssh session's set-up delays its process)."""
    starts = [r.window[0] for r in runs]
    return max(starts) - min(starts) if starts else 0.0


def _pair_steps(
    name: str, runs: list[ClientRun], checks: dict[str, PairChecks], repeat: int, seconds: int
) -> Iterator[Step]:
    """The pair's client outputs (stored as they are), then its one workload."""
    for r in runs[:-1]:
        yield Step(repeat, raw_output("iperf3", r.result, r.started), [])
    last = runs[-1]
    window = (min(r.window[0] for r in runs), max(r.window[1] for r in runs))
    c = checks.get(name, PairChecks())
    warnings = list(c.warnings)
    flags = pair_flags(c.metrics, start_skew(runs), seconds)
    try:
        parts = [iperf3.parse(r.result.stdout, name, repeat) for r in runs]
        result = replace(combine(parts, name, repeat, c.metrics), flags=flags)
        outcome = WorkloadOutcome(name, (result,), warnings=tuple(warnings))
    except (ParseError, ToolFailed) as e:
        outcome = WorkloadOutcome(name, error=str(e), warnings=tuple(warnings))
    yield Step(repeat, raw_output("iperf3", last.result, last.started), [outcome], [window])


def combine(parts: list[Result], name: str, repeat: int, extra: dict[str, float]) -> Result:
    """One pair's figures from its processes' (they ran at the same time): bits/s, bytes and
    retransmits summed, the longest runtime; ``extra`` (ping's) added to the metrics."""
    metrics: dict[str, float] = {}
    for key in ("bits_per_second", "sent_bits_per_second", "retransmits"):
        values = [dict(p.metrics).get(key) for p in parts]
        if values and all(v is not None for v in values):
            metrics[key] = sum(v for v in values if v is not None)
    metrics["processes"] = float(len(parts))
    metrics.update(extra)
    received = metrics.get("bits_per_second")
    io = [p.io_bytes for p in parts]
    return Result(
        workload=name,
        repeat=repeat,
        op="write",
        rw=parts[0].rw,
        numjobs=len(parts),
        runtime_s=max((p.runtime_s for p in parts if p.runtime_s is not None), default=None),
        bw_bytes_per_s=received / 8 if received is not None else None,
        io_bytes=sum(i for i in io if i is not None) if all(i is not None for i in io) else None,
        metrics=tuple(sorted(metrics.items())),
    )
