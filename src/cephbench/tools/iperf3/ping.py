"""ping (iputils) for the network suite: the argv of the RTT and MTU checks, and a pure
parser of what ping prints.

The RTT check is ``ping -q``: only the summary, ``rtt min/avg/max/mdev = a/b/c/d ms``. The
MTU check sends packets of the sender's MTU with fragmentation forbidden (``-M do -s MTU-28``
for IPv4: 20 bytes of IP header and 8 of ICMP) and is not quiet: iputils prints a local
``message too long, mtu=N`` error only then. The path holds the MTU when a packet came back;
a smaller MTU on the peer or on a switch drops them silently (100 % loss).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

from cephbench.errors import ParseError

RTT_COUNT = 5
MTU_COUNT = 3
INTERVAL = "0.2"  # the shortest interval iputils allows a user who is not root
HEADERS = {4: 28, 6: 48}
"""IP + ICMP header bytes: ``-s`` is the payload, the MTU is the whole packet."""

STATS = re.compile(
    r"^(?P<tx>\d+) packets transmitted, (?P<rx>\d+) (?:packets )?received"
    r"(?:, \+(?P<err>\d+) errors)?",
    re.MULTILINE,
)
RTT = re.compile(
    r"^(?:rtt|round-trip) min/avg/max(?:/(?:mdev|stddev))? = "
    r"(?P<min>[\d.]+)/(?P<avg>[\d.]+)/(?P<max>[\d.]+)(?:/(?P<mdev>[\d.]+))? ms",
    re.MULTILINE,
)
LOCAL_MTU = re.compile(r"message too long, mtu=(?P<mtu>\d+)|\(mtu = (?P<frag>\d+)\)")


@dataclass(frozen=True)
class Ping:
    """What one ping run printed: packets, errors, RTTs in ms (None without a reply), and
    the MTU a local error or an ICMP "Frag needed" named (None when none did)."""

    transmitted: int
    received: int
    errors: int = 0
    rtt_min_ms: float | None = None
    rtt_avg_ms: float | None = None
    rtt_max_ms: float | None = None
    rtt_mdev_ms: float | None = None
    mtu_reported: int | None = None

    @property
    def answered(self) -> bool:
        return self.received > 0


def parse(stdout: str, stderr: str = "") -> Ping:
    """The statistics of one run; ParseError when ping printed none (it did not run)."""
    text = f"{stdout}\n{stderr}"
    stats = STATS.search(text)
    if stats is None:
        line = (stderr or stdout).strip().splitlines()
        raise ParseError(f"ping printed no statistics: {line[-1] if line else 'nothing'}")
    rtt = RTT.search(text)
    mtu = LOCAL_MTU.search(text)

    def ms(key: str) -> float | None:
        return float(rtt[key]) if rtt and rtt[key] else None

    return Ping(
        transmitted=int(stats["tx"]),
        received=int(stats["rx"]),
        errors=int(stats["err"] or 0),
        rtt_min_ms=ms("min"),
        rtt_avg_ms=ms("avg"),
        rtt_max_ms=ms("max"),
        rtt_mdev_ms=ms("mdev"),
        mtu_reported=int(mtu["mtu"] or mtu["frag"]) if mtu else None,
    )


def family(address: str) -> int:
    """4 or 6 for an IP literal; 4 for a name (the MTU check assumes IPv4 headers then)."""
    try:
        return ipaddress.ip_address(address).version
    except ValueError:
        return 4


def rtt_argv(address: str) -> list[str]:
    """A few echo requests, quiet: the round-trip summary only (bounded by ``-w``)."""
    return ["ping", "-q", "-n", "-c", str(RTT_COUNT), "-i", INTERVAL, "-w", str(RTT_COUNT), address]


def mtu_argv(address: str, mtu: int) -> list[str]:
    """Packets of ``mtu`` bytes that must not be fragmented (``-M do``)."""
    size = mtu - HEADERS[family(address)]
    if size < 0:
        raise ValueError(f"an MTU of {mtu} bytes holds no ICMP payload")
    return [
        "ping",
        "-n",
        "-M",
        "do",
        "-s",
        str(size),
        "-c",
        str(MTU_COUNT),
        "-i",
        INTERVAL,
        "-w",
        str(MTU_COUNT),
        address,
    ]
