"""``rbd:`` with ``--pods N``: fio's rbd engine in Kubernetes pods.

Exists so librbd can be measured from pods with no CSI in the path, as the
Rook write-ups do by hand. The Ceph side is the target's own, exactly as for a run on this
machine (the pool, the image and its prefill, the health watch, the OSD flags); the pods only
replace where fio runs. cephbench makes, in the run's namespace (kube/podrun.py: recorded in
the resource log before each is made, deleted however the run ends): one Secret holding
ceph.conf and the client's keyring (ceph/podconf.py: this machine's client, its one key),
mounted read-only at /etc/ceph in each pod, and N idle pods of ``--image`` (no claim).
Each pod drives an image of its own (``IMAGE``, ``IMAGE-p2``...: the target makes and
removes them as it does its own), or all the run's one with ``--shared-image``. Nothing here
is RBD's own but the target that uses it: a ``rados:`` target could give each pod objects of
its own the same way, once fio runs on ``rados:`` at all.

Networking: a pod's network is its own namespace, and the monitors and OSDs must be
reachable from it. When every monitor address is a loopback one (a one-host lab binds its
daemons to 127.0.0.1, which a pod's 127.0.0.1 is not), the pods use the node's network
(``hostNetwork: true``), so their traffic stays on the machine's loopback; otherwise they
use the pod network, as any Ceph client pod does. Which one, and why, is in the run's
environment (``target.pods.network``).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from typing import Any

from cephbench.ceph.connection import Connection
from cephbench.ceph.podconf import ClientFiles, client_files
from cephbench.errors import UsageError
from cephbench.kube import objects
from cephbench.kube.kubectl import Kubectl
from cephbench.kube.options import KubeOptions
from cephbench.kube.podrun import PodRun
from cephbench.kube.pods import FioVersion, PodSet
from cephbench.store import ResourceLog

HOST_NETWORK_REASON = "the monitors are on loopback, which a pod's own network cannot reach"


class CephPods:
    """The pods of a Ceph target's run with ``--pods`` (``rbd:``)."""

    def __init__(self, kube: KubeOptions, conn: Connection) -> None:
        if kube.volume_mode != "Filesystem":
            raise UsageError("--volume-mode is for pvc: targets (librbd's pods have no claim)")
        kube.check_names()
        self.kube, self.conn = kube, conn
        self._files: ClientFiles | None = None
        self._fio: FioVersion | None = None

    @property
    def count(self) -> int:
        return self.kube.count

    @property
    def kubectl(self) -> Kubectl:
        return Kubectl(self.kube.kubeconfig, self.kube.context)

    @property
    def files(self) -> ClientFiles:
        if self._files is None:
            self._files = client_files(self.conn)
        return self._files

    @property
    def host_network(self) -> bool:
        return self.files.mons_on_loopback

    def check(self) -> None:
        """The client's files can be made, the cluster answers, the namespace is there; the
        pods' image chosen (without ``--image``, cephbench's fio image when the nodes hold it)."""
        self.files  # noqa: B018  (reads ceph.conf and the keyring now: errors before the run)
        k = self.kubectl
        k.server_version()
        if self.kube.namespace is not None:
            k.get("namespace", self.kube.namespace, what=f"namespace {self.kube.namespace}")
        self.kube = self.kube.with_image(k.items("nodes"))  # no --image: the nodes' fio image

    def describe(self) -> dict[str, Any]:
        from cephbench.kube.fingerprint import cluster_fingerprint

        network = (
            {"network": "host", "reason": HOST_NETWORK_REASON}
            if self.host_network
            else {"network": "pod"}
        )
        pods = {"count": self.count, "image": self.kube.image, "mon_host": self.files.mon_host}
        return {"pods": {**pods, **network}, **cluster_fingerprint(self.kubectl, None)}

    @contextmanager
    def session(
        self, run_id: int, resources: ResourceLog, options: list[dict[str, str]]
    ) -> Iterator[PodSet]:
        """The Secret and one pod per entry of ``options`` (each pod's own fio options),
        running; all deleted on exit."""
        tag = f"cephbench-{run_id}-{secrets.token_hex(2)}"
        with ExitStack() as undo:
            run = PodRun(self.kube, run_id, resources, undo)
            ns = run.open()
            secret = f"{tag}-ceph"
            names = [f"{tag}-fio-{i}" for i in range(len(options))]
            run.make(
                [objects.secret(secret, ns, run_id, self.files.files)],
                [run.pod(n, None, secret=secret, host_network=self.host_network) for n in names],
            )
            podset = run.pods(names, [None] * len(names), options)
            # one pod: read once its workloads end
            self._fio = FioVersion.in_pod(podset.kubectl, ns, podset.pods[0].name)
            if len(names) > 1:  # their start gate's lead is set from that call's time
                podset = replace(podset, reach_seconds=self._fio.seconds())
            yield podset

    @property
    def fio_version(self) -> str | None:
        """The pods' fio (:class:`FioVersion`); None before the session."""
        return self._fio.text if self._fio is not None else None
