"""The per-OSD table users post: ``ceph tell osd.N bench`` results, fastest first, with each
OSD's ratio to the median so a slow one stands out."""

from __future__ import annotations

from statistics import median

from cephbench.model import Run
from cephbench.tables.run_table import import_notes
from cephbench.tables.table import MISSING, Table, fmt_number

SLOW = 0.8
"""An OSD below this share of the median is marked slow."""


def osd_table(run: Run) -> Table:
    osds = run.environment.get("osds", {})
    results = sorted(run.results, key=lambda r: -(r.bw_bytes_per_s or 0))
    mid = median([r.bw_bytes_per_s for r in results if r.bw_bytes_per_s]) if results else None
    rows, notes = [], []
    for r in results:
        info = osds.get(r.workload.removeprefix("osd."), {})
        ratio = r.bw_bytes_per_s / mid if mid and r.bw_bytes_per_s else None
        slow = ratio is not None and ratio < SLOW
        rows.append(
            (
                r.workload
                + (" (slow)" if slow else "")
                + (" [" + ", ".join(r.flags) + "]" if r.flags else ""),
                info.get("host") or MISSING,
                info.get("device_class") or MISSING,
                info.get("model") or MISSING,
                fmt_number(None if r.bw_bytes_per_s is None else r.bw_bytes_per_s / 2**20, 1),
                fmt_number(r.iops),
                fmt_number(r.runtime_s, 2),
                MISSING if ratio is None else f"{ratio:.2f}",
            )
        )
    if results:
        r0 = results[0]
        notes.append(
            f"ceph tell osd.N bench: {fmt_number((r0.io_bytes or 0) / 2**20)} MiB in "
            f"{fmt_number((r0.bs or 0) / 2**10)} KiB writes per OSD; ratio = bandwidth / median."
        )
    notes += [f"FAILED {f.workload}: {f.error}" for f in run.failures]
    notes += import_notes(run)
    title = (
        f"Run {run.id}" + (f" — {run.label}" if run.label else "") + f" — OSD bench ({run.status})"
    )
    return Table(
        ("OSD", "Host", "Class", "Device", "MiB/s", "IOPS", "Seconds", "Ratio to median"),
        tuple(rows),
        title=title,
        notes=tuple(notes),
        align=("l", "l", "l", "l", "r", "r", "r", "r"),
    )
