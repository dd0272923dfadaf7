"""The ``network`` suite: iperf3 between every ordered pair of the cluster's hosts.

In the lab, hosts are network namespaces: cephbench starts an iperf3 server inside each
(recorded first, stopped afterwards, by pid after checking its command line) and runs the
client from the other. A real cluster needs remote execution, which this version lacks.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError, ParseError, ToolFailed, UsageError
from cephbench.execution.cleanup import undoes
from cephbench.lab.paths import Layout
from cephbench.lab.state import LabState, load
from cephbench.model import WorkloadOutcome, now
from cephbench.store import Resource
from cephbench.system.process import ProcessInterrupted, run, which
from cephbench.tools.base import RunContext, Step, Stopped, raw_output
from cephbench.tools.iperf3 import driver as iperf3

PORT = 5201
CONNECT_RETRIES = 20


@dataclass(frozen=True)
class Host:
    name: str
    netns: str
    addr: str


def lab_hosts(conn: Connection) -> list[Host]:
    """The lab's hosts (namespaces and addresses); a clear error anywhere else."""
    state = _lab_state(conn)
    return [
        Host(f"host{i}", ns, addr)
        for i, (ns, addr) in enumerate(zip(state.namespaces, state.host_addrs, strict=True))
    ]


def _lab_state(conn: Connection) -> LabState:
    """The state of the lab ``conn`` is in, with two hosts or more; a clear error elsewhere."""
    if conn.lab_dir is None:
        raise CephbenchError(
            "the network suite needs to run iperf3 on the cluster's hosts, and remote execution "
            "is not in this version of cephbench",
            hint="run it in the lab (cephbench lab up --hosts 2), or run iperf3 between your hosts by hand",
        )
    state = load(Layout(Path(conn.lab_dir)))
    if state is None or len(state.namespaces) < 2:
        raise UsageError(
            "the lab has a single host: there is no network between hosts to measure",
            hint="cephbench lab down && cephbench lab up --hosts 2",
        )
    return state


def _port(conn: Connection) -> int:
    """A port no lab daemon binds: 5201 unless the lab's port blocks cover it."""
    state = _lab_state(conn)
    taken = [r for r in (state.mon_ports, state.bind_ports) if r]
    port = PORT
    while any(lo <= port <= hi for lo, hi in taken):
        port += 1
    return port


def _pid_of(pidfile: str) -> int | None:
    """The iperf3 server's pid from its pidfile, only if that process is the one we started."""
    try:
        pid = int(Path(pidfile).read_text().strip().rstrip("\0"))
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
    except (OSError, ValueError):
        return None
    return pid if "iperf3" in cmdline and pidfile in cmdline else None


def stop_server(pidfile: str) -> None:
    pid = _pid_of(pidfile)
    if pid is not None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
        for _ in range(50):
            if _pid_of(pidfile) is None:
                break
            time.sleep(0.05)
    Path(pidfile).unlink(missing_ok=True)


@contextmanager
def servers(ctx: RunContext, hosts: list[Host], port: int) -> Iterator[None]:
    """An iperf3 server in every host's namespace for the block; all stopped afterwards."""
    which("iperf3")
    with ExitStack() as stack:
        for h in hosts:
            pidfile = f"{tempfile.gettempdir()}/cephbench-iperf3-{ctx.run_id}-{h.name}.pid"
            rid = ctx.resources.add("iperf3_server", h.name, {"pidfile": pidfile, "netns": h.netns})
            stack.callback(ctx.resources.removed, rid)
            stack.callback(stop_server, pidfile)
            run(
                ["ip", "netns", "exec", h.netns, *iperf3.server_argv(h.addr, port, pidfile)],
                timeout=15,
                check=True,
            )
            deadline = time.monotonic() + 10
            while _pid_of(pidfile) is None:
                if time.monotonic() > deadline:
                    raise ToolFailed(f"the iperf3 server in {h.name} did not start")
                time.sleep(0.05)
        yield


def network_steps(ctx: RunContext, repeat: int) -> Iterator[Step]:
    hosts = lab_hosts(ctx.conn)
    seconds = max(1, int(ctx.plan.runtime or 10))
    port = _port(ctx.conn)
    with servers(ctx, hosts, port):
        for a in hosts:
            for b in hosts:
                if a == b:
                    continue
                ctx.before_each()
                yield _pair(ctx, repeat, a, b, port, seconds)


def _pair(ctx: RunContext, repeat: int, a: Host, b: Host, port: int, seconds: int) -> Step:
    name = f"{a.name}->{b.name}"
    argv = ["ip", "netns", "exec", a.netns, *iperf3.client_argv(b.addr, port, seconds, bind=a.addr)]
    for _attempt in range(CONNECT_RETRIES):  # the server may not listen yet right after it started
        started, t0 = now(), time.monotonic()
        try:
            result = run(argv, timeout=seconds + 60)
        except ProcessInterrupted:
            raise Stopped from None
        if "Connection refused" not in result.stdout:
            break
        time.sleep(0.1)
    raw = raw_output("iperf3", result, started)
    try:
        outcome = WorkloadOutcome(name, (iperf3.parse(result.stdout, name, repeat),))
    except (ParseError, ToolFailed) as e:
        outcome = WorkloadOutcome(name, error=str(e))
    return Step(repeat, raw, [outcome], [(t0, time.monotonic())])


@undoes("iperf3_server")
def _undo_server(resource: Resource) -> None:
    stop_server(resource.detail["pidfile"])
