"""What every kind of setting an A/B experiment changes does, and what they share.

A kind (``ceph config set``, ``ceph osd pool set``, a sysctl, the lab's ceph.conf...) is one
subclass of :class:`Setting` in :mod:`cephbench.tuning.kinds`, registered in
:mod:`cephbench.tuning.settings`. Its class methods are the user's spelling of a change (parse
a command line, print it back); an instance is one setting an experiment touches, read,
written, put back and checked. :class:`cephbench.tuning.apply.Settings` switches sides with
them and keeps the bookkeeping; ``cephbench cleanup`` reverts a killed experiment's setting
through :func:`undo_setting`, which finds the kind from the recorded ``family``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from cephbench.ceph.commands import ceph
from cephbench.ceph.connection import Connection
from cephbench.errors import CephbenchError, UsageError
from cephbench.resources.undo import undoes
from cephbench.store import Resource, ResourceLog
from cephbench.tuning.changes import Change, same_value
from cephbench.tuning.owner import refuse_while_running

if TYPE_CHECKING:
    from cephbench.tuning.host_sysctl import HostSysctls

KIND = "ab_setting"

Fields = tuple[str, str | None, str]
"""A parsed change's key, value (None: removed) and target."""


@dataclass
class Where:
    """What settings are reached through: the cluster, the lab, the inventory's hosts."""

    conn: Connection | None
    lab_dir: str | None = None
    hosts: HostSysctls | None = None
    """Where sysctl changes are made (over ssh); None: this machine."""
    _options: dict[str, dict[str, Any]] = field(default_factory=dict)

    def ceph(self) -> Connection:
        if self.conn is None:
            raise UsageError("Ceph changes need a Ceph cluster", hint="start a lab or give --conf")
        return self.conn

    def option(self, key: str) -> dict[str, Any]:
        """Ceph's metadata of the option ``key`` (``ceph config help KEY``), read once."""
        if key not in self._options:
            self._options[key] = self._read_option(key)
        return self._options[key]

    def _read_option(self, key: str) -> dict[str, Any]:
        result = ceph(self.ceph(), "config", "help", key, "-f", "json", check=False)
        if result.returncode != 0 or not result.stdout.strip():
            raise UsageError(
                f"Ceph has no option named {key}", hint="check the spelling: ceph config ls"
            )
        from cephbench.lab.ceph import parse_json

        return parse_json(("config", "help", key), result.stdout)


@dataclass
class Setting:
    """One setting an experiment touches (its slot: family, target, key), and how to put it
    back (``original``, read before anything changes)."""

    family: str
    """The registry name of the kind that owns the setting (recorded; cleanup finds it so)."""
    target: str
    key: str
    type: str = "str"
    """The value's type, for comparing spellings (:func:`cephbench.tuning.changes.same_value`)."""
    original: dict[str, Any] = field(default_factory=dict)

    form: ClassVar[str]
    """The command line the kind understands, for the usage hint."""
    same_setting_as: ClassVar[str | None] = None
    """The kind whose setting this one changes too (``config rm`` changes ``config``'s)."""
    undo: ClassVar[tuple[Callable[..., None], ...]] = ()
    """What ``cephbench cleanup`` restores of an experiment killed mid-way (set below)."""
    on_cluster: ClassVar[bool] = True
    """Whether the setting lives on the Ceph cluster (its connection is needed to change it)."""
    on_hosts: ClassVar[bool] = False
    """Whether the setting lives on the ``--hosts`` (which are then needed)."""

    # -- the user's spelling ------------------------------------------------------------------
    @classmethod
    def parse(cls, words: list[str], text: str) -> Fields | None:
        """The change ``words`` (``text`` split) spell, or None when they are not this kind's
        form; a UsageError when they are, malformed."""
        raise NotImplementedError

    @classmethod
    def describe(cls, change: Change) -> str:
        """The change as the command a user would type."""
        raise NotImplementedError

    # -- the setting --------------------------------------------------------------------------
    @classmethod
    def from_detail(cls, detail: dict[str, Any]) -> Setting:
        """The setting a resource log record (:meth:`detail`) describes."""
        return cls(
            detail["family"],
            detail["target"],
            detail["key"],
            detail.get("type", "str"),
            detail["original"],
        )

    @property
    def name(self) -> str:
        where = f"{self.target} " if self.target else ""
        return f"{self.family} {where}{self.key}"

    def read(self, where: Where, change: Change) -> None:
        """Check the setting exists and read its original value (and type)."""
        raise NotImplementedError

    def value_error(self, where: Where, value: str) -> str | None:
        """Why ``value`` cannot be set (None: it can), known before anything changes."""
        return None

    def record(self, where: Where, resources: ResourceLog, owner: dict[str, Any]) -> list[int]:
        """Record what restores the setting before it first changes; the records' ids."""
        return [resources.add(KIND, self.name, self.detail(where, owner))]

    def detail(self, where: Where, owner: dict[str, Any]) -> dict[str, Any]:
        return {
            "family": self.family,
            "target": self.target,
            "key": self.key,
            "type": self.type,
            "original": self.original,
            "conn": where.conn.to_json() if where.conn else None,
            "lab_dir": where.lab_dir,
            "owner": owner,
        }

    def apply(self, where: Where, change: Change) -> None:
        raise NotImplementedError

    def current(self, where: Where, change: Change) -> str | None:
        """What the setting ``change`` set shows now (None: no value)."""
        raise NotImplementedError

    def verify(self, where: Where, change: Change) -> None:
        """The setting shows ``change``'s value: else an error."""
        got = self.current(where, change)
        if not same_value(self.type, got, change.value):
            raise CephbenchError(
                f"'{change.text}' did not take effect: {self.name} shows {got!r}",
                hint="cephbench puts everything back now; check the option's scope "
                "(ceph config help KEY)",
            )

    def check_written(self, where: Where, change: Change | None) -> None:
        """After a switch wrote the setting: it shows ``change``'s value (None: the
        original's)."""
        if change is None:
            self.verify_restored(where)
        else:
            self.verify(where, change)

    def needs_restart(self, where: Where) -> bool:
        """Whether the lab's OSDs must restart for a value written to be in effect."""
        return False

    def restore(self, where: Where) -> None:
        """Write the original value back."""
        raise NotImplementedError

    def shows_original(self, where: Where) -> tuple[Any, bool]:
        """What the setting shows now, and whether that is its original value."""
        raise NotImplementedError

    def verify_restored(self, where: Where) -> None:
        """The setting shows its original value again: else an error."""
        got, ok = self.shows_original(where)
        if not ok:
            raise CephbenchError(
                f"{self.family} {self.target} {self.key} was not restored: it shows {got!r}, "
                f"not {self.shown_original()!r}",
                hint="set it back by hand; `cephbench cleanup` tries again",
            )

    def shown_original(self) -> str | None:
        """The original value as the experiment's log shows it."""
        return self.original.get("value")

    def clean_up(self, where: Where) -> None:
        """``cephbench cleanup``'s revert of a killed experiment's change, verified."""
        self.restore(where)
        self.verify_restored(where)


@undoes(KIND)
def undo_setting(resource: Resource) -> None:
    """``cephbench cleanup``: put a setting a killed experiment changed back, verified."""
    from cephbench.tuning.settings import kind

    d = resource.detail
    refuse_while_running(d)
    conn = Connection.from_json(d["conn"]) if d.get("conn") else None
    kind(d["family"]).from_detail(d).clean_up(Where(conn, d.get("lab_dir")))


Setting.undo = (undo_setting,)
