"""One OSD taken out for a measurement, always put back: ``capacity --while backfill`` marks it
out (it stays up and serves its data while the data moves to the others, as when an OSD is
drained), ``--while recovery`` also marks it down, as a failed disk is (its copies are gone:
its PGs are short of one until the others rebuild it). A running OSD marked down boots
again at once, so it is held down by a flag of its own (``ceph osd add-noup osd.N``), not the
cluster's: no other OSD is kept from booting.

What cephbench does is recorded in the resource log before it is done, so a killed cephbench
leaves it for ``cephbench cleanup`` (which marks the OSD in and removes its flag); on a normal
exit, an error or a Ctrl-C the OSD is put back (those commands shielded from a second Ctrl-C)
and cephbench waits for HEALTH_OK. Never more than one OSD: a cluster with an OSD out already
is refused, and an OSD with a noup flag of its own is never picked (removing it would undo
somebody else's). The readers of ``ceph osd dump`` and ``ceph status`` here are pure.
"""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from cephbench.ceph.commands import ceph, ceph_json
from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError, UsageError
from cephbench.resources.shield import deferred_interrupts
from cephbench.resources.undo import undoes
from cephbench.store import Resource, ResourceLog

KIND = "osd_out"
POLL = 2.0
HEALTHY_TIMEOUT = 900.0
"""Seconds to wait for HEALTH_OK once the OSD is back in: the recovery it set off must end."""
STATS_PERIOD = 12.0
"""Seconds HEALTH_OK must hold: more than twice the mgr's ``mgr_stats_period`` (5 s)."""
RECOVERING = ("recovering", "recovery_wait", "backfilling", "backfill_wait", "degraded")


def osds_out(dump: dict[str, Any]) -> list[int]:
    """OSDs marked out, from ``ceph osd dump -f json`` (pure)."""
    return [o["osd"] for o in dump.get("osds", []) if not o.get("in")]


def pick(dump: dict[str, Any]) -> int:
    """The OSD to mark out: the highest-numbered one up and in; refused when any is out
    already (never more than one out) or when fewer than three are in (pure)."""
    out = osds_out(dump)
    if out:
        raise UsageError(
            f"osd.{out[0]} is out already: cephbench never takes a second OSD out",
            hint="mark it in (ceph osd in), wait for HEALTH_OK, then measure",
        )
    up_in = [o for o in dump.get("osds", []) if o.get("up") and o.get("in")]
    if len(up_in) < 3:
        raise UsageError(
            f"{len(up_in)} OSD(s) up and in: too few to take one out and keep the data",
            hint="a lab with --osds 3 or more",
        )
    candidates = [o["osd"] for o in up_in if "noup" not in o.get("state", [])]
    if not candidates:
        raise UsageError(
            "every OSD up and in has a noup flag of its own: none is cephbench's to take out",
            hint="ceph osd rm-noup osd.N",
        )
    return max(candidates)


def recovery(status: dict[str, Any]) -> tuple[tuple[str, float], ...]:
    """What ``ceph status -f json`` says the recovery is doing: its rate, bytes/s, and the PGs
    degraded (objects short of copies), undersized (fewer OSDs than the pool's size: an OSD
    down and out), recovering or backfilling, and the objects misplaced (pure)."""
    pgmap = status.get("pgmap", {})
    states = [(s["state_name"].split("+"), s["count"]) for s in pgmap.get("pgs_by_state", [])]
    return (
        ("recovering_bytes_per_s", float(pgmap.get("recovering_bytes_per_sec", 0))),
        ("pgs_degraded", float(sum(n for words, n in states if "degraded" in words))),
        ("pgs_undersized", float(sum(n for words, n in states if "undersized" in words))),
        (
            "pgs_recovering",
            float(sum(n for words, n in states if set(words) & set(RECOVERING[:4]))),
        ),
        ("objects_misplaced", float(pgmap.get("misplaced_objects", 0))),
    )


def recovering(status: dict[str, Any]) -> bool:
    """Whether any PG still recovers, backfills or is degraded (pure)."""
    pgmap = status.get("pgmap", {})
    return any(
        set(s["state_name"].split("+")) & set(RECOVERING) for s in pgmap.get("pgs_by_state", [])
    ) or bool(pgmap.get("misplaced_objects", 0))


@contextmanager
def marked_out(conn: Connection, resources: ResourceLog, *, down: bool = False) -> Iterator[int]:
    """Mark one OSD out (``down``: down too, held there by its own noup flag); yield its id;
    put it back (in, its flag removed) and wait for HEALTH_OK, every OSD up, on exit."""
    osd = pick(ceph_json(conn, "osd", "dump"))
    owner = {"pid": os.getpid(), "host": socket.gethostname()}
    detail = {"conn": conn.to_json(), "osd": osd, "down": down, **owner}
    rid = None
    try:
        with deferred_interrupts():  # the record, then the try that undoes it
            rid = resources.add(KIND, f"osd.{osd}", detail)
        if down:
            ceph(conn, "osd", "add-noup", f"osd.{osd}")
            ceph(conn, "osd", "down", str(osd))
        ceph(conn, "osd", "out", str(osd))
        yield osd
    finally:
        if rid is not None:
            with deferred_interrupts():
                put_back(conn, osd, down)
                resources.removed(rid)
            wait_healthy(conn)


def put_back(conn: Connection, osd: int, down: bool) -> None:
    """Mark the OSD in; where it was marked down, remove its noup flag (it boots at once)."""
    ceph(conn, "osd", "in", str(osd))
    if down:
        ceph(conn, "osd", "rm-noup", f"osd.{osd}")


def healthy(status: dict[str, Any]) -> bool:
    """HEALTH_OK with every OSD up and in and every PG active+clean, in one ``ceph status``
    (pure)."""
    osdmap = status.get("osdmap", {})
    osdmap = osdmap.get("osdmap", osdmap)  # nested before Pacific
    pgmap = status.get("pgmap", {})
    clean = sum(
        s["count"] for s in pgmap.get("pgs_by_state", []) if s["state_name"] == "active+clean"
    )
    return (
        status.get("health", {}).get("status") == "HEALTH_OK"
        and osdmap.get("num_in_osds") == osdmap.get("num_osds")
        and osdmap.get("num_up_osds", osdmap.get("num_osds")) == osdmap.get("num_osds")
        and clean == pgmap.get("num_pgs", 0)
    )


def wait_healthy(conn: Connection, timeout: float = HEALTHY_TIMEOUT) -> None:
    """Until :func:`healthy` has held for :data:`STATS_PERIOD`: the health and PG states come
    from the mgr's PG map, which lags the OSD map by up to its stats period, so a status read
    just after ``osd in`` can still say HEALTH_OK before the backfill it sets off shows."""
    deadline = time.monotonic() + timeout
    since: float | None = None
    while True:
        status = ceph_json(conn, "status")
        now = time.monotonic()
        if healthy(status):
            since = now if since is None else since
            if now - since >= STATS_PERIOD:
                return
        else:
            since = None
        if now > deadline:
            health = status.get("health", {}).get("status")
            raise CephbenchError(
                f"the OSD is back, but the cluster is {health} after {timeout:g} s",
                hint="check `ceph -s`",
            )
        time.sleep(POLL)


@undoes(KIND)
def undo_out(resource: Resource) -> None:
    """``cephbench cleanup``: put back the OSD a killed search took out (in, and its noup
    flag removed where it was marked down; not under a search that still runs: it puts the
    OSD back itself when it ends)."""
    from cephbench.system.pids import exists

    pid, host = resource.detail.get("pid"), resource.detail.get("host")
    if host == socket.gethostname() and pid and pid != os.getpid() and exists(pid):
        raise CephbenchError(f"the capacity search (pid {pid}) that took {resource.name} out runs")
    conn = Connection.from_json(resource.detail["conn"])
    put_back(conn, int(resource.detail["osd"]), bool(resource.detail.get("down")))
