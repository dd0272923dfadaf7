"""Making a run's objects in Kubernetes and waiting for its pods, for every target that runs
fio in pods (``pvc:``, and ``rbd:`` with ``--pods``).

Exists so those targets make, record and delete their namespace, claims, Secrets and pods
one way: each object recorded in the resource log before it is made (kube/undo.py), its
deletion registered on the run's ExitStack (so it goes however the run ends), objects inside
the run's own fresh namespace going with it; and one wait for the pods that turns a pod that
cannot run into one line naming why."""

from __future__ import annotations

import os
from collections.abc import Callable
from contextlib import ExitStack
from typing import Any

from cephbench.errors import TargetError, UsageError
from cephbench.kube import objects, reasons
from cephbench.kube import undo as kundo
from cephbench.kube.kubectl import Forbidden, Kubectl, wait_for
from cephbench.kube.options import KubeOptions
from cephbench.kube.pods import Pod, PodSet
from cephbench.resources.shield import deferred_interrupts
from cephbench.store import ResourceLog

WAIT_ENV, WAIT_SECONDS = "CEPHBENCH_K8S_WAIT", 180.0
"""Seconds the pods get to run (claims bound, image there, container started), unless the
environment variable says otherwise."""


NO_SERVICE_ACCOUNT = 'serviceaccount "default" not found'
"""What the API server says of a pod made in a namespace before its default ServiceAccount."""


def wait_seconds() -> float:
    """:data:`WAIT_SECONDS`, or ``$CEPHBENCH_K8S_WAIT`` as the run finds it (read when the
    pods are waited for, not when this module was first imported)."""
    text = os.environ.get(WAIT_ENV) or str(WAIT_SECONDS)
    try:
        return float(text)
    except ValueError:
        raise UsageError(f"{WAIT_ENV}={text!r} is not a number of seconds") from None


class PodRun:
    """One run's objects in one namespace: the fresh ``cephbench-<run>-<hex>`` (made by
    :meth:`open`) or the user's ``--namespace``."""

    def __init__(
        self, kube: KubeOptions, run_id: int, resources: ResourceLog, undo: ExitStack
    ) -> None:
        self.kube, self.run_id, self.resources, self.undo = kube, run_id, resources, undo
        self.kubectl = Kubectl(kube.kubeconfig, kube.context)
        self.namespace = kube.namespace or ""

    def open(self) -> str:
        """The run's namespace, named but not made yet: the user's, or a fresh
        ``cephbench-<run>-<hex>`` that :meth:`make` makes."""
        if self.kube.namespace is None and not self.namespace:
            self.namespace = objects.fresh_namespace(self.run_id)
        return self.namespace

    def make(self, manifests: list[dict[str, Any]], pods: list[dict[str, Any]]) -> None:
        """The run's fresh namespace (recorded first), ``manifests`` (claims, a Secret) and
        ``pods``, in one kubectl call: the claims are provisioned while the rest is made.
        In the user's namespace, each object recorded and made on its own. A fresh namespace's
        default ServiceAccount comes a moment after it (the controller manager makes it; an
        API server may refuse pods until then): on that refusal, the pods not made yet are
        made once it is there."""
        if self.kube.namespace is not None:
            for manifest in [*manifests, *pods]:
                self.create(manifest)
            return
        namespace = objects.namespace(self.namespace, self.run_id)
        k = self.kubectl
        kind, name, detail = kundo.record(self.resources, k, namespace, self.run_id)
        try:
            with deferred_interrupts():  # recorded and made; or not begun
                rid = self.resources.add(kind, name, detail)
                self.undo.callback(
                    _delete_recorded, k, "Namespace", name, None, self.run_id, self.resources, rid
                )
                k.create_all([namespace, *manifests, *pods])
            return
        except Forbidden as e:
            if NO_SERVICE_ACCOUNT not in str(e) or not pods:
                raise
        self._pods_once_served(pods)

    def _pods_once_served(self, pods: list[dict[str, Any]]) -> None:
        """The pods of ``pods`` not made yet, made once the namespace's default
        ServiceAccount is there."""
        k, ns = self.kubectl, self.namespace
        wait_for(
            f"the default ServiceAccount of namespace {ns}",
            lambda: True if k.items("serviceaccount", namespace=ns) else None,
            60,
        )
        made = {
            p["metadata"]["name"]
            for p in k.items("pods", "-l", objects.selector(self.run_id), namespace=ns)
        }
        missing = [m for m in pods if m["metadata"]["name"] not in made]
        if missing:
            k.create_all(missing)

    def create(self, manifest: dict[str, Any]) -> None:
        """Record and create ``manifest``; its deletion registered. Objects inside the run's
        own namespace go with it (only the namespace is recorded)."""
        k = self.kubectl
        if manifest["kind"] != "Namespace" and self.kube.namespace is None:
            k.create(manifest)
            return
        kind, name = manifest["kind"], manifest["metadata"]["name"]
        ns = manifest["metadata"].get("namespace")
        with deferred_interrupts():
            rid, _ = kundo.create_recorded(k, self.resources, manifest, self.run_id)
            self.undo.callback(
                _delete_recorded, k, kind, name, ns, self.run_id, self.resources, rid
            )

    def pod(self, name: str, claim: str | None, **extra: Any) -> dict[str, Any]:
        """Pod ``name`` (on ``claim``, if any) in the run's namespace with the run's image and
        scheduling: node selector, requests and limits, spread, tolerations; ``extra``: what
        only one kind of target gives it (a Secret, the volume mode...). Made by
        :meth:`create_pods`."""
        kube = self.kube
        return objects.pod(
            name,
            self.namespace,
            self.run_id,
            claim,
            kube.pod_image,
            node_selector=objects.parse_node_selector(kube.node_selector),
            cpu=kube.pod_cpu,
            memory=kube.pod_memory,
            spread=kube.spread,
            tolerations=kube.toleration_specs,
            **extra,
        )

    def pods(
        self,
        names: list[str],
        claims: list[str | None],
        options: list[dict[str, str]],
        on_running: Callable[[str], None] | None = None,
    ) -> PodSet:
        """Wait until the pods ``names`` (made already) run; them as a PodSet.
        ``on_running(name)``: called once for each pod as soon as it is seen running (what
        needs only that pod need not wait for the others)."""
        running = self.wait_running(names, [c for c in claims if c], on_running)
        return PodSet(
            self.kubectl,
            self.namespace,
            tuple(
                Pod(n, running[n]["spec"].get("nodeName", ""), c or "", tuple(o.items()))
                for n, c, o in zip(names, claims, options, strict=True)
            ),
        )

    def wait_running(
        self,
        names: list[str],
        claims: list[str],
        on_running: Callable[[str], None] | None = None,
    ) -> dict[str, dict[str, Any]]:
        """Each of the pods ``names`` once it runs (its containers ready), by watches of
        :data:`~cephbench.kube.kubectl.WATCH` seconds: the pods in turn where ``on_running``
        is to hear of each, else all at once. Between watches that ended unmet, a pod that
        failed (its image not there, say) fails the wait at once."""
        k, ns, run_id, image = self.kubectl, self.namespace, self.run_id, self.kube.pod_image
        ready: dict[str, dict[str, Any]] = {}

        def failures() -> None:
            pods = {
                p["metadata"]["name"]: p
                for p in k.items("pods", "-l", objects.selector(run_id), namespace=ns)
            }
            for name in names:
                pod = pods.get(name)
                failure = reasons.pod_failure(pod, [], image) if pod is not None else None
                if failure is not None and "no node can take" not in failure:
                    raise TargetError(failure, hint=hint(failure, image))

        def probe() -> dict[str, dict[str, Any]] | None:
            pending = [n for n in names if n not in ready]
            watched = pending[:1] if on_running is not None else pending
            got = k.watch(ns, [f"pod/{n}" for n in watched], "condition=Ready")
            if got is None:
                failures()
                return None
            for pod in got:
                name = pod["metadata"]["name"]
                ready[name] = pod
                if on_running is not None:
                    on_running(name)
            return ready if len(ready) == len(names) else None

        def why() -> str | None:
            events = k.items("events", namespace=ns)
            for claim in claims:
                found = k.get("pvc", claim, namespace=ns)
                reason = reasons.pending_reason(found, events)
                if reason:
                    return f"claim {claim} is Pending: {reason}"
            for pod in k.items("pods", "-l", objects.selector(run_id), namespace=ns):
                reason = reasons.pod_failure(pod, events, image)
                if reason:
                    return reason
            return None

        return wait_for(
            f"{len(names)} pod(s) in namespace {ns} to run",
            probe,
            wait_seconds(),
            why=why,
            hint="`cephbench k8s check` shows the StorageClasses and nodes",
            poll=0.0,  # each probe is a watch
        )


def hint(failure: str, image: str) -> str | None:
    if "image" in failure:
        return reasons.image_hint(image)
    if "OOMKilled" in failure:
        return "raise --pod-memory"
    return None


def _delete_recorded(
    k: Kubectl,
    kind: str,
    name: str,
    ns: str | None,
    run_id: int,
    resources: ResourceLog,
    rid: int,
) -> None:
    with deferred_interrupts():
        kundo.delete(k, kind, name, ns, run_id)
        resources.removed(rid)
