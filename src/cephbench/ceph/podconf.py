"""ceph.conf and the client's keyring for a librados client elsewhere (fio's rbd engine in
Kubernetes pods), made from the connection this machine uses.

Exists because a pod cannot read this machine's files: what the pod needs is written out as
text (a Secret's files). The conf holds what a client needs to reach the cluster as this
machine reaches it, each value as ``ceph-conf`` resolves it for the client on this machine
(``mon_host``, ``fsid``, the ``auth_*_required`` settings), and names the keyring at the
default place; the keyring holds the one client's key, nothing else of the file it came
from. Everything else a client reads comes from the monitors' configuration database, as for
any client. Parsing is pure (tests feed it text); reading is one ``ceph-conf --show-config``.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from pathlib import Path

from cephbench.ceph.connection import Connection
from cephbench.errors import TargetError
from cephbench.system.process import run, which

CONF_KEYS = (
    "fsid",
    "mon_host",
    "auth_cluster_required",
    "auth_service_required",
    "auth_client_required",
)
NO_FSID = "00000000-0000-0000-0000-000000000000"


@dataclass(frozen=True)
class ClientFiles:
    """What a remote client needs: file name -> text, and where the monitors are."""

    files: dict[str, str]
    mon_host: str

    @property
    def mons_on_loopback(self) -> bool:
        return on_loopback(self.mon_host)


def cluster_name(conn: Connection) -> str:
    return conn.cluster or "ceph"


def client_files(conn: Connection) -> ClientFiles:
    """``CLUSTER.conf`` and ``CLUSTER.client.ID.keyring`` (the default names librados looks
    for in /etc/ceph) for ``conn``'s client; TargetError when its key cannot be found."""
    which("ceph-conf", "ceph-common")
    config = _show_config(conn)
    values = {key: config.get(key, "") for key in CONF_KEYS}
    cluster, name = cluster_name(conn), f"client.{conn.id}"
    files = {f"{cluster}.conf": render_conf(values)}
    if values.get("auth_client_required", "cephx") != "none":
        paths = [conn.keyring] if conn.keyring else config.get("keyring", "").split(",")
        files[f"{cluster}.{name}.keyring"] = _keyring(conn, [p.strip() for p in paths if p])
    if not values.get("mon_host"):
        raise TargetError(
            f"the Ceph configuration names no monitors (mon_host) for {name}",
            hint="give --conf a ceph.conf with mon_host",
        )
    return ClientFiles(files, values["mon_host"])


def render_conf(values: dict[str, str]) -> str:
    lines = ["# written by cephbench for its pods", "[global]"]
    for key in CONF_KEYS:
        value = values.get(key, "")
        if value and not (key == "fsid" and value == NO_FSID):
            lines.append(f"\t{key} = {value}")
    lines.append("\tkeyring = /etc/ceph/$cluster.$name.keyring")
    return "\n".join(lines) + "\n"


def key_of(text: str, name: str) -> str | None:
    """The ``key`` of section ``[name]`` of a keyring's text (None: not there)."""
    section = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[") and stripped.endswith("]"):
            section = stripped[1:-1].strip()
        elif section == name:
            key, sep, value = stripped.partition("=")
            if sep and key.strip() == "key":
                return value.strip()
    return None


def render_keyring(name: str, key: str) -> str:
    return f"[{name}]\n\tkey = {key}\n"


_ADDR = re.compile(r"^(?:v[12]:)?(?P<host>\[[^\]]*\]|[^:/]+|[0-9a-fA-F:]+)(?::\d+)?(?:/\d+)?$")


def mon_addresses(mon_host: str) -> list[str]:
    """The hosts of ``mon_host`` (``[v2:127.0.0.1:3300/0,v1:127.0.0.1:6789/0]``,
    ``10.0.0.1,10.0.0.2:6789``, ``mon-a``...): addresses or names, ports dropped."""
    out = []
    for group in re.findall(r"\[(?:[^\[\]]|\[[^\]]*\])*\]|[^,;\s\[\]]+", mon_host):
        inner = group[1:-1] if group.startswith("[") and group.endswith("]") else group
        for item in re.split(r"[,;\s]+", inner):
            if not item:
                continue
            m = _ADDR.match(item)
            host = m.group("host") if m else item
            out.append(host.strip("[]"))
    return out


def on_loopback(mon_host: str) -> bool:
    """Whether every monitor address is a loopback one (127.0.0.0/8, ::1, localhost)."""
    hosts = mon_addresses(mon_host)
    if not hosts:
        return False
    for host in hosts:
        if host == "localhost":
            continue
        try:
            if not ipaddress.ip_address(host).is_loopback:
                return False
        except ValueError:
            return False
    return True


def parse_show_config(text: str) -> dict[str, str]:
    """``ceph-conf --show-config`` (``key = value`` a line) -> key -> value."""
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition(" =")
        if sep:
            out[key.strip()] = value.strip()
    return out


def _show_config(conn: Connection) -> dict[str, str]:
    """Every setting as ``ceph-conf`` resolves it for the client on this machine (one call)."""
    argv = ["ceph-conf", "--name", f"client.{conn.id}", "--show-config"]
    if conn.conf:
        argv[1:1] = ["-c", conn.conf]
    if conn.cluster:
        argv[1:1] = ["--cluster", conn.cluster]
    result = run(argv, env=conn.env, timeout=30)
    config = parse_show_config(result.stdout) if result.returncode == 0 else {}
    if not config:
        reason = result.last_error_line() or "no settings printed"
        raise TargetError(
            f"ceph-conf could not read the configuration of client.{conn.id}: {reason}",
            hint="check --conf",
        )
    return config


def _keyring(conn: Connection, paths: list[str]) -> str:
    name = f"client.{conn.id}"
    for path in paths:
        try:
            text = Path(path).read_text()
        except FileNotFoundError:
            continue
        except OSError as e:
            raise TargetError(
                f"cannot read the keyring {path}: {e.strerror}", hint="check --keyring"
            ) from None
        key = key_of(text, name)
        if key is None:
            raise TargetError(f"the keyring {path} holds no key for {name}", hint="check --keyring")
        return render_keyring(name, key)
    raise TargetError(
        f"no keyring with a key for {name} ({', '.join(paths) or 'none named'})",
        hint="give --keyring",
    )
