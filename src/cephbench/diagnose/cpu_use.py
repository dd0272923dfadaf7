"""Each OSD's CPU use while the diagnosis' load runs, beside the cores its cgroup allows it.

An OSD whose container or cgroup caps its CPU (Rook's ``resources.limits.cpu``, a systemd
``CPUQuota``, the lab's ``cpu`` fault) and that used nearly all of it under load is held by
that cap, whatever its peers do: a fact about the OSD itself, so it holds when most OSDs
are slow too. Its peer figures (ops queued, replica writes) may or may not show it: on a
busy two-core machine a starved OSD's queue sometimes stays near its peers' while its
BlueStore kv sync runs late, which reads as a slow device (CI, 2026-11-27).

Read from ``/proc`` and the cgroup files, so only where the OSDs are this machine's
processes (the lab); elsewhere the evidence says it was not measured.
"""

from __future__ import annotations

import contextlib
import os
import time
from typing import Any

from cephbench.ceph.connection import Connection
from cephbench.execution.accounting import (
    Sampler,
    cores,
    cpu_allowance,
    lab_osd_pids,
    proc_cpu_seconds,
)

Sample = tuple[float, dict[str, float | None]]
"""(time.monotonic(), OSD id -> its CPU seconds so far)."""

INTERVAL_S = 0.25
"""How often the OSDs' CPU seconds are read while the load runs."""
SPAN_S = 2.0
"""The peak is the most cores an OSD used over any span this long: the load's jobs differ
(a QD1 read needs far less CPU than a QD32 write), and a cap shows under the heaviest."""


class OsdCpu(Sampler[Sample]):
    """The lab's OSD processes, sampled every ``INTERVAL_S`` while the load runs (a thread,
    as a context manager); :meth:`record` puts what they used into the evidence."""

    interval = INTERVAL_S

    def __init__(self, conn: Connection):
        super().__init__()
        self.pids = {name.removeprefix("osd."): pid for name, pid in lab_osd_pids(conn).items()}

    def take(self) -> Sample:
        return time.monotonic(), {o: proc_cpu_seconds(p) for o, p in self.pids.items()}

    def __enter__(self) -> OsdCpu:
        if self.pids:  # not the lab: nothing to read
            super().__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        super().__exit__(*exc)
        if self.pids:
            self.samples.append(self.take())

    def record(self, e: dict[str, Any], window: str) -> None:
        """Each OSD's cores used (``cpu`` in its evidence: over the whole window, and at
        most over any ``SPAN_S``) and the cores it may use (None: no limit below the
        machine's cores); ``osd_cpu`` says what was measured (every OSD read on this one
        machine, as ``measured`` means), or that nothing could be."""
        if not self.pids or len(self.samples) < 2:
            e["osd_cpu"] = {"measured": False}
            return
        machine = cores()
        first, last = self.samples[0], self.samples[-1]
        for osd, pid in self.pids.items():
            info = e.get("osds", {}).get(osd)
            series = [(t, c[osd]) for t, c in self.samples if c.get(osd) is not None]
            if info is None or len(series) < 2:
                continue
            allowed = allowed_cores(pid)
            limited = allowed is not None and allowed[0] < machine
            info["cpu"] = {
                "used_cores": round(used(series[0], series[-1]), 4),
                "peak_cores": round(peak(series, SPAN_S), 4),
                "limit_cores": round(allowed[0], 4) if allowed and limited else None,
                "limit_by": allowed[1] if allowed and limited else None,
            }
        e["osd_cpu"] = {
            "measured": True,
            "window": window,
            "wall_s": round(last[0] - first[0], 3),
            "machine_cores": machine,
        }


def allowed_cores(pid: int) -> tuple[float, str] | None:
    """The cores ``pid`` may use and what sets them: its cgroup's CPU quota, or the CPUs its
    affinity (cpuset, taskset) leaves it, whichever is fewer; None when neither is known."""
    known: list[tuple[float, str]] = []
    quota = cpu_allowance(pid)
    if quota:
        known.append((quota, "its cgroup's CPU quota"))
    with contextlib.suppress(OSError):  # the process is gone
        known.append((float(len(os.sched_getaffinity(pid))), "its CPU affinity"))
    return min(known) if known else None


def used(a: tuple[float, float | None], b: tuple[float, float | None]) -> float:
    """Cores used between two (time, CPU seconds) samples."""
    assert a[1] is not None and b[1] is not None
    return max(0.0, b[1] - a[1]) / (b[0] - a[0]) if b[0] > a[0] else 0.0


def peak(series: list[tuple[float, float | None]], span: float) -> float:
    """The most cores used over any span of at least ``span`` seconds between two samples
    (over the whole series when it is shorter). Pure."""
    spans, j = [], 0
    for a in series:
        while j < len(series) and series[j][0] - a[0] < span:
            j += 1
        if j == len(series):
            break
        spans.append(used(a, series[j]))
    return max(spans) if spans else used(series[0], series[-1])
