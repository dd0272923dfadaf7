"""What ``cephbench explain`` needs of a Ceph run beyond its figures, recorded as the run goes:
the placement of the run's pool (each PG's up set and primary, and the objects its data lives
in, once at the start) and the CPU seconds each workload cost (the lab's OSD daemons' and this
process' children's, i.e. fio's, user + system time before and after each step, from the
processes' own accounting).

Stored as run-wide record series (workload ''): ``placement`` and ``cpu``. With ``--hosts``
the OSDs' CPU is read on those hosts over ssh (``hosts.osd_cpu``: every second, hosts grouped
into machines by boot id, each machine's CPUs its own). On a cluster whose OSD processes
cephbench cannot see (not the lab, no ``--hosts``), the OSDs' CPU is not measured: the
records say so (``osd_cpu_measured`` false) and explain says "CPU not measured".
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Self, TypeVar

from cephbench.ceph.commands import ceph_json
from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError
from cephbench.hosts import osd_cpu
from cephbench.model import Series, WorkloadOutcome
from cephbench.store import Store
from cephbench.system.cpu_limit import cpu_limits

if TYPE_CHECKING:
    from cephbench.hosts.session import RunHosts

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def proc_cpu_seconds(pid: int) -> float | None:
    """utime + stime of ``pid`` (``/proc/PID/stat`` fields 14 and 15), seconds; None if gone."""
    try:
        used = osd_cpu.stat_ticks(Path(f"/proc/{pid}/stat").read_text())
    except OSError:
        return None
    return None if used is None else used / TICKS


def children_cpu_seconds() -> float:
    t = os.times()
    return t.children_user + t.children_system


def lab_osd_pids(conn: Connection) -> dict[str, int]:
    """ "osd.N" -> its pid, when ``conn`` is the lab's (its OSDs are this machine's
    processes); empty for any other cluster."""
    if conn.lab_dir is None:
        return {}
    from cephbench.lab.paths import Layout
    from cephbench.lab.state import load

    state = load(Layout(Path(conn.lab_dir)))
    return {d.name: d.pid for d in state.osds() if d.pid} if state is not None else {}


def cores() -> float:
    """The cores this machine gives its processes (affinity; not counting other loads)."""
    try:
        return float(len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return float(os.cpu_count() or 1)


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (``/proc/PID/task/TID/children``)."""
    out: list[int] = []
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                kids = Path(f"/proc/{p}/task/{tid}/children").read_text().split()
            except OSError:
                continue
            for k in kids:
                out.append(int(k))
                todo.append(int(k))
    return out


def client_cpu_seconds() -> float:
    """CPU seconds of this process' children, ended (reaped) and still running (fio and
    the processes it forks)."""
    live = sum(proc_cpu_seconds(p) or 0.0 for p in descendants(os.getpid()))
    return children_cpu_seconds() + live


Sample = tuple[float, float, dict[str, float | None]]
"""(time.monotonic(), the client's CPU seconds so far, OSD -> its CPU seconds so far)."""

INTERVAL_S = 0.25
"""How often the CPU is sampled while a run's steps run."""
REMOTE_INTERVAL_S = 1.0
"""How often, when the OSDs are read over ssh (one call per host)."""


def boot_id() -> str | None:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return None


T = TypeVar("T")


class Sampler(Generic[T]):
    """``take()`` every ``interval`` seconds in a thread of its own, from entering (as a
    context manager) until leaving; what it took is ``samples``, in order. Whoever changes
    ``samples`` while the thread may run holds ``lock``, as the thread does to append."""

    interval: float = INTERVAL_S

    def __init__(self) -> None:
        self.samples: list[T] = []
        self.lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def take(self) -> T:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self._thread = threading.Thread(target=self._loop, name=type(self).__name__, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()

    def _loop(self) -> None:
        while True:
            sample = self.take()
            with self.lock:
                self.samples.append(sample)
            if self._stop.wait(self.interval):
                return


class Accounting(Sampler[Sample]):
    """The pool's placement, recorded at the start; the CPU sampled every ``INTERVAL_S``
    while the run's steps run (a thread), so each workload of a step (fio runs several in
    one process) gets the CPU of its own time window."""

    def __init__(
        self,
        store: Store,
        run_id: int,
        osd_pids: dict[str, int],
        client_here: bool = True,
        remote: RunHosts | None = None,
    ):
        self.store, self.run_id, self.osd_pids = store, run_id, osd_pids
        self.remote = remote
        """The ``--hosts`` the OSDs are read on over ssh (then not ``osd_pids``)."""
        self.machines: osd_cpu.Machines | None = None
        self.client_here = client_here
        """Whether fio runs as this process' child; not in pods (its CPU is theirs, and what
        this process' children spend is kubectl's), where the client's CPU is not recorded."""
        super().__init__()
        if remote is not None:
            self.interval = REMOTE_INTERVAL_S

    @classmethod
    def open(
        cls,
        store: Store,
        run_id: int,
        conn: Connection,
        pool: str | None,
        *,
        client_here: bool = True,
        hosts: RunHosts | None = None,
        objects: list[dict[str, Any]] | None = None,
    ) -> Accounting:
        """Record the pool's placement now (with ``objects``, the RADOS objects the workloads'
        data lives in: ``Target.data_objects``); the OSDs read on ``hosts`` over ssh when
        given, else the lab's OSD pids when ``conn`` is the lab's."""
        if hosts is not None:
            acc = cls(store, run_id, {}, client_here, hosts)
        else:
            acc = cls(store, run_id, lab_osd_pids(conn), client_here)
        if pool:
            acc._placement(conn, pool, objects or [])
        return acc

    def _placement(self, conn: Connection, pool: str, objects: list[dict[str, Any]]) -> None:
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
        record = {"pool": pool, "pgs": pgs, "objects": [o for o in objects if o["pool"] == pool]}
        self.store.add_series(self.run_id, [Series(0, "", "", "placement", [0.0], [record])])

    def _client(self, a: Sample, b: Sample) -> dict[str, float]:
        return {"client": round(max(0.0, b[1] - a[1]), 4)} if self.client_here else {}

    def take(self) -> Sample:
        return self.snapshot()

    def snapshot(self) -> Sample:
        if self.remote is not None:
            t0 = time.monotonic()
            answers = self.remote.osd_cpu()
            t1 = time.monotonic()
            found = osd_cpu.machines(answers)
            if self.machines is None or len(found.osds) > len(self.machines.osds):
                self.machines = found
            osds: dict[str, float | None] = dict(osd_cpu.osd_seconds(answers))
            return ((t0 + t1) / 2, client_cpu_seconds(), osds)
        return (
            time.monotonic(),
            client_cpu_seconds(),
            {n: proc_cpu_seconds(p) for n, p in self.osd_pids.items()},
        )

    def _machines(self, osds: list[str]) -> dict[str, dict]:
        """The machines the measured processes ran on (``--hosts``): each one's CPUs and its
        processes; the client on the machine of its boot id, else on this one."""
        m = self.machines
        if m is None:
            return {}
        out: dict[str, dict] = {}
        for osd in osds:
            name = m.of(osd) or "unknown"
            entry = out.setdefault(name, {"cores": m.cores.get(name), "processes": []})
            entry["processes"].append(osd)
        if self.client_here:
            here = boot_id()
            name = next((n for n, b in m.boot_ids.items() if b == here), "this machine")
            entry = out.setdefault(name, {"cores": cores(), "processes": []})
            entry["processes"].append("client")
        return out

    def record(
        self,
        before: Sample,
        repeat: int,
        outcomes: list[WorkloadOutcome],
        windows: list[tuple[float, float]],
    ) -> None:
        """Each workload's CPU seconds over its time window (trimmed of its first half second
        and last second and a half: the windows are fio's planned slots, padded), and the
        I/Os it made in that time at its measured rate."""
        end = self.snapshot()
        with self.lock:
            self.samples.append(end)
        records = []
        for i, o in enumerate(outcomes):
            t0, t1 = windows[i] if i < len(windows) else (before[0], end[0])
            t0, t1 = max(t0, before[0]), min(t1, end[0])
            if t1 - t0 > 3.0:
                t0, t1 = t0 + 0.5, t1 - 1.5
            t0, t1 = self._measured_span(t0, t1)
            a, b = self._at(t0), self._at(t1)
            iops = sum(float(r.iops or 0) for r in o.results)
            osd = {}
            for name, x in a[2].items():
                y = b[2].get(name)
                if x is not None and y is not None and y >= x:
                    osd[name] = round(y - x, 4)
            records.append(
                {
                    "repeat": repeat,
                    "workloads": [o.name],
                    "wall_s": round(t1 - t0, 4),
                    "ios": round(iops * (t1 - t0), 1),
                    "cpu_s": {**osd, **self._client(a, b)},
                    "osd_cpu_measured": bool(osd),
                    "cores": cores(),
                    "machine": "this machine" if osd else "the client",
                }
            )
            machines = self._machines(sorted(osd))
            if machines:
                records[-1]["machines"] = machines
                if len(machines) == 1:
                    [(name, m)] = machines.items()
                    records[-1]["machine"], records[-1]["cores"] = name, m["cores"]
        limits = cpu_limits(self.osd_pids, cores())  # the diagnosis' own (diagnose.cpu_use)
        for r in records:
            if limits:
                r["cpu_limit_cores"] = {n: round(x.cores, 4) for n, x in limits.items()}
                r["cpu_limit_by"] = {n: x.by for n, x in limits.items()}
        with self.lock:  # what is left to explain; no sample the thread adds meanwhile lost
            self.samples = [s for s in self.samples if s[0] >= end[0]]
        if records:
            times = [end[0]] * len(records)
            self.store.add_series(self.run_id, [Series(0, "", "", "cpu", times, records)])

    def _measured_span(self, t0: float, t1: float) -> tuple[float, float]:
        """``(t0, t1)``, or where a sample around either end lacks an OSD's figure (a read on a
        host that did not answer: over ssh on a busy machine, the first one), the part of it
        between samples that have every OSD's: the OSDs' CPU is then measured over that part,
        its I/Os counted over the same part, rather than not measured at all."""

        def whole(s: Sample) -> bool:
            return all(v is not None for v in s[2].values())

        if whole(self._at(t0)) and whole(self._at(t1)):
            return t0, t1
        inside = sorted(s[0] for s in self.samples if t0 <= s[0] <= t1 and whole(s) and s[2])
        if len(inside) >= 2 and inside[-1] > inside[0]:
            return inside[0], inside[-1]
        return t0, t1

    def _at(self, t: float) -> Sample:
        """The cumulative figures at ``t``, interpolated between the samples around it."""
        samples = sorted(self.samples, key=lambda s: s[0])
        prev = samples[0]
        for s in samples:
            if s[0] == t:
                return s
            if s[0] >= t:
                if s[0] == prev[0]:
                    return s
                f = (t - prev[0]) / (s[0] - prev[0])
                osd = {
                    k: (None if v is None or s[2].get(k) is None else v + f * (s[2][k] - v))  # type: ignore[operator]
                    for k, v in prev[2].items()
                }
                return (t, prev[1] + f * (s[1] - prev[1]), osd)
            prev = s
        return prev
