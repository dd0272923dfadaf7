"""Stopping and restarting one OSD of a running lab (failure tests, ``lab restart-osd``)."""

from __future__ import annotations

import signal
import time

from cephbench.errors import ToolFailed, UsageError
from cephbench.lab import faults
from cephbench.lab.ceph import ceph_json
from cephbench.lab.daemons import failure, is_ours, start, stop
from cephbench.lab.info import LabInfo
from cephbench.lab.paths import Layout
from cephbench.lab.state import Daemon, load, locked

POLL = 0.2


def _osd(info: LabInfo, osd: int) -> Daemon:
    state = load(Layout(info.dir))
    daemon = state.daemons.get(f"osd.{osd}") if state else None
    if daemon is None:
        raise UsageError(f"the lab has no osd.{osd} (it has {len(info.osds)} OSDs)")
    return daemon


def _up_since(dump: dict, osd: int, epoch: int) -> bool:
    """OSD ``osd`` is up in ``ceph osd dump`` output, and came up after map ``epoch``."""
    return any(o["osd"] == osd and o["up"] and o["up_from"] > epoch for o in dump["osds"])


def stop_osd(info: LabInfo, osd: int, kill: bool = False) -> bool:
    """Stop ``osd`` (SIGTERM, or SIGKILL with ``kill``); False if it was not running."""
    daemon = _osd(info, osd)
    if not is_ours(daemon.pid, info.conf_path):
        return False
    stop([daemon.pid], info.conf_path, sig=signal.SIGKILL if kill else signal.SIGTERM)
    return True


def restart_osd(info: LabInfo, osd: int, timeout: float = 120) -> float:
    """(Re)start ``osd`` and wait until the cluster sees it up; returns the seconds taken.

    Its faults (slow disk, CPU cap) are re-applied: the new process joins their cgroups.
    """
    start_time = time.monotonic()
    layout = Layout(info.dir)
    daemon = _osd(info, osd)
    stop([daemon.pid], info.conf_path)
    epoch = ceph_json(info, "osd", "dump", timeout=10)["epoch"]
    pid = start(layout, daemon)
    with locked(layout) as state:
        state.daemons[daemon.name].pid = pid
    faults.follow(layout, daemon.name, pid)
    deadline = start_time + timeout
    while True:
        if not is_ours(pid, info.conf_path):
            raise failure(layout, daemon.name, "died after its restart")
        try:
            if _up_since(ceph_json(info, "osd", "dump", timeout=10), osd, epoch):
                return time.monotonic() - start_time
        except ToolFailed:
            pass
        if time.monotonic() > deadline:
            raise failure(layout, daemon.name, f"was not up {timeout:g} s after its restart")
        time.sleep(POLL)
