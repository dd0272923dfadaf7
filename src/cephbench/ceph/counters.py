"""Cumulative Ceph perf counters (``perf dump``) as per-window averages.

A latency counter is an ``{avgcount, sum}`` pair since the daemon started (``sum`` in
seconds); what a load did is the difference between a dump after it and one before. Later
releases renamed some BlueStore counters (``txc_commit_lat`` for ``commit_lat``...): each
figure here accepts every name it has had.
"""

from __future__ import annotations

import json
import re
from typing import Any

# figure -> (section, names in order of preference)
LATENCIES: dict[str, tuple[str, tuple[str, ...]]] = {
    "op_w": ("osd", ("op_w_latency",)),
    "op_w_process": ("osd", ("op_w_process_latency",)),
    "op_r": ("osd", ("op_r_latency",)),
    "op_r_process": ("osd", ("op_r_process_latency",)),
    "subop_w": ("osd", ("subop_w_latency",)),
    "op_before_dequeue": ("osd", ("op_before_dequeue_op_lat",)),
    "kv_sync": ("bluestore", ("kv_sync_lat",)),
    "kv_flush": ("bluestore", ("kv_flush_lat",)),
    "kv_commit": ("bluestore", ("kv_commit_lat",)),
    "aio_wait": ("bluestore", ("state_aio_wait_lat",)),
    "kv_committing": (
        "bluestore",
        ("state_kv_commiting_lat", "state_kv_committing_lat"),
    ),
    "commit": ("bluestore", ("commit_lat", "txc_commit_lat")),
    "submit": ("bluestore", ("submit_lat", "txc_submit_lat")),
    "throttle": ("bluestore", ("throttle_lat", "txc_throttle_lat")),
}


def _pair(dump: dict[str, Any], section: str, names: tuple[str, ...]) -> tuple[float, float]:
    sec = dump.get(section) or {}
    for name in names:
        value = sec.get(name)
        if isinstance(value, dict) and "avgcount" in value and "sum" in value:
            return float(value["avgcount"]), float(value["sum"])
    raise KeyError(names[0])


def window(before: dict[str, Any], after: dict[str, Any]) -> dict[str, dict[str, float]]:
    """figure -> {"count": ops in the window, "ms": their mean latency in milliseconds}.

    A figure missing from either dump, or with no operations in the window, is left out
    (a figure that was not measured is absent, never 0). A counter that went backwards (the
    daemon restarted, or ``perf reset``) is left out too.
    """
    out: dict[str, dict[str, float]] = {}
    for figure, (section, names) in LATENCIES.items():
        try:
            n0, s0 = _pair(before, section, names)
            n1, s1 = _pair(after, section, names)
        except KeyError:
            continue
        count, total = n1 - n0, s1 - s0
        if count <= 0 or total < 0:
            continue
        out[figure] = {"count": count, "ms": round(total / count * 1000.0, 4)}
    return out


def queued_ms(figures: dict[str, dict[str, float]]) -> float | None:
    """Time a write waited inside the OSD before processing: op_w_latency minus
    op_w_process_latency (CPU or shard starvation shows here)."""
    w, p = figures.get("op_w"), figures.get("op_w_process")
    if w is None or p is None:
        return None
    return round(max(0.0, w["ms"] - p["ms"]), 4)


def device_ms(figures: dict[str, dict[str, float]]) -> float | None:
    """Time BlueStore waited on the device to make a write durable: the kv sync (the
    device flush of the RocksDB WAL) plus the wait for the data's own I/O."""
    parts = [figures[k]["ms"] for k in ("kv_sync", "aio_wait") if k in figures]
    return round(sum(parts), 4) if parts else None


def per_osd(text: str) -> dict[str, Any]:
    """``ceph tell osd.* ...`` output (``osd.N: {json}`` per OSD) -> OSD id -> JSON."""
    out: dict[str, Any] = {}
    decoder = json.JSONDecoder()
    for m in re.finditer(r"^osd\.(\d+): ", text, re.M):
        try:
            out[m.group(1)] = decoder.raw_decode(text, m.end())[0]
        except ValueError:
            continue
    return out
