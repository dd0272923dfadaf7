"""Inventory files as people already keep them, recognised from their content: cephbench's
YAML, Ansible's INI and YAML inventories (groups named like roles, ``ansible_host``,
``ansible_user``, ``ansible_port``, ``ansible_become``, ``web[01:03]`` ranges), one host per
line, and ``h1,h2`` on the command line. Pure."""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from cephbench.errors import UsageError

if TYPE_CHECKING:
    pass
from cephbench.hosts.inventory import ROLES, Host, Inventory, make_host, make_inventory, target_host

_TRUE = {"true", "yes", "1", "on"}


def parse_list(spec: str) -> Inventory:
    """``h1,h2`` or ``user@h1:2222,h2``: hosts named as written."""
    hosts = [target_host(part.strip(), "--hosts") for part in spec.split(",") if part.strip()]
    return make_inventory(hosts, "list")


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
        hosts.append(target_host(line, f"{source} line {n}"))
    return make_inventory(hosts, source)


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
            make_host(
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
    return make_inventory(hosts, source, Path(cfg) if cfg else None)


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
    return make_inventory([_ansible_host(n, v, roles[n], source) for n, v in found.items()], source)


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
    return make_inventory(result, source)


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


def _ansible_host(name: str, hvars: Mapping[str, Any], roles: set[str], source: str) -> Host:
    become = hvars.get("ansible_become")
    user = hvars.get("ansible_user") or hvars.get("ansible_ssh_user")
    return make_host(
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
