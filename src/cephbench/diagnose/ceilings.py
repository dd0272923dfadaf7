"""Ceilings: what the measured parts of a cluster allow a workload, which part limits it, and
how much of it a result got. Pure: capabilities (:class:`Capabilities`, read from a diagnosis
and a run by :mod:`cephbench.diagnose.capability`) and a workload in, an
:class:`Explained` out.

The model, for a workload of block size ``bs`` (client operations per second ``x``):

- **OSD devices and object stores.** Each OSD's write capability at ``bs`` is drawn through
  its two ``osd bench`` points (4 KiB: IOPS; 4 MiB: bandwidth; measured with every OSD
  writing at once, so what they share shows) as a cost per write ``a + bs / B``. A client
  write lands ``size`` times (replicated) or as ``k + m`` chunks of ``bs / k`` (erasure
  coded); OSD ``i`` receives the share of them its PGs hold, so it saturates at
  ``x = cap_i(bs) / (copies x share_i)``. Reads go to the primary: OSD ``i``'s own 4 KiB
  random reads (objects whose primary it is, read on their own:
  :mod:`cephbench.diagnose.read_bench`) over its share of the primaries,
  ``x = read_i / primary_i``, for reads of 4 KiB and less from a replicated pool (larger
  reads, and an erasure-coded pool's, which gather chunks from several OSDs, are not
  modelled).
- **mClock** (Reef and later). An OSD whose client class has a limit (a ``custom``
  profile's ``osd_mclock_scheduler_client_lim``, a fraction of the capacity mClock assumes)
  lets ``x x primary_i`` client ops a second through at most its limit
  (:class:`~cephbench.diagnose.ceiling_inputs.MclockLimit`: an op of ``bs`` bytes costs one
  I/O at that capacity plus its bytes): only the ops it is primary of are client ops to it,
  a replica's sub-ops are scheduled outside the client class.
- **The network.** Host ``h``'s link (iperf3) carries, per client write, the copies its OSDs
  hold (``bs x copies x share_h`` in: the client's to the primary, the primary's to the
  replicas) and the copies its primaries send on (``bs x (copies - 1) x primary_h`` out);
  per client read, ``bs x primary_h`` out. Its ceiling is the link over the larger.
- **CPU.** The CPU seconds the OSD daemons and the client spent per I/O, measured during the
  run from the processes' own accounting (``/proc/PID/stat``), against the cores of the
  machine they share: ``x = cores / cpu_s_per_io``.
- **QD1 latency** has a floor instead: a round trip client to primary, the commit of one
  write on the slowest OSD holding a copy, and (writes with copies) a round trip primary to
  replica.

A ceiling is an upper bound: a result above its ceiling by more than :data:`DEFECT` is a
defect of the model, reported as such (``model_defect``), never hidden.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cephbench.diagnose.ceiling_inputs import (
    POOL_PGS,
    SMALL,
    Capabilities,
    CpuUse,
    OsdCapability,
    Workload,
)
from cephbench.diagnose.ceiling_inputs import size_text as _size
from cephbench.system.cpu_limit import AFFINITY, QUOTA

_LIMITED_BY = {QUOTA: "its cgroup", AFFINITY: "its CPU affinity"}
"""What sets a process' CPU limit, as the ceiling's why says it."""

DEFECT = 1.10
"""A result this far above its ceiling is a defect of the model, said so."""
MCLOCK_HELD = 1.10
"""An OSD's own reads at most this far above its mClock limit were held by it (the read bench
is a client too): they say nothing of its device."""
UNEXPLAINED = 0.30
"""A result below this share of its ceiling is limited by something not measured, said so
(a slow disk's 1M writes stalled at 0.4/s against ceilings of 4-8/s)."""


@dataclass(frozen=True)
class Part:
    """The ceiling one part allows (client IOPS), and why."""

    part: str
    layer: str  # "osd", "network", "cpu", "client"
    iops: float
    why: str

    def to_json(self, bs: int) -> dict[str, Any]:
        return {
            "part": self.part,
            "layer": self.layer,
            "ceiling_iops": round(self.iops, 1),
            "ceiling_bytes_per_s": round(self.iops * bs, 1),
            "why": self.why,
        }


@dataclass(frozen=True)
class Explained:
    workload: Workload
    parts: list[Part]
    not_measured: list[str]
    floor_ms: float | None = None
    floor_why: str | None = None
    early_iops: float = 0.0
    """What the client's cache adds to the measured rate: writes it completed before the OSDs
    had them, spread over the workload's runtime (:mod:`cephbench.diagnose.client_cache`)."""
    early_why: str | None = None

    @property
    def limit(self) -> Part | None:
        return min(self.parts, key=lambda p: p.iops) if self.parts else None

    @property
    def efficiency(self) -> float | None:
        lim, iops = self.limit, self.workload.iops
        return iops / lim.iops if lim and iops is not None and lim.iops > 0 else None

    @property
    def above(self) -> bool:
        """Above the ceiling by more than :data:`DEFECT`."""
        eff = self.efficiency
        return eff is not None and eff > DEFECT

    @property
    def model_defect(self) -> bool:
        """Above the ceiling by more than :data:`DEFECT`, after what the client's cache can
        add: a result no part of the model accounts for."""
        lim, iops = self.limit, self.workload.iops
        if not self.above or lim is None or iops is None:
            return False
        return iops > DEFECT * (lim.iops + self.early_iops)

    def line(self) -> str:
        """The one line a user pastes."""
        w, lim, eff = self.workload, self.limit, self.efficiency
        measured = _measured(w)
        if lim is None or eff is None:
            text = f"{w.label}: {measured}; no ceiling (" + "; ".join(self.not_measured) + ")"
        else:
            text = (
                f"{w.label}: {measured} = {_pct(eff)} of the {_ceiling(w, lim.iops)} that "
                f"{lim.part} allows ({lim.why})"
            )
            if self.model_defect:
                text += f"; ABOVE the ceiling by {_pct(eff - 1)}: a defect of the model"
            elif self.above:
                text += (
                    f"; above the cluster's ceiling by {_pct(eff - 1)}, which the client's "
                    f"cache accounts for: {self.early_why}"
                )
            elif eff < UNEXPLAINED:
                text += (
                    "; far below every ceiling: what limits it was not measured (a part's "
                    "latency under this load, say)"
                )
        if self.floor_ms is not None and w.lat_mean_us:
            text += (
                f"; latency {w.lat_mean_us / 1000:.2f} ms = {w.lat_mean_us / 1000 / self.floor_ms:.1f}x "
                f"the floor {self.floor_ms:.2f} ms ({self.floor_why})"
            )
        return text

    def to_json(self) -> dict[str, Any]:
        w, lim, eff = self.workload, self.limit, self.efficiency
        out: dict[str, Any] = {
            "workload": w.name,
            "op": w.op,
            "rw": w.rw,
            "bs_bytes": w.bs,
            "iodepth": w.iodepth,
            "numjobs": w.numjobs,
            "iops": w.iops,
            "bw_bytes_per_s": w.bw_bytes_per_s,
            "lat_mean_us": w.lat_mean_us,
            "parts": [p.to_json(w.bs) for p in sorted(self.parts, key=lambda p: p.iops)],
            "ceiling_iops": round(lim.iops, 1) if lim else None,
            "ceiling_bytes_per_s": round(lim.iops * w.bs, 1) if lim else None,
            "limiting_part": lim.part if lim else None,
            "limiting_layer": lim.layer if lim else None,
            "efficiency": round(eff, 4) if eff is not None else None,
            "above_ceiling": self.above,
            "client_cache_iops": round(self.early_iops, 2),
            "model_defect": self.model_defect,
            "not_measured": list(self.not_measured),
            "line": self.line(),
        }
        if self.floor_ms is not None:
            out["latency_floor_ms"] = round(self.floor_ms, 4)
            out["latency_floor_why"] = self.floor_why
            if w.lat_mean_us:
                out["latency_over_floor"] = round(w.lat_mean_us / 1000 / self.floor_ms, 3)
        return out


def explain(caps: Capabilities, w: Workload, cpu: CpuUse | None = None) -> Explained:
    """Every part's ceiling for ``w``, the QD1 latency floor, what was not measured."""
    parts: list[Part] = []
    missing = list(caps.notes)
    parts += _osd_parts(caps, w, missing)
    parts += _mclock_parts(caps, w, missing)
    parts += _link_parts(caps, w, missing)
    if cpu is not None and cpu.per_io:
        for machine, (cores, seconds) in cpu.by_machine().items():
            per_io = sum(seconds.values()) / cpu.ios
            if per_io <= 0:
                continue
            spent = ", ".join(
                f"{k} {v / cpu.ios * 1e6:.0f} µs"
                for k, v in sorted(seconds.items(), key=lambda kv: -kv[1])
            )
            parts.append(
                Part(
                    f"{machine}'s CPU",
                    "cpu",
                    cores / per_io,
                    f"{cores:g} cores; {per_io * 1e6:.0f} µs of CPU per I/O: {spent}",
                )
            )
        for proc, allowed in sorted(cpu.limits.items()):
            spent_s = cpu.seconds_by_process.get(proc)
            if spent_s:
                per_io = spent_s / cpu.ios
                parts.append(
                    Part(
                        f"{proc}'s CPU allowance",
                        "cpu",
                        allowed / per_io,
                        f"{_LIMITED_BY.get(cpu.limit_by.get(proc, QUOTA))} allows it "
                        f"{allowed:g} cores; {per_io * 1e6:.0f} µs of its "
                        "CPU per I/O",
                    )
                )
    else:
        missing.append("CPU not measured for this run")
    floor, why, (who, layer) = _floor(caps, w)
    if w.iodepth * w.numjobs != 1:
        # with I/Os in flight BlueStore commits many writes in one device flush: the QD1
        # commit time is no floor of each (the lab's slow disk: 45 ms at QD1, ~1,000 IOPS
        # at QD32, 1.5x what 32 / 45 ms would allow)
        floor, why = None, None
    if floor:
        parts.append(
            Part(
                f"{who} (one I/O at a time)",
                layer,
                1000.0 / floor,
                f"each I/O takes at least {floor:.2f} ms: {why}",
            )
        )
    early, early_why = _early(caps, w)
    return Explained(w, parts, missing, floor, why, early, early_why)


def _early(caps: Capabilities, w: Workload) -> tuple[float, str | None]:
    """Client IOPS the cache adds to a write workload's figure: each of its ``numjobs``
    librbd clients completes up to ``early_bytes`` before the OSDs have them, counted by
    fio within the workload's runtime."""
    cache = caps.client_cache
    if cache is None or not w.writes or not cache.early_bytes or not w.runtime_s or w.bs <= 0:
        return 0.0, None
    extra = cache.early_bytes * max(1, w.numjobs)
    iops = extra / w.runtime_s / w.bs
    clients = f" x {w.numjobs} jobs" if w.numjobs > 1 else ""
    return iops, (
        f"{cache.describe()}{clients}, {_ceiling(w, iops)}"
        f"{' IOPS' if w.bs < 1 << 20 else ''} over this workload's {w.runtime_s:.1f} s "
        f"({cache.source})"
    )


def _read_parts(caps: Capabilities, w: Workload, missing: list[str]) -> list[Part]:
    """Each primary's reads: its own 4 KiB read rate over its share of the primaries."""
    if caps.layout.kind == "erasure":
        missing.append("OSD reads of an erasure-coded pool: not modelled (they gather chunks)")
        return []
    if w.bs > SMALL:
        missing.append(f"OSD reads of {_size(w.bs)}: each OSD's own reads measured at 4 KiB only")
        return []
    out, held = [], []
    for o in caps.osds:
        if not o.read_4k_iops or o.primary_share <= 0:
            continue
        if o.mclock and o.read_4k_iops <= MCLOCK_HELD * o.mclock.ops(SMALL, writes=False):
            held.append(o.name)  # its own reads were mClock's client ops too
            continue
        out.append(
            Part(
                f"{o.name}'s device",
                "osd",
                o.read_4k_iops / o.primary_share,
                f"it is primary of {_pct(o.primary_share)} of {caps.shares_of} and read 4k at "
                f"{_n(o.read_4k_iops)} IOPS under reads of its own",
            )
        )
    if held:
        missing.append(
            f"the devices' reads of {', '.join(held)}: their own reads ran at their mClock "
            "limit, not at what the device does"
        )
    if not out and not held:
        missing.append("OSD reads: no OSD's own reads measured (diagnose without --no-osd-bench)")
    return out


def _mclock_parts(caps: Capabilities, w: Workload, missing: list[str]) -> list[Part]:
    """An OSD's mClock client limit over its share of the primaries: only the ops it is the
    primary of are client ops to it (a replica's sub-ops are not in the client class).

    Not for writes through librbd's writeback cache: it sends the writes an object gathered
    as one op, which mClock charges once (4 KiB random writes through it ran at about 3 times
    a bound drawn for 4 KiB ops)."""
    limited = [o for o in caps.osds if o.mclock and o.primary_share]
    cache = caps.client_cache
    if limited and w.writes and (cache is None or cache.early_bytes):
        names = ", ".join(o.name for o in limited)
        missing.append(
            f"mClock's client limit on {names}: not modelled for writes through librbd's "
            "writeback cache (it sends an object's writes as one op)"
            if cache
            else f"mClock's client limit on {names}: not modelled for writes when the "
            "client's cache is not known"
        )
        return []
    return [_mclock_part(o, w, caps.shares_of) for o in limited]


def _mclock_part(o: OsdCapability, w: Workload, basis: str) -> Part:
    assert o.mclock is not None
    m, ops = o.mclock, o.mclock.ops(w.bs, w.writes)
    charge = m.charge(w.bs, w.writes)
    cost = f"; a {_size(w.bs)} op costs {charge:.2f} of them" if charge >= 1.005 else ""
    return Part(
        f"{o.name}'s mClock limit",
        "osd",
        ops / o.primary_share,
        f"its {m.profile or 'custom'} profile lets client ops through at {_n(m.iops)} IOPS "
        f"at most (osd_mclock_scheduler_client_lim {m.lim:g}{_res(m.res, m.lim)} of a "
        f"capacity of {_n(m.capacity_iops)} IOPS{cost}) and it is primary of "
        f"{_pct(o.primary_share)} of {basis}",
    )


def _res(res: float, lim: float) -> str:
    return f", its reservation {res:g} above it" if res > lim else ""


def _osd_parts(caps: Capabilities, w: Workload, missing: list[str]) -> list[Part]:
    if not w.writes:
        return _read_parts(caps, w, missing)
    lay = caps.layout
    piece = lay.piece(w.bs)
    out = []
    for o in caps.osds:
        cap = o.write_iops(piece)
        if cap is None:
            continue
        if o.replica_share <= 0:
            continue
        iops = cap / (lay.copies * o.replica_share)
        held = "chunks" if lay.kind == "erasure" else "replicas"
        of = (
            f"the pool's {held}"
            if caps.shares_of == POOL_PGS
            else f"the {held} of {caps.shares_of}"
        )
        out.append(
            Part(
                f"{o.name}'s device",
                "osd",
                iops,
                f"it holds {_pct(o.replica_share)} of {of} and writes "
                f"{_size(piece)} at {_n(cap)} IOPS; {lay.describe()}",
            )
        )
    if not out:
        missing.append("OSD devices: no osd bench figures")
    return out


def _host_shares(caps: Capabilities) -> dict[str, tuple[float, float]]:
    shares: dict[str, tuple[float, float]] = {}
    for o in caps.osds:
        if o.host is None:
            continue
        rep, prim = shares.get(o.host, (0.0, 0.0))
        shares[o.host] = (rep + o.replica_share, prim + o.primary_share)
    return shares


def _link_parts(caps: Capabilities, w: Workload, missing: list[str]) -> list[Part]:
    if not caps.link_bytes_per_s:
        missing.append("links between hosts: not measured")
        return []
    lay, out = caps.layout, []
    for host, (rep, prim) in sorted(_host_shares(caps).items()):
        link = caps.link_bytes_per_s.get(host)
        if not link:
            continue
        if w.writes:
            piece = w.bs / lay.k if lay.kind == "erasure" and lay.k else w.bs
            inbound = w.bs * prim + piece * max(0.0, lay.copies * rep - prim)
            outbound = piece * (lay.copies - 1) * prim
            why = (
                f"{_mbit(link)} Mbit/s measured; per client write it takes in "
                f"{inbound / w.bs:.2f}x the block (the copies its OSDs hold) and sends "
                f"{outbound / w.bs:.2f}x on to replicas"
            )
        else:
            inbound, outbound = 0.0, w.bs * prim
            why = f"{_mbit(link)} Mbit/s measured; it sends {_pct(prim)} of the reads"
        load = max(inbound, outbound)
        if load > 0:
            out.append(Part(f"{host}'s link", "network", link / load, why))
    return out


def _floor(caps: Capabilities, w: Workload) -> tuple[float | None, str | None, tuple[str, str]]:
    """The least time one I/O takes: a round trip to the primary; for a write, the commit on
    the slowest OSD holding a copy and (with copies) a round trip to the replicas. With the
    part that takes most of it (name, layer)."""
    trip = ("the round trips", "network")
    if caps.rtt_ms is None:
        return None, None, trip
    if not w.writes:
        return (
            caps.rtt_ms,
            f"one round trip {caps.rtt_ms:.3f} ms; device reads not measured",
            trip,
        )
    piece = caps.layout.piece(w.bs)
    commits = [(o.name, o.commit_time_ms(piece)) for o in caps.osds if o.replica_share > 0]
    known = [(n, c) for n, c in commits if c]
    if not known:
        return None, None, trip
    slowest, commit = max(known, key=lambda nc: nc[1])
    trips = 2 if caps.layout.copies > 1 else 1
    floor = trips * caps.rtt_ms + commit
    who = (f"{slowest}'s commit", "osd") if commit >= trips * caps.rtt_ms else trip
    return (
        floor,
        f"{trips} round trip(s) of {caps.rtt_ms:.3f} ms + {commit:.2f} ms to commit "
        f"{_size(piece)} on the slowest, {slowest}",
        who,
    )


def _pct(x: float) -> str:
    return f"{x * 100:.0f} %"


def _n(x: float) -> str:
    return f"{x:,.0f}"


def _mbit(bytes_per_s: float) -> str:
    return f"{bytes_per_s * 8 / 1e6:,.0f}"


def _ceiling(w: Workload, iops: float) -> str:
    if w.bs >= 1 << 20:
        return f"{iops * w.bs / (1 << 20):,.0f} MiB/s"
    return _n(iops)


def _measured(w: Workload) -> str:
    if w.bs >= 1 << 20:
        return f"{(w.bw_bytes_per_s or 0) / (1 << 20):,.0f} MiB/s"
    return f"{_n(w.iops or 0)} IOPS"
