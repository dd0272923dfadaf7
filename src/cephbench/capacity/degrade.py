"""``capacity --while recovery``: the search run while the cluster recovers from one OSD
marked out (:mod:`cephbench.ceph.osd_out`), what the recovery was doing recorded after every
step, and a note when it ended before the search did. The lab needs no permission; any other
cluster ``--allow degrade``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from cephbench.capacity import driver
from cephbench.errors import UsageError

if TYPE_CHECKING:
    from cephbench.capacity.model import Spec
    from cephbench.store import Store


def while_recovery(
    store: Store,
    spec: Spec,
    target: str | None,
    measure: driver.Measure,
    note: Callable[[str], None],
    *,
    allow_degrade: bool,
) -> int:
    from cephbench.ceph.commands import ceph_json
    from cephbench.ceph.osd_out import marked_out, recovering, recovery
    from cephbench.lab.connect import resolve
    from cephbench.store import ResourceLog

    conn = resolve()
    if conn.lab_dir is None and not allow_degrade:
        raise UsageError(
            "--while recovery marks an OSD out: on a cluster that is not the lab only with "
            "--allow degrade",
            hint="--allow degrade (one OSD out at most, marked in again afterwards)",
        )
    status = ceph_json(conn, "status")
    if status.get("health", {}).get("status") != "HEALTH_OK":
        raise UsageError(
            "the cluster is not HEALTH_OK: a recovery measured now is not the one cephbench starts",
            hint="wait for HEALTH_OK (ceph -s)",
        )
    steps = 0

    def background() -> tuple[tuple[str, float], ...]:
        nonlocal steps
        steps += 1
        return recovery(ceph_json(conn, "status"))

    def ended() -> str | None:
        if recovering(ceph_json(conn, "status")):
            return None
        return (
            f"the recovery ended during or before step {steps}: the steps after it measured "
            "a cluster no longer recovering"
        )

    with marked_out(conn, ResourceLog(store, None)) as osd:
        note(f"osd.{osd} marked out; the search measures while the cluster recovers")
        cap_id = driver.run_capacity(store, spec, target, measure, note, background, ended)
        from cephbench.store import capacities

        capacities.add_note(store, cap_id, f"osd.{osd} was marked out, and in again afterwards")
    note(f"osd.{osd} marked in again; the cluster is HEALTH_OK")
    return cap_id
