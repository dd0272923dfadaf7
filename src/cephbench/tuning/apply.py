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
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cephbench.ceph.commands import ceph, ceph_json
from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError, ToolFailed, UsageError
from cephbench.execution.cleanup import undoes
from cephbench.execution.shield import deferred_interrupts
from cephbench.store import Resource, ResourceLog
from cephbench.tuning.changes import Change, Side, check_value, same_value
from cephbench.tuning.owner import refuse_while_running

if TYPE_CHECKING:
    from cephbench.tuning.host_sysctl import HostSysctls

KIND = "ab_setting"
UNKNOWN = "(being changed)"
"""``Slot.applied`` while a write is under way: whatever it left, the end restores."""
HEALTH_TIMEOUT = 300.0
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
            slot.type = _json_type(slot.original["value"])
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
            why = _pool_value_error(slot.original["value"], value)
        else:
            olds = slot.original.get("hosts", {"": slot.original.get("value")}).values()
            why = next(
                filter(None, (_sysctl_value_error(change.key, o, value) for o in olds)), None
            )
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
            _check_hosts(slot.key, self.hosts.read(slot.key), slot.original["hosts"])
        else:
            verify_restored(self.conn, slot.family, slot.target, slot.key, slot.original, slot.type)

    def _needs_restart(self, slot: Slot, change: Change | None) -> bool:
        if slot.family == "conf_set":
            return not slot.key.startswith(CLIENT_PREFIXES)
        if slot.family == "config" and _osd_section(slot.target):
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
        if change.kind == "config" and _osd_section(slot.target) and change.value is not None:
            self._verify_running(slot, change.value)
        if change.kind == "conf_set" and not slot.key.startswith(CLIENT_PREFIXES):
            self._verify_running(slot, change.value or "")

    def _verify_running(self, slot: Slot, value: str) -> None:
        conn = self._ceph()
        osds = [slot.target] if "." in slot.target else osd_names(conn)
        for osd in osds:
            deadline = time.monotonic() + RUNNING_TIMEOUT  # the monitors push it to each OSD
            while not same_value(slot.type, shown := _running(conn, osd, slot.key), value):
                if time.monotonic() < deadline:
                    time.sleep(POLL)
                    continue
                raise CephbenchError(
                    f"{slot.key} = {value} is set but {osd} still runs with {shown}: the OSDs "
                    "need a restart for it",
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
                    {"setting": slot.name, "value": _shown(slot.original), "verified": True}
                )
                slot.resources = []

    def close(self) -> None:
        if self.hosts is not None:
            self.hosts.close()

    def applied_log(self) -> list[dict[str, Any]]:
        return [
            {"setting": s.name, "original": _shown(s.original), "times_applied": s.times}
            for s in self.slots.values()
        ]


# -- the settings themselves ----------------------------------------------------------------


def config_state(conn: Connection, who: str, key: str) -> dict[str, Any]:
    """``who``'s own entry for ``key`` in the config database (None: none), the database
    entry ``who`` gets ``key`` from (None: none, the default), and what ``ceph config get``
    shows."""
    state = config_entry(conn, who, key)
    return {**state, "effective": config_get(conn, who, key)}


def config_entry(conn: Connection, who: str, key: str) -> dict[str, Any]:
    """One ``ceph config get WHO -f json``: the entry ``who`` gets ``key`` from (the most
    specific of global, its type, itself), and whether it is ``who``'s own. Two states with
    the same entry show the same value, so a restore is verified in one call."""
    entry = (ceph_json(conn, "config", "get", who) or {}).get(key)
    if entry is None:
        return {"explicit": None, "entry": None}
    own = entry.get("section") == who and not entry.get("mask")
    return {
        "explicit": str(entry["value"]) if own else None,
        "entry": {k: entry.get(k) for k in ("value", "section", "mask")},
    }


def config_get(conn: Connection, who: str, key: str) -> str:
    return ceph(conn, "config", "get", who, key).stdout.strip()


def pool_get(conn: Connection, pool: str, key: str) -> str:
    """A pool setting's value as text (``true``, ``3``, ``lz4``)."""
    result = ceph(conn, "osd", "pool", "get", pool, key, "-f", "json", check=False)
    if result.returncode != 0:
        err = result.last_error_line()
        if "ENOENT" in err and "pool" in err and "not set" not in err:
            raise UsageError(f"there is no pool {pool}", hint="ceph osd pool ls lists them")
        if "not set" in err:
            raise UsageError(
                f"{key} is not set on pool {pool}: cephbench could not put it back unset",
                hint="set it to its current default first",
            )
        raise UsageError(f"{key} is not a pool setting ({err})", hint="ceph osd pool get POOL all")
    from cephbench.lab.ceph import parse_json

    value = parse_json(("osd", "pool", "get"), result.stdout).get(key)
    return str(value).lower() if isinstance(value, bool) else str(value)


def _json_type(text: str) -> str:
    if text in ("true", "false"):
        return "bool"
    if re.fullmatch(r"-?\d+", text):
        return "int"
    try:
        float(text)
        return "float"
    except ValueError:
        return "str"


def _pool_value_error(old: str, value: str) -> str | None:
    kind = _json_type(old)
    if kind == "bool" and value.lower() not in ("true", "false", "1", "0", "yes", "no"):
        return "the pool setting is a bool: true or false"
    if kind == "int" and not re.fullmatch(r"-?\d+", value):
        return f"the pool setting is an integer (now {old})"
    if kind == "float" and _json_type(value) not in ("int", "float"):
        return f"the pool setting is a number (now {old})"
    return None


def _sysctl_value_error(key: str, old: str | None, value: str) -> str | None:
    """Why ``value`` cannot replace ``old`` (a sysctl of N integers takes N integers)."""
    words, new = (old or "").split(), value.split()
    if not words or not all(re.fullmatch(r"-?\d+", w) for w in words):
        return None
    if len(new) != len(words) or not all(re.fullmatch(r"-?\d+", w) for w in new):
        return f"{key} takes {len(words)} integer(s), like '{' '.join(words)}'"
    return None


def _check_hosts(key: str, got: dict[str, str], want: dict[str, str]) -> None:
    """Every host shows the value it should (sysctls read back with tabs: words compared)."""
    wrong = [f"{h} shows {got[h]!r}" for h in want if got[h].split() != want[h].split()]
    if wrong:
        raise CephbenchError(
            f"sysctl {key} is not as cephbench set it: {'; '.join(wrong)}",
            hint="set it by hand there; `cephbench cleanup` tries again",
        )


def sysctl_path(key: str) -> Path:
    return Path("/proc/sys") / key.replace(".", "/")


def sysctl_get(key: str) -> str:
    path = sysctl_path(key)
    try:
        return path.read_text().strip()
    except FileNotFoundError:
        raise UsageError(f"this host has no sysctl {key}", hint="sysctl -a lists them") from None
    except OSError as e:
        raise UsageError(f"cannot read sysctl {key}: {e.strerror}") from None


def sysctl_set(key: str, value: str) -> None:
    try:
        sysctl_path(key).write_text(value + "\n")
    except OSError as e:
        raise CephbenchError(
            f"setting sysctl {key} = {value} failed: {e.strerror}",
            hint="cephbench ab needs root for sysctl changes",
        ) from None


def conf_with(text: str, key: str, value: str | None) -> str:
    """ceph.conf ``text`` with ``key`` set in [global] and removed from every other section
    (spaces and underscores are the same in Ceph option names). Pure."""
    norm = key.replace(" ", "_")
    out, section = [], None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1]
            out.append(line)
            if section == "global" and value is not None:
                out.append(f"{norm} = {value}")
            continue
        name = stripped.split("=", 1)[0].strip().replace(" ", "_") if "=" in stripped else None
        if name == norm:
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def conf_get(text: str, key: str) -> str | None:
    """``key``'s value in ceph.conf ``text`` ([global] wins as :func:`conf_with` writes it)."""
    norm, section, found = key.replace(" ", "_"), None, None
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("["):
            section = s.strip("[]")
        elif "=" in s and s.split("=", 1)[0].strip().replace(" ", "_") == norm:
            value = s.split("=", 1)[1].strip()
            if section == "global" or found is None:
                found = value
    return found


def apply_change(conn: Connection | None, change: Change, original: dict[str, Any]) -> None:
    if change.kind == "config":
        assert conn is not None and change.value is not None
        ceph(conn, "config", "set", change.target, change.key, change.value)
    elif change.kind == "config_rm":
        assert conn is not None
        ceph(conn, "config", "rm", change.target, change.key)
    elif change.kind == "pool":
        assert conn is not None and change.value is not None
        ceph(conn, "osd", "pool", "set", change.target, change.key, change.value)
    elif change.kind == "sysctl":
        sysctl_set(change.key, change.value or "")
    else:
        path = Path(original["conf"])
        path.write_text(conf_with(original["text"], change.key, change.value))


def current(conn: Connection | None, change: Change, original: dict[str, Any]) -> str | None:
    """What the setting ``change`` sets shows now (None: ``config rm``'d, no entry; for
    ``conf-set``, the lab's ceph.conf as written; the running OSDs are checked apart)."""
    if change.kind == "config":
        assert conn is not None
        return config_get(conn, change.target, change.key)
    if change.kind == "config_rm":
        assert conn is not None
        return config_entry(conn, change.target, change.key)["explicit"]
    if change.kind == "pool":
        assert conn is not None
        return pool_get(conn, change.target, change.key)
    if change.kind == "sysctl":
        return sysctl_get(change.key)
    return conf_get(Path(original["conf"]).read_text(), change.key)


def restore_slot(
    conn: Connection | None, family: str, target: str, key: str, original: dict[str, Any]
) -> None:
    if family == "config":
        assert conn is not None
        if original["explicit"] is None:
            ceph(conn, "config", "rm", target, key)
        else:
            ceph(conn, "config", "set", target, key, original["explicit"])
    elif family == "pool":
        assert conn is not None
        ceph(conn, "osd", "pool", "set", target, key, original["value"])
    elif family == "sysctl":
        sysctl_set(key, original["value"])
    else:
        Path(original["conf"]).write_text(original["text"])


def verify_restored(
    conn: Connection | None,
    family: str,
    target: str,
    key: str,
    original: dict[str, Any],
    kind: str = "str",
) -> None:
    """The setting shows its original value again (``ceph config get``...); else an error."""
    if family == "config":
        assert conn is not None
        if "entry" in original:  # the same database entry (or none): the same value shown
            state = config_entry(conn, target, key)
            ok = state["entry"] == original["entry"]
            got = (state["entry"] or {}).get("value", "the default")
        else:
            state = config_state(conn, target, key)
            ok = (
                state["explicit"] == original["explicit"]
                and state["effective"] == original["effective"]
            )
            got = state["effective"]
    elif family == "pool":
        assert conn is not None
        got = pool_get(conn, target, key)
        ok = same_value(kind, got, original["value"])
    elif family == "sysctl":
        got = sysctl_get(key)
        ok = got.split() == original["value"].split()
    else:
        got = Path(original["conf"]).read_text()
        ok = got == original["text"]
        got = "a different ceph.conf"
    if not ok:
        raise CephbenchError(
            f"{family} {target} {key} was not restored: it shows {got!r}, not {_shown(original)!r}",
            hint="set it back by hand; `cephbench cleanup` tries again",
        )


def _shown(original: dict[str, Any]) -> str | None:
    if "hosts" in original:
        from cephbench.tuning.host_sysctl import shown

        return shown(original["hosts"])
    if "effective" in original:
        return original["effective"]
    if "text" in original:
        return "the lab's ceph.conf as it was"
    return original.get("value")


def _running(conn: Connection, daemon: str, key: str) -> str:
    return ceph(conn, "config", "show", daemon, key).stdout.strip()


def _osd_section(who: str) -> bool:
    return who == "osd" or who.startswith("osd.")


def osd_names(conn: Connection) -> list[str]:
    return [f"osd.{i}" for i in ceph_json(conn, "osd", "ls") or []]


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


@undoes(KIND)
def _undo_setting(resource: Resource) -> None:
    """``cephbench cleanup``: put a setting a killed experiment changed back, verified."""
    d = resource.detail
    refuse_while_running(d)
    conn = Connection.from_json(d["conn"]) if d.get("conn") else None
    restore_slot(conn, d["family"], d["target"], d["key"], d["original"])
    if d["family"] == "conf_set" and not d["key"].startswith(CLIENT_PREFIXES) and conn:
        restart_lab_osds(conn, d.get("lab_dir"))
    verify_restored(conn, d["family"], d["target"], d["key"], d["original"], d.get("type", "str"))
