"""What ``cephbench explain`` needs of a Ceph run beyond its figures, recorded as the run goes:
the placement of the run's pool (each PG's up set and primary, once at the start) and the
CPU seconds each workload cost (the lab's OSD daemons' and this process' children's, i.e.
fio's, user + system time before and after each step, from the processes' own accounting).

Stored as run-wide record series (workload ''): ``placement`` and ``cpu``. On a cluster
whose OSD processes cephbench cannot see (not the lab), the OSDs' CPU is not measured: the
records say so (``osd_cpu_measured`` false) and explain says "CPU not measured".
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cephbench.ceph.commands import ceph_json
from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError
from cephbench.model import Series, WorkloadOutcome
from cephbench.store import Store

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def proc_cpu_seconds(pid: int) -> float | None:
    """utime + stime of ``pid`` (``/proc/PID/stat`` fields 14 and 15), seconds; None if gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()
    # fields[0] is the state (field 3): utime is field 14, stime field 15
    return (int(fields[11]) + int(fields[12])) / TICKS


def children_cpu_seconds() -> float:
    t = os.times()
    return t.children_user + t.children_system


def cores() -> float:
    """The cores this machine gives its processes (affinity; not counting other loads)."""
    try:
        return float(len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return float(os.cpu_count() or 1)


@dataclass
class Accounting:
    store: Store
    run_id: int
    osd_pids: dict[str, int]

    @classmethod
    def open(cls, store: Store, run_id: int, conn: Connection, pool: str | None) -> Accounting:
        """Record the pool's placement now; the lab's OSD pids when ``conn`` is the lab's."""
        pids: dict[str, int] = {}
        if conn.lab_dir is not None:
            from cephbench.lab.paths import Layout
            from cephbench.lab.state import load

            state = load(Layout(Path(conn.lab_dir)))
            if state is not None:
                pids = {d.name: d.pid for d in state.osds() if d.pid}
        acc = cls(store, run_id, pids)
        if pool:
            acc._placement(conn, pool)
        return acc

    def _placement(self, conn: Connection, pool: str) -> None:
        try:
            data = ceph_json(conn, "pg", "ls-by-pool", pool)
        except CephbenchError:
            return
        stats = data.get("pg_stats", []) if isinstance(data, dict) else data or []
        pgs = [
            {"pgid": s.get("pgid"), "up": s.get("up", []), "up_primary": s.get("up_primary")}
            for s in stats
            if isinstance(s, dict)
        ]
        record = {"pool": pool, "pgs": pgs}
        self.store.add_series(self.run_id, [Series(0, "", "", "placement", [0.0], [record])])

    def snapshot(self) -> tuple[float, float, dict[str, float | None]]:
        return (
            time.monotonic(),
            children_cpu_seconds(),
            {n: proc_cpu_seconds(p) for n, p in self.osd_pids.items()},
        )

    def record(
        self,
        before: tuple[float, float, dict[str, float | None]],
        repeat: int,
        outcomes: list[WorkloadOutcome],
    ) -> None:
        """The CPU seconds of the step that produced ``outcomes`` (its whole time)."""
        t1, c1, osd1 = self.snapshot()
        t0, c0, osd0 = before
        osd: dict[str, float] = {}
        for name, a in osd0.items():
            b = osd1.get(name)
            if a is not None and b is not None and b >= a:
                osd[name] = round(b - a, 4)
        ios = 0.0
        for o in outcomes:
            for r in o.results:
                ios += float(r.total_ios or 0)
        record: dict[str, Any] = {
            "repeat": repeat,
            "workloads": [o.name for o in outcomes],
            "wall_s": round(t1 - t0, 4),
            "ios": ios,
            "cpu_s": {**osd, "client": round(c1 - c0, 4)},
            "osd_cpu_measured": bool(osd),
            "cores": cores(),
            "machine": "this machine" if osd else "the client",
        }
        self.store.add_series(self.run_id, [Series(0, "", "", "cpu", [t1], [record])])
