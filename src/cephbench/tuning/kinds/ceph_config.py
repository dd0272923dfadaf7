"""``ceph config set WHO KEY VALUE``: an option in the monitors' config database.

What restores it is whether WHO had its own entry (and which), not only the value shown: a
section without an entry is put back by ``ceph config rm``. A restore is verified by one
``ceph config get WHO``: the same database entry as before (or none) shows the same value. An
OSD option is also checked in the running OSDs (``ceph config show``); one they read only at
start-up restarts a lab's OSDs.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from cephbench.ceph.commands import ceph, ceph_json
from cephbench.ceph.connection import Connection
from cephbench.tuning.changes import Change, bad, check_value, option_key
from cephbench.tuning.restart import osd_section, verify_running
from cephbench.tuning.setting import Fields, Setting, Where

WHO = re.compile(r"^(global|mon|mgr|osd|mds|client)(\.[A-Za-z0-9_.-]+)?$")


def who_of(text: str, who: str) -> str:
    """``who``, checked to be a config section, of the change ``text``."""
    if not WHO.match(who):
        raise bad(text, f"'{who}' is not a config section (global, osd, osd.3, client...)")
    return who


class CephConfig(Setting):
    """A ``ceph config`` option of one section; a change's value None removes its entry."""

    form = "ceph config set WHO KEY VALUE"

    @classmethod
    def parse(cls, words: list[str], text: str) -> Fields | None:
        if words[:3] != ["ceph", "config", "set"]:
            return None
        if len(words) < 6:
            raise bad(text, "it needs WHO, KEY and VALUE")
        who, key, value = words[3], words[4], " ".join(words[5:])
        return option_key(text, key), value, who_of(text, who)

    @classmethod
    def describe(cls, change: Change) -> str:
        return shlex.join(["ceph", "config", "set", change.target, change.key, change.value or ""])

    def read(self, where: Where, change: Change) -> None:
        self.type = where.option(self.key).get("type", "str")
        self.original = config_state(where.ceph(), self.target, self.key)

    def value_error(self, where: Where, value: str) -> str | None:
        return check_value(where.option(self.key), value)

    def apply(self, where: Where, change: Change) -> None:
        if change.value is None:
            ceph(where.ceph(), "config", "rm", self.target, self.key)
        else:
            ceph(where.ceph(), "config", "set", self.target, self.key, change.value)

    def current(self, where: Where, change: Change) -> str | None:
        """The value shown; for a removal, the section's own entry (None: none)."""
        if change.value is None:
            return config_entry(where.ceph(), self.target, self.key)["explicit"]
        return config_get(where.ceph(), self.target, self.key)

    def verify(self, where: Where, change: Change) -> None:
        super().verify(where, change)
        if osd_section(self.target) and change.value is not None:
            verify_running(where.ceph(), self.target, self.key, self.type, change.value)

    def needs_restart(self, where: Where) -> bool:
        return osd_section(self.target) and not where.option(self.key).get(
            "can_update_at_runtime", True
        )

    def restore(self, where: Where) -> None:
        if self.original["explicit"] is None:
            ceph(where.ceph(), "config", "rm", self.target, self.key)
        else:
            ceph(where.ceph(), "config", "set", self.target, self.key, self.original["explicit"])

    def shows_original(self, where: Where) -> tuple[Any, bool]:
        if "entry" in self.original:  # the same database entry (or none): the same value shown
            state = config_entry(where.ceph(), self.target, self.key)
            got = (state["entry"] or {}).get("value", "the default")
            return got, state["entry"] == self.original["entry"]
        # recorded before entries were: the section's own value and the value shown
        state = config_state(where.ceph(), self.target, self.key)
        ok = (
            state["explicit"] == self.original["explicit"]
            and state["effective"] == self.original["effective"]
        )
        return state["effective"], ok

    def shown_original(self) -> str | None:
        return self.original.get("effective")


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
