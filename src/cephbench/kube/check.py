"""``cephbench k8s check``: what a cluster offers and whether cephbench may use it.

The server's version, the nodes, the StorageClasses (provisioner, parameters, binding mode,
reclaim policy, the default marked), the CSI drivers, and for every verb and resource
cephbench needs whether this user may (``kubectl auth can-i``). docs/k8s-role.yaml is the
ClusterRole granting exactly :data:`NEEDS`. The summaries are pure functions of
``kubectl get -o json`` outputs."""

from __future__ import annotations

from typing import Any, NamedTuple

from cephbench.kube.kubectl import Forbidden, Kubectl


class Need(NamedTuple):
    verb: str
    resource: str
    """``resource[.group]`` as ``kubectl auth can-i`` takes it."""
    namespaced: bool
    why: str


_DELETED = "delete (kubectl delete --wait lists and watches what it deletes)"
NEEDS: tuple[Need, ...] = (
    Need("create", "namespaces", False, "a fresh namespace per run (not with --namespace)"),
    Need("get", "namespaces", False, "a namespace's labels, before deleting it"),
    Need("list", "namespaces", False, _DELETED),
    Need("watch", "namespaces", False, _DELETED),
    Need("delete", "namespaces", False, "the run's namespace, at its end"),
    Need("get", "nodes", False, "each node's kernel and CPUs (the fingerprint)"),
    Need("list", "nodes", False, "each node's kernel and CPUs (the fingerprint)"),
    Need("get", "storageclasses.storage.k8s.io", False, "the class of pvc:CLASS"),
    Need("list", "storageclasses.storage.k8s.io", False, "the classes there are"),
    Need("list", "csidrivers.storage.k8s.io", False, "the CSI drivers (k8s check)"),
    Need("get", "persistentvolumes", False, "each claim's volume (the fingerprint)"),
    Need("create", "persistentvolumeclaims", True, "a claim per pod"),
    Need("get", "persistentvolumeclaims", True, "whether a claim is bound"),
    Need("list", "persistentvolumeclaims", True, "the run's claims, by label"),
    Need("watch", "persistentvolumeclaims", True, _DELETED),
    Need("delete", "persistentvolumeclaims", True, "the run's claims"),
    Need("create", "pods", True, "the fio pods"),
    Need("get", "pods", True, "whether the pods run"),
    Need("list", "pods", True, "the run's pods, by label"),
    Need("watch", "pods", True, _DELETED),
    Need("delete", "pods", True, "the run's pods"),
    Need("create", "pods/exec", True, "fio in the pods"),
    Need("create", "secrets", True, "ceph.conf and the key of librbd's pods (rbd: --pods)"),
    Need("get", "secrets", True, "ceph.conf and the key of librbd's pods (rbd: --pods)"),
    Need("list", "secrets", True, "the run's Secret, by label"),
    Need("watch", "secrets", True, _DELETED),
    Need("delete", "secrets", True, "the run's Secret"),
    Need("list", "events", True, "why a claim is Pending or a pod does not start"),
    Need("list", "serviceaccounts", True, "a fresh namespace is ready for pods"),
)


def storage_classes(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each StorageClass: name, provisioner, parameters, binding mode, reclaim policy,
    whether it is the default, whether it allows expansion."""
    out = []
    for sc in items:
        meta = sc.get("metadata") or {}
        ann = meta.get("annotations") or {}
        out.append(
            {
                "name": meta.get("name", ""),
                "provisioner": sc.get("provisioner", ""),
                "parameters": dict(sc.get("parameters") or {}),
                "binding_mode": sc.get("volumeBindingMode", "Immediate"),
                "reclaim_policy": sc.get("reclaimPolicy", "Delete"),
                "default": "true"
                in (
                    ann.get("storageclass.kubernetes.io/is-default-class"),
                    ann.get("storageclass.beta.kubernetes.io/is-default-class"),
                ),
            }
        )
    return sorted(out, key=lambda c: c["name"])


def nodes(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for n in items:
        status = n.get("status") or {}
        info = status.get("nodeInfo") or {}
        ready = next(
            (c.get("status") == "True" for c in status.get("conditions") or []
             if c.get("type") == "Ready"),
            False,
        )  # fmt: skip
        out.append(
            {
                "name": (n.get("metadata") or {}).get("name", ""),
                "ready": ready,
                "kubelet": info.get("kubeletVersion"),
                "kernel": info.get("kernelVersion"),
                "os": info.get("osImage"),
                "runtime": info.get("containerRuntimeVersion"),
                "cpus": (status.get("capacity") or {}).get("cpu"),
                "memory": (status.get("capacity") or {}).get("memory"),
            }
        )
    return out


def csi_drivers(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        {
            "name": (d.get("metadata") or {}).get("name", ""),
            "attach_required": (d.get("spec") or {}).get("attachRequired", True),
            "modes": list((d.get("spec") or {}).get("volumeLifecycleModes") or []),
        }
        for d in items
    ]


def permissions(k: Kubectl, namespace: str | None) -> list[dict[str, Any]]:
    """Whether this user may do each of :data:`NEEDS` (namespaced ones in ``namespace``, or in
    every namespace when None)."""
    out = []
    for need in NEEDS:
        ns = namespace if need.namespaced else None
        args = ["--all-namespaces"] if need.namespaced and namespace is None else []
        result = k.run("auth", "can-i", need.verb, need.resource, *args,
                       *(["--namespace", ns] if ns else []), check=False)  # fmt: skip
        answer = (result.stdout.strip().splitlines() or [""])[0]
        out.append(
            {
                "verb": need.verb,
                "resource": need.resource,
                "namespace": ns,
                "allowed": answer == "yes",
                "why": need.why,
            }
        )
    return out


def gather(k: Kubectl, namespace: str | None = None) -> dict[str, Any]:
    """Everything ``k8s check`` shows (the document's fields but its schema)."""
    version = k.server_version()
    hidden: list[str] = []

    def listed(resource: str) -> list[dict[str, Any]]:
        try:
            return k.items(resource)
        except Forbidden as e:  # shown as not allowed, the rest still checked
            hidden.append(str(e.message))
            return []

    return {
        "context": k.context or current_context(k),
        "server_version": version,
        "nodes": nodes(listed("nodes")),
        "storage_classes": storage_classes(listed("storageclasses")),
        "csi_drivers": csi_drivers(listed("csidrivers")),
        "permissions": permissions(k, namespace),
        "unavailable": hidden,
    }


def current_context(k: Kubectl) -> str | None:
    result = k.run("config", "current-context", check=False)
    return result.stdout.strip() or None if result.returncode == 0 else None
