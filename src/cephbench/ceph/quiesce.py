"""``--quiesce``: noscrub and nodeep-scrub for the run, always unset afterwards.

A flag that was already set is left as it was (it is not ours to unset).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

from cephbench.ceph.commands import ceph, ceph_json
from cephbench.ceph.connection import Connection
from cephbench.resources.shield import deferred_interrupts
from cephbench.resources.undo import undoes
from cephbench.store import Resource, ResourceLog

FLAGS = ("noscrub", "nodeep-scrub")


def set_flags(conn: Connection) -> set[str]:
    """OSD map flags now set on the cluster."""
    return set((ceph_json(conn, "osd", "dump").get("flags") or "").split(","))


@contextmanager
def quiesced(conn: Connection, resources: ResourceLog) -> Iterator[list[str]]:
    """Set the scrub flags that are not set yet; yield those set; unset them on exit."""
    already = set_flags(conn)
    with ExitStack() as undo:
        ours = []
        for flag in FLAGS:
            if flag in already:
                continue
            with deferred_interrupts():  # recorded with its undo; or not begun
                rid = resources.add("osd_flag", flag, {"conn": conn.to_json()})
                undo.callback(resources.removed, rid)
                undo.callback(ceph, conn, "osd", "unset", flag)
            ceph(conn, "osd", "set", flag)
            ours.append(flag)
        yield ours


@undoes("osd_flag")
def undo_flag(resource: Resource) -> None:
    ceph(Connection.from_json(resource.detail["conn"]), "osd", "unset", resource.name)
