"""What a lab is asked to be: :class:`LabSpec`, validated, with the few rules derived from it."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from cephbench.lab.paths import default_dir

GIB = 1024**3
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgtp]?)(?:i?b)?\s*$", re.IGNORECASE)
_RATE = re.compile(r"^(\d+(?:\.\d+)?)(bit|kbit|mbit|gbit|tbit)$")
_RATE_UNITS = {"bit": 1, "kbit": 10**3, "mbit": 10**6, "gbit": 10**9, "tbit": 10**12}
_CONF_KEY = re.compile(r"^[a-z][a-z0-9_]*$")

#: ceph.conf options the lab itself must own: overriding them would break the lab.
MANAGED_OPTIONS = frozenset(
    [
        "fsid",
        "mon_host",
        "run_dir",
        "crash_dir",
        "pid_file",
        "log_file",
        "mon_data",
        "mgr_data",
        "osd_data",
        "keyring",
        "public_addr",
        "cluster_addr",
        "crush_location",
        "ms_bind_port_min",
        "ms_bind_port_max",
        "auth_cluster_required",
        "auth_service_required",
        "auth_client_required",
        "osd_objectstore",
        "bluestore_block_path",
        "memstore_device_bytes",
        "bluestore_block_size",
    ]
)


def parse_size(text: str | int) -> int:
    """Bytes in ``text``: "8G", "512M", "1.5T", "4096" (binary units, an optional "iB"/"B")."""
    if isinstance(text, int):
        return text
    m = _SIZE.match(text)
    if not m:
        raise ValueError(f"not a size: {text!r} (examples: 8G, 512M)")
    power = " kmgtp".index(m.group(2).lower() or " ")
    return int(float(m.group(1)) * 1024**power)


def rate_bits(rate: str) -> int:
    """Bits per second of a tc rate ("1gbit", "100mbit")."""
    m = _RATE.match(rate)
    if not m:
        raise ValueError(f"not a tc rate: {rate!r} (examples: 1gbit, 100mbit)")
    return int(float(m.group(1)) * _RATE_UNITS[m.group(2)])


def conf_key(key: str) -> str:
    """Canonical ceph.conf option name: lower case, "-" and " " become "_"."""
    return re.sub(r"[\s-]+", "_", key.strip()).lower()


class LabSpec(BaseModel):
    """A lab to bring up: ``cephbench lab up`` options, one to one."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    osds: int = Field(3, ge=1, le=64, description="number of OSDs")
    hosts: int = Field(1, ge=1, le=32, description="hosts (network namespaces when >= 2)")
    store: Literal["bluestore", "memstore"] = "bluestore"
    osd_size: int = Field(8 * GIB, description="bytes per OSD (sparse file or RAM)")
    rate: str | None = Field(None, description="tc rate limit on every host link")
    dir: Path = Field(default_factory=default_dir)
    auth: Literal["cephx", "none"] = "cephx"
    conf_set: dict[str, str] = Field(default_factory=dict, description="extra ceph.conf options")
    ssh: bool = Field(False, description="an sshd in each host namespace (--hosts lab)")
    cephfs: bool = Field(False, description="an MDS and a filesystem `lab` (lab/mds.py)")
    k8s: bool = Field(False, description="a single-node Kubernetes beside Ceph (lab up --k8s)")
    release: Literal["pacific", "reef", "tentacle"] = Field(
        "pacific", description="the Ceph release the lab runs (lab/releases.py)"
    )

    @field_validator("osd_size", mode="before")
    @classmethod
    def _size(cls, v: str | int) -> int:
        return parse_size(v)

    @field_validator("rate")
    @classmethod
    def _rate(cls, v: str | None) -> str | None:
        if v is not None:
            v = v.strip().lower()
            rate_bits(v)
        return v

    @field_validator("dir")
    @classmethod
    def _dir(cls, v: Path) -> Path:
        return v.expanduser().absolute()

    @field_validator("conf_set")
    @classmethod
    def _conf_set(cls, v: dict[str, str]) -> dict[str, str]:
        out = {}
        for key, value in v.items():
            name = conf_key(key)
            if not _CONF_KEY.match(name):
                raise ValueError(f"not a ceph.conf option name: {key!r}")
            if name in MANAGED_OPTIONS:
                raise ValueError(f"{name} is set by the lab itself and cannot be overridden")
            if "\n" in value or "\r" in value:
                raise ValueError(f"the value of {name} must be one line")
            out[name] = value.strip()
        return out

    @model_validator(mode="after")
    def _consistent(self) -> LabSpec:
        if self.hosts > self.osds:
            raise ValueError(f"--hosts {self.hosts} needs at least as many OSDs (--osds)")
        if self.rate and self.hosts < 2:
            raise ValueError("--rate limits the links between hosts: it needs --hosts 2 or more")
        if self.ssh and self.hosts < 2:
            raise ValueError("--ssh runs an sshd per host namespace: it needs --hosts 2 or more")
        if self.k8s and self.hosts != 1:
            raise ValueError("--k8s runs beside a one-host lab: use it with --hosts 1")
        if self.osd_size < 1024**2:
            raise ValueError("--osd-size must be at least 1M")
        return self

    @property
    def failure_domain(self) -> str:
        """CRUSH failure domain of the default rule: "host" with 3+ hosts, else "osd"."""
        return "host" if self.hosts >= 3 else "osd"

    @property
    def pool_size(self) -> int:
        """Replica count of the pools the lab creates: 3, or fewer when there are fewer OSDs."""
        return min(3, self.osds)

    def host_of(self, osd: int) -> int:
        """The host index OSD ``osd`` runs on (round robin)."""
        return osd % self.hosts
