"""The lab's memory: a JSON file in the lab directory naming everything the lab created.

Everything is recorded *before* it is created (namespaces, links, pools; a daemon's pid as
soon as it exists), so a lab interrupted at any point can still be taken down completely.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from cephbench.lab.errors import LabError
from cephbench.lab.paths import Layout
from cephbench.lab.spec import LabSpec

Phase = Literal["starting", "running", "stopping"]
FaultKind = Literal[
    "slow-disk", "cpu", "slow-link", "debug-logging", "rbd-cache-off", "mclock", "too-few-pgs"
]


class Daemon(BaseModel):
    """One Ceph daemon the lab runs: where, and its pid once started."""

    model_config = ConfigDict(extra="forbid")

    name: str  # "mon.a", "mgr.x", "osd.3"
    host: str  # "host0"
    netns: str | None = None
    pid: int | None = None
    chroot: str | None = None
    """The lab's view of its release root, when the daemon runs from one."""
    env: dict[str, str] = Field(default_factory=dict)
    """Environment the daemon starts with (the Reef manager's stand-in modules)."""

    @property
    def kind(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def ident(self) -> str:
        return self.name.split(".", 1)[1]


POOL_TARGET = "pool:"
"""How a fault on one pool names it, as its target and its entries' ``who``: ``pool:NAME``."""


class Fault(BaseModel):
    """A fault injected into the lab (:mod:`.faults`), with what it changed, to undo it.

    Recorded before it is applied, so ``lab fault clear`` and ``lab down`` undo a half-made
    one too. ``cgroups`` maps a cgroup path this fault created to the cgroup its processes
    came from; ``links`` are (namespace or "", device) pairs whose root qdisc it replaced.
    """

    model_config = ConfigDict(extra="forbid")

    kind: FaultKind
    target: str  # "osd.1", "host2", "cluster", "pool:NAME"
    iops: int | None = None
    bps: int | None = None
    percent: float | None = None
    rate: str | None = None
    device: str | None = None  # "254:0", the disk a slow-disk throttles
    cgroups: dict[str, str] = Field(default_factory=dict)
    links: list[tuple[str, str]] = Field(default_factory=list)
    restore_rate: str | None = None  # the lab's own rate on those links (None: no qdisc)
    injected_at: float = 0.0
    config: list[dict[str, str | None]] = Field(default_factory=list)
    """A misconfiguration's entries (:mod:`.misconfig`): who, key, value, original."""
    ceph: dict | None = None  # the connection a misconfiguration is set and undone through

    def describe(self) -> str:
        """One line: what this fault does."""
        if self.kind == "slow-disk":
            caps = [f"{self.iops} IOPS" if self.iops else "", f"{self.bps} B/s" if self.bps else ""]
            cap = " and ".join(c for c in caps if c)
            return f"{self.target}: disk {self.device} capped at {cap} (read and write each)"
        if self.config and self.target.startswith(POOL_TARGET):
            return f"pool {self.target.removeprefix(POOL_TARGET)}: " + ", ".join(
                f"{e['key']} = {e['value']}" for e in self.config
            )
        if self.config:
            return f"{self.target}: " + ", ".join(
                f"{e['who']} {e['key']} = {e['value']}" for e in self.config
            )
        if self.kind == "cpu":
            return f"{self.target}: CPU capped at {self.percent:g} % of one core"
        lab = f"lab rate {self.restore_rate}" if self.restore_rate else "no lab rate"
        return f"{self.target}: link rate {self.rate} both ways ({lab})"


class K8sState(BaseModel):
    """The lab's Kubernetes (``lab up --k8s``): each thing recorded before it is made."""

    model_config = ConfigDict(extra="forbid")

    version: str
    bin_dir: str
    node: str
    bridge: str
    cgroup: str  # the kubelet's cgroupRoot, in every cgroup v1 hierarchy
    ports: dict[str, int] = Field(default_factory=dict)
    daemons: dict[str, int | None] = Field(default_factory=dict)
    """name -> pid (None while it is being started)."""
    bind_mount: bool = False  # <lab>/k8s bind-mounted onto itself, made rshared
    cgroups: list[str] = Field(default_factory=list)  # cgroup directories this lab made
    host_paths: bool = False  # this lab is registered as a user of the hard-wired host paths
    pool: str | None = None
    fio_image: str | None = None  # "localhost/cephbench-fio:3.33", imported into containerd
    ready_seconds: float | None = None


class LabState(BaseModel):
    """What ``state.json`` holds."""

    model_config = ConfigDict(extra="forbid")

    version: int = 1
    lab_id: str
    phase: Phase = "starting"
    spec: LabSpec
    fsid: str = ""
    host_addrs: list[str] = Field(default_factory=list)
    mon_ports: tuple[int, int] | None = None
    bind_ports: tuple[int, int] | None = None
    bridge: str | None = None
    namespaces: list[str] = Field(default_factory=list)
    links: list[str] = Field(default_factory=list)
    daemons: dict[str, Daemon] = Field(default_factory=dict)
    pools: list[str] = Field(default_factory=list)
    sshd: dict[str, int | None] = Field(default_factory=dict)
    """host -> pid of its sshd (``lab up --ssh``), recorded before it starts (pid None)."""
    started_at: float = 0.0
    up_seconds: float | None = None
    faults: list[Fault] = Field(default_factory=list)  # absent from older state files
    k8s: K8sState | None = None  # lab up --k8s
    view: str | None = None
    """The mount point of the lab's view of its release root (lab/release_view.py)."""
    root_dirs: list[str] = Field(default_factory=list)
    """Directories made in the cached root for the lab directory's mount point."""

    def osds(self) -> list[Daemon]:
        return [d for d in self.daemons.values() if d.kind == "osd"]


def save(layout: Layout, state: LabState) -> None:
    """Write the state atomically (a reader never sees half a file)."""
    tmp = layout.state.with_suffix(".tmp")
    tmp.write_text(state.model_dump_json(indent=2) + "\n")
    os.replace(tmp, layout.state)


def load(layout: Layout) -> LabState | None:
    """The recorded state, None when there is no lab in ``layout.dir``."""
    try:
        text = layout.state.read_text()
    except FileNotFoundError:
        return None
    try:
        return LabState.model_validate(json.loads(text))
    except (ValueError, ValidationError) as e:
        raise LabError(
            f"{layout.state} is not a lab state file this cephbench can read",
            hint="remove the lab's processes and directory by hand",
        ) from e


@contextmanager
def locked(layout: Layout) -> Iterator[LabState]:
    """Read, let the caller change, and write back the state, holding the lab's lock."""
    with open(layout.lock, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        state = load(layout)
        if state is None:
            raise LabError(f"no lab in {layout.dir}")
        yield state
        save(layout, state)
