"""What the Ceph targets (``rbd:``, ``rados:``, the whole cluster) share: the connection,
the options for pools cephbench creates, and a fresh pool per run in the lab."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from cephbench.ceph import fingerprint, pools
from cephbench.ceph.connection import Connection
from cephbench.ceph.quiesce import undo_flag
from cephbench.ceph.tools import CephTools
from cephbench.errors import TargetError
from cephbench.lab.connect import resolve
from cephbench.store import ResourceLog
from cephbench.targets import FioTarget, Target, TargetOptions

if TYPE_CHECKING:
    from cephbench.kube.options import KubeOptions
    from cephbench.targets.cephpods import CephPods

FRESH = "lab"


@dataclass(frozen=True)
class CephOptions:
    """What ``cephbench run`` passes to a Ceph target besides its location."""

    conn: Connection | None = None
    pool_size: int | None = None
    pg_num: int = 32
    prefill: bool = True


class CephTarget(Target):
    undo: ClassVar[tuple[Callable[..., None], ...]] = (
        undo_flag,
    )  # the run's OSD flags (ceph.session quiesces scrubbing)
    """A target on a Ceph cluster; ``configure`` gives it its connection."""

    application = "rbd"

    def __init__(self, location: str, options: TargetOptions):
        super().__init__(location, options)
        self.ceph = CephOptions()
        self.pool_created = False
        """Whether the session's pool is the run's own, made for it (nothing else is in it)."""
        self.kube: KubeOptions | None = None
        """``--pods`` and the other Kubernetes options: fio in pods (targets/cephpods.py)."""

    def configure(self, ceph: CephOptions) -> None:
        self.ceph = ceph

    def configure_kube(self, kube: KubeOptions) -> None:
        """fio in ``kube.count`` pods instead of on this machine."""
        self.kube = kube

    @property
    def pods(self) -> CephPods | None:
        """The run's pods, when it runs fio in pods."""
        if self.kube is None:
            return None
        if not hasattr(self, "_pods"):
            from cephbench.targets.cephpods import CephPods

            self._pods = CephPods(self.kube, self.conn)
        return self._pods

    @property
    def conn(self) -> Connection:
        if self.ceph.conn is None:
            self.ceph = CephOptions(
                resolve(), self.ceph.pool_size, self.ceph.pg_num, self.ceph.prefill
            )
        conn = self.ceph.conn
        assert conn is not None, "resolve() gives a connection or raises"
        return conn

    @property
    def cluster(self) -> Connection:
        return self.conn

    @property
    def env(self) -> dict[str, str]:
        return self.conn.env

    @property
    def client_tools(self) -> CephTools | None:
        return self.conn.tools

    def check(self, size: int) -> None:
        if self.location == FRESH and self.conn.lab_dir is None:
            raise TargetError(
                f"'{self.kind}:lab' needs a running lab",
                hint=f"start one with: cephbench lab up, or name a pool: {self.kind}:POOL...",
            )
        if self.pods is not None:
            self.pods.check()

    def check_cluster(self) -> None:
        """Before the run, after :meth:`check`: what it needs of the cluster, asked of it (may
        this client create a pool?). The runner reads the cluster's health at the same time:
        each ``ceph`` call is a process of its own."""

    @property
    def tool_elsewhere(self) -> bool:
        return self.pods is not None

    def tool_versions(self) -> dict[str, str]:
        pods = self.pods
        return {"fio": pods.fio_version} if pods is not None and pods.fio_version else {}

    def fresh_name(self, run_id: int) -> str:
        """``cb-<run>-<random>``: unique across result stores sharing one cluster."""
        if not hasattr(self, "_fresh"):
            self._fresh = f"cb-{run_id}-{secrets.token_hex(2)}"
        return self._fresh

    def pool_name(self, run_id: int) -> str:
        return self.fresh_name(run_id) if self.location == FRESH else self.location.split("/")[0]

    @contextmanager
    def pool_session(self, run_id: int, resources: ResourceLog) -> Iterator[str]:
        """The run's pool: used as it is when it exists, else created and deleted afterwards."""
        pool = self.pool_name(run_id)
        with pools.pool_for_run(
            self.conn,
            pool,
            resources,
            run_id,
            size=self.ceph.pool_size,
            pg_num=self.ceph.pg_num,
            application=self.application,
        ) as created:
            self.pool, self.pool_created = pool, created
            # the cluster is as the run will find it: record it while the image is prepared
            self.facts_ahead = fingerprint.ahead(self.conn)
            try:
                yield pool
            finally:  # its commands end before the pool goes (a fingerprint of no error)
                self.facts_ahead.exception()

    def describe(self) -> dict[str, Any]:
        info: dict[str, Any] = {"spec": self.spec, "client": f"client.{self.conn.id}"}
        if self.conn.lab_dir:
            info["lab_dir"] = self.conn.lab_dir
        elif self.conn.conf:
            info["conf"] = self.conn.conf
        if self.pods is not None:
            info.update(self.pods.describe())
        return info


class ClusterTarget(CephTarget):
    """The whole cluster (``osd`` and ``network`` suites): no pool, no fio location."""

    kind = "ceph"

    def check(self, size: int) -> None:
        pass

    @contextmanager
    def session(self, run_id: int, resources: ResourceLog) -> Iterator[FioTarget]:
        yield FioTarget({}, self.env)
