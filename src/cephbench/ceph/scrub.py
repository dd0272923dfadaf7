"""Deep scrubs asked for during a measurement (``capacity --while scrub``): started on every
OSD with ``ceph osd deep-scrub all``, as an admin asks for them, and followed by each PG's
``last_deep_scrub_stamp`` (``ceph pg ls``). A point in time says little: the OSDs scrub a few
PGs at a time, each for a second or two on a small pool, with gaps between them, so ``ceph
status`` shows one PG scrubbing at one look and none at the next. What a PG's stamp did
between two readings says what was scrubbed between them. The stamps are compared with
themselves, never with this machine's clock.

A scrub asked for is not a setting: nothing is changed that needs putting back, and the
scrubs under way when the measurement ends run to their end as any scrub does. The readers
here are pure."""

from __future__ import annotations

from typing import Any

from cephbench.ceph.commands import ceph, ceph_json
from cephbench.ceph.connection import Connection

HELD_BY = ("noscrub", "nodeep-scrub")
"""OSD map flags under which the OSDs start no deep scrub."""

Stamps = dict[str, str]
"""Each PG's ``last_deep_scrub_stamp``, by PG id."""


def held(dump: dict[str, Any]) -> list[str]:
    """The flags of ``ceph osd dump -f json`` that keep deep scrubs from starting (pure)."""
    flags = set((dump.get("flags") or "").split(","))
    return [f for f in HELD_BY if f in flags]


def deep_stamps(pg_ls: dict[str, Any]) -> Stamps:
    """Each PG's last deep scrub, from ``ceph pg ls -f json`` (pure)."""
    return {
        str(p["pgid"]): str(p.get("last_deep_scrub_stamp"))
        for p in pg_ls.get("pg_stats", [])
        if isinstance(p, dict) and "pgid" in p
    }


def scrubbed(before: Stamps, now: Stamps) -> int:
    """How many PGs were deep-scrubbed between the two readings (pure)."""
    return sum(1 for pg, stamp in now.items() if pg in before and before[pg] != stamp)


def waiting(asked: Stamps, now: Stamps) -> int:
    """How many PGs of the ask are not deep-scrubbed yet (pure)."""
    return sum(1 for pg, stamp in asked.items() if now.get(pg, stamp) == stamp)


def scrubbing(status: dict[str, Any]) -> int:
    """The PGs deep-scrubbing at this look, from ``ceph status -f json`` (pure)."""
    pgmap = status.get("pgmap", {})
    return sum(
        s["count"]
        for s in pgmap.get("pgs_by_state", [])
        if {"scrubbing", "deep"} <= set(s["state_name"].split("+"))
    )


def stamps(conn: Connection) -> Stamps:
    return deep_stamps(ceph_json(conn, "pg", "ls"))


def deep_scrub_all(conn: Connection) -> Stamps:
    """Ask every OSD to deep-scrub its PGs (queued as the OSDs' scrub slots allow); the
    stamps as they were just before the ask."""
    before = stamps(conn)
    ceph(conn, "osd", "deep-scrub", "all")
    return before
