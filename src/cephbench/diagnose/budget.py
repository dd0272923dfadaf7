"""The latency budget of a 4k write at QD1: how the client's latency splits into time
outside the primary OSD (client and network), queued in the primary, processing there,
waiting for the replicas after the local commit, and BlueStore's commit on the device.

Read from the OSDs' counters over the QD1 writes alone (``op_w_latency``,
``op_w_process_latency``, BlueStore ``commit_lat``) and from ``dump_historic_ops`` (the
replica wait). Pure.
"""

from __future__ import annotations

from typing import Any

WORKLOAD = "write-4k-qd1"


def _weighted(e: dict[str, Any], figure: str) -> float | None:
    total = count = 0.0
    for info in e.get("osds", {}).values():
        f = (info.get("qd1_write") or {}).get(figure)
        if f:
            total += f["ms"] * f["count"]
            count += f["count"]
    return total / count if count else None


def _replica_wait(e: dict[str, Any]) -> float | None:
    total = count = 0.0
    for info in e.get("osds", {}).values():
        h = info.get("historic_qd1_write") or {}
        if h.get("replica_wait_ms") is not None:
            total += h["replica_wait_ms"] * h["ops"]
            count += h["ops"]
    return total / count if count else None


def budget(e: dict[str, Any]) -> dict[str, Any]:
    """The budget; ``{}`` parts that could not be read are left out and say so."""
    wl = (e.get("client", {}).get("workloads") or {}).get(WORKLOAD) or {}
    lat_us = wl.get("lat_mean_us")
    client = lat_us / 1000.0 if lat_us else None
    op_w, process = _weighted(e, "op_w"), _weighted(e, "op_w_process")
    commit, replicas = _weighted(e, "commit"), _replica_wait(e)
    out: dict[str, Any] = {"workload": WORKLOAD, "client_ms": _r(client), "parts": []}
    if client is None or op_w is None or process is None:
        out["note"] = "not measured: the QD1 writes or the OSDs' counters are missing"
        return out
    # each part as measured, never clamped: a part the others overlap has no figure of its
    # own and says why (the counters are means over different ops and windows)
    local = commit
    rest = process - (local or 0.0) - (replicas or 0.0)
    parts = [
        (
            "client and network to the primary",
            client - op_w,
            "the OSD's op time exceeds the client's",
        ),
        ("queued in the primary OSD", op_w - process, "processing exceeds the op time"),
        (
            "processing in the primary OSD",
            rest,
            "the replica wait and the commit together exceed the processing time: they overlap",
        ),
        ("waiting for replicas after the local commit", replicas, ""),
        ("BlueStore commit on the primary's device", local, ""),
    ]
    notes = []
    for name, ms, why in parts:
        entry: dict[str, Any] = {"part": name, "ms": _r(ms), "share": None}
        if ms is not None and ms < 0:
            entry["ms"] = None
            entry["note"] = f"overlaps ({ms:.3f} ms left): {why}"
            notes.append(f"{name}: {ms:.3f} ms left over; {why}")
        elif ms is not None and client:
            entry["share"] = round(ms / client, 3)
        out["parts"].append(entry)
    if commit is not None and commit > process:
        notes.append(
            f"BlueStore's commit ({commit:.3f} ms) is longer than the primary's processing "
            f"({process:.3f} ms): the commit overlaps the op's other parts"
        )
    if notes:
        out["notes"] = notes
    out["primary_op_ms"] = _r(op_w)
    return out


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 4)
