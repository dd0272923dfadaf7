"""What the network suite reads on a host before it measures: the MTU of the interface
holding the host's address (``ip -j addr``) and the TCP ports already listening
(``ss -Hltn``), so that iperf3 servers go on free ports. Pure functions of the outputs."""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable

from cephbench.errors import ParseError, ToolFailed

IP_ADDR_ARGV = ["ip", "-j", "addr"]
SS_ARGV = ["ss", "-Hltn"]
FIRST_PORT = 5201  # iperf3's own default
LAST_PORT = 65535


def interface_mtu(ip_json: str, address: str) -> tuple[str, int] | None:
    """(interface, MTU) of the interface that holds ``address``; None when none does."""
    try:
        links = json.loads(ip_json)
        want = ipaddress.ip_address(address)
    except ValueError as e:
        raise ParseError(f"ip -j addr: {e}") from None
    if not isinstance(links, list):
        raise ParseError("ip -j addr printed no list of interfaces")
    for link in links:
        if not isinstance(link, dict):
            continue
        for info in link.get("addr_info") or ():
            try:
                holds = ipaddress.ip_address(str(info.get("local"))) == want
            except ValueError:
                continue
            if holds and isinstance(link.get("mtu"), int):
                return str(link.get("ifname")), link["mtu"]
    return None


def listening_ports(ss_text: str) -> set[int]:
    """TCP ports in ``ss -Hltn`` output (state, queues, local address:port, peer)."""
    ports = set()
    for line in ss_text.splitlines():
        fields = line.split()
        if len(fields) < 5 or fields[0] != "LISTEN":
            continue
        port = fields[3].rpartition(":")[2]
        if not port.isdigit():
            raise ParseError(f"ss: no port in {fields[3]!r}")
        ports.add(int(port))
    return ports


def free_ports(
    taken: Iterable[int],
    count: int,
    avoid: Iterable[tuple[int, int]] = (),
    first: int = FIRST_PORT,
) -> list[int]:
    """``count`` ports from ``first`` up that nothing listens on and no ``avoid`` range
    (inclusive; the lab's daemons' port blocks) covers."""
    busy, ranges = set(taken), list(avoid)
    out: list[int] = []
    port = first
    while len(out) < count:
        if port > LAST_PORT:
            raise ToolFailed(f"fewer than {count} free TCP ports from {first} up")
        if port not in busy and not any(lo <= port <= hi for lo, hi in ranges):
            out.append(port)
        port += 1
    return out
