"""The network between hosts reached over ssh (the lab's ``lab up --ssh`` inventory): ping
round trips and a short iperf3 per pair, run on the hosts themselves, as a user would run
them by hand. The servers are recorded before they start (``cephbench cleanup`` stops them
after a kill) and stopped however the probe ends."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from cephbench.errors import ParseError, ToolFailed
from cephbench.hosts.remote import start_daemons, stop_daemons
from cephbench.hosts.ssh import Ssh
from cephbench.model import WorkloadOutcome, now
from cephbench.system.process import ProcessInterrupted
from cephbench.tools.base import Step, Stopped, raw_output
from cephbench.tools.iperf3 import driver as iperf3

if TYPE_CHECKING:
    from cephbench.hosts.inventory import Host
    from cephbench.store import ResourceLog

CONNECT_RETRIES = 20


@contextmanager
def servers(
    ssh: Ssh, hosts: list[Host], port: int, run_id: int, resources: ResourceLog
) -> Iterator[None]:
    """An iperf3 server on every host for the block, all started at once; all stopped
    afterwards, at once too."""
    pidfiles = {h.name: f"/tmp/cephbench-iperf3-{run_id}-{h.name}.pid" for h in hosts}
    argvs = {h.name: iperf3.server_argv(h.address, port, pidfiles[h.name]) for h in hosts}
    procs = start_daemons(ssh, argvs, kind="iperf3", resources=resources, pidfiles=pidfiles)
    try:
        yield
    finally:
        stop_daemons(ssh, procs, resources)


def pings(ssh: Ssh, pairs: list[tuple[Host, Host]]) -> list[Step]:
    """``ping`` for every pair (in order), each source host's at once (ping changes nothing)."""
    by_source: dict[str, list[Host]] = {}
    for a, b in pairs:
        by_source.setdefault(a.name, []).append(b)
    sources = list({a.name: a for a, _ in pairs}.values())
    got = ssh.each(sources, lambda a: {b.name: ping(ssh, a, b) for b in by_source[a.name]})
    return [got[a.name][b.name] for a, b in pairs]


def ping(ssh: Ssh, a: Host, b: Host) -> Step:
    """10 pings from ``a`` to ``b`` (10 ms apart as root, 200 ms otherwise)."""
    gap = "0.01" if a.user == "root" else "0.2"
    argv = ["ping", "-q", "-c", "10", "-i", gap, "-W", "1", b.address]
    started = now()
    try:
        result = ssh.run(a, argv, timeout=20, check=False)
    except ProcessInterrupted:
        raise Stopped from None
    return Step(0, raw_output("ping", result, started), [])


def pair(ssh: Ssh, a: Host, b: Host, port: int, seconds: int) -> Step:
    """iperf3 from ``a`` to ``b`` (what ``b`` received), as the network suite's pair."""
    name = f"{a.name}->{b.name}"
    argv = iperf3.client_argv(b.address, port, seconds, bind=a.address)
    for _attempt in range(CONNECT_RETRIES):  # a server may not listen yet right after it began
        started, t0 = now(), time.monotonic()
        try:
            result = ssh.run(a, argv, timeout=seconds + 60, check=False)
        except ProcessInterrupted:
            raise Stopped from None
        if "Connection refused" not in result.stdout:
            break
        time.sleep(0.1)
    raw = raw_output("iperf3", result, started)
    try:
        outcome = WorkloadOutcome(name, (iperf3.parse(result.stdout, name),))
    except (ParseError, ToolFailed) as e:
        outcome = WorkloadOutcome(name, error=str(e))
    return Step(0, raw, [outcome], [(t0, time.monotonic())])
