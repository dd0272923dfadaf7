"""Configuration changes as data: parsed from the command lines users already type. Pure.

An A/B experiment's sides are lists of changes, each written as the command a user would run
by hand (``ceph config set osd osd_op_num_shards 8``) on the command line or in a YAML file,
and parsed here into a :class:`Change`; cephbench never hands them to a shell. What each kind
touches (its *slot*) decides what a side leaves at its original value, and the option
metadata Ceph prints (``ceph config help KEY -f json``) is enough to refuse an unknown key or a
malformed value before anything is changed (:func:`check_value`).

Forms understood (each kind's, :mod:`cephbench.tuning.kinds`)::

    ceph config set WHO KEY VALUE      # the monitors' config database
    ceph config rm WHO KEY
    ceph osd pool set POOL KEY VALUE
    sysctl KEY=VALUE                   # also `sysctl -w KEY=VALUE`
    conf-set KEY=VALUE                 # the lab's ceph.conf ([global]); daemons restarted
"""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cephbench.errors import UsageError

if TYPE_CHECKING:
    from cephbench.tuning.setting import Setting

KEY = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_/.-]*$")


@dataclass(frozen=True)
class Change:
    kind: str
    """The setting kind's name in :mod:`cephbench.tuning.settings`."""
    key: str
    value: str | None
    """None for ``ceph config rm``."""
    target: str = ""
    """WHO for ceph config, the pool for pool settings; empty for sysctl and conf-set."""

    @property
    def setting(self) -> type[Setting]:
        """The class of this change's kind."""
        from cephbench.tuning.settings import kind

        return kind(self.kind)

    @property
    def family(self) -> str:
        """The kind that owns the setting changed (``config rm`` changes ``config``'s)."""
        return self.setting.same_setting_as or self.kind

    @property
    def slot(self) -> tuple[str, str, str]:
        """What the change sets: two changes with one slot cannot be on one side."""
        return (self.family, self.target, self.key)

    @property
    def text(self) -> str:
        """The change as the command a user would type."""
        return self.setting.describe(self)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "target": self.target,
            "key": self.key,
            "value": self.value,
            "text": self.text,
        }


@dataclass(frozen=True)
class Side:
    """One side of an experiment: its label and its changes (none: the configuration as found)."""

    label: str
    changes: tuple[Change, ...] = ()

    def change_for(self, slot: tuple[str, str, str]) -> Change | None:
        return next((c for c in self.changes if c.slot == slot), None)


def bad(text: str, why: str) -> UsageError:
    """The error for a change ``text`` that cannot be made, naming every kind's form."""
    from cephbench.tuning.settings import REGISTRY, kind

    forms = " | ".join(kind(name).form for name in REGISTRY)
    return UsageError(f"'{text}' is not a change cephbench can make: {why}", hint=f"use {forms}")


def parse_change(text: str) -> Change:
    """One change from its command line: the first kind whose form it is."""
    from cephbench.tuning.settings import REGISTRY, kind

    try:
        words = shlex.split(text)
    except ValueError as e:
        raise bad(text, str(e)) from None
    if words[:1] == ["lab"]:
        words = words[1:]
    for name in REGISTRY:
        fields = kind(name).parse(words, text)
        if fields is not None:
            key, value, target = fields
            return Change(name, key, value, target)
    raise bad(text, "unknown command")


def option_key(text: str, key: str) -> str:
    """``key``, checked to be an option name, of the change ``text``."""
    if not KEY.match(key):
        raise bad(text, f"'{key}' is not an option name")
    return key


def key_value(text: str, rest: list[str]) -> tuple[str, str]:
    """The KEY and VALUE of a change ``text`` whose arguments ``rest`` are one KEY=VALUE."""
    if len(rest) != 1 or "=" not in rest[0]:
        raise bad(text, "it needs one KEY=VALUE")
    key, value = (s.strip() for s in rest[0].split("=", 1))
    return key, value


def load_changes(spec: str) -> tuple[str | None, list[Change]]:
    """``--a``/``--b`` value: a YAML file of changes, else one change. Returns the file's
    ``label`` (if any) and its changes.

    The file is a list of change lines, or a mapping with ``changes:`` (and ``label:``).
    """
    path = Path(spec)
    if not spec.endswith((".yaml", ".yml")):
        return None, [parse_change(spec)]
    import yaml

    try:
        data = yaml.safe_load(path.read_text())
    except OSError as e:
        raise UsageError(f"cannot read {spec}: {e.strerror}", hint="check the path") from None
    except yaml.YAMLError as e:
        raise UsageError(f"{spec} is not valid YAML: {str(e).splitlines()[0]}") from None
    label = None
    if isinstance(data, dict):
        label = data.get("label")
        data = data.get("changes")
    if not isinstance(data, list) or not all(isinstance(x, str) for x in data):
        raise UsageError(
            f"{spec}: expected a list of changes (or `changes:` with one), each a line like "
            "'ceph config set osd osd_op_num_shards 8'"
        )
    return (str(label) if label is not None else None), [parse_change(x) for x in data]


def make_side(label: str, specs: tuple[str, ...]) -> Side:
    """A side from its ``--a``/``--b`` values; the same setting twice is refused."""
    changes: list[Change] = []
    file_label = None
    for spec in specs:
        found, parsed = load_changes(spec)
        file_label = file_label or found
        changes += parsed
    seen: dict[tuple[str, str, str], Change] = {}
    for c in changes:
        if c.slot in seen:
            raise UsageError(
                f"side {label} changes {c.key} twice: '{seen[c.slot].text}' and '{c.text}'"
            )
        seen[c.slot] = c
    return Side(file_label if file_label and label in ("A", "B") else label, tuple(changes))


# -- values, checked against Ceph's own option metadata ---------------------------------------

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMGTPE]?)(i?)B?\s*$", re.IGNORECASE)
_SECS = re.compile(r"^\s*(\d+)\s*(s|sec|m|min|h|hr|d|w)?\s*$", re.IGNORECASE)
_SECONDS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "hr": 3600, "d": 86400, "w": 604800}
_BOOL = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


def parse_size(text: str) -> float | None:
    """A Ceph size (``4096``, ``4K``, ``1G``, ``1GiB``) in bytes; None if malformed."""
    m = _SIZE.match(text)
    if not m:
        return None
    power = "KMGTPE".find(m.group(2).upper()) + 1 if m.group(2) else 0
    return float(m.group(1)) * 1024**power


def _number(kind: str, text: str) -> float | None:
    """The numeric value of ``text`` for an option of type ``kind``; None if malformed."""
    t = text.strip()
    if kind == "int":
        return float(t) if re.fullmatch(r"-?\d+", t) else None
    if kind in ("uint", "millisecs"):
        return float(t) if re.fullmatch(r"\d+", t) else None
    if kind == "float":
        try:
            x = float(t)
        except ValueError:
            return None
        return x if math.isfinite(x) else None
    if kind == "size":
        return parse_size(t)
    if kind == "secs":
        m = _SECS.match(t)
        return float(m.group(1)) * _SECONDS[(m.group(2) or "s").lower()] if m else None
    return None


def check_value(option: dict[str, Any], value: str) -> str | None:
    """Why ``value`` is not valid for the option ``ceph config help KEY -f json`` described
    (type, enum values, min and max), or None when it is."""
    kind = option.get("type", "str")
    name = option.get("name", "the option")
    if kind == "bool":
        return None if value.strip().lower() in _BOOL else f"{name} is a bool: true or false"
    if kind in ("int", "uint", "float", "size", "secs", "millisecs"):
        x = _number(kind, value)
        if x is None:
            return f"{name} is of type {kind}; '{value}' is not one"
        for bound, ok in (("min", lambda b: x >= b), ("max", lambda b: x <= b)):
            limit = option.get(bound)
            if limit not in (None, "") and not ok(float(limit)):
                return f"{name} must be {'at least' if bound == 'min' else 'at most'} {limit}"
        return None
    allowed = option.get("enum_values") or []
    if allowed and value not in allowed:
        return f"{name} is one of {', '.join(allowed)}; not '{value}'"
    return None


def same_value(kind: str, a: str | None, b: str | None) -> bool:
    """Whether two spellings of an option's value mean the same (``4K`` = ``4096``, ``yes`` =
    ``true``, ``1.0`` = ``1``); for other types, the same text (whitespace aside)."""
    if a is None or b is None:
        return a is b
    if kind == "bool":
        return _BOOL.get(a.strip().lower(), a) == _BOOL.get(b.strip().lower(), b)
    if kind in ("int", "uint", "float", "size", "millisecs"):
        x, y = _number(kind, a), _number(kind, b)
        if x is not None and y is not None:
            return math.isclose(x, y, rel_tol=1e-9)
    return a.split() == b.split()
