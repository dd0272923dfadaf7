"""Targets: where the I/O goes. One module per kind, registered like plugins.

A target turns ``KIND:LOCATION`` into fio options (``filename=...``, or ``ioengine=rbd`` and
its pool and image), checks it may be written before anything runs, and removes whatever it
created when the run ends, however it ends.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from concurrent.futures import Future
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from cephbench.errors import UsageError
from cephbench.registry import Registry

if TYPE_CHECKING:
    from cephbench.ceph.connection import Connection
    from cephbench.ceph.tools import CephTools
    from cephbench.kube.pods import PodSet
    from cephbench.model import RawOutput
    from cephbench.store import ResourceLog

BUILTIN_TARGETS: dict[str, str] = {
    "file": "cephbench.targets.file:FileTarget",
    "device": "cephbench.targets.device:DeviceTarget",
    "rbd": "cephbench.targets.rbd:RbdTarget",
    "rados": "cephbench.targets.rados:RadosTarget",
    "ceph": "cephbench.targets.cluster:ClusterTarget",
    "cephfs": "cephbench.targets.cephfs:CephfsTarget",
    "pvc": "cephbench.targets.pvc:PvcTarget",
}

# Options a target replaces in every job: where the data lives is the target's to say.
LOCATION_KEYS = ("filename", "directory", "filename_format", "opendir")


@dataclass(frozen=True)
class FioTarget:
    """What fio needs to reach a prepared target: job options, and environment variables."""

    options: dict[str, str]
    env: dict[str, str] = field(default_factory=dict)
    tree: str | None = None
    """A directory of the run's own that the target removes with all it holds afterwards:
    where the metadata suite's engines create their files (None: the target has none)."""
    pods: PodSet | None = None
    """Kubernetes pods fio runs in (``pvc:``), through ``kubectl exec``; None: this machine."""
    tools: CephTools | None = None
    """The Ceph tools whose fio runs a Ceph engine (``rbd``, ``rados``: a release root's fio
    has its own librbd); None: this machine's fio (files, devices, a CephFS mount)."""


@dataclass(frozen=True)
class TargetOptions:
    """What the user allowed: ``destroy_data`` names the one device that may be overwritten."""

    destroy_data: str | None = None
    cephfs_client: str = "ceph-fuse"
    """What mounts a ``cephfs:`` target: ``ceph-fuse`` or ``kernel``."""


class Target(ABC):
    kind: ClassVar[str]
    undo: ClassVar[tuple[Callable[..., None], ...]] = ()
    """The undo functions (``resources.undo.undoes``) of what its session creates: loading
    the target registers them, so ``cephbench cleanup`` finds them through this registry."""

    def __init__(self, location: str, options: TargetOptions):
        self.location = location
        self.options = options
        self.wants_tree = False
        """The plan creates files of its own (the metadata suite): the session gives a tree."""
        self.pool: str | None = None
        """The Ceph pool the target's I/O goes to, once known (checked or created): the run
        records its placement and reads what it served; None: none, or not known."""
        self.facts_ahead: Future[dict[str, Any]] | None = None
        """The cluster's fingerprint, begun while the target was set up; None: the run
        reads it when it starts recording the cluster."""
        self.data_objects: list[dict[str, Any]] = []
        """The RADOS objects its workloads' data lives in, as the run's placement records
        them (an RBD image's: its object prefix, object size and count), so ``explain``
        weighs each OSD by the objects it holds rather than by its PGs alone."""

    @property
    def spec(self) -> str:
        return f"{self.kind}:{self.location}"

    @abstractmethod
    def check(self, size: int) -> None:
        """Raise TargetError unless ``size`` bytes may be written here now."""

    @abstractmethod
    def session(self, run_id: int, resources: ResourceLog) -> AbstractContextManager[FioTarget]:
        """Set the target up; yield how fio reaches it; undo it on exit.

        Whatever it creates is first recorded in ``resources`` and marked removed once undone.
        """

    def describe(self) -> dict[str, Any]:
        """What the environment record keeps about the target (filesystem, device model)."""
        return {"spec": self.spec}

    @property
    def cluster(self) -> Connection | None:
        """The Ceph cluster the target is on; None for local files and devices."""
        return None

    @property
    def cluster_ahead(self) -> Connection | None:
        """The Ceph cluster the target is on when it is known before :meth:`check` (the run
        reads its health beside that check), reached from a worker thread while ``check``
        runs; None: known only once checked, or none."""
        return None

    @property
    def client_tools(self) -> CephTools | None:
        """Where the run's tool is reached (``rbd``'s fio, ``rados bench``, ``ceph tell``: the
        connection's Ceph tools); None: this machine's own (files, devices, a CephFS mount)."""
        return None

    def setup_outputs(self) -> list[RawOutput]:
        """What the target's set-up ran, kept with the run (an RBD image's prefill)."""
        return []

    @property
    def tool_elsewhere(self) -> bool:
        """The run's tool runs elsewhere (fio in Kubernetes pods): this machine's own is
        neither needed nor waited for; its version is kept when it has one."""
        return False

    def tool_versions(self) -> dict[str, str]:
        """Once the workloads have ended (or stopped): the versions of the tools that ran
        them where they do not run on this machine (fio's in Kubernetes pods), as the tool
        prints them; the run records them as its tools' versions. Read while the workloads
        run: nothing before the first one waits for them."""
        return {}

    def late_outputs(self) -> list[RawOutput]:
        """Once the workloads have ended (or stopped): what the target's set-up read while
        they ran (the volumes the pods got), kept with the run."""
        return []


REGISTRY = Registry(BUILTIN_TARGETS, group="cephbench.targets")


def kinds() -> list[str]:
    return sorted(REGISTRY.names())


def parse_target(spec: str, options: TargetOptions | None = None) -> Target:
    """``file:/mnt/bench`` -> a FileTarget, and so on."""
    kind, sep, location = spec.partition(":")
    if not sep or kind not in REGISTRY or not location:
        raise UsageError(
            f"'{spec}' is not a target",
            hint=f"use KIND:LOCATION with KIND one of {', '.join(kinds())}, e.g. file:/mnt/bench",
        )
    return load(kind)(location, options or TargetOptions())


def load(kind: str) -> type[Target]:
    target: type[Target] = REGISTRY.load(kind)
    return target


def fio_escape(path: str) -> str:
    """fio splits ``filename`` at ':'; escape it so a path is one file."""
    return path.replace(":", "\\:")
