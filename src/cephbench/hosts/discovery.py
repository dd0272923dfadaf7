"""``--hosts ceph``: the cluster's hosts from its own metadata (``ceph osd metadata``, ``ceph
mon metadata``, ``ceph orch host ls`` where cephadm runs), each with its roles and the
address its daemons use. Parsing is pure; :func:`discover_ceph` asks the cluster."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from cephbench.errors import CephbenchError

if TYPE_CHECKING:
    from cephbench.ceph.connection import Connection
from cephbench.hosts.inventory import Inventory, make_host, make_inventory


def discover_ceph(conn: Connection | None) -> Inventory:
    """The cluster's hosts from its own metadata; cephadm's ``orch host ls`` when it answers."""
    from cephbench.ceph.commands import ceph, ceph_json
    from cephbench.lab.connect import resolve

    conn = conn or resolve()
    osds = ceph_json(conn, "osd", "metadata")
    mons = ceph_json(conn, "mon", "metadata")
    orch_hosts: list[dict[str, Any]] | None = None
    try:
        result = ceph(conn, "orch", "host", "ls", "--format", "json", check=False, timeout=15)
    except CephbenchError:
        result = None
    if result is not None and result.returncode == 0:
        orch_hosts = parse_orch_hosts(result.stdout)
    return from_ceph_metadata(osds, mons, orch_hosts)


def parse_orch_hosts(text: str) -> list[dict[str, Any]] | None:
    """``ceph orch host ls --format json``; None when it is not a list of hosts."""
    import json

    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, list) else None


def from_ceph_metadata(
    osds: Iterable[Mapping[str, Any]],
    mons: Iterable[Mapping[str, Any]],
    orch_hosts: Iterable[Mapping[str, Any]] | None = None,
) -> Inventory:
    """Hosts named by the OSDs' and monitors' metadata (roles osd, mon), addressed by the
    orchestrator's ``addr`` when there is one, else the daemons' public (front) address;
    cephadm labels become roles too (a ``client`` label marks a client)."""
    addrs: dict[str, str] = {}
    roles: dict[str, set[str]] = {}
    order: list[str] = []

    def see(name: str, role: str | None, addr: str | None) -> None:
        if name not in roles:
            order.append(name)
            roles[name] = set()
        if role:
            roles[name].add(role)
        if addr and name not in addrs:
            addrs[name] = addr

    for orch in orch_hosts or ():
        name = str(orch.get("hostname") or "")
        if name:
            see(name, None, str(orch.get("addr") or "") or None)
            roles[name].update(str(lb) for lb in orch.get("labels") or () if str(lb).strip())
    for osd in osds:
        if osd.get("hostname"):
            see(str(osd["hostname"]), "osd", ceph_addr_ip(str(osd.get("front_addr", ""))))
    for mon in mons:
        if mon.get("hostname"):
            see(str(mon["hostname"]), "mon", ceph_addr_ip(str(mon.get("addrs", ""))))
    if not order:
        raise CephbenchError(
            "the cluster's metadata names no hosts",
            hint="give the hosts yourself: --hosts FILE or --hosts h1,h2",
        )
    hosts = [
        make_host(n, addrs.get(n, n), None, None, roles[n], False, where=f"ceph host {n}")
        for n in order
    ]
    return make_inventory(hosts, "ceph")


def ceph_addr_ip(addr: str) -> str | None:
    """The IP of a Ceph address vector: ``[v2:10.0.0.1:6800/12,v1:...]`` or ``10.0.0.1:6789/0``."""
    first = addr.strip().strip("[]").split(",")[0]
    first = re.sub(r"^v[12]:", "", first)
    first = first.split("/", 1)[0]
    if not first:
        return None
    if first.startswith("["):  # IPv6: [::1]:6800
        ip = first[1:].split("]", 1)[0]
    else:
        ip = first.rsplit(":", 1)[0] if ":" in first else first
    return None if ip in ("", "0.0.0.0", "::", "-") else ip
