"""``sysctl KEY=VALUE``: a kernel setting of this machine, or with ``cephbench ab --hosts`` of
every host of the inventory (over ssh, each host's original recorded and put back:
:mod:`cephbench.tuning.host_sysctl`). A sysctl of N integers takes N integers; a value is read
back with tabs between its words, so words are compared."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

from cephbench.errors import CephbenchError, UsageError
from cephbench.store import ResourceLog
from cephbench.tuning.changes import Change, bad, key_value
from cephbench.tuning.host_sysctl import shown, undo_host_sysctl
from cephbench.tuning.setting import Fields, Setting, Where, undo_setting

SYSCTL = re.compile(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)+$")


class Sysctl(Setting):
    form = "sysctl KEY=VALUE"
    undo = (undo_setting, undo_host_sysctl)
    on_cluster = False
    on_hosts = True  # this machine's, or each --hosts host's

    @classmethod
    def parse(cls, words: list[str], text: str) -> Fields | None:
        if words[:1] != ["sysctl"]:
            return None
        key, value = key_value(text, [w for w in words[1:] if w != "-w"])
        key = key.replace("/", ".")
        if not SYSCTL.match(key):
            raise bad(text, f"'{key}' is not a sysctl name")
        return key, value, ""

    @classmethod
    def describe(cls, change: Change) -> str:
        return shlex.join(["sysctl", f"{change.key}={change.value}"])

    def read(self, where: Where, change: Change) -> None:
        if where.hosts is not None:
            self.original = {"hosts": where.hosts.read(self.key)}
        else:
            self.original = {"value": sysctl_get(self.key)}

    def value_error(self, where: Where, value: str) -> str | None:
        olds = self.original.get("hosts", {"": self.original.get("value")}).values()
        return next(filter(None, (sysctl_value_error(self.key, o, value) for o in olds)), None)

    def record(self, where: Where, resources: ResourceLog, owner: dict[str, Any]) -> list[int]:
        if where.hosts is not None:  # one record per host, with its own original
            return where.hosts.record(self.key, self.original["hosts"], owner)
        return super().record(where, resources, owner)

    def apply(self, where: Where, change: Change) -> None:
        if where.hosts is not None:
            where.hosts.write(self.key, {h.name: change.value or "" for h in where.hosts.hosts})
        else:
            sysctl_set(self.key, change.value or "")

    def current(self, where: Where, change: Change) -> str | None:
        return sysctl_get(self.key)

    def check_written(self, where: Where, change: Change | None) -> None:
        if where.hosts is None:  # else HostSysctls.write read every host back
            super().check_written(where, change)

    def restore(self, where: Where) -> None:
        """Write the original value back (on hosts: each its own, read back and checked)."""
        if where.hosts is not None:
            where.hosts.write(self.key, self.original["hosts"])
        else:
            sysctl_set(self.key, self.original["value"])

    def verify_restored(self, where: Where) -> None:
        if where.hosts is not None:
            check_hosts(self.key, where.hosts.read(self.key), self.original["hosts"])
        else:
            super().verify_restored(where)

    def shows_original(self, where: Where) -> tuple[Any, bool]:
        got = sysctl_get(self.key)
        return got, got.split() == self.original["value"].split()

    def shown_original(self) -> str | None:
        if "hosts" in self.original:
            return shown(self.original["hosts"])
        return super().shown_original()


def sysctl_value_error(key: str, old: str | None, value: str) -> str | None:
    """Why ``value`` cannot replace ``old`` (a sysctl of N integers takes N integers)."""
    words, new = (old or "").split(), value.split()
    if not words or not all(re.fullmatch(r"-?\d+", w) for w in words):
        return None
    if len(new) != len(words) or not all(re.fullmatch(r"-?\d+", w) for w in new):
        return f"{key} takes {len(words)} integer(s), like '{' '.join(words)}'"
    return None


def check_hosts(key: str, got: dict[str, str], want: dict[str, str]) -> None:
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
