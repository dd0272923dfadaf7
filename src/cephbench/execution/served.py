"""Whether a read result was served by the storage behind its target or by a cache above it.

fio counts every byte the program read; the layer behind the target (its block devices, its
Ceph pool: :mod:`cephbench.execution.behind`) counts the reads that reached it. Read around
each workload (before the step, at each chained group's end, after the step), the two say
where the bytes came from. A read with no cache in its way reaches the layer behind at least
once per byte (readahead, a file system's metadata and other readers of the same device or
pool only add to it), so the layer behind serving fewer bytes than fio counted means a
cache (or data never written, which no device holds either) served the rest.

The margin is :data:`MARGIN`: a result is flagged ``cached`` when the layer behind served
under half of the bytes fio read. Under half, the figure is at least twice what the storage
delivered: most of it measures memory, and no device overhead or counter timing explains
that (the counters are exact: read at the workload's own boundaries, the Ceph pool's after
every OSD reported). Between half and all, a partly warm cache and a read served mostly by
the storage cannot be told apart from counters alone; the figures are kept (metrics
``served_read_bytes``, ``served_read_ios``, ``served_read_ratio``) and the flag is not set.

Where several workloads share a window (the groups of a job file run as written, fio in pods
or on many clients), each read result is judged against everything the layer served in the
window: the layer served this workload no more than that, so a flag is never wrong, and a
cache read beside a storage read can be missed. A target with no device behind it (tmpfs,
FUSE, a RAM disk) gets ``no_device`` on its reads. Writes are not judged: a write the device
has not taken yet is what a write cache is for, and fio's ``fsync``/``direct`` decide it.
The figures themselves are never changed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from cephbench.execution.behind import Behind, NoDevice, Served
from cephbench.model import Result, Series, WorkloadOutcome

if TYPE_CHECKING:
    from cephbench.store import Store
    from cephbench.targets import FioTarget, Target

MARGIN = 0.5
"""A read whose layer behind served under this share of fio's bytes is flagged ``cached``."""
CACHED = "cached"
NO_DEVICE = "no_device"


def ratio(fio_bytes: int | None, served: Served | None) -> float | None:
    """The share of fio's read bytes the layer behind served; None when it cannot be told
    (no reading, no bytes read, a counter that went back: a device reset)."""
    if served is None or not fio_bytes or fio_bytes <= 0 or served.bytes < 0 or served.ios < 0:
        return None
    return served.bytes / fio_bytes


def is_cached(share: float | None) -> bool:
    return share is not None and share < MARGIN


def judge(r: Result, served: Served | None, behind: Behind) -> Result:
    """``r`` with the flag and the figures its window's reading allows (reads only)."""
    if r.op != "read" or not r.io_bytes:
        return r
    if isinstance(behind, NoDevice):
        return replace(r, flags=tuple(dict.fromkeys((*r.flags, NO_DEVICE))))
    share = ratio(r.io_bytes, served)
    if share is None or served is None:
        return r
    metrics = dict(r.metrics)
    metrics.update(
        served_read_bytes=float(served.bytes),
        served_read_ios=float(served.ios),
        served_read_ratio=round(share, 4),
    )
    flags = (*r.flags, CACHED) if is_cached(share) else r.flags
    return replace(r, flags=tuple(dict.fromkeys(flags)), metrics=tuple(metrics.items()))


class Watch:
    """The layer behind a run's target, read before the run's first step, at each chained
    group's end and after each step; it flags each step's read results (:func:`judge`)."""

    def __init__(self, behind: Behind, clock: Callable[[], float] = time.monotonic):
        self.behind, self.clock = behind, clock
        self.history: list[tuple[float, Served | None]] = []
        """Every reading of the run, in time order. Nothing reads between two steps, so a
        step's last reading is the next one's first (a Ceph pool's reading waits ~1 s for
        the manager: once, not twice)."""
        self._first = 0
        self._prev = 0
        self._marks: dict[str, tuple[int, int, list[str]]] = {}
        self._opening: threading.Thread | None = None

    def begin(self) -> None:
        """The run's first reading, in a thread of its own while the run sets up: nothing
        reads the target between its session's start and the first step, and a Ceph pool's
        reading (~1 s) then does not hold back the first I/O."""
        self._opening = threading.Thread(target=self._read, name="served", daemon=True)
        self._opening.start()

    def _read(self) -> int:
        self.history.append((self.clock(), self.behind.read()))
        return len(self.history) - 1

    def start(self) -> None:
        """Before a step."""
        if self._opening is not None:
            self._opening.join()
            self._opening = None
        if not self.history:
            self._read()
        self._first = self._prev = len(self.history) - 1
        self._marks = {}

    def group_ended(self, names: list[str]) -> None:
        """A chained group ended (its workloads' I/O completed) and the next has not begun:
        its workloads' window is exact."""
        if not self.history:
            return
        i = self._read()
        for n in names:
            self._marks[n] = (self._prev, i, list(names))
        self._prev = i

    def served(self, a: int | None, b: int | None) -> Served | None:
        """What the layer served between readings ``a`` and ``b``."""
        if a is None or b is None:
            return None
        x, y = self.history[a][1], self.history[b][1]
        return None if x is None or y is None else y - x

    def bracket(
        self, window: tuple[float, float] | None, end: int
    ) -> tuple[int | None, int | None]:
        """The readings around a workload's time window: the step's own first and last, or,
        for a workload a tool reports after it ran (in an earlier step's time), the last
        reading before it began and the first after it ended."""
        if window is None:
            return self._first, end
        begin = min(window[0], self.history[self._first][0])
        until = min(window[1], self.history[end][0])
        a = max((i for i, (t, _) in enumerate(self.history) if t <= begin), default=None)
        b = min((i for i, (t, _) in enumerate(self.history) if t >= until), default=None)
        return a, b

    def flag(
        self,
        outcomes: list[WorkloadOutcome],
        windows: list[tuple[float, float]],
        repeat: int,
    ) -> tuple[list[WorkloadOutcome], list[dict[str, Any]]]:
        """After a step: its outcomes judged, and one record per read result. No reading
        after a step whose last workloads did not read (the next step's first reading is
        then the one before: its window holds writes too, which served no reads)."""
        everyone = [o.name for o in outcomes]
        rest = [n for n in everyone if n not in self._marks]
        unmarked = [o for o in outcomes if o.name in rest]
        if any(r.op == "read" and r.io_bytes for o in unmarked for r in o.results):
            end = self._read()
        else:
            end = len(self.history) - 1
        out, records = [], []
        for i, o in enumerate(outcomes):
            a_b: tuple[int | None, int | None]
            if o.name in self._marks:
                a, b, names = self._marks[o.name]
                a_b = (a, b)
            elif self._marks:  # the last chained group: from the one before's end to now
                a_b, names = (self._prev, end), rest
            else:
                a_b, names = self.bracket(windows[i] if i < len(windows) else None, end), everyone
            served = self.served(*a_b)
            results = tuple(judge(r, served, self.behind) for r in o.results)
            out.append(replace(o, results=results))
            for r in results:
                if r.op == "read" and r.io_bytes:
                    records.append(self.record(r, served, names, repeat))
        self._marks = {}
        return out, records

    def record(
        self, r: Result, served: Served | None, window: list[str], repeat: int
    ) -> dict[str, Any]:
        share = None if isinstance(self.behind, NoDevice) else ratio(r.io_bytes, served)
        rec: dict[str, Any] = {
            "repeat": repeat,
            "workload": r.workload,
            "layer": self.behind.name,
            "cache": self.behind.cache,
            "fio_read_bytes": r.io_bytes,
            "fio_read_ios": r.total_ios,
            "served_read_bytes": None if served is None else served.bytes,
            "served_read_ios": None if served is None else served.ios,
            "served_read_ratio": None if share is None else round(share, 4),
            "window": window,
            "flag": NO_DEVICE
            if isinstance(self.behind, NoDevice)
            else (CACHED if is_cached(share) else None),
        }
        error = getattr(self.behind, "error", None)
        if served is None and error:
            rec["not_read"] = error
        return rec

    def store(self, store: Store, run_id: int, records: list[dict[str, Any]]) -> None:
        if records:
            times = [time.time()] * len(records)
            store.add_series(run_id, [Series(0, "", "", "served", times, records)])


CACHES = {
    "rbd": "librbd's cache",
    "cephfs": "the CephFS client's cache",
    "pvc": "the Kubernetes node's page cache",
}
"""The cache on the client a Ceph target's reads can come from, by its kind."""


def watch_for(target: Target, fio_target: FioTarget, clients: bool) -> Watch | None:
    """The watch of what is behind ``target``; None where nothing can be read here: files and
    devices of other machines (``--clients``, pods without a cluster), and no reads."""
    from cephbench.execution.behind import Pool, for_path

    conn = target.cluster
    if conn is not None:
        if target.kind == "ceph":  # osd bench, iperf3: nothing read from a pool
            return None
        return Watch(Pool(conn, target.pool, CACHES.get(target.kind)))
    if clients or fio_target.pods is not None:
        return None
    location = getattr(target, "directory", None) or getattr(target, "device", None)
    if target.kind not in ("file", "device") or location is None:
        return None
    found = for_path(str(location))
    if isinstance(found, NoDevice) and not found.known:  # ZFS, say: nothing to tell
        return None
    return Watch(found)
