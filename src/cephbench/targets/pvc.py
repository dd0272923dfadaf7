"""``pvc:CLASS`` and ``pvc:claim/NAME``: fio in pods on Kubernetes volumes.

``pvc:CLASS`` makes, for the run, a namespace ``cephbench-<run>-<hex>`` (or, with
``--namespace NS``, only labelled objects in that existing one), one PersistentVolumeClaim of
StorageClass CLASS per pod (``--pods N``, ``--size``, ``--volume-mode``) and one idle pod on
each (``--image``, by default cephbench's fio image when the nodes hold it, as the lab's
does; ``--node-selector``, ``--spread``, ``--pod-cpu``, ``--pod-memory``),
prefills each new volume before read workloads (``--no-prefill`` to skip), and deletes it all
when the run ends, however it ends; each object is recorded in the resource log before it is
made (kube/undo.py), so ``cephbench cleanup`` deletes it after a kill. ``pvc:claim/NAME``
uses an existing claim in ``--namespace`` (default ``default``) as it is: never prefilled,
never deleted (only the pod cephbench adds is).

fio runs in the pods through ``kubectl exec`` (tools/fio/pods.py), reaching the volume as a
file on the mounted filesystem or, with ``--volume-mode Block``, as the raw device. What the
run used is fingerprinted: the server's version, the pods' nodes (kernel, CPUs), the
StorageClass (provisioner, parameters, binding mode, reclaim policy), each volume's PV (CSI
driver and volume attributes, or local path), access and volume mode, image, fio's version.
When the Ceph cluster behind the class is known (``--conf``/``--id``/``--keyring``, or the
lab's class), each volume is mapped to its RBD image, and the cluster's health is checked
first and sampled throughout, as for ``rbd:``.
"""

from __future__ import annotations

import json
import math
import secrets
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import replace
from typing import Any

from cephbench.ceph import fingerprint
from cephbench.ceph.commands import failed
from cephbench.ceph.connection import Connection
from cephbench.ceph.tools import Outcome, classify
from cephbench.errors import TargetError, UsageError
from cephbench.kube import objects
from cephbench.kube import undo as kundo
from cephbench.kube.fingerprint import (
    cluster_fingerprint,
    fingerprint_of,
    rbd_image_of,
    volume_fingerprint,
)
from cephbench.kube.kubectl import Kubectl, NotFound, wait_for
from cephbench.kube.options import VOLUME_MODES, KubeOptions
from cephbench.kube.podrun import PodRun, wait_seconds
from cephbench.kube.pods import FioVersion, PodSet
from cephbench.model import RawOutput, now
from cephbench.store import ResourceLog
from cephbench.system.units import format_size
from cephbench.targets import FioTarget, Target, TargetOptions

CLAIM = "claim/"
DEFAULT_SIZE = 1 << 30
DATA_FILE = f"{objects.DATA_MOUNT}/cephbench.fio"
PREFILL_TOOL = "fio-prefill"
FINGERPRINT_TOOL = "k8s-volumes"


class PvcTarget(Target):
    kind = "pvc"
    undo = kundo.UNDO

    def __init__(self, location: str, options: TargetOptions):
        super().__init__(location, options)
        self.kube = KubeOptions()
        self.prefill = True
        self.size = 0
        self.sized = False
        """The workloads name no size: fio's file gets the claim's data size."""
        self.outputs: list[RawOutput] = []
        self.podset: PodSet | None = None
        self._fio: FioVersion | None = None
        self._volumes_found: list[dict[str, Any]] | None = None
        self.conn: Connection | None = None
        """The Ceph cluster behind the class, when given (else the lab's, if one runs)."""
        self.ceph_named = False
        self._cluster: dict[str, Any] | None = None
        """Kubernetes' version, the nodes and the class, as :meth:`check` read them."""
        if location.startswith(CLAIM):
            self.claim: str | None = location.removeprefix(CLAIM)
            self.storage_class: str | None = None
            name = self.claim
        else:
            self.claim, self.storage_class, name = None, location, location
        if not objects.valid_name(name):
            raise TargetError(
                f"'pvc:{location}' names no StorageClass or claim",
                hint="pvc:CLASS (e.g. pvc:ceph-block) or pvc:claim/NAME",
            )

    def configure(self, kube: KubeOptions, prefill: bool) -> None:
        if kube.volume_mode not in VOLUME_MODES:
            raise UsageError(f"--volume-mode {kube.volume_mode}: Block or Filesystem")
        kube.check_names()
        if self.claim is not None and kube.count != 1:
            raise UsageError("an existing claim takes one pod", hint="use pvc:CLASS with --pods N")
        self.kube, self.prefill = kube, prefill

    @property
    def kubectl(self) -> Kubectl:
        return Kubectl(self.kube.kubeconfig, self.kube.context)

    @property
    def namespace(self) -> str:
        return self.kube.namespace or "default"

    def check(self, size: int) -> None:
        """The namespace, the class (or the claim and its class) and the cluster read at
        once: what :meth:`describe` records and what the pods' image is chosen from."""
        k = self.kubectl
        self.size, self.sized = size or DEFAULT_SIZE, not size
        with ThreadPoolExecutor(4, thread_name_prefix="pvc-check") as pool:
            ns = self.kube.namespace
            namespace = pool.submit(k.get, "namespace", ns, what=f"namespace {ns}") if ns else None
            sc = pool.submit(self._storage_class, k)
            version = pool.submit(k.server_version)
            nodes = pool.submit(k.items, "nodes")
        if namespace is not None:  # the errors in the order a user fixes them
            namespace.result()
        found = sc.result()
        self._cluster = fingerprint_of(version.result(), nodes.result(), found)
        self.kube = self.kube.with_image(nodes.result())  # no --image: the nodes' fio image

    def _storage_class(self, k: Kubectl) -> dict[str, Any] | None:
        """The StorageClass object (the claim's, for ``pvc:claim/NAME``; None if it names
        none), ``self.storage_class`` set."""
        if self.storage_class is None:
            claim = k.get(
                "pvc",
                self.claim or "",
                namespace=self.namespace,
                what=f"claim {self.claim} in namespace {self.namespace}",
            )
            self.storage_class = claim.get("spec", {}).get("storageClassName")
            return k.get("storageclass", self.storage_class) if self.storage_class else None
        try:
            return k.get("storageclass", self.storage_class)
        except NotFound:
            known = [c["metadata"]["name"] for c in k.items("storageclass")]
            raise TargetError(
                f"there is no StorageClass {self.storage_class}",
                hint=f"those there are: {', '.join(known) or 'none'} (`cephbench k8s check`)",
            ) from None

    @property
    def claim_size(self) -> str:
        """The claim's request: the data and room for the filesystem's own (10 %, 64 MiB)."""
        mib = math.ceil((self.size * 1.1 + (64 << 20)) / (1 << 20))
        return f"{mib}Mi"

    @contextmanager
    def session(self, run_id: int, resources: ResourceLog) -> Iterator[FioTarget]:
        """The claims and pods made and running. Nothing waits on what it does not need: the
        Ceph cluster's fingerprint is taken while they are made (the runner stores it), the
        volumes are read as soon as the claims are bound, while the pods start, and fio's
        version is read once the first pod runs, while the others start (in a run of one pod,
        once its workloads end: :class:`FioVersion`)."""
        k = self.kubectl
        tag = f"cephbench-{run_id}-{secrets.token_hex(2)}"  # unique across stores sharing a NS
        with ExitStack() as undo:
            conn = self.cluster
            if conn is not None:
                self.facts_ahead = fingerprint.ahead(conn)
                undo.callback(self.facts_ahead.exception)  # its commands end before the run's
            run = PodRun(self.kube, run_id, resources, undo)
            ns = run.open()
            new = [f"{tag}-{i}" for i in range(self.kube.count if not self.claim else 0)]
            claims = [self.claim] if self.claim else new
            names = [f"{tag}-fio-{i}" for i in range(len(claims))]
            run.make(
                [
                    objects.pvc(
                        name,
                        ns,
                        run_id,
                        self.storage_class or "",
                        self.claim_size,
                        self.kube.volume_mode,
                    )
                    for name in new
                ],
                [
                    run.pod(n, c, volume_mode=self.kube.volume_mode)
                    for n, c in zip(names, claims, strict=True)
                ],
            )
            stop = threading.Event()
            # shut down (its reads waited for) before the pods are deleted
            pool = undo.enter_context(ThreadPoolExecutor(2, thread_name_prefix="pvc-setup"))
            volumes = pool.submit(self._volumes, k, ns, claims, stop)

            version: list[FioVersion] = []

            def first_runs(pod: str) -> None:  # many pods: read while the others start
                if pod == names[0] and len(names) > 1:
                    version.append(FioVersion.in_pod(k, ns, pod, pool))

            try:
                podset = run.pods(names, list(claims), [{} for _ in names], first_runs)
                if version:  # their start gate's lead is set from that call's time
                    podset = replace(podset, reach_seconds=version[0].seconds())
                found = volumes.result()
            except BaseException:
                stop.set()  # the volumes' reads stop waiting: the pods failed
                raise
            self.podset, self._volumes_found = podset, found
            self._fio = version[0] if version else FioVersion.in_pod(k, ns, names[0])
            fresh = self.claim is None
            if fresh and self.prefill:
                self._prefill(self.podset)
            options = {"filename": self.filename}
            if self.sized and self.kube.volume_mode != "Block":
                options["size"] = format_size(self.size)
            yield FioTarget(options, pods=self.podset)

    @property
    def filename(self) -> str:
        return objects.DEVICE_PATH if self.kube.volume_mode == "Block" else DATA_FILE

    def _prefill(self, podset: PodSet) -> None:
        """Write each new volume once, sequentially, so reads hit written blocks."""
        argv = [
            "fio",
            "--name=prefill",
            f"--filename={self.filename}",
            "--rw=write",
            "--bs=4M",
            "--iodepth=16",
            "--ioengine=libaio",
            "--direct=1",
            f"--size={format_size(self.size)}",
            "--output-format=json",
        ]
        started, t0 = now(), time.monotonic()
        for pod in podset.pods:
            podset.start(pod, objects.WORKDIR, "prefill", argv)
        finished, interrupted = podset.wait(objects.WORKDIR, "prefill", timeout=3600)
        if interrupted:
            raise KeyboardInterrupt
        seconds = time.monotonic() - t0
        for f in finished:
            self.outputs.append(
                RawOutput(
                    PREFILL_TOOL,
                    [f"pod/{f.pod.name}", *argv],
                    None,
                    f.stdout,
                    f.stderr,
                    f.returncode if f.returncode is not None else -1,
                    started,
                    seconds,
                )
            )
            if f.returncode != 0:
                raise TargetError(
                    f"prefilling the volume in pod {f.pod.name} failed: "
                    f"{(f.stderr.strip().splitlines() or ['exit ' + str(f.returncode)])[-1]}"
                )

    def _volumes(
        self, k: Kubectl, ns: str, claims: list[str], stop: threading.Event
    ) -> list[dict[str, Any]]:
        """Each claim's volume once it is bound: its PV (one ``kubectl get`` for all) and the
        RBD image behind it as the Ceph cluster has it (``rbd info``, at once for all)."""

        def bound() -> dict[str, dict[str, Any]] | None:
            if stop.is_set():
                raise TargetError("the pods did not run")
            got = k.watch(ns, [f"pvc/{c}" for c in claims], "jsonpath={.status.phase}=Bound")
            return {c["metadata"]["name"]: c for c in got} if got is not None else None

        claimed = wait_for(
            f"the claims in namespace {ns} to be bound", bound, wait_seconds(), poll=0.0
        )
        pv_of = {c: claimed[c]["spec"]["volumeName"] for c in claims}
        listed = k.get("pv", *sorted(set(pv_of.values())))  # one PV: the object, not a List
        pvs = {p["metadata"]["name"]: p for p in listed.get("items", [listed])}
        volumes = [
            {"claim": c, **volume_fingerprint(claimed[c], pvs.get(pv_of[c], {}))} for c in claims
        ]
        refs = [rbd_image_of(pvs.get(pv_of[c], {})) for c in claims]
        with ThreadPoolExecutor(max(1, len(claims)), thread_name_prefix="rbd-info") as pool:
            infos = list(pool.map(lambda r: self._rbd_info(r) if r else {}, refs))
        for volume, ref, info in zip(volumes, refs, infos, strict=True):
            if ref is not None:  # the RBD image behind it, as the Ceph cluster has it
                volume["rbd"] = {**ref, **info}
        return volumes

    def _fingerprint(self, volumes: list[dict[str, Any]], fio: str | None) -> RawOutput:
        """The volumes the run got (each claim's PV) and the pods' fio, kept with the run."""
        data = {"fio_version": fio, "image": self.kube.image, "volumes": volumes}
        return RawOutput(
            FINGERPRINT_TOOL,
            ["kubectl", "get", "pvc,pv"],
            None,
            json.dumps(data, indent=1),
            "",
            0,
            now(),
            0.0,
        )

    def configure_ceph(self, conn: Connection) -> None:
        """The Ceph cluster behind the class (``--conf``, ``--id``, ``--keyring``)."""
        self.conn = conn
        self.ceph_named = True

    @property
    def cluster(self) -> Connection | None:
        """The Ceph cluster behind the class when it is known: the one named with
        ``--conf``/``--id``/``--keyring``, or the lab's for the lab's class. The run then
        checks its health first, fingerprints it and samples its health throughout, as for
        ``rbd:``; None for any other class (a lab that runs beside it is not its cluster)."""
        from cephbench.lab.k8s_conf import STORAGE_CLASS

        if self.ceph_named:
            return self.conn
        return self._ceph() if self.storage_class == STORAGE_CLASS else None

    @property
    def cluster_ahead(self) -> Connection | None:
        """A class's cluster is known from its name (a claim's only once its class is read):
        its health is read while the class, the nodes and Kubernetes' version are."""
        return self.cluster if self.claim is None else None

    def _ceph(self) -> Connection | None:
        """The cluster to look the volumes' images up in: the one given, else the running
        lab's; None: neither."""
        if self.conn is None:
            from cephbench.lab import find_running
            from cephbench.lab.connect import resolve

            if find_running() is not None:
                self.conn = resolve()
        return self.conn

    def _rbd_info(self, ref: dict[str, str]) -> dict[str, Any]:
        """``rbd info`` of the image (``found``, ``size``, ``id``, ``block_name_prefix``,
        ``features``); nothing when no cluster is known; ``error`` when it cannot be read."""
        conn = self._ceph()
        if conn is None:
            return {}
        spec = "/".join(ref[k] for k in ("pool", "namespace", "image") if ref.get(k))
        result = conn.tools.run(
            "rbd",
            *conn.args(),
            "info",
            spec,
            "--format",
            "json",
            env=conn.env,
            timeout=conn.timeout + 10,
        )
        if result.returncode != 0:
            if classify(result) is Outcome.NOT_FOUND:
                return {"found": False}
            return {"error": str(failed(conn, result, f"rbd info {spec}"))}
        info = json.loads(result.stdout)
        keys = ("size", "id", "block_name_prefix", "features")
        return {"found": True, **{k: info.get(k) for k in keys}}

    def setup_outputs(self) -> list[RawOutput]:
        return list(self.outputs)

    @property
    def fio_version(self) -> str | None:
        """The pods' fio (:class:`FioVersion`: read once the workloads end in a run of one
        pod); None before the session, or when it could not be read."""
        return self._fio.text if self._fio is not None else None

    def late_outputs(self) -> list[RawOutput]:
        """The volumes the run got and the pods' fio (:meth:`_fingerprint`)."""
        if self._volumes_found is None:
            return []
        return [self._fingerprint(self._volumes_found, self.fio_version)]

    @property
    def tool_elsewhere(self) -> bool:
        return True

    def tool_versions(self) -> dict[str, str]:
        return {"fio": self.fio_version} if self.fio_version else {}

    def describe(self) -> dict[str, Any]:
        """The cluster and the class, known before the run: see :func:`cluster_fingerprint`."""
        info: dict[str, Any] = {
            "spec": self.spec,
            "pods": self.kube.count,
            "volume_mode": self.kube.volume_mode,
            "image": self.kube.image,
            "access_mode": "ReadWriteOnce",
        }
        if self._cluster is None:  # check() reads it; asked before that, read it now
            self._cluster = cluster_fingerprint(self.kubectl, self.storage_class)
        info.update(self._cluster)
        return info
