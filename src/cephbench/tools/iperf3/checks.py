"""The network suite's checks of each directed pair before iperf3 runs: ping's RTT on the idle
network, and ``ping -M do`` at the sender's MTU (read from the interface holding its address):
whether packets that big cross unfragmented."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from cephbench.errors import ParseError
from cephbench.model import RawOutput, now
from cephbench.system.process import ProcessResult
from cephbench.tools.base import raw_output
from cephbench.tools.iperf3 import ping, probe
from cephbench.tools.iperf3.fanout import PROBE_TIMEOUT, bind, together
from cephbench.tools.iperf3.hostexec import HostExec, NetHost


@dataclass
class PairChecks:
    """What ping found on one directed pair, and the outputs it came from."""

    metrics: dict[str, float] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    raws: list[RawOutput] = field(default_factory=list)


def host_mtus(ex: HostExec) -> dict[str, tuple[int | None, str | None, RawOutput]]:
    """Per host: (MTU of the interface holding its address, or None with why, the output)."""

    def one(h: NetHost) -> tuple[int | None, str | None, RawOutput]:
        started = now()
        result = ex.run(h, probe.IP_ADDR_ARGV, PROBE_TIMEOUT)
        raw = raw_output("ip", result, started)
        if not _is_ip(h.address):
            return None, f"{h.name}'s address {h.address} is a name, not an IP", raw
        try:
            found = probe.interface_mtu(result.stdout, h.address)
        except ParseError as e:
            return None, f"{h.name}: {e}", raw
        if found is None:
            return None, f"no interface of {h.name} holds {h.address}", raw
        return found[1], None, raw

    found = together([bind(one, h) for h in ex.hosts])
    return dict(zip((h.name for h in ex.hosts), found, strict=True))


def _is_ip(address: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_address(address)
    except ValueError:
        return False
    return True


def pair_checks(
    ex: HostExec, pairs: list[tuple[NetHost, NetHost]]
) -> tuple[dict[str, PairChecks], list[RawOutput]]:
    """RTT and MTU of every pair (all at once: a few small packets each), and the hosts'
    ``ip -j addr`` outputs the MTUs were read from."""
    mtus = host_mtus(ex)
    out = {f"{a.name}->{b.name}": PairChecks() for a, b in pairs}
    for a, b in pairs:
        why = mtus[a.name][1]
        if why:
            out[f"{a.name}->{b.name}"].warnings.append(f"MTU check skipped: {why}")
    calls: list[Callable[[], tuple[str, str, ProcessResult, str]]] = []
    for a, b in pairs:
        name = f"{a.name}->{b.name}"
        calls.append(bind(_ping, ex, a, ping.rtt_argv(b.address), name, "rtt"))
        mtu = mtus[a.name][0]
        if mtu is not None:
            calls.append(bind(_ping, ex, a, ping.mtu_argv(b.address, mtu), name, "mtu"))
    for name, what, result, started in together(calls):
        checks = out[name]
        checks.raws.append(raw_output("ping", result, started))
        try:
            p = ping.parse(result.stdout, result.stderr)
        except ParseError as e:
            checks.warnings.append(f"ping ({what}): {e}")
            continue
        if what == "rtt":
            if p.rtt_avg_ms is None:
                checks.warnings.append(f"no ping reply from {name.split('->')[1]}: no RTT")
            else:
                checks.metrics["rtt_ms"] = p.rtt_avg_ms
        else:
            sender = name.split("->")[0]
            mtu = mtus[sender][0]
            assert mtu is not None, "an MTU check runs only where the MTU is known"
            checks.metrics["mtu"] = float(mtu)
            checks.metrics["mtu_ok"] = 1.0 if p.answered else 0.0
            if not p.answered:
                checks.warnings.append(
                    f"{mtu}-byte packets (the MTU of {sender}) do not cross unfragmented"
                    + (f"; the path's MTU is {p.mtu_reported}" if p.mtu_reported else "")
                    + ": check the MTU on both hosts and the switches between them"
                )
    return out, [raw for _mtu, _why, raw in mtus.values()]


def _ping(
    ex: HostExec, a: NetHost, argv: list[str], name: str, what: str
) -> tuple[str, str, ProcessResult, str]:
    started = now()
    return name, what, ex.run(a, argv, PROBE_TIMEOUT), started
