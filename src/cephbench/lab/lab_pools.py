"""Pools for benchmarks, created on demand and recorded, so only those are ever removed."""

from __future__ import annotations

import re
import time

from cephbench.lab.ceph import ceph, ceph_json, pgs_clean
from cephbench.lab.errors import LabError
from cephbench.lab.info import LabInfo
from cephbench.lab.paths import Layout
from cephbench.lab.state import locked

_POOL_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
POLL = 0.2


def ensure_pool(
    info: LabInfo,
    name: str,
    pg_num: int = 32,
    size: int | None = None,
    application: str = "rbd",
    timeout: float = 120,
) -> bool:
    """Make sure replicated pool ``name`` exists in the lab; True if this call created it.

    ``size`` defaults to 3 (fewer with fewer OSDs). A new pool is recorded in the lab's
    state before it is created, and returned only once all its PGs are active+clean.
    """
    if not _POOL_NAME.match(name):
        raise LabError(f"not a pool name cephbench creates: {name!r}")
    if name in ceph_json(info, "osd", "pool", "ls"):
        return False
    with locked(Layout(info.dir)) as state:
        if name not in state.pools:
            state.pools.append(name)
    create_pool(info, name, pg_num, size, application, timeout)
    return True


def create_pool(
    info: LabInfo,
    name: str,
    pg_num: int = 32,
    size: int | None = None,
    application: str = "rbd",
    timeout: float = 120,
) -> None:
    """Create pool ``name`` (already recorded by the caller) and wait for its PGs."""
    size = size or min(3, len(info.osds))
    ceph(
        info,
        "osd",
        "pool",
        "create",
        name,
        str(pg_num),
        str(pg_num),
        "replicated",
        "--autoscale_mode",
        "off",
    )
    ceph(info, "osd", "pool", "set", name, "size", str(size), "--yes-i-really-mean-it")
    ceph(info, "osd", "pool", "application", "enable", name, application)
    wait_pool_clean(info, name, pg_num, timeout)


def wait_pool_clean(info: LabInfo, name: str, pg_num: int, timeout: float = 120) -> None:
    """Wait until all ``pg_num`` PGs of pool ``name`` are active+clean."""
    deadline = time.monotonic() + timeout
    while not pgs_clean(ceph_json(info, "pg", "ls-by-pool", name, timeout=10), pg_num):
        if time.monotonic() > deadline:
            raise LabError(f"the PGs of pool {name} were not active+clean after {timeout:g} s")
        time.sleep(POLL)


def remove_pool(info: LabInfo, name: str) -> None:
    """Delete pool ``name`` if cephbench created it (as recorded in the lab's state)."""
    with locked(Layout(info.dir)) as state:
        if name not in state.pools:
            raise LabError(f"pool {name} was not created by cephbench; not removing it")
        if name in ceph_json(info, "osd", "pool", "ls"):
            ceph(info, "osd", "pool", "rm", name, name, "--yes-i-really-really-mean-it")
        state.pools.remove(name)
