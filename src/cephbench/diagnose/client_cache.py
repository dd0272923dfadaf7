"""librbd's cache as it lets a client's writes complete before the OSDs have them.

Since Octopus librbd's default cache policy is ``writearound``: a write completes as soon as
it is sent, while fewer than ``rbd_cache_max_dirty`` bytes (24 MiB) are in flight; a flush
waits for them. fio counts a write done when librbd says so, so a write workload can move
up to that many bytes more than the OSDs took in its runtime: a short run through a slow
part measures above what that part allows, and the model is not wrong. In the lab, 1M
writes at QD16 through a disk held to 150 IOPS: 7.7 and 8.1 MiB/s with ``rbd_cache=false``,
11.1 and 10.0 MiB/s with the defaults (fio 3.33's rbd engine, 6 s each, runtime ~8 s).

The settings are read from the cluster's configuration database as the run's fingerprint
recorded it, over Ceph's defaults (the same in Pacific 16.2.15 and Tentacle 20.2.4, as
``ceph config help`` says); a client's own ceph.conf or ``CEPH_ARGS`` can differ,
and that is said. Pure: recorded dicts in."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

DEFAULTS = {  # Ceph's, where nothing sets them (Pacific's and Tentacle's alike)
    "rbd_cache": "true",
    "rbd_cache_policy": "writearound",
    "rbd_cache_writethrough_until_flush": "true",
    "rbd_cache_size": "33554432",
    "rbd_cache_max_dirty": "25165824",
}
EARLY_POLICIES = ("writeback", "writearound")
"""Policies under which a write completes before the OSDs have it (``writethrough`` waits)."""

_SIZE = re.compile(r"^\s*(\d+)\s*([KMGT]?)(i?)B?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class ClientCache:
    enabled: bool
    policy: str
    max_dirty: int
    source: str = "the cluster's configuration database and Ceph's defaults"

    @property
    def early_bytes(self) -> int:
        """Bytes of writes one librbd client can complete before the OSDs have them."""
        if self.enabled and self.policy in EARLY_POLICIES:
            return max(0, self.max_dirty)
        return 0

    def describe(self) -> str:
        if not self.enabled:
            return "librbd's cache is off"
        if not self.early_bytes:
            return f"librbd's cache ({self.policy}) completes writes only when the OSDs have them"
        return (
            f"librbd's cache ({self.policy}) completes up to {_mib(self.early_bytes)} of writes "
            "before the OSDs have them"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "enabled": self.enabled,
            "policy": self.policy,
            "max_dirty_bytes": self.max_dirty,
            "early_bytes": self.early_bytes,
            "source": self.source,
        }


def from_config(entries: Any, client: str = "client.admin") -> ClientCache:
    """The cache a librbd client named ``client`` runs with, from ``ceph config dump -f json``
    (a list of ``{"section", "name", "value"}``): its own section over ``client`` over
    ``global`` over Ceph's defaults."""
    rank = {"global": 1, "client": 2, client: 3}
    chosen: dict[str, tuple[int, str]] = {}
    for e in entries if isinstance(entries, list) else []:
        if not isinstance(e, dict):
            continue
        name, section = e.get("name"), e.get("section")
        if name in DEFAULTS and section in rank:
            level = rank[section]
            if level >= chosen.get(name, (0, ""))[0]:
                chosen[name] = (level, str(e.get("value", "")))
    value = {k: chosen.get(k, (0, v))[1] for k, v in DEFAULTS.items()}
    # writethrough_until_flush is not read: fio's rbd engine got writes completed early with
    # it at its default (true), as the figures above show
    return ClientCache(
        value["rbd_cache"].strip().lower() in ("true", "1", "yes", "on"),
        value["rbd_cache_policy"].strip().lower(),
        _bytes(value["rbd_cache_max_dirty"], int(DEFAULTS["rbd_cache_max_dirty"])),
    )


def _bytes(text: str, default: int) -> int:
    """A Ceph size option's value (``25165824``, ``24M``, ``24Mi``) in bytes."""
    m = _SIZE.match(text)
    if not m:
        return default
    n, unit = int(m.group(1)), m.group(2).upper()
    return n << {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}[unit]


def _mib(n: int) -> str:
    return f"{n / (1 << 20):g} MiB"
