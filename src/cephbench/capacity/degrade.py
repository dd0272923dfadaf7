"""``capacity --while recovery|backfill|scrub``: the search run while the cluster recovers from
one OSD failed (marked down and out: its copies rebuilt), backfills from one OSD drained (marked
out, still up: its data moved) (:mod:`cephbench.ceph.osd_out`), or while its OSDs deep-scrub
(:mod:`cephbench.ceph.scrub`); what the background work was doing recorded after every step,
and a note when it ended before the search did (a scrub is asked for again before the next
step). The lab needs no permission; any other cluster ``--allow degrade``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from cephbench.capacity import driver
from cephbench.errors import UsageError

if TYPE_CHECKING:
    from cephbench.capacity.model import Spec
    from cephbench.ceph.connection import Connection
    from cephbench.store import Store


def _permitted(conn, during: str, does: str, allow_degrade: bool) -> None:
    """Refused on a cluster that is not the lab without ``--allow degrade``."""
    if conn.lab_dir is None and not allow_degrade:
        raise UsageError(
            f"--while {during} {does}: on a cluster that is not the lab only with --allow degrade",
            hint="--allow degrade (one OSD out at most, marked in again afterwards)",
        )


def _healthy(conn, during: str) -> None:
    """Refused on a cluster that is not HEALTH_OK (what is measured would not be what
    cephbench started)."""
    from cephbench.ceph.commands import ceph_json

    status = ceph_json(conn, "status")
    if status.get("health", {}).get("status") != "HEALTH_OK":
        raise UsageError(
            f"the cluster is not HEALTH_OK: a {during} measured now is not the one cephbench "
            "starts",
            hint="wait for HEALTH_OK (ceph -s)",
        )


def while_scrub(
    store: Store,
    spec: Spec,
    target: str | None,
    measure: driver.Measure,
    note: Callable[[str], None],
    *,
    allow_degrade: bool,
    conn: Connection,
) -> int:
    from cephbench.ceph import scrub
    from cephbench.ceph.commands import ceph_json
    from cephbench.store import capacities

    _permitted(conn, "scrub", "deep-scrubs every OSD", allow_degrade)
    flags = scrub.held(ceph_json(conn, "osd", "dump"))  # before the health: they warn too
    if flags:
        raise UsageError(
            f"the cluster has {', '.join(flags)} set: its OSDs start no deep scrub",
            hint=f"ceph osd unset {flags[0]}, or measure without --while scrub",
        )
    _healthy(conn, "scrub")
    steps = 0
    asked = scrub.deep_scrub_all(conn)
    note("every OSD asked for a deep scrub; the search measures while they scrub")
    at_start: scrub.Stamps = {}
    done_after: list[int] = []

    def scrubbing_measure(rate: float, repeat: int):
        nonlocal asked, at_start
        now = scrub.stamps(conn)
        if steps and not scrub.waiting(asked, now):  # every PG done: ask again
            asked = now = scrub.deep_scrub_all(conn)
        at_start = now
        return measure(rate, repeat)

    def background() -> tuple[tuple[str, float], ...]:
        nonlocal steps
        steps += 1
        now = scrub.stamps(conn)
        left = scrub.waiting(asked, now)
        if not left:
            done_after.append(steps)
        return (
            ("pgs_deep_scrubbed", float(scrub.scrubbed(at_start, now))),
            ("pgs_deep_scrub_waiting", float(left)),
            ("pgs_deep_scrubbing", float(scrub.scrubbing(ceph_json(conn, "status")))),
        )

    def ended() -> str | None:
        if not done_after or done_after[-1] != steps:
            return None
        return (
            f"every PG asked for was deep-scrubbed by the end of step {steps}: every OSD is "
            "asked for a deep scrub again before each next step"
        )

    cap_id = driver.run_capacity(store, spec, target, scrubbing_measure, note, background, ended)
    capacities.add_note(
        store, cap_id, "every OSD was asked for a deep scrub (ceph osd deep-scrub all)"
    )
    return cap_id


WHAT = {
    True: ("recovery", "marks an OSD down and out", "marked down and out", "recovers"),
    False: ("backfill", "marks an OSD out", "marked out", "backfills"),
}
"""Marked down too -> (its name, what it does, what was done to the OSD, what the cluster
does meanwhile)."""


def while_recovery(
    store: Store,
    spec: Spec,
    target: str | None,
    measure: driver.Measure,
    note: Callable[[str], None],
    *,
    allow_degrade: bool,
    conn: Connection,
    down: bool = True,
) -> int:
    """The search while one OSD is out: marked down too (``down``: a failed disk, its copies
    rebuilt: recovery), or up (drained, its data moved: backfill)."""
    from cephbench.ceph.commands import ceph_json
    from cephbench.ceph.osd_out import marked_out, recovering, recovery
    from cephbench.store import ResourceLog

    during, does, done, meanwhile = WHAT[down]
    _permitted(conn, during, does, allow_degrade)
    _healthy(conn, during)
    steps = 0

    def background() -> tuple[tuple[str, float], ...]:
        nonlocal steps
        steps += 1
        return recovery(ceph_json(conn, "status"))

    def ended() -> str | None:
        if recovering(ceph_json(conn, "status")):
            return None
        return (
            f"the {during} ended during or before step {steps}: the search stopped there, and "
            "its figure is from the repeats that ended before it (a longer one, e.g. "
            "more data or a higher osd_recovery_sleep, gives it more)"
        )

    with marked_out(conn, ResourceLog(store, None), down=down) as osd:
        note(f"osd.{osd} {done}; the search measures while the cluster {meanwhile}")
        cap_id = driver.run_capacity(
            store, spec, target, measure, note, background, ended, stop_when_ended=True
        )
        from cephbench.store import capacities

        capacities.add_note(store, cap_id, f"osd.{osd} was {done}, and put back afterwards")
    note(f"osd.{osd} back up and in; the cluster is HEALTH_OK")
    return cap_id
