"""Pools cephbench creates for a run: recorded before creation, tagged as cephbench's,
deleted afterwards. A pool that already existed is never deleted.

Ours is a pool that carries the run's tag, or one created after it was recorded: the record
keeps ``pool_max`` (the highest pool id the cluster had handed out), so a pool of that name
with a higher id did not exist then. That covers a run stopped (or killed) between creating
and tagging; Ctrl-C waits until the tag is set anyway.

Deleting a pool needs ``mon_allow_pool_delete``; where it is off, the pool is left recorded
and :class:`ResourceLeft` says what was left and how to remove it (``cephbench cleanup``).
A client that may not create pools is told so before anything is made.
"""

from __future__ import annotations

import re
import secrets
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from cephbench.ceph.commands import ceph, ceph_json
from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError, TargetError, ToolFailed
from cephbench.resources.shield import deferred_interrupts
from cephbench.resources.undo import ResourceLeft, undoes
from cephbench.store import Resource, ResourceLog

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
TAG_APP, TAG_KEY = "cephbench", "created_by"
POLL = 0.3
ALLOW_DELETE = "ceph tell 'mon.*' config set mon_allow_pool_delete true"


def exists(conn: Connection, pool: str) -> bool:
    return pool in (ceph_json(conn, "osd", "pool", "ls") or [])


def pool_ids(conn: Connection) -> tuple[int, dict[str, int]]:
    """The highest pool id handed out so far, and each pool's id by name."""
    return _ids(ceph_json(conn, "osd", "dump"))


def _ids(dump: dict[str, Any]) -> tuple[int, dict[str, int]]:
    return int(dump.get("pool_max", 0)), {
        p["pool_name"]: int(p["pool"]) for p in dump.get("pools", [])
    }


def default_size(dump: dict[str, Any]) -> int:
    """Replicas for a new pool: one per up OSD, three at most (``ceph osd dump``'s OSDs)."""
    return min(3, max(1, sum(1 for o in dump.get("osds", []) if o.get("up"))))


def check_may_create(conn: Connection, pool: str) -> None:
    """Refuse, before anything is made, when ``conn``'s client may not create pools.

    Asks the monitors to create ``pool`` with a CRUSH rule that does not exist: a client
    without the caps gets "access denied", one with them "rule doesn't exist"; either way no
    pool is made.
    """
    rule = f"cephbench-probe-no-such-rule-{secrets.token_hex(4)}"
    result = ceph(conn, "osd", "pool", "create", pool, "1", "1", "replicated", rule, check=False)
    if result.returncode != 0 and _denied(result.stderr):
        raise TargetError(
            f"client.{conn.id} may not create pools, and pool {pool} does not exist",
            hint="name a pool that exists (e.g. --target rbd:POOL/IMAGE): cephbench uses it as "
            "it is, or use a client with 'mon allow w' caps",
        )


def check_usable(conn: Connection, pool: str | None) -> None:
    """Before a run: ``pool`` (None: a fresh one) exists, or ``conn``'s client may create it."""
    if pool is None or not exists(conn, pool):
        check_may_create(conn, pool or f"cephbench-probe-{secrets.token_hex(4)}")


def _denied(stderr: str) -> bool:
    return "EACCES" in stderr or "access denied" in stderr.lower() or "Permission denied" in stderr


def tag_pool(conn: Connection, pool: str, tag: str, application: str) -> None:
    """The application and cephbench's ``created_by`` tag on a new pool: both applications
    enabled at once (each ``ceph`` call costs a process and a monitor session), then the tag."""
    # whichever comes second finds an application enabled already: both say they mean it
    enables = [
        ("osd", "pool", "application", "enable", pool, app, "--yes-i-really-mean-it")
        for app in (application, TAG_APP)
    ]
    with ThreadPoolExecutor(len(enables)) as pool_of:
        for done in [pool_of.submit(ceph, conn, *args) for args in enables]:
            done.result()
    ceph(conn, "osd", "pool", "application", "set", pool, TAG_APP, TAG_KEY, tag)


def wait_clean(conn: Connection, pool: str, pg_num: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while not _clean(conn, pool, pg_num):
        if time.monotonic() > deadline:
            raise CephbenchError(
                f"the PGs of new pool {pool} were not active+clean after {timeout:g} s",
                hint="check `ceph -s`: are enough OSDs up for --pool-size?",
            )
        time.sleep(POLL)


def _clean(conn: Connection, pool: str, pg_num: int) -> bool:
    pgs = ceph_json(conn, "pg", "ls-by-pool", pool, timeout=10)
    stats = pgs.get("pg_stats", []) if isinstance(pgs, dict) else (pgs or [])
    return len(stats) == pg_num and all(s.get("state") == "active+clean" for s in stats)


def tag_of(conn: Connection, pool: str) -> str | None:
    apps = ceph_json(conn, "osd", "pool", "application", "get", pool) or {}
    return apps.get(TAG_APP, {}).get(TAG_KEY)


def ours(conn: Connection, pool: str, tag: str, pool_max: int | None) -> bool:
    """Whether ``pool`` (which exists) is the one recorded with ``tag``.

    Tagged ``tag``: ours. Untagged and with an id above ``pool_max`` (the highest id handed
    out when it was recorded, before it was created): ours too, cut off before its tag.
    """
    return _tagged_ours(conn, pool, tag, pool_max, tag_of(conn, pool))


def _tagged_ours(
    conn: Connection, pool: str, tag: str, pool_max: int | None, found: str | None
) -> bool:
    if found is not None or pool_max is None:
        return found == tag
    return pool_ids(conn)[1].get(pool, -1) > pool_max


def remove(conn: Connection, pool: str, tag: str, pool_max: int | None = None) -> None:
    """Delete ``pool`` if it is ours (see :func:`ours`); say what to do when Ceph refuses."""
    try:
        found = tag_of(conn, pool)  # one read: its tag, and that it exists
    except CephbenchError:
        if not exists(conn, pool):
            return
        raise
    if not _tagged_ours(conn, pool, tag, pool_max, found):
        raise CephbenchError(
            f"pool {pool} is not tagged as created by cephbench ({tag}); not deleting it"
        )
    result = ceph(
        conn, "osd", "pool", "rm", pool, pool, "--yes-i-really-really-mean-it", check=False
    )
    if result.returncode != 0:
        cmd = f"ceph osd pool rm {pool} {pool} --yes-i-really-really-mean-it"
        if "mon_allow_pool_delete" in result.stderr:
            raise ResourceLeft(
                f"pool {pool} (created by cephbench, {tag}) was left: the cluster forbids deleting "
                "pools (mon_allow_pool_delete is false)",
                hint=f"to remove it: {ALLOW_DELETE}; cephbench cleanup; then set it back to false",
            )
        raise CephbenchError(
            f"deleting pool {pool} failed: {result.last_error_line()}", hint=f"run: {cmd}"
        )


@contextmanager
def pool_for_run(
    conn: Connection,
    pool: str,
    resources: ResourceLog,
    run_id: int,
    *,
    size: int | None = None,
    pg_num: int = 32,
    application: str = "rbd",
) -> Iterator[bool]:
    """``pool`` exists for the block; created (and afterwards deleted) when it did not. Yields
    whether it was created."""
    dump = ceph_json(conn, "osd", "dump")
    pool_max, by_name = _ids(dump)
    if pool in by_name:
        yield False
        return
    size = default_size(dump) if size is None else size
    tag = f"run-{run_id}"
    rid = None
    try:
        with deferred_interrupts():  # recorded, created and tagged; or not begun
            rid = resources.add(
                "ceph_pool", pool, {"conn": conn.to_json(), "tag": tag, "pool_max": pool_max}
            )
            _create(conn, pool, tag, size, pg_num, application)
        wait_clean(conn, pool, pg_num)
        yield True
    finally:
        if rid is not None:
            _remove_recorded(conn, pool, tag, pool_max, resources, rid)


def _create(
    conn: Connection, pool: str, tag: str, size: int, pg_num: int, application: str
) -> None:
    if not NAME.match(pool):
        raise TargetError(
            f"'{pool}' is not a pool name cephbench creates", hint="letters, digits, . _ -"
        )
    result = ceph(
        conn,
        "osd",
        "pool",
        "create",
        pool,
        str(pg_num),
        str(pg_num),
        "replicated",
        "--autoscale_mode",
        "off",
        "--size",
        str(size),
        check=False,
    )
    if result.returncode != 0:
        if _denied(result.stderr):
            raise TargetError(
                f"client.{conn.id} may not create pool {pool}",
                hint="name a pool that exists, e.g. --target rbd:POOL/IMAGE",
            )
        raise ToolFailed(f"ceph osd pool create {pool} failed: {result.last_error_line()}")
    tag_pool(conn, pool, tag, application)


def _remove_recorded(
    conn: Connection, pool: str, tag: str, pool_max: int, resources: ResourceLog, rid: int
) -> None:
    """Delete the pool, then mark its record removed; both or neither, whatever Ctrl-C does."""
    with deferred_interrupts():
        remove(conn, pool, tag, pool_max)
        resources.removed(rid)


@undoes("ceph_pool")
def undo_pool(resource: Resource) -> None:
    remove(
        Connection.from_json(resource.detail["conn"]),
        resource.name,
        resource.detail["tag"],
        resource.detail.get("pool_max"),
    )
