"""The connection options Ceph users already know: ``--conf``, ``--id``, ``--keyring``,
``--cluster`` (``lab/connect.py`` resolves them to the running lab, else
``/etc/ceph/ceph.conf`` and ``client.admin``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cephbench.ceph.tools import CephTools
from cephbench.errors import UsageError

DEFAULT_CONF = "/etc/ceph/ceph.conf"
DEFAULT_ID = "admin"
DEFAULT_TIMEOUT = 30.0


@dataclass(frozen=True)
class Connection:
    """How ceph, rados, rbd and fio's rbd engine reach one cluster as one cephx client."""

    conf: str | None = None
    id: str = DEFAULT_ID
    """The cephx client name without ``client.`` (``--id``; ``--user client.x`` is accepted)."""
    keyring: str | None = None
    cluster: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    """Seconds to reach the cluster before giving up."""
    lab_dir: str | None = None
    """The lab this connection points at, when it does."""
    lab_hosts: tuple[str, ...] = field(default=())
    tools: CephTools = field(default_factory=CephTools)
    """Where this cluster's client programs are reached (``ceph/tools.py``)."""

    @property
    def env(self) -> dict[str, str]:
        """Environment for librados clients (fio's rbd engine reads CEPH_CONF/CEPH_KEYRING)."""
        env = {}
        if self.conf:
            env["CEPH_CONF"] = self.conf
        if self.keyring:
            env["CEPH_KEYRING"] = self.keyring
        return env

    def args(self) -> list[str]:
        """Arguments every Ceph CLI (ceph, rados, rbd) takes to reach this cluster."""
        out = ["--id", self.id]
        if self.conf:
            out += ["--conf", self.conf]
        if self.keyring:
            out += ["--keyring", self.keyring]
        if self.cluster:
            out += ["--cluster", self.cluster]
        return out

    def fio_options(self) -> dict[str, str]:
        opts = {"clientname": self.id}
        if self.cluster:
            opts["clustername"] = self.cluster
        return opts

    def to_json(self) -> dict[str, Any]:
        return {
            "conf": self.conf,
            "id": self.id,
            "keyring": self.keyring,
            "cluster": self.cluster,
            "timeout": self.timeout,
            "lab_dir": self.lab_dir,
            "tools": self.tools.to_json(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Connection:
        fields = {
            k: v
            for k, v in data.items()
            if k in cls.__dataclass_fields__ and k not in ("lab_hosts", "tools")
        }
        return cls(**fields, tools=CephTools.from_json(data.get("tools")))


def client_id(user: str) -> str:
    """``bench`` or ``client.bench`` -> ``bench``."""
    name = user.removeprefix("client.")
    if not name or any(c.isspace() for c in name):
        raise UsageError(f"'{user}' is not a cephx client name", hint="e.g. --id bench")
    return name
