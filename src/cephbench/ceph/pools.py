"""Pools cephbench creates for a run: recorded before creation, tagged as cephbench's,
deleted afterwards. A pool that already existed is never deleted.

Deleting a pool needs ``mon_allow_pool_delete``; where it is off, the error says what was
left and the command that removes it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager

from cephbench.ceph.commands import ceph, ceph_json
from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError, TargetError
from cephbench.execution.cleanup import undoes
from cephbench.store import Resource, ResourceLog

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
TAG_APP, TAG_KEY = "cephbench", "created_by"
POLL = 0.3


def exists(conn: Connection, pool: str) -> bool:
    return pool in (ceph_json(conn, "osd", "pool", "ls") or [])


def create(conn: Connection, pool: str, tag: str, *, size: int | None, pg_num: int,
           application: str, timeout: float = 120) -> None:
    """A replicated pool, application enabled, tagged ``cephbench created_by=<tag>``, PGs clean."""
    if not NAME.match(pool):
        raise TargetError(f"'{pool}' is not a pool name cephbench creates", hint="letters, digits, . _ -")
    ceph(conn, "osd", "pool", "create", pool, str(pg_num), str(pg_num), "replicated",
         "--autoscale_mode", "off")
    if size is None:
        up = sum(1 for o in ceph_json(conn, "osd", "dump")["osds"] if o["up"])
        size = min(3, max(1, up))
    ceph(conn, "osd", "pool", "set", pool, "size", str(size), "--yes-i-really-mean-it")
    ceph(conn, "osd", "pool", "application", "enable", pool, application)
    ceph(conn, "osd", "pool", "application", "enable", pool, TAG_APP, "--yes-i-really-mean-it")
    ceph(conn, "osd", "pool", "application", "set", pool, TAG_APP, TAG_KEY, tag)
    deadline = time.monotonic() + timeout
    while not _clean(conn, pool, pg_num):
        if time.monotonic() > deadline:
            raise CephbenchError(f"the PGs of new pool {pool} were not active+clean after {timeout:g} s",
                                 hint="check `ceph -s`: are enough OSDs up for --pool-size?")
        time.sleep(POLL)


def _clean(conn: Connection, pool: str, pg_num: int) -> bool:
    pgs = ceph_json(conn, "pg", "ls-by-pool", pool, timeout=10)
    stats = pgs.get("pg_stats", []) if isinstance(pgs, dict) else (pgs or [])
    return len(stats) == pg_num and all(s.get("state") == "active+clean" for s in stats)


def tag_of(conn: Connection, pool: str) -> str | None:
    apps = ceph_json(conn, "osd", "pool", "application", "get", pool) or {}
    return apps.get(TAG_APP, {}).get(TAG_KEY)


def remove(conn: Connection, pool: str, tag: str) -> None:
    """Delete ``pool`` if it carries cephbench's ``tag``; say what to do when Ceph refuses."""
    if not exists(conn, pool):
        return
    if tag_of(conn, pool) != tag:
        raise CephbenchError(f"pool {pool} is not tagged as created by cephbench ({tag}); not deleting it")
    result = ceph(conn, "osd", "pool", "rm", pool, pool, "--yes-i-really-really-mean-it", check=False)
    if result.returncode != 0:
        cmd = f"ceph osd pool rm {pool} {pool} --yes-i-really-really-mean-it"
        if "mon_allow_pool_delete" in result.stderr:
            raise CephbenchError(
                f"pool {pool} (created by cephbench) was left: the cluster forbids deleting pools",
                hint=f"ceph config set mon mon_allow_pool_delete true; {cmd}")
        raise CephbenchError(f"deleting pool {pool} failed: {result.last_error_line()}", hint=f"run: {cmd}")


@contextmanager
def pool_for_run(conn: Connection, pool: str, resources: ResourceLog, run_id: int, *,
                 size: int | None = None, pg_num: int = 32, application: str = "rbd") -> Iterator[bool]:
    """``pool`` exists for the block; created (and afterwards deleted) when it did not. Yields
    whether it was created."""
    if exists(conn, pool):
        yield False
        return
    tag = f"run-{run_id}"
    rid = resources.add("ceph_pool", pool, {"conn": conn.to_json(), "tag": tag})
    try:
        create(conn, pool, tag, size=size, pg_num=pg_num, application=application)
        yield True
    finally:
        remove(conn, pool, tag)
        resources.removed(rid)


@undoes("ceph_pool")
def _undo_pool(resource: Resource) -> None:
    remove(Connection.from_json(resource.detail["conn"]), resource.name, resource.detail["tag"])
