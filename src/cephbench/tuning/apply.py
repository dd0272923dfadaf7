"""Applying an A/B experiment's changes, and putting everything back, verified.

Before a setting is first changed, what restores it (the original value, and for ``ceph
config`` whether the section had its own entry at all) is recorded in the resource log as an
``ab_setting``; a killed experiment is reverted by ``cephbench cleanup``. Every change is
checked to have taken effect (``ceph config get``, and for OSD options the value the running
OSDs report, ``ceph config show``); one that did not is an error, never a silent no-op.
Every restore is verified the same way (a ``ceph config`` restore by one ``ceph config get
WHO``: the same database entry as before, or none, shows the same value); a setting a switch
leaves as it is is not read again. With ``--hosts``, sysctl changes are made on every host over
ssh, each host's original recorded and put back (:mod:`cephbench.tuning.host_sysctl`).
Lab options that only apply at start-up (``conf-set``, or a ``ceph config`` OSD option that
cannot change at runtime) restart the lab's OSDs and wait for HEALTH_OK; on a real cluster
cephbench restarts nothing and says so.

Everything is checked before anything is changed (:meth:`Settings.check`): unknown keys,
malformed values (against Ceph's own option metadata), missing pools, missing sysctls.

The reads and writes of each kind of setting are :mod:`cephbench.tuning.setting`'s; the OSD
restarts, :mod:`cephbench.tuning.restart`'s.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from cephbench.ceph.commands import ceph
from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError, UsageError
from cephbench.resources.shield import deferred_interrupts
from cephbench.resources.undo import undoes
from cephbench.store import Resource, ResourceLog
from cephbench.tuning.changes import Change, Side, check_value, same_value
from cephbench.tuning.owner import refuse_while_running
from cephbench.tuning.restart import restart_lab_osds
from cephbench.tuning.setting import (
    apply_change,
    check_hosts,
    config_state,
    current,
    json_type,
    osd_names,
    osd_section,
    pool_get,
    pool_value_error,
    restore_slot,
    running_value,
    shown_original,
    sysctl_get,
    sysctl_value_error,
    verify_restored,
)

if TYPE_CHECKING:
    from cephbench.tuning.host_sysctl import HostSysctls

KIND = "ab_setting"
UNKNOWN = "(being changed)"
"""``Slot.applied`` while a write is under way: whatever it left, the end restores."""
POLL = 0.5
RUNNING_TIMEOUT = 20.0
CLIENT_PREFIXES = ("rbd_", "client_", "rados_", "objecter_", "librados_")
"""conf-set keys read by clients only: each round's fresh fio picks them up, nothing restarts."""


@dataclass
class Slot:
    """One setting an experiment touches, and how to put it back."""

    family: str
    target: str
    key: str
    type: str = "str"
    original: dict[str, Any] = field(default_factory=dict)
    resources: list[int] = field(default_factory=list)
    """Its records in the resource log (one per host for a sysctl on ``--hosts``)."""
    applied: str | None = None
    """The change text now in effect; None: the original value."""
    times: int = 0
    verified: bool = False
    """The value in effect was checked after it was last written."""

    @property
    def name(self) -> str:
        where = f"{self.target} " if self.target else ""
        return f"{self.family} {where}{self.key}"


class Settings:
    """The settings of both sides, switched between them and restored at the end."""

    undo: ClassVar[tuple[Callable[..., None], ...]] = ()
    """What ``cephbench cleanup`` restores of an experiment killed mid-way (set below)."""

    def __init__(
        self,
        conn: Connection | None,
        resources: ResourceLog,
        owner: dict[str, Any],
        lab_dir: str | None = None,
        hosts: HostSysctls | None = None,
    ):
        self.conn, self.resources, self.owner, self.lab_dir = conn, resources, owner, lab_dir
        self.hosts = hosts
        """Where sysctl changes are made (over ssh); None: this machine."""
        self.slots: dict[tuple[str, str, str], Slot] = {}
        self.reverted: list[dict[str, Any]] = []
        self._options: dict[str, dict[str, Any]] = {}

    # -- before anything changes ------------------------------------------------------------
    def check(self, sides: tuple[Side, Side]) -> None:
        """Validate every change of both sides and read each setting's original value."""
        for side in sides:
            for change in side.changes:
                slot = self.slots.get(change.slot)
                if slot is None:
                    slot = Slot(*change.slot)
                    self.slots[change.slot] = slot
                    self._check_slot(slot, change)
                self._check_value(slot, change)

    def _ceph(self) -> Connection:
        if self.conn is None:
            raise UsageError("Ceph changes need a Ceph cluster", hint="start a lab or give --conf")
        return self.conn

    def _option(self, key: str) -> dict[str, Any]:
        if key not in self._options:
            self._options[key] = self._read_option(key)
        return self._options[key]

    def _read_option(self, key: str) -> dict[str, Any]:
        result = ceph(self._ceph(), "config", "help", key, "-f", "json", check=False)
        if result.returncode != 0 or not result.stdout.strip():
            raise UsageError(
                f"Ceph has no option named {key}", hint="check the spelling: ceph config ls"
            )
        from cephbench.lab.ceph import parse_json

        return parse_json(("config", "help", key), result.stdout)

    def _check_slot(self, slot: Slot, change: Change) -> None:
        if slot.family == "config":
            slot.type = self._option(slot.key).get("type", "str")
            slot.original = config_state(self._ceph(), slot.target, slot.key)
        elif slot.family == "pool":
            slot.original = {"value": pool_get(self._ceph(), slot.target, slot.key)}
            slot.type = json_type(slot.original["value"])
        elif slot.family == "sysctl" and self.hosts is not None:
            slot.original = {"hosts": self.hosts.read(slot.key)}
        elif slot.family == "sysctl":
            slot.original = {"value": sysctl_get(slot.key)}
        else:
            lab = self._lab(change)
            slot.type = self._option(slot.key).get("type", "str")
            slot.original = {"conf": str(lab), "text": lab.read_text()}

    def _check_value(self, slot: Slot, change: Change) -> None:
        value = change.value
        if value is None:
            return
        if slot.family in ("config", "conf_set"):
            why = check_value(self._option(slot.key), value)
        elif slot.family == "pool":
            why = pool_value_error(slot.original["value"], value)
        else:
            olds = slot.original.get("hosts", {"": slot.original.get("value")}).values()
            why = next(filter(None, (sysctl_value_error(change.key, o, value) for o in olds)), None)
        if why:
            raise UsageError(f"'{change.text}': {why}", hint="nothing was changed")

    def _lab(self, change: Change) -> Path:
        if not self.lab_dir:
            raise UsageError(
                f"'{change.text}' changes the lab's ceph.conf, and no lab is running",
                hint="use `ceph config set ...` on a real cluster",
            )
        return Path(self.lab_dir) / "ceph.conf"

    # -- switching sides --------------------------------------------------------------------
    def switch(self, side: Side) -> list[str]:
        """Make ``side``'s settings the ones in effect (the others original); each setting
        changed is verified (one left as it is was verified when it last changed)."""
        restart = False
        changed: list[tuple[Slot, Change | None]] = []
        for slot in self.slots.values():
            change = side.change_for((slot.family, slot.target, slot.key))
            want = change.text if change else None
            if slot.applied == want:
                continue
            with deferred_interrupts():
                if not slot.resources:
                    slot.resources = self._record(slot)
                slot.applied, slot.verified = UNKNOWN, False  # a failed write is undone too
                if change is None:
                    self._restore(slot)
                else:
                    self._apply(slot, change)
                slot.applied = want
            slot.times += change is not None
            restart |= self._needs_restart(slot, change)
            changed.append((slot, change))
        if restart:
            restart_lab_osds(self._ceph(), self.lab_dir)
        for slot, change in changed:
            self._verify(slot, change)
            slot.verified = True
        return [c.text for c in side.changes]

    def _record(self, slot: Slot) -> list[int]:
        if self._remote(slot):
            assert self.hosts is not None
            return self.hosts.record(slot.key, slot.original["hosts"], self.owner)
        return [self.resources.add(KIND, slot.name, self._detail(slot))]

    def _remote(self, slot: Slot) -> bool:
        return slot.family == "sysctl" and self.hosts is not None

    def _apply(self, slot: Slot, change: Change) -> None:
        if self._remote(slot):
            assert self.hosts is not None
            self.hosts.write(slot.key, {h.name: change.value or "" for h in self.hosts.hosts})
        else:
            apply_change(self.conn, change, slot.original)

    def _restore(self, slot: Slot) -> None:
        """Write the original value back (on hosts: each its own, read back and checked)."""
        if self._remote(slot):
            assert self.hosts is not None
            self.hosts.write(slot.key, slot.original["hosts"])
        else:
            restore_slot(self.conn, slot.family, slot.target, slot.key, slot.original)

    def _verify_original(self, slot: Slot) -> None:
        if self._remote(slot):
            assert self.hosts is not None
            check_hosts(slot.key, self.hosts.read(slot.key), slot.original["hosts"])
        else:
            verify_restored(self.conn, slot.family, slot.target, slot.key, slot.original, slot.type)

    def _needs_restart(self, slot: Slot, change: Change | None) -> bool:
        if slot.family == "conf_set":
            return not slot.key.startswith(CLIENT_PREFIXES)
        if slot.family == "config" and osd_section(slot.target):
            option = self._option(slot.key)
            return not option.get("can_update_at_runtime", True)
        return False

    def _verify(self, slot: Slot, change: Change | None) -> None:
        """The setting shows ``change``'s value (or the original's): else an error."""
        if self._remote(slot):
            return  # HostSysctls.write read every host back
        if change is None:
            self._verify_original(slot)
            return
        got = current(self.conn, change, slot.original)
        rm = change.kind == "config_rm"
        ok = got is None if rm else same_value(slot.type, got, change.value)
        if not ok:
            raise CephbenchError(
                f"'{change.text}' did not take effect: {slot.name} shows {got!r}",
                hint="cephbench puts everything back now; check the option's scope "
                "(ceph config help KEY)",
            )
        if change.kind == "config" and osd_section(slot.target) and change.value is not None:
            self._verify_running(slot, change.value)
        if change.kind == "conf_set" and not slot.key.startswith(CLIENT_PREFIXES):
            self._verify_running(slot, change.value or "")

    def _verify_running(self, slot: Slot, value: str) -> None:
        conn = self._ceph()
        osds = [slot.target] if "." in slot.target else osd_names(conn)
        for osd in osds:
            deadline = time.monotonic() + RUNNING_TIMEOUT  # the monitors push it to each OSD
            while (shown := running_value(conn, osd, slot.key)) is None or not same_value(
                slot.type, shown, value
            ):
                if time.monotonic() < deadline:
                    time.sleep(POLL)
                    continue
                what = "has not said what it runs with" if shown is None else f"runs {shown}"
                raise CephbenchError(
                    f"{slot.key} = {value} is set but {osd} {what}: the OSDs need a restart for it",
                    hint="cephbench restarts only a lab's OSDs; restart them yourself and "
                    "set the option before running cephbench ab",
                )

    def _detail(self, slot: Slot) -> dict[str, Any]:
        return {
            "family": slot.family,
            "target": slot.target,
            "key": slot.key,
            "type": slot.type,
            "original": slot.original,
            "conn": self.conn.to_json() if self.conn else None,
            "lab_dir": self.lab_dir,
            "owner": self.owner,
        }

    # -- the end ----------------------------------------------------------------------------
    def restore(self) -> None:
        """Put every setting back, verified; the record marked removed only when it is."""
        restart = False
        with deferred_interrupts():
            for slot in self.slots.values():
                if not slot.resources:
                    continue
                if slot.applied is not None:
                    slot.verified = False
                    self._restore(slot)
                    restart |= self._needs_restart(slot, None)
                    slot.applied = None
            if restart:
                restart_lab_osds(self._ceph(), self.lab_dir)
            for slot in self.slots.values():
                if not slot.resources:
                    continue
                if not slot.verified:  # else the last switch restored it and checked it
                    self._verify_original(slot)
                for rid in slot.resources:
                    self.resources.removed(rid)
                self.reverted.append(
                    {"setting": slot.name, "value": shown_original(slot.original), "verified": True}
                )
                slot.resources = []

    def close(self) -> None:
        if self.hosts is not None:
            self.hosts.close()

    def applied_log(self) -> list[dict[str, Any]]:
        return [
            {"setting": s.name, "original": shown_original(s.original), "times_applied": s.times}
            for s in self.slots.values()
        ]


@undoes(KIND)
def undo_setting(resource: Resource) -> None:
    """``cephbench cleanup``: put a setting a killed experiment changed back, verified."""
    d = resource.detail
    refuse_while_running(d)
    conn = Connection.from_json(d["conn"]) if d.get("conn") else None
    restore_slot(conn, d["family"], d["target"], d["key"], d["original"])
    if d["family"] == "conf_set" and not d["key"].startswith(CLIENT_PREFIXES) and conn:
        restart_lab_osds(conn, d.get("lab_dir"))
    verify_restored(conn, d["family"], d["target"], d["key"], d["original"], d.get("type", "str"))


Settings.undo = (undo_setting,)
