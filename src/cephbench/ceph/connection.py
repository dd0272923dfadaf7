"""The connection options Ceph users already know: ``--conf``, ``--id``, ``--keyring``,
``--cluster``; resolved to the running lab, else ``/etc/ceph/ceph.conf`` and ``client.admin``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

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
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Connection:
        return cls(
            **{k: v for k, v in data.items() if k in cls.__dataclass_fields__ and k != "lab_hosts"}
        )


def resolve(
    conf: str | None = None,
    user: str | None = None,
    keyring: str | None = None,
    cluster: str | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> Connection:
    """The connection the options ask for; the lab fills what they leave out, when one runs."""
    from cephbench import lab as labapi  # the lab API (pydantic): not for `run --help`

    client = _client_id(user) if user else None
    lab = labapi.find_running() if conf is None and cluster is None else None
    if lab is not None:
        return Connection(
            conf=str(lab.conf_path),
            id=client or lab.client_name,
            keyring=keyring or (str(lab.keyring_path) if lab.keyring_path and not client else None),
            timeout=timeout,
            lab_dir=str(lab.dir),
            lab_hosts=lab.hosts,
        )
    if conf is None and cluster is None:
        conf = DEFAULT_CONF
    if conf is not None and not Path(conf).is_file():
        raise UsageError(
            f"no Ceph configuration at {conf}",
            hint="give --conf PATH, or start a lab: cephbench lab up",
        )
    if keyring is not None and not os.access(keyring, os.R_OK):
        raise UsageError(
            f"cannot read keyring {keyring}", hint="check --keyring and its permissions"
        )
    return Connection(
        conf=conf, id=client or DEFAULT_ID, keyring=keyring, cluster=cluster, timeout=timeout
    )


def _client_id(user: str) -> str:
    """``bench`` or ``client.bench`` -> ``bench``."""
    name = user.removeprefix("client.")
    if not name or any(c.isspace() for c in name):
        raise UsageError(f"'{user}' is not a cephx client name", hint="e.g. --id bench")
    return name
