"""``--hosts`` / ``--clients``: which machines, where ssh reaches them, and their roles.

One :class:`Inventory` whatever the source: the lab's (written by ``lab up --ssh``), the Ceph
cluster's own metadata (``ceph osd/mon metadata``, ``ceph orch host ls``), a file (cephbench
YAML, Ansible INI or YAML, one host per line) or ``h1,h2,...`` on the command line. Parsing is
pure; only ``load_inventory`` reads files or asks the cluster.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from cephbench.errors import CephbenchError, UsageError

if TYPE_CHECKING:
    from cephbench.ceph.connection import Connection

ROLES = ("client", "osd", "mon", "mgr")
"""Roles cephbench knows; Ansible groups named like them (``osds``, ``mons``...) map to them."""

_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.%:\[\]-]*$")
_USER = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_TRUE = {"true", "yes", "1", "on"}


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
            _host(
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


def load_inventory(spec: str, conn: Connection | None = None) -> Inventory:
    """--hosts/--clients value: "lab" | "ceph" | a file (YAML, Ansible INI/YAML, host per
    line) | "h1,h2,..."; "lab" reads the inventory `lab up --ssh` wrote."""
    spec = spec.strip()
    if not spec:
        raise UsageError("--hosts is empty", hint="give lab, ceph, a file, or h1,h2,...")
    if spec == "lab":
        return load_lab()
    if spec == "ceph":
        return discover_ceph(conn)
    path = Path(spec).expanduser()
    if path.is_file():
        try:
            text = path.read_text()
        except OSError as e:
            raise UsageError(f"cannot read {path}: {e.strerror}") from None
        return parse_file(text, str(path))
    if "/" in spec or path.suffix in (".yaml", ".yml", ".ini", ".txt", ".list", ".hosts"):
        raise UsageError(
            f"no inventory file {spec}", hint="give an existing file, lab, ceph, or h1,h2,..."
        )
    return parse_list(spec)


# -- sources ------------------------------------------------------------------------------


def load_lab(lab_dir: Path | None = None) -> Inventory:
    """The inventory `cephbench lab up --ssh` wrote in the lab directory."""
    from cephbench.lab.paths import default_dir

    d = lab_dir or default_dir()
    path = d / "inventory.yaml"
    if not path.is_file():
        raise UsageError(
            f"the lab in {d} has no ssh inventory",
            hint="start it with ssh: cephbench lab up --hosts 3 --ssh",
        )
    inv = parse_file(path.read_text(), "lab")
    if inv.ssh_config is None:
        inv = replace(inv, ssh_config=d / "ssh" / "config")
    return inv


def parse_list(spec: str) -> Inventory:
    """``h1,h2`` or ``user@h1:2222,h2``: hosts named as written."""
    hosts = [_target(part.strip(), "--hosts") for part in spec.split(",") if part.strip()]
    return _inventory(hosts, "list")


def parse_file(text: str, source: str) -> Inventory:
    """A file's inventory, its format recognised from its content."""
    kind = file_format(text)
    if kind == "ini":
        return parse_ansible_ini(text, source)
    if kind == "lines":
        return parse_lines(text, source)
    data = yaml.safe_load(text)
    if kind == "cephbench":
        return parse_cephbench_yaml(data, source)
    return parse_ansible_yaml(data, source)


def file_format(text: str) -> str:
    """ "cephbench" (YAML with ``hosts:``), "ansible-yaml", "ini" (Ansible) or "lines"."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and ln.strip()[0] not in "#;"]
    if any(re.fullmatch(r"\[[A-Za-z_][^\]\s]*\]", ln) for ln in lines) or any(
        "ansible_" in ln and "=" in ln for ln in lines
    ):
        return "ini"
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        data = None
    if isinstance(data, dict):
        hosts = data.get("hosts")
        if isinstance(hosts, list) or (isinstance(hosts, dict) and not _is_ansible_group(hosts)):
            return "cephbench"
        return "ansible-yaml"
    return "lines"


def parse_lines(text: str, source: str) -> Inventory:
    """One host per line (fio's ``--client`` host file, pdsh's): ``[user@]host[:port]``."""
    hosts = []
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if len(line.split()) != 1:
            raise UsageError(
                f"{source} line {n}: '{line}' is not one host",
                hint="write one [user@]host[:port] per line",
            )
        hosts.append(_target(line, f"{source} line {n}"))
    return _inventory(hosts, source)


def parse_cephbench_yaml(data: Mapping[str, Any], source: str) -> Inventory:
    """cephbench's own hosts file (see the README): defaults, then ``hosts:`` as a list of
    mappings (``name``, ``address``, ``user``, ``port``, ``roles``, ``sudo``) or name -> mapping."""
    defaults = {k: data.get(k) for k in ("user", "port", "sudo", "roles")}
    raw = data.get("hosts") or []
    items: list[tuple[str | None, Any]] = (
        [(None, h) for h in raw] if isinstance(raw, list) else list(raw.items())
    )
    hosts = []
    for key, entry in items:
        if isinstance(entry, str):
            entry = {"name": entry}
        entry = dict(entry or {})
        name = entry.get("name") or key
        if not name:
            raise UsageError(f"{source}: a host has no name", hint="give each host a name:")
        where = f"{source} host {name}"
        unknown = set(entry) - {"name", "address", "user", "port", "roles", "sudo"}
        if unknown:
            raise UsageError(
                f"{where}: unknown key {sorted(unknown)[0]}",
                hint="keys: name, address, user, port, roles, sudo",
            )
        merged = {k: entry.get(k, defaults[k]) for k in defaults}
        hosts.append(
            _host(
                str(name),
                str(entry.get("address") or name),
                merged["user"],
                merged["port"],
                merged["roles"] or (),
                _bool(merged["sudo"]),
                where=where,
            )
        )
    cfg = data.get("ssh_config")
    return _inventory(hosts, source, Path(cfg) if cfg else None)


def parse_ansible_yaml(data: Mapping[str, Any], source: str) -> Inventory:
    """An Ansible YAML inventory: groups with ``hosts``, ``children`` and ``vars``."""
    found: dict[str, dict[str, Any]] = {}
    roles: dict[str, set[str]] = {}

    def walk(group: str, body: Any, inherited: dict[str, Any], group_roles: set[str]) -> None:
        body = body or {}
        if not isinstance(body, dict):
            raise UsageError(f"{source}: group {group} is not a mapping")
        gvars = {**inherited, **(body.get("vars") or {})}
        here = group_roles | ({r} if (r := _role(group)) else set())
        for name, hvars in (body.get("hosts") or {}).items():
            found.setdefault(str(name), {}).update({**gvars, **(hvars or {})})
            roles.setdefault(str(name), set()).update(here)
        for child, cbody in (body.get("children") or {}).items():
            walk(str(child), cbody, gvars, here)

    for group, body in data.items():
        walk(str(group), body, {}, set())
    return _inventory([_ansible_host(n, v, roles[n], source) for n, v in found.items()], source)


def parse_ansible_ini(text: str, source: str) -> Inventory:
    """An Ansible INI inventory: ``[group]`` host lines with ``key=value`` variables,
    ``[group:vars]`` and ``[group:children]``; ``node[01:03]`` ranges are expanded."""
    hosts: dict[str, dict[str, Any]] = {}
    members: dict[str, list[str]] = {}
    children: dict[str, list[str]] = {}
    gvars: dict[str, dict[str, str]] = {}
    section, kind = "ungrouped", ""
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if m := re.fullmatch(r"\[([^\]:\s]+)(?::(vars|children))?\]", line):
            section, kind = m.group(1), m.group(2) or ""
            continue
        if kind == "vars":
            key, sep, value = line.partition("=")
            if not sep:
                raise UsageError(f"{source} line {n}: '{line}' is not key=value")
            gvars.setdefault(section, {})[key.strip()] = _unquote(value.strip())
            continue
        if kind == "children":
            children.setdefault(section, []).append(line.split()[0])
            continue
        try:
            words = shlex.split(line, comments=True)
        except ValueError as e:
            raise UsageError(f"{source} line {n}: {e}") from None
        hvars = {}
        for w in words[1:]:
            key, sep, value = w.partition("=")
            if not sep:
                raise UsageError(f"{source} line {n}: '{w}' is not key=value")
            hvars[key] = value
        for name in expand_range(words[0]):
            hosts.setdefault(name, {}).update(hvars)
            members.setdefault(section, []).append(name)

    def groups_of(name: str) -> list[str]:
        direct = [g for g, ms in members.items() if name in ms]
        out, todo = [], list(direct)
        while todo:
            g = todo.pop()
            if g in out:
                continue
            out.append(g)
            todo += [p for p, cs in children.items() if g in cs]
        return out

    result = []
    for name, hvars in hosts.items():
        groups = groups_of(name)
        merged: dict[str, Any] = {}
        for g in ["all", *reversed(groups)]:  # parents first, the host's own group last
            merged.update(gvars.get(g, {}))
        merged.update(hvars)
        rs = {r for g in groups if (r := _role(g))}
        result.append(_ansible_host(name, merged, rs, source))
    return _inventory(result, source)


def expand_range(pattern: str) -> list[str]:
    """Ansible's numeric host range: ``node[01:03]`` -> node01, node02, node03."""
    m = re.fullmatch(r"(.*)\[(\d+):(\d+)\](.*)", pattern)
    if not m:
        return [pattern]
    head, lo, hi, tail = m.groups()
    width = len(lo) if lo.startswith("0") else 0
    if int(hi) < int(lo):
        raise UsageError(f"host range {pattern} runs backwards")
    return [f"{head}{i:0{width}d}{tail}" for i in range(int(lo), int(hi) + 1)]


# -- Ceph discovery -----------------------------------------------------------------------


def discover_ceph(conn: Connection | None) -> Inventory:
    """The cluster's hosts from its own metadata; cephadm's ``orch host ls`` when it answers."""
    from cephbench.ceph import connection
    from cephbench.ceph.commands import ceph, ceph_json

    conn = conn or connection.resolve()
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
        _host(n, addrs.get(n, n), None, None, roles[n], False, where=f"ceph host {n}")
        for n in order
    ]
    return _inventory(hosts, "ceph")


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


# -- helpers ------------------------------------------------------------------------------


def _inventory(hosts: list[Host], source: str, ssh_config: Path | None = None) -> Inventory:
    if not hosts:
        raise UsageError(f"the inventory {source} names no hosts")
    seen: set[str] = set()
    for h in hosts:
        if h.name in seen:
            raise UsageError(f"host {h.name} appears twice in {source}")
        seen.add(h.name)
    return Inventory(tuple(hosts), source, ssh_config)


def _target(text: str, where: str) -> Host:
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
    return _host(addr, addr, user or None, port, (), False, where=where)


def _host(
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


def _ansible_host(name: str, hvars: Mapping[str, Any], roles: set[str], source: str) -> Host:
    become = hvars.get("ansible_become")
    user = hvars.get("ansible_user") or hvars.get("ansible_ssh_user")
    return _host(
        name,
        str(hvars.get("ansible_host") or hvars.get("ansible_ssh_host") or name),
        user,
        hvars.get("ansible_port") or hvars.get("ansible_ssh_port"),
        roles,
        _bool(become) and user != "root",
        where=f"{source} host {name}",
    )


def _role(group: str) -> str | None:
    """The role an Ansible group name means: ``osds`` -> osd, ``clients`` -> client."""
    g = group.lower()
    for r in ROLES:
        if g in (r, r + "s"):
            return r
    return None


def _is_ansible_group(body: Mapping[str, Any]) -> bool:
    return any(k in body for k in ("hosts", "children", "vars"))


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in _TRUE if value is not None else False


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1]
    return value
