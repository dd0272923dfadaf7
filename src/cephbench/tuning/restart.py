"""Restarting a lab's OSDs for a setting they read only at start-up, and waiting until the
cluster is healthy again (only a lab's: on a real cluster cephbench restarts nothing); and
checking what the running OSDs run with (``ceph config show``)."""

from __future__ import annotations

import time

from cephbench.ceph.commands import ceph, ceph_json
from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError, ToolFailed
from cephbench.tuning.changes import same_value

HEALTH_TIMEOUT = 300.0
RUNNING_TIMEOUT = 20.0
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


def verify_running(conn: Connection, who: str, key: str, value_type: str, value: str) -> None:
    """The OSDs of section ``who`` (every OSD for ``osd`` or none) run with ``key`` =
    ``value`` within :data:`RUNNING_TIMEOUT`; else an error: they need a restart for it."""
    osds = [who] if "." in who else osd_names(conn)
    for osd in osds:
        deadline = time.monotonic() + RUNNING_TIMEOUT  # the monitors push it to each OSD
        while (shown := running_value(conn, osd, key)) is None or not same_value(
            value_type, shown, value
        ):
            if time.monotonic() < deadline:
                time.sleep(POLL)
                continue
            what = "has not said what it runs with" if shown is None else f"runs {shown}"
            raise CephbenchError(
                f"{key} = {value} is set but {osd} {what}: the OSDs need a restart for it",
                hint="cephbench restarts only a lab's OSDs; restart them yourself and "
                "set the option before running cephbench ab",
            )


def running_value(conn: Connection, daemon: str, key: str) -> str | None:
    """What ``daemon`` runs with (``ceph config show``); None while a daemon just started has
    not reported its configuration yet (ENOENT for a few seconds)."""
    result = ceph(conn, "config", "show", daemon, key, check=False)
    if result.returncode != 0 and "ENOENT" in result.last_error_line():
        return None
    if result.returncode != 0:  # anything else: the ordinary error
        return ceph(conn, "config", "show", daemon, key).stdout.strip()
    return result.stdout.strip()


def osd_section(who: str) -> bool:
    return who == "osd" or who.startswith("osd.")


def osd_names(conn: Connection) -> list[str]:
    return [f"osd.{i}" for i in ceph_json(conn, "osd", "ls") or []]
