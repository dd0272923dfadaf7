"""Cluster health before and during a run, from ``ceph status -f json`` (pure readers), and
the sampler that polls it in the background while the benchmark runs.

A sample becomes validity flags on the results whose time window it falls in: an OSD down,
PGs degraded, recovering, backfilling or scrubbing all change what a benchmark measures.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError, Interrupted

DEFAULT_INTERVAL = 5.0
#: PG state word -> flag (the words Ceph joins with "+" in pgs_by_state names).
PG_FLAGS = {
    "degraded": "degraded",
    "undersized": "degraded",
    "recovering": "recovery",
    "recovery_wait": "recovery",
    "recovery_toofull": "recovery",
    "backfilling": "backfill",
    "backfill_wait": "backfill",
    "backfill_toofull": "backfill",
    "scrubbing": "scrub",
    "deep": "scrub",
    "peering": "pgs_inactive",
    "activating": "pgs_inactive",
    "down": "pgs_inactive",
    "incomplete": "pgs_inactive",
    "stale": "pgs_inactive",
    "unknown": "pgs_inactive",
}


def _osdmap(status: dict) -> dict:
    osdmap = status.get("osdmap", {})
    return osdmap.get("osdmap", osdmap)  # nested before Pacific


def pg_states(status: dict) -> dict[str, int]:
    return {s["state_name"]: s["count"] for s in status.get("pgmap", {}).get("pgs_by_state", [])}


def flags(status: dict) -> set[str]:
    """Validity flags one ``ceph status`` sample raises."""
    out = set()
    osdmap = _osdmap(status)
    if osdmap.get("num_up_osds", 0) < osdmap.get("num_osds", 0) or "OSD_DOWN" in status.get(
        "health", {}
    ).get("checks", {}):
        out.add("osd_down")
    for state in pg_states(status):
        for word in state.split("+"):
            if word in PG_FLAGS:
                out.add(PG_FLAGS[word])
    if status.get("health", {}).get("status") == "HEALTH_ERR":
        out.add("health_err")
    return out


def refuse_reason(status: dict) -> str | None:
    """Why a benchmark should not start on this cluster (HEALTH_ERR, PGs not active+clean)."""
    health = status.get("health", {})
    if health.get("status") == "HEALTH_ERR":
        checks = "; ".join(
            f"{k}: {v.get('summary', {}).get('message', '')}"
            for k, v in health.get("checks", {}).items()
        )
        return f"the cluster is in HEALTH_ERR ({checks})"
    states = pg_states(status)
    total = status.get("pgmap", {}).get("num_pgs", 0)
    clean = sum(
        n
        for s, n in states.items()
        if s in ("active+clean", "active+clean+scrubbing", "active+clean+scrubbing+deep")
    )
    if clean < total:
        others = ", ".join(
            f"{n} {s}" for s, n in sorted(states.items()) if not s.startswith("active+clean")
        )
        return f"{total - clean} of {total} PGs are not active+clean ({others})"
    return None


TRANSIENT = {"unknown", "creating", "peering", "activating", "active", "clean"}


def settling(status: dict) -> bool:
    """Every PG that is not active+clean is only passing through (new pool): worth a wait."""
    osdmap = _osdmap(status)
    if osdmap.get("num_up_osds", 0) < osdmap.get("num_osds", 0):
        return False
    return all(set(s.split("+")) <= TRANSIENT for s in pg_states(status))


def summary(status: dict) -> dict[str, Any]:
    """What a stored sample keeps: health, OSDs up/in, PG states."""
    osdmap = _osdmap(status)
    return {
        "health": status.get("health", {}).get("status"),
        "osds": osdmap.get("num_osds"),
        "up": osdmap.get("num_up_osds"),
        "in": osdmap.get("num_in_osds"),
        "pgs": pg_states(status),
    }


@dataclass(frozen=True)
class Sample:
    t: float
    """time.monotonic() of the sample."""
    wall: float
    flags: frozenset[str]
    summary: dict[str, Any] = field(hash=False)


class Sampler:
    """Polls ``ceph status`` every ``interval`` seconds in a thread; ``flags_between`` answers."""

    def __init__(self, conn: Connection, interval: float = DEFAULT_INTERVAL):
        self.conn, self.interval = conn, interval
        self.samples: list[Sample] = []
        self.failures = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, name="cephbench-health", daemon=True)

    def __enter__(self) -> Sampler:
        if not self.samples:
            self.sample()
        self._thread.start()
        return self

    def seed(self, status: dict) -> None:
        """A ``ceph status`` read just now (the run's fingerprint has one) as the first sample,
        instead of reading it again when the sampler starts."""
        s = Sample(time.monotonic(), time.time(), frozenset(flags(status)), summary(status))
        with self._lock:
            self.samples.append(s)

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=2 * self.conn.timeout if exc[0] is None else 1.0)

    def sample(self) -> Sample | None:
        """Take one sample now (also between workloads: short runs are covered too)."""
        from cephbench.ceph.commands import ceph_json  # subprocess machinery: not for run --help

        try:
            status = ceph_json(self.conn, "status", timeout=min(self.conn.timeout, 15))
        except Interrupted:
            raise
        except CephbenchError:
            with self._lock:
                self.failures += 1
            return None
        s = Sample(time.monotonic(), time.time(), frozenset(flags(status)), summary(status))
        with self._lock:
            self.samples.append(s)
        return s

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.sample()

    def flags_between(self, start: float, end: float) -> tuple[str, ...]:
        """Flags of every sample taken from ``start`` to ``end`` (monotonic), sorted.

        The sample just before ``start`` counts too: the state it saw held until the next one.
        """
        with self._lock:
            before = [s for s in self.samples if s.t < start]
            inside = [s for s in self.samples if start <= s.t <= end]
        chosen = inside + before[-1:]
        return tuple(sorted(set().union(*(s.flags for s in chosen)))) if chosen else ()
