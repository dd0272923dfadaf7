"""Which part's latency grows first at the knee: the OSD (and its layer) to look at. Pure.

Each step of a search on a Ceph target records every OSD's mean op latencies over the step,
from the OSDs' own perf counters read before and after it (:mod:`cephbench.ceph.counters`,
as ``diagnose`` reads them). Below the knee every part's latency is flat; past it, the part
that limits the load is the one whose latency climbs first: a slow disk's OSD long before its
peers. So the OSDs' latencies at the knee are set against each other and against their own
at the lowest rate the search offered, and the OSD that stands out is named, with the layer of
it that grew the most.

An OSD's *own* latency, not its ``op_w_latency``: a primary's write waits for its replicas,
so with a slow disk in every PG's acting set every OSD's ``op_w_latency`` climbs alike
(recorded under a slow disk on osd.1: 216, 220 and 210 ms). Its own part is the wait in its
queue (``op_w_latency - op_w_process_latency``: CPU, shards, mClock) plus its BlueStore
commit (``commit_lat``: 3.0, 199.8 and 3.7 ms there). Reads are served by the primary alone:
their ``op_r_latency`` is the OSD's own. The layers named: ``queue``; ``device`` (BlueStore's
kv sync and its wait for the data's I/O); ``store`` (the rest of the commit, BlueStore's own
work); for reads ``queue`` and ``processing``.

An OSD is named when its own latency at the knee is at least :data:`STANDS_OUT` times the
slowest of its peers' and :data:`GREW_MS` more (with no peers: :data:`GREW_BY` times its own
at the lowest rate, and :data:`GREW_MS` more). Judged at the knee, not by the growth alone: a
search whose lowest rate is already near the knee (on a slow disk, 19 and 21 IOPS) saw little
growth, yet that OSD's part stood far above the others'. When none stands out and none grew by
:data:`GREW_BY` and :data:`GREW_MS`, the limit is outside the OSDs (the network, the client);
when they grew alike (on the healthy lab: 1.75 -> 3.02 ms for one, 3.18 ms for another), it is
the OSDs together or what they share (the host's CPU or disk), not one of them. Each is said
instead of a name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from cephbench.capacity.search import Step, _median

GREW_BY = 1.5
GREW_MS = 1.0
STANDS_OUT = 1.5


@dataclass(frozen=True)
class Part:
    """What grew at the knee: the OSD named (None: none did), and by how much."""

    low_iops: float
    knee_iops: float
    figure: str
    """``op_w`` (writes) or ``op_r`` (reads): whose own latency (:func:`own_ms`) is meant."""
    osd: str | None
    low_ms: float | None = None
    knee_ms: float | None = None
    layer: str | None = None
    layer_low_ms: float | None = None
    layer_knee_ms: float | None = None
    others_knee_ms: float | None = None
    """The highest of the other OSDs' latencies at the knee."""
    alike: bool = False
    """No OSD named because they all slowed down alike (not because none did)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "low_iops": self.low_iops,
            "knee_iops": self.knee_iops,
            "figure": self.figure,
            "osd": None if self.osd is None else f"osd.{self.osd}",
            "low_ms": self.low_ms,
            "knee_ms": self.knee_ms,
            "layer": self.layer,
            "layer_low_ms": self.layer_low_ms,
            "layer_knee_ms": self.layer_knee_ms,
            "others_knee_ms": self.others_knee_ms,
            "alike": self.alike,
        }


def layer_ms(figures: dict[str, float], figure: str) -> dict[str, float]:
    """One OSD's own op latency split into its layers (those its figures allow), ms."""
    op, process = figures.get(figure), figures.get(f"{figure}_process")
    out: dict[str, float] = {}
    if op is not None and process is not None:
        out["queue"] = max(0.0, op - process)
    if figure == "op_r":
        if process is not None:
            out["processing"] = process
        return out
    if "kv_sync" in figures or "aio_wait" in figures:
        out["device"] = figures.get("kv_sync", 0.0) + figures.get("aio_wait", 0.0)
    if "commit" in figures:
        out["store"] = max(0.0, figures["commit"] - out.get("device", 0.0))
    return out


def own_ms(figures: dict[str, float], figure: str) -> float | None:
    """An OSD's own latency of an op (not the wait for its replicas), ms; None if its
    figures cannot say: reads ``op_r``; writes the queue's wait plus BlueStore's commit."""
    if figure == "op_r":
        return figures.get("op_r")
    layers = layer_ms(figures, figure)
    if "queue" not in layers and "commit" not in figures:
        return None
    return layers.get("queue", 0.0) + figures.get("commit", 0.0)


def _at(steps: Sequence[Step], rate: float) -> dict[str, dict[str, float]]:
    """Each OSD's figures at ``rate``: the median over the steps offered it."""
    per: dict[str, dict[str, list[float]]] = {}
    for s in steps:
        if s.offered_iops != rate:
            continue
        for osd, figure, ms in s.osd_latency:
            per.setdefault(osd, {}).setdefault(figure, []).append(ms)
    return {osd: {f: _median(v) for f, v in figs.items()} for osd, figs in per.items()}


def at_knee(steps: Sequence[Step], knee_iops: float, figure: str) -> Part | None:
    """The OSD whose own ``figure`` latency stands out at the knee, with how it grew from the
    lowest rate; None when the steps recorded no OSD latencies (not a Ceph target) or no
    lower rate."""
    rates = sorted({s.offered_iops for s in steps if s.osd_latency})
    below = [r for r in rates if r <= knee_iops]
    if len(below) < 2:
        return None
    low_rate, knee_rate = below[0], below[-1]
    low, knee = _at(steps, low_rate), _at(steps, knee_rate)
    grown = {
        osd: (a, b)
        for osd in knee
        if osd in low
        and (a := own_ms(low[osd], figure)) is not None
        and (b := own_ms(knee[osd], figure)) is not None
    }
    if not grown:
        return None
    osd = max(grown, key=lambda o: grown[o][1])  # the slowest at the knee
    before, after = grown[osd]
    others = [k for o, (_, k) in grown.items() if o != osd]
    slowest_other = max(others) if others else None
    stands_out = (
        after >= before * GREW_BY and after - before >= GREW_MS
        if slowest_other is None
        else after >= slowest_other * STANDS_OUT and after - slowest_other >= GREW_MS
    )
    if not stands_out:
        low_min = min(a for a, _ in grown.values())
        if not any(b >= a * GREW_BY and b - a >= GREW_MS for a, b in grown.values()):
            return Part(low_rate, knee_rate, figure, None, others_knee_ms=round(after, 4))
        return Part(
            low_rate,
            knee_rate,
            figure,
            None,
            round(low_min, 4),
            round(after, 4),
            others_knee_ms=None if slowest_other is None else round(slowest_other, 4),
            alike=True,
        )
    split_low, split_knee = layer_ms(low[osd], figure), layer_ms(knee[osd], figure)
    common = [layer for layer in split_knee if layer in split_low]
    layer = max(common, key=lambda x: split_knee[x] - split_low[x]) if common else None
    return Part(
        low_rate,
        knee_rate,
        figure,
        osd,
        round(before, 4),
        round(after, 4),
        layer,
        round(split_low[layer], 4) if layer else None,
        round(split_knee[layer], 4) if layer else None,
        None if slowest_other is None else round(slowest_other, 4),
    )


def line(part: dict[str, Any]) -> str:
    """A part (:meth:`Part.to_json`) in one sentence, as the table prints it."""
    what = "writes" if part["figure"] == "op_w" else "reads"
    rates = f"{part['low_iops']:,.0f} and {part['knee_iops']:,.0f} IOPS offered"
    if part["osd"] is None and part.get("alike"):
        return (
            f"At the knee every OSD's own part of the {what} slowed down alike (up to "
            f"{part['knee_ms']:.2f} ms at {part['knee_iops']:,.0f} IOPS offered, from at least "
            f"{part['low_ms']:.2f} ms at {part['low_iops']:,.0f}): the limit is the OSDs "
            "together, or what they share (the host's CPU, its disk), not one of them."
        )
    if part["osd"] is None:
        return (
            f"At the knee no OSD's {what} slowed down between {rates} (the slowest "
            f"{part['others_knee_ms']:.2f} ms): the limit is outside the OSDs (the network, "
            "the client)."
        )
    text = (
        f"At the knee {part['osd']}'s own part of the {what} slowed down first: "
        f"{part['low_ms']:.2f} -> "
        f"{part['knee_ms']:.2f} ms between {rates}"
    )
    if part["layer"] is not None:
        text += (
            f", most of it in its {part['layer']} ({part['layer_low_ms']:.2f} -> "
            f"{part['layer_knee_ms']:.2f} ms)"
        )
    if part["others_knee_ms"] is not None:
        text += f"; the other OSDs at most {part['others_knee_ms']:.2f} ms"
    return text + "."
