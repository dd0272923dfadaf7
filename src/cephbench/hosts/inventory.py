"""``--hosts`` / ``--clients``: which machines, where ssh reaches them, and their roles.

One :class:`Inventory` whatever the source, every host validated the same way (nothing ssh
could read as an option, a port that is a port). The sources: the files people keep
(:mod:`cephbench.hosts.formats`), the Ceph cluster's own metadata
(:mod:`cephbench.hosts.discovery`), and :func:`cephbench.hosts.load.load_inventory`, which
picks one from a ``--hosts`` value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cephbench.errors import UsageError

if TYPE_CHECKING:
    pass


ROLES = ("client", "osd", "mon", "mgr")
"""Roles cephbench knows; Ansible groups named like them (``osds``, ``mons``...) map to them."""


_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.%:\[\]-]*$")


_USER = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


@dataclass(frozen=True)
class Host:
    """One machine: how results name it, where ssh connects, as whom, and what it runs."""

    name: str
    address: str
    user: str | None = None
    port: int | None = None
    roles: frozenset[str] = frozenset()
    sudo: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "address": self.address,
            "user": self.user,
            "port": self.port,
            "roles": sorted(self.roles),
            "sudo": self.sudo,
        }


@dataclass(frozen=True)
class Inventory:
    """The hosts of one ``--hosts`` value, and the ssh config to reach them with (the lab's)."""

    hosts: tuple[Host, ...]
    source: str
    ssh_config: Path | None = None

    def with_role(self, role: str) -> list[Host]:
        return [h for h in self.hosts if role in h.roles]

    def host(self, name: str) -> Host:
        for h in self.hosts:
            if h.name == name:
                return h
        known = ", ".join(h.name for h in self.hosts) or "none"
        raise UsageError(
            f"no host '{name}' in the inventory ({self.source})", hint=f"known hosts: {known}"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "ssh_config": str(self.ssh_config) if self.ssh_config else None,
            "hosts": [h.to_json() for h in self.hosts],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Inventory:
        """The inverse of :meth:`to_json` (an inventory recorded with a resource)."""
        hosts = tuple(
            make_host(
                h["name"],
                h["address"],
                h.get("user"),
                h.get("port"),
                h.get("roles", ()),
                bool(h.get("sudo")),
                where="recorded inventory",
            )
            for h in data.get("hosts", ())
        )
        cfg = data.get("ssh_config")
        return cls(hosts, str(data.get("source", "recorded")), Path(cfg) if cfg else None)


def make_inventory(hosts: list[Host], source: str, ssh_config: Path | None = None) -> Inventory:
    if not hosts:
        raise UsageError(f"the inventory {source} names no hosts")
    seen: set[str] = set()
    for h in hosts:
        if h.name in seen:
            raise UsageError(f"host {h.name} appears twice in {source}")
        seen.add(h.name)
    return Inventory(tuple(hosts), source, ssh_config)


def target_host(text: str, where: str) -> Host:
    """``[user@]host[:port]`` (IPv6 as ``[::1]:22``)."""
    user, _, rest = text.rpartition("@")
    port: str | None = None
    if rest.startswith("["):
        addr, _, tail = rest[1:].partition("]")
        port = tail[1:] if tail.startswith(":") else None
    elif rest.count(":") == 1:
        addr, port = rest.split(":")
    else:
        addr = rest
    return make_host(addr, addr, user or None, port, (), False, where=where)


def make_host(
    name: str,
    address: str,
    user: Any,
    port: Any,
    roles: Iterable[str] | str,
    sudo: bool,
    *,
    where: str,
) -> Host:
    """A validated Host: nothing that ssh could read as an option, a port that is a port."""
    for what, value in (("host name", name), ("address", address)):
        if not _NAME.match(value):
            raise UsageError(
                f"{where}: '{value}' is not a valid {what}",
                hint="use a host name or an IP address",
            )
    if user is not None:
        user = str(user)
        if not _USER.match(user):
            raise UsageError(f"{where}: '{user}' is not a valid user name")
    if port is not None:
        try:
            port = int(port)
        except (TypeError, ValueError):
            port = -1
        if not 0 < port < 65536:
            raise UsageError(f"{where}: ssh port must be 1..65535")
    if isinstance(roles, str):
        roles = [r.strip() for r in roles.split(",")]
    return Host(name, address, user, port, frozenset(r for r in roles if r), sudo)
