"""Misconfigurations on demand in the lab, the mistakes admins really leave behind, each with
a real remedy ``cephbench tune`` knows and a ``diagnose`` finding that names it:

- ``debug-logging``: ``debug_osd`` and ``debug_bluestore`` at 20/20 for the OSDs (left on
  after a support case; every op writes log lines);
- ``rbd-cache-off``: ``rbd_cache false`` for the clients (every write waits for the OSDs);
- ``mclock``: one OSD's mClock switched to the ``custom`` profile with a client limit of
  :data:`MCLOCK_CLIENT_LIM` of a capacity set far too low (:data:`MCLOCK_CAPACITY` IOPS, for
  either kind of device), and a client reservation no higher (mClock keeps a reservation
  above the limit: the profile's 0.5 served 250 IOPS): that OSD serves clients at most 100
  small ops a second (measured: 4 KiB ``rados bench`` writes at 100), what an admin gets who
  copies a "protect recovery" recipe onto a fast OSD (Reef and later: Pacific runs wpq);
- ``too-few-pgs``: one pool's ``pg_num`` lowered to :data:`FEW_PGS` (fewer than the OSDs)
  with its autoscaler off, as a pool created with too few PGs and left so: some OSDs are
  primary of none of its PGs and its I/O cannot spread over them. The PGs merge before the
  fault counts as made (the monitors' manager merges them one at a time: seconds on a small
  pool, a minute or two on one of 32 PGs).

They are entries in the monitors' configuration database, or a pool's properties. Like the
lab's other faults (:mod:`cephbench.lab.faults`) each is recorded in the lab's state before it
is applied, with what each section held before (its own entry's value, or none), checked
after (in the database, and in each OSD it is for, which runs with it a moment later), and undone exactly by ``lab fault clear`` and ``lab down``: the entry removed, or its
old value set back, so ``ceph config dump`` is what it was; a pool's ``pg_num`` and autoscale
mode set back (its PGs split back in the background, as after any raise of ``pg_num``).

Small TCP buffers on a link with latency are later work.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from typing import Any

from cephbench.ceph.commands import ceph, ceph_json
from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError, UsageError
from cephbench.lab.errors import LabError
from cephbench.lab.info import info_from_state
from cephbench.lab.paths import Layout
from cephbench.lab.state import POOL_TARGET, Fault, LabState

SETTINGS: dict[str, list[tuple[str, str, str]]] = {
    "debug-logging": [("osd", "debug_osd", "20/20"), ("osd", "debug_bluestore", "20/20")],
    "rbd-cache-off": [("client", "rbd_cache", "false")],
}
MCLOCK_CLIENT_LIM = "0.2"
MCLOCK_CAPACITY = "500"
#: Faults on one OSD: its section is named by the fault's target.
PER_OSD: dict[str, list[tuple[str, str]]] = {
    "mclock": [
        ("osd_mclock_profile", "custom"),
        ("osd_mclock_scheduler_client_lim", MCLOCK_CLIENT_LIM),
        ("osd_mclock_scheduler_client_res", MCLOCK_CLIENT_LIM),  # kept above the limit
        ("osd_mclock_max_capacity_iops_hdd", MCLOCK_CAPACITY),
        ("osd_mclock_max_capacity_iops_ssd", MCLOCK_CAPACITY),
    ],
}
FEW_PGS = 1
#: Faults on one pool: its properties (``ceph osd pool set``), in the order they are set.
PER_POOL: dict[str, list[tuple[str, str]]] = {
    "too-few-pgs": [("pg_autoscale_mode", "off"), ("pg_num", str(FEW_PGS))],
}
KINDS = (*SETTINGS, *PER_OSD, *PER_POOL)
POOL = POOL_TARGET
MERGE_SECONDS = 600.0
"""How long a pool's PGs get to merge down to the fault's ``pg_num``."""
MERGE_POLL = 0.5
TAKEN_SECONDS = 60.0
"""How long the OSDs get to run with a changed entry once the monitors hold it."""


def connection(layout: Layout, state: LabState) -> Connection:
    info = info_from_state(layout, state)
    return Connection(
        conf=str(info.conf_path),
        id=info.client_name,
        keyring=str(info.keyring_path) if info.keyring_path else None,
        lab_dir=str(info.dir),
        tools=info.tools,
    )


def plan(state: LabState, kind: str, osd: str | None = None, pool: str | None = None) -> Fault:
    """The fault to record; ``osd`` (``osd.N``) for a fault on one OSD, ``pool`` for one on
    a pool (whether the pool exists is read by :func:`prepare`)."""
    if any(f.kind == kind for f in state.faults):
        raise LabError(
            f"the lab already has a {kind} fault", hint="clear it first: cephbench lab fault clear"
        )
    if kind in PER_POOL:
        if not pool:
            raise UsageError(f"a {kind} fault needs the pool it is on")
        who = f"{POOL}{pool.removeprefix(POOL)}"
        return Fault(
            kind=kind,  # type: ignore[arg-type]
            target=who,
            config=[
                {"who": who, "key": k, "value": v, "original": None} for k, v in PER_POOL[kind]
            ],
        )
    if kind in PER_OSD:
        if state.spec.release == "pacific":
            raise UsageError(
                "the Pacific lab's OSDs schedule with wpq, not mClock",
                hint="bring up a lab of a newer release: cephbench lab up --release tentacle",
            )
        if osd is None or osd not in state.daemons:
            raise UsageError(f"the lab has no {osd} (it has {len(state.osds())} OSDs)")
        settings = [(osd, k, v) for k, v in PER_OSD[kind]]
    else:
        settings = SETTINGS[kind]
    return Fault(
        kind=kind,  # type: ignore[arg-type]
        target=osd if osd is not None and kind in PER_OSD else "cluster",
        config=[{"who": w, "key": k, "value": v, "original": None} for w, k, v in settings],
    )


def own_entry(conn: Connection, who: str, key: str) -> str | None:
    """The value of ``who``'s own entry for ``key`` in the configuration database (None:
    none; a value it inherits from another section is not its own)."""
    entry = (ceph_json(conn, "config", "get", who) or {}).get(key)
    if entry is None or entry.get("section") != who or entry.get("mask"):
        return None
    return str(entry["value"])


def pool_property(conn: Connection, pool: str, key: str) -> str | None:
    """A pool's property as ``ceph osd pool set`` sets it (``pg_num``: the number it is set
    to, which its PGs split or merge towards), from ``osd pool ls detail``; None: no such
    pool."""
    found = _pool(conn, pool)
    if found is None:
        return None
    value = found.get(_TARGETS.get(key, key))
    return None if value is None else str(value)


_TARGETS = {"pg_num": "pg_num_target", "pgp_num": "pg_placement_num_target"}


def _pool(conn: Connection, name: str) -> dict[str, Any] | None:
    pools = ceph_json(conn, "osd", "pool", "ls", "detail") or []
    return next((p for p in pools if p.get("pool_name") == name), None)


def _read(conn: Connection, who: str, key: str) -> str | None:
    if who.startswith(POOL):
        return pool_property(conn, who.removeprefix(POOL), key)
    return own_entry(conn, who, key)


def _write(conn: Connection, who: str, key: str, value: str) -> None:
    if who.startswith(POOL):
        ceph(conn, "osd", "pool", "set", who.removeprefix(POOL), key, value)
    else:
        ceph(conn, "config", "set", who, key, value)


def prepare(layout: Layout, state: LabState, fault: Fault) -> None:
    """Read what each section (or pool) holds now (reading only): the record names what
    undoes it. A pool fault needs the pool, with more PGs than it would leave."""
    conn = connection(layout, state)
    fault.ceph = conn.to_json()
    if fault.target.startswith(POOL):
        pool = fault.target.removeprefix(POOL)
        found = _pool(conn, pool)
        if found is None:
            names = [p.get("pool_name") for p in ceph_json(conn, "osd", "pool", "ls", "detail")]
            raise UsageError(
                f"the lab has no pool {pool}", hint=f"its pools: {', '.join(map(str, names))}"
            )
        wanted = {e["key"]: e["value"] for e in fault.config}.get("pg_num")
        if wanted is not None and int(found.get("pg_num_target") or 0) <= int(wanted):
            raise UsageError(
                f"pool {pool} has {found.get('pg_num_target')} PGs already: "
                f"no more than the fault's {wanted}"
            )
    for entry in fault.config:
        entry["original"] = _read(conn, entry["who"] or "", entry["key"] or "")


def apply(fault: Fault) -> None:
    conn = _conn(fault)
    for e in fault.config:
        _write(conn, e["who"] or "", e["key"] or "", e["value"] or "")
    if not active(fault):
        raise LabError(f"{fault.describe()}: not in force after setting it")
    if fault.target.startswith(POOL):
        _merged(conn, fault)
    else:
        _taken(conn, fault)


def _taken(conn: Connection, fault: Fault) -> None:
    """Wait until every OSD an entry is for runs with it (``ceph tell osd.N config get``):
    the monitors hand a changed entry to the daemons a moment after storing it, and a
    measurement started in that moment would see the cluster without the fault."""
    wanted = [
        (osd, e["key"] or "", e["value"])
        for e in fault.config
        for osd in _osds_of(conn, e["who"] or "")
    ]
    for osd, key, value in wanted:
        _until(
            partial(_runs_with, conn, osd, key, value),
            TAKEN_SECONDS,
            partial(_not_taken, conn, osd, key, value),
        )


def _held(conn: Connection, osd: str, key: str) -> str | None:
    """What ``osd`` runs with for ``key``, as it says."""
    value = (ceph_json(conn, "tell", osd, "config", "get", key) or {}).get(key)
    return None if value is None else str(value)


def _runs_with(conn: Connection, osd: str, key: str, value: str | None) -> bool:
    return same(_held(conn, osd, key), value)


def _not_taken(conn: Connection, osd: str, key: str, value: str | None) -> LabError:
    return LabError(
        f"{osd} still runs with {key} {_held(conn, osd, key)!r}, not {value!r}, "
        f"{TAKEN_SECONDS:g} s after it was set",
        hint="see `ceph -s`; `cephbench lab fault clear` takes the fault back",
    )


def _until(done: Callable[[], bool], seconds: float, failed: Callable[[], LabError]) -> None:
    """Poll ``done`` until it holds; ``failed()`` raised after ``seconds``."""
    deadline = time.monotonic() + seconds
    while not done():
        if time.monotonic() > deadline:
            raise failed()
        time.sleep(MERGE_POLL)


def _osds_of(conn: Connection, who: str) -> list[str]:
    """The OSDs a configuration section applies to: ``osd`` and ``global`` all of them,
    ``osd.N`` that one; none for other sections (clients read theirs when they start)."""
    if who.startswith("osd."):
        return [who]
    if who in ("osd", "global"):
        return [f"osd.{n}" for n in ceph_json(conn, "osd", "ls") or []]
    return []


def _merged(conn: Connection, fault: Fault) -> None:
    """Wait until the pool's PGs have merged down to the fault's ``pg_num`` and are
    active+clean again: what a client and ``diagnose`` see."""
    pool = fault.target.removeprefix(POOL)
    wanted = int({e["key"]: e["value"] for e in fault.config}["pg_num"] or 0)

    def merged() -> bool:
        found = _pool(conn, pool) or {}
        return (
            found.get("pg_num") == wanted
            and found.get("pg_placement_num") == wanted
            and _clean(conn, pool, wanted)
        )

    _until(
        merged,
        MERGE_SECONDS,
        lambda: LabError(
            f"pool {pool}'s PGs did not merge down to {wanted} in {MERGE_SECONDS:g} s "
            f"(it has {(_pool(conn, pool) or {}).get('pg_num')})",
            hint="see `ceph -s`; `cephbench lab fault clear` puts the pool back",
        ),
    )


def _clean(conn: Connection, pool: str, count: int) -> bool:
    """The pool has ``count`` PGs, each active+clean: the merge over, not only decided (a CI
    run's diagnosis found one still ``clean+premerge+peered`` once ``pg_num`` read 1)."""
    listed = ceph_json(conn, "pg", "ls-by-pool", pool) or []
    pgs = listed.get("pg_stats", []) if isinstance(listed, dict) else listed
    return len(pgs) == count and all(p.get("state") == "active+clean" for p in pgs)


def active(fault: Fault) -> bool:
    conn = _conn(fault)
    return all(same(_read(conn, e["who"] or "", e["key"] or ""), e["value"]) for e in fault.config)


def same(stored: str | None, wanted: str | None) -> bool:
    """The database holds ``wanted``: as written, or as the same number (Reef and later store
    a float option as ``0.200000``)."""
    if stored == wanted or stored is None or wanted is None:
        return stored == wanted
    try:
        return float(stored) == float(wanted)
    except ValueError:
        return False


def undo(fault: Fault) -> None:
    """Each entry back to what it was (removed when the section had none); verified."""
    if fault.ceph is None:
        return  # recorded before its connection was known: nothing was set
    conn = _conn(fault)
    for e in reversed(fault.config):  # the pool's pg_num back before its autoscaler
        who, key = e["who"] or "", e["key"] or ""
        if who.startswith(POOL) and _pool(conn, who.removeprefix(POOL)) is None:
            continue  # the pool was deleted since: nothing of it to put back
        try:
            if e["original"] is None:
                ceph(conn, "config", "rm", who, key)
            else:
                _write(conn, who, key, e["original"])
            back = _read(conn, who, key)
        except CephbenchError as err:
            raise LabError(f"cannot restore {who} {key}: {err}") from None
        if not same(back, e["original"]):
            raise LabError(f"{who} {key} was not restored to {e['original']!r}")


def _conn(fault: Fault) -> Connection:
    data: dict[str, Any] = fault.ceph or {}
    return Connection.from_json(data)
