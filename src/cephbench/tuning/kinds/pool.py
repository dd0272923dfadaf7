"""``ceph osd pool set POOL KEY VALUE``: a setting of one pool. Its type is the one the pool
shows now (a bool, a number or text), and a value of another type is refused before anything
changes; a setting the pool has not set cannot be put back unset, so it is refused too."""

from __future__ import annotations

import re
import shlex
from typing import Any

from cephbench.ceph.commands import ceph
from cephbench.ceph.connection import Connection
from cephbench.errors import UsageError
from cephbench.tuning.changes import Change, bad, option_key, same_value
from cephbench.tuning.setting import Fields, Setting, Where

POOL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


class PoolSetting(Setting):
    form = "ceph osd pool set POOL KEY VALUE"

    @classmethod
    def parse(cls, words: list[str], text: str) -> Fields | None:
        if words[:4] != ["ceph", "osd", "pool", "set"]:
            return None
        if len(words) != 7:
            raise bad(text, "it needs POOL, KEY and VALUE")
        if not POOL.match(words[4]):
            raise bad(text, f"'{words[4]}' is not a pool name")
        return option_key(text, words[5]), words[6], words[4]

    @classmethod
    def describe(cls, change: Change) -> str:
        return shlex.join(
            ["ceph", "osd", "pool", "set", change.target, change.key, change.value or ""]
        )

    def read(self, where: Where, change: Change) -> None:
        self.original = {"value": pool_get(where.ceph(), self.target, self.key)}
        self.type = json_type(self.original["value"])

    def value_error(self, where: Where, value: str) -> str | None:
        return pool_value_error(self.original["value"], value)

    def apply(self, where: Where, change: Change) -> None:
        assert change.value is not None
        ceph(where.ceph(), "osd", "pool", "set", self.target, self.key, change.value)

    def current(self, where: Where, change: Change) -> str | None:
        return pool_get(where.ceph(), self.target, self.key)

    def restore(self, where: Where) -> None:
        ceph(where.ceph(), "osd", "pool", "set", self.target, self.key, self.original["value"])

    def shows_original(self, where: Where) -> tuple[Any, bool]:
        got = pool_get(where.ceph(), self.target, self.key)
        return got, same_value(self.type, got, self.original["value"])


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
    from cephbench.ceph.output import parse_json

    value = parse_json(("osd", "pool", "get"), result.stdout).get(key)
    return str(value).lower() if isinstance(value, bool) else str(value)


def json_type(text: str) -> str:
    if text in ("true", "false"):
        return "bool"
    if re.fullmatch(r"-?\d+", text):
        return "int"
    try:
        float(text)
        return "float"
    except ValueError:
        return "str"


def pool_value_error(old: str, value: str) -> str | None:
    vtype = json_type(old)
    if vtype == "bool" and value.lower() not in ("true", "false", "1", "0", "yes", "no"):
        return "the pool setting is a bool: true or false"
    if vtype == "int" and not re.fullmatch(r"-?\d+", value):
        return f"the pool setting is an integer (now {old})"
    if vtype == "float" and json_type(value) not in ("int", "float"):
        return f"the pool setting is a number (now {old})"
    return None
