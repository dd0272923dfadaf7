"""Restarting a lab's OSDs for a setting they read only at start-up, and waiting until the
cluster is healthy again. Only a lab's: on a real cluster cephbench restarts nothing."""

from __future__ import annotations

import time

from cephbench.ceph.commands import ceph_json
from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError, ToolFailed

HEALTH_TIMEOUT = 300.0
POLL = 0.5


def restart_lab_osds(conn: Connection, lab_dir: str | None) -> None:
    """Restart every OSD of the lab (one at a time) and wait for HEALTH_OK."""
    if not lab_dir:
        raise CephbenchError(
            "the change needs the OSDs restarted, and cephbench restarts only a lab's",
            hint="restart them yourself with the setting applied, then compare runs",
        )
    from cephbench.lab import find_running, restart_osd

    info = find_running(lab_dir)
    if info is None:
        raise CephbenchError(f"the lab in {lab_dir} is not running")
    for osd in info.osds:
        restart_osd(info, osd)
    wait_health_ok(conn)


def wait_health_ok(conn: Connection, timeout: float = HEALTH_TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            status = ceph_json(conn, "status", timeout=10)
            if status.get("health", {}).get("status") == "HEALTH_OK":
                return
        except ToolFailed:
            pass
        if time.monotonic() > deadline:
            raise CephbenchError(
                f"the cluster was not HEALTH_OK {timeout:g} s after restarting its OSDs",
                hint="ceph -s says why",
            )
        time.sleep(POLL)
