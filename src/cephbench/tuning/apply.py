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

The reads and writes of each kind of setting are its class's (:mod:`cephbench.tuning.kinds`,
found through :mod:`cephbench.tuning.settings`); the OSD restarts,
:mod:`cephbench.tuning.restart`'s; the undo of an ``ab_setting``,
:func:`cephbench.tuning.setting.undo_setting`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from cephbench.ceph.connection import Connection
from cephbench.errors import UsageError
from cephbench.resources.shield import deferred_interrupts
from cephbench.store import ResourceLog
from cephbench.tuning.changes import Change, Side
from cephbench.tuning.restart import restart_lab_osds
from cephbench.tuning.setting import Setting, Where
from cephbench.tuning.settings import kind

if TYPE_CHECKING:
    from cephbench.tuning.host_sysctl import HostSysctls

UNKNOWN = "(being changed)"
"""``Slot.applied`` while a write is under way: whatever it left, the end restores."""


@dataclass
class Slot:
    """One setting an experiment touches, and where switching sides has left it."""

    setting: Setting
    resources: list[int] = field(default_factory=list)
    """Its records in the resource log (one per host for a sysctl on ``--hosts``)."""
    applied: str | None = None
    """The change text now in effect; None: the original value."""
    times: int = 0
    verified: bool = False
    """The value in effect was checked after it was last written."""


class Settings:
    """The settings of both sides, switched between them and restored at the end."""

    def __init__(
        self,
        conn: Connection | None,
        resources: ResourceLog,
        owner: dict[str, Any],
        lab_dir: str | None = None,
        hosts: HostSysctls | None = None,
    ):
        self.where = Where(conn, lab_dir, hosts)
        self.resources, self.owner = resources, owner
        self.slots: dict[tuple[str, str, str], Slot] = {}
        self.reverted: list[dict[str, Any]] = []

    # -- before anything changes ------------------------------------------------------------
    def check(self, sides: tuple[Side, Side]) -> None:
        """Validate every change of both sides and read each setting's original value."""
        for side in sides:
            for change in side.changes:
                slot = self.slots.get(change.slot)
                if slot is None:
                    setting = kind(change.family)(*change.slot)
                    setting.read(self.where, change)
                    slot = self.slots[change.slot] = Slot(setting)
                self._check_value(slot.setting, change)

    def _check_value(self, setting: Setting, change: Change) -> None:
        if change.value is None:
            return
        why = setting.value_error(self.where, change.value)
        if why:
            raise UsageError(f"'{change.text}': {why}", hint="nothing was changed")

    # -- switching sides --------------------------------------------------------------------
    def switch(self, side: Side) -> list[str]:
        """Make ``side``'s settings the ones in effect (the others original); each setting
        changed is verified (one left as it is was verified when it last changed)."""
        restart = False
        changed: list[tuple[Slot, Change | None]] = []
        for key, slot in self.slots.items():
            change = side.change_for(key)
            want = change.text if change else None
            if slot.applied == want:
                continue
            setting = slot.setting
            with deferred_interrupts():
                if not slot.resources:
                    slot.resources = setting.record(self.where, self.resources, self.owner)
                slot.applied, slot.verified = UNKNOWN, False  # a failed write is undone too
                if change is None:
                    setting.restore(self.where)
                else:
                    setting.apply(self.where, change)
                slot.applied = want
            slot.times += change is not None
            restart |= setting.needs_restart(self.where)
            changed.append((slot, change))
        if restart:
            restart_lab_osds(self.where.ceph(), self.where.lab_dir)
        for slot, change in changed:
            slot.setting.check_written(self.where, change)
            slot.verified = True
        return [c.text for c in side.changes]

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
                    slot.setting.restore(self.where)
                    restart |= slot.setting.needs_restart(self.where)
                    slot.applied = None
            if restart:
                restart_lab_osds(self.where.ceph(), self.where.lab_dir)
            for slot in self.slots.values():
                if not slot.resources:
                    continue
                if not slot.verified:  # else the last switch restored it and checked it
                    slot.setting.verify_restored(self.where)
                for rid in slot.resources:
                    self.resources.removed(rid)
                self.reverted.append(
                    {
                        "setting": slot.setting.name,
                        "value": slot.setting.shown_original(),
                        "verified": True,
                    }
                )
                slot.resources = []

    def close(self) -> None:
        if self.where.hosts is not None:
            self.where.hosts.close()

    def applied_log(self) -> list[dict[str, Any]]:
        return [
            {
                "setting": s.setting.name,
                "original": s.setting.shown_original(),
                "times_applied": s.times,
            }
            for s in self.slots.values()
        ]
