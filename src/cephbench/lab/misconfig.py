"""Misconfigurations on demand in the lab, the mistakes admins really leave behind, each with
a real remedy ``cephbench tune`` knows and a ``diagnose`` finding that names it:

- ``debug-logging``: ``debug_osd`` and ``debug_bluestore`` at 20/20 for the OSDs (left on
  after a support case; every op writes log lines);
- ``rbd-cache-off``: ``rbd_cache false`` for the clients (every write waits for the OSDs);
- ``mclock``: one OSD's mClock switched to the ``custom`` profile with a client limit of
  :data:`MCLOCK_CLIENT_LIM` of a capacity set far too low (:data:`MCLOCK_CAPACITY` IOPS, for
  either kind of device): that OSD serves clients at most 100 IOPS, what an admin gets who
  copies a "protect recovery" recipe onto a fast OSD (Reef and later: Pacific runs wpq).

They are entries in the monitors' configuration database. Like the lab's other faults
(:mod:`cephbench.lab.faults`) each is recorded in the lab's state before it is applied, with
what each section held before (its own entry's value, or none), checked after, and undone
exactly by ``lab fault clear`` and ``lab down``: the entry removed, or its old value set
back, so ``ceph config dump`` is what it was.

Too few PGs and small TCP buffers on a link with latency are later work.
"""

from __future__ import annotations

from typing import Any

from cephbench.ceph.commands import ceph, ceph_json
from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError, UsageError
from cephbench.lab.errors import LabError
from cephbench.lab.info import info_from_state
from cephbench.lab.paths import Layout
from cephbench.lab.state import Fault, LabState

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
        ("osd_mclock_max_capacity_iops_hdd", MCLOCK_CAPACITY),
        ("osd_mclock_max_capacity_iops_ssd", MCLOCK_CAPACITY),
    ],
}
KINDS = (*SETTINGS, *PER_OSD)


def connection(layout: Layout, state: LabState) -> Connection:
    info = info_from_state(layout, state)
    return Connection(
        conf=str(info.conf_path),
        id=info.client_name,
        keyring=str(info.keyring_path) if info.keyring_path else None,
        lab_dir=str(info.dir),
        tools=info.tools,
    )


def plan(state: LabState, kind: str, osd: str | None = None) -> Fault:
    """The fault to record; ``osd`` (``osd.N``) for a fault on one OSD."""
    if any(f.kind == kind for f in state.faults):
        raise LabError(
            f"the lab already has a {kind} fault", hint="clear it first: cephbench lab fault clear"
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


def prepare(layout: Layout, state: LabState, fault: Fault) -> None:
    """Read what each section holds now (reading only): the record names what undoes it."""
    conn = connection(layout, state)
    fault.ceph = conn.to_json()
    for entry in fault.config:
        entry["original"] = own_entry(conn, entry["who"] or "", entry["key"] or "")


def apply(fault: Fault) -> None:
    conn = _conn(fault)
    for e in fault.config:
        ceph(conn, "config", "set", e["who"] or "", e["key"] or "", e["value"] or "")
    if not active(fault):
        raise LabError(f"{fault.describe()}: not in the configuration database after setting it")


def active(fault: Fault) -> bool:
    conn = _conn(fault)
    return all(
        same(own_entry(conn, e["who"] or "", e["key"] or ""), e["value"]) for e in fault.config
    )


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
    for e in fault.config:
        who, key = e["who"] or "", e["key"] or ""
        try:
            if e["original"] is None:
                ceph(conn, "config", "rm", who, key)
            else:
                ceph(conn, "config", "set", who, key, e["original"])
            back = own_entry(conn, who, key)
        except CephbenchError as err:
            raise LabError(f"cannot restore {who} {key}: {err}") from None
        if not same(back, e["original"]):
            raise LabError(f"{who} {key} was not restored to {e['original']!r}")


def _conn(fault: Fault) -> Connection:
    data: dict[str, Any] = fault.ceph or {}
    return Connection.from_json(data)
