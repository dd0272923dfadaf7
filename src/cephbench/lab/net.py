"""The lab's network: loopback for one host; for several, a namespace per host on a bridge.

Names all start with ``cb-<lab id>-`` so a lab only ever touches its own links. Creation
and removal go through ``ip``/``tc``; choosing addresses and ports is pure or read-only.
"""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import json
import os
import random
import socket
from collections.abc import Iterator
from pathlib import Path

from cephbench.lab.errors import LabError
from cephbench.lab.spec import rate_bits
from cephbench.system.process import run

LOOPBACK = "127.0.0.1"
SUBNET_PREFIX = "10.254"
PORT_RANGE = (10000, 32767)  # below Linux's default ephemeral range (32768-60999)


def bridge_name(lab_id: str) -> str:
    return f"cb-{lab_id}-br"


def veth_name(lab_id: str, host: int) -> str:
    return f"cb-{lab_id}-h{host}"


def netns_name(lab_id: str, host: int) -> str:
    return f"cb-{lab_id}-host{host}"


def host_addrs(subnet: str | None, hosts: int) -> list[str]:
    """Address of each host: loopback for a single host, else .11, .12... of the subnet."""
    if subnet is None:
        return [LOOPBACK]
    return [f"{subnet}.{11 + h}" for h in range(hosts)]


LOCK = Path("/run/cephbench")


@contextlib.contextmanager
def subnet_lock() -> Iterator[None]:
    """Held from choosing a free subnet until its bridge has its address: two labs coming up
    at once (two test workers) must not both take the first free one. The lock is on the
    directory cephbench keeps in /run (no file of its own to leave behind)."""
    LOCK.mkdir(parents=True, exist_ok=True)
    fd = os.open(LOCK, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def choose_subnet(used: list[str]) -> str:
    """A free 10.254.x.0/24 ("10.254.x") that overlaps none of the ``used`` networks."""
    taken = [ipaddress.ip_network(n, strict=False) for n in used]
    for x in range(254, 0, -1):
        net = ipaddress.ip_network(f"{SUBNET_PREFIX}.{x}.0/24")
        if not any(net.overlaps(t) for t in taken if t.version == 4):
            return f"{SUBNET_PREFIX}.{x}"
    raise LabError(f"no free /24 left in {SUBNET_PREFIX}.0.0/16 for the lab's bridge")


def used_networks() -> list[str]:
    """Every IPv4 network the machine has an address in or a route to."""
    nets = []
    for entry in json.loads(run(["ip", "-j", "-4", "addr"], check=True).stdout or "[]"):
        for a in entry.get("addr_info", []):
            nets.append(f"{a['local']}/{a['prefixlen']}")
    for r in json.loads(run(["ip", "-j", "-4", "route"], check=True).stdout or "[]"):
        if r.get("dst") not in (None, "default"):
            nets.append(r["dst"])
    return nets


def _port_free(addr: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind((addr, port))
        except OSError:
            return False
    return True


def free_port_block(addr: str, count: int, rng: random.Random | None = None) -> int:
    """First port of ``count`` consecutive TCP ports nothing is bound to on ``addr``."""
    rng = rng or random.Random()
    low, high = PORT_RANGE
    for _ in range(200):
        first = rng.randrange(low, high - count)
        if all(_port_free(addr, p) for p in range(first, first + count)):
            return first
    raise LabError(f"found no {count} consecutive free ports on {addr} in {low}-{high}")


def tbf_args(rate: str) -> list[str]:
    """tc arguments for a token bucket at ``rate``, with a burst of 10 ms of traffic."""
    burst = max(256 * 1024, rate_bits(rate) // 8 // 100)
    return ["tbf", "rate", rate, "burst", str(burst), "latency", "100ms"]


def _ip(*args: str) -> None:
    run(["ip", *args], check=True, timeout=30)


def netns_exists(name: str) -> bool:
    return Path("/run/netns", name).exists()


def link_exists(name: str) -> bool:
    return Path("/sys/class/net", name).exists()


def create_bridge(name: str, subnet: str) -> None:
    """The bridge every host's link joins; the machine itself is .1 on it."""
    if link_exists(name):
        raise LabError(f"a network link named {name} already exists", hint="another lab?")
    _ip("link", "add", name, "type", "bridge")
    _ip("addr", "add", f"{subnet}.1/24", "dev", name)
    _ip("link", "set", name, "up")


def create_netns(name: str) -> None:
    if netns_exists(name):
        raise LabError(f"a network namespace named {name} already exists", hint="another lab?")
    _ip("netns", "add", name)
    _ip("-n", name, "link", "set", "lo", "up")


def create_host_link(veth: str, netns: str, bridge: str, addr: str, rate: str | None) -> None:
    """A veth pair: ``veth`` on the bridge, eth0 with ``addr`` in the namespace; tbf both ways."""
    if link_exists(veth):
        raise LabError(f"a network link named {veth} already exists", hint="another lab?")
    _ip("link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", netns)
    _ip("link", "set", veth, "master", bridge, "up")
    _ip("-n", netns, "addr", "add", f"{addr}/24", "dev", "eth0")
    _ip("-n", netns, "link", "set", "eth0", "up")
    if rate:
        run(["tc", "qdisc", "add", "dev", veth, "root", *tbf_args(rate)], check=True)
        run(["tc", "-n", netns, "qdisc", "add", "dev", "eth0", "root", *tbf_args(rate)], check=True)


def delete_link(name: str) -> None:
    """Remove link ``name`` (both ends of a veth) if it is there."""
    if link_exists(name):
        run(["ip", "link", "del", name], timeout=30)


def delete_netns(name: str) -> None:
    if netns_exists(name):
        run(["ip", "netns", "del", name], timeout=30)
