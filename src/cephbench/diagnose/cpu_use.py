"""Each OSD's CPU use while the diagnosis' load runs, beside the cores it may use (its
cgroup's quota or its CPU affinity: :mod:`cephbench.system.cpu_limit`, as a run's records).

An OSD whose container or cgroup caps its CPU (Rook's ``resources.limits.cpu``, a systemd
``CPUQuota``, the lab's ``cpu`` fault) and that used nearly all of it under load is held by
that cap, whatever its peers do: a fact about the OSD itself, so it holds when most OSDs
are slow too. Its peer figures (ops queued, replica writes) may or may not show it: on a
busy two-core machine a starved OSD's queue sometimes stays near its peers' while its
BlueStore kv sync runs late, which reads as a slow device (CI, 2026-11-27).

Under a shared load one OSD's limit can hide behind another part: when one disk is slow the
client's queue waits on it and every other OSD idles, a starved one too (0.03 of its 0.15
cores, 2026-11-30). So each OSD is also read under a load of its own, its ``osd bench``:
:class:`BenchThrottling` counts the periods in which its quota throttled it meanwhile.

Read from ``/proc`` and the cgroup files, so only where the OSDs are this machine's
processes (the lab); elsewhere the evidence says it was not measured.
"""

from __future__ import annotations

import time
from typing import Any

from cephbench.ceph.connection import Connection
from cephbench.execution.accounting import Sampler, cores, lab_osd_pids, proc_cpu_seconds
from cephbench.system.cpu_limit import Throttling, cpu_limits, throttling

Sample = tuple[float, dict[str, float | None]]
"""(time.monotonic(), "osd.N" -> its CPU seconds so far)."""

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
        self.pids = lab_osd_pids(conn)
        """"osd.N" -> its pid (the evidence's ``osds`` are keyed by the id alone)."""

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
        limits = cpu_limits(self.pids, machine)  # a run's own (execution.accounting)
        for osd in self.pids:
            info = e.get("osds", {}).get(osd.removeprefix("osd."))
            series = [(t, c[osd]) for t, c in self.samples if c.get(osd) is not None]
            if info is None or len(series) < 2:
                continue
            limit = limits.get(osd)
            info["cpu"] = {
                "used_cores": round(used(series[0], series[-1]), 4),
                "peak_cores": round(peak(series, SPAN_S), 4),
                "limit_cores": round(limit.cores, 4) if limit else None,
                "limit_by": limit.by if limit else None,
            }
        e["osd_cpu"] = {
            "measured": True,
            "window": window,
            "wall_s": round(last[0] - first[0], 3),
            "machine_cores": machine,
        }


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


class BenchThrottling:
    """Each lab OSD's quota cgroup's CFS counters before and after the OSDs' own benches of
    one size (a context manager); :meth:`record` puts what they counted meanwhile into each
    OSD's evidence (``cpu_bench_4k``), beside the time its bench took as it measured it. An
    OSD that no quota holds has nothing to count."""

    def __init__(self, conn: Connection, label: str):
        self.pids = lab_osd_pids(conn)
        self.label = label
        self.before: dict[str, Throttling] = {}
        self.after: dict[str, Throttling] = {}

    def _read(self) -> dict[str, Throttling]:
        found = {osd: throttling(pid) for osd, pid in self.pids.items()}
        return {osd: t for osd, t in found.items() if t is not None}

    def __enter__(self) -> BenchThrottling:
        self.before = self._read()
        return self

    def __exit__(self, *exc: object) -> None:
        self.after = self._read()

    def record(self, e: dict[str, Any]) -> None:
        limits = cpu_limits(self.pids, cores()) if self.after else {}
        for osd, after in self.after.items():
            info = e.get("osds", {}).get(osd.removeprefix("osd."))
            if info is None or osd not in self.before:
                continue
            counted = after.since(self.before[osd])
            limit = limits.get(osd)
            bench = info.get(f"bench_{self.label}") or {}
            rate, written = bench.get("bytes_per_sec"), bench.get("bytes")
            info[f"cpu_bench_{self.label}"] = {
                "periods": counted.periods,
                "throttled": counted.throttled,
                "throttled_ms": round(counted.throttled_s * 1000, 1),
                "bench_ms": round(1000 * written / rate, 1) if rate and written else None,
                "limit_cores": round(limit.cores, 4) if limit else None,
                "limit_by": limit.by if limit else None,
            }
