"""Objects a run creates in Kubernetes, recorded in the resource log before they are created
and deleted however the run ends (``cephbench cleanup`` after a kill).

Two kinds: ``k8s_namespace`` (a namespace cephbench made for the run: deleting it deletes
everything in it) and ``k8s_object`` (a claim, pod, Secret or ConfigMap cephbench made in a
namespace it did not). Either is deleted only while it carries cephbench's labels and the
run's id: an object someone else made under the same name is never touched."""

from __future__ import annotations

from typing import Any

from cephbench.errors import CephbenchError
from cephbench.kube import objects
from cephbench.kube.kubectl import Kubectl, NotFound
from cephbench.resources.shield import deferred_interrupts
from cephbench.resources.undo import undoes
from cephbench.store import Resource, ResourceLog

DELETE_TIMEOUT = 120.0
"""Seconds a deletion may take (a namespace waits for its pods and claims to go)."""
NAMESPACE = "k8s_namespace"
OBJECT = "k8s_object"


def record(
    resources: ResourceLog, kubectl: Kubectl, manifest: dict[str, Any], run_id: int
) -> tuple[str, str, dict[str, Any]]:
    """The resource log entry for ``manifest`` (kind, name, detail), before it is created."""
    meta = manifest["metadata"]
    detail = {
        "kubectl": kubectl.to_json(),
        "kind": manifest["kind"],
        "namespace": meta.get("namespace"),
        "run": run_id,
    }
    kind = NAMESPACE if manifest["kind"] == "Namespace" else OBJECT
    return kind, meta["name"], detail


def create_recorded(
    kubectl: Kubectl, resources: ResourceLog, manifest: dict[str, Any], run_id: int
) -> tuple[int, dict[str, Any]]:
    """Record ``manifest``'s object, then create it: both, or neither begun (Ctrl-C waits).
    Returns the record's id and the object as created; a failure to create leaves the record
    (nothing to delete: the undo finds nothing and marks it removed)."""
    kind, name, detail = record(resources, kubectl, manifest, run_id)
    with deferred_interrupts():
        rid = resources.add(kind, name, detail)
        created = kubectl.create(manifest)
    return rid, created


def delete(kubectl: Kubectl, kind: str, name: str, namespace: str | None, run_id: int) -> None:
    """Delete cephbench's object ``kind/name`` of run ``run_id`` and wait until it is gone;
    nothing when it is gone already; refused when it does not carry the run's labels."""
    if kind == "Namespace":
        try:
            found = kubectl.get("namespace", name)
        except NotFound:
            return
        if not objects.is_ours(found, run_id):
            raise CephbenchError(
                f"namespace {name} does not carry cephbench's labels of run {run_id}; "
                "not deleting it"
            )
        _delete_namespace(kubectl, name)
        return
    kubectl.run(
        "delete",
        kind.lower(),
        "--namespace",
        namespace or "default",
        "-l",
        objects.selector(run_id),
        "--field-selector",
        f"metadata.name={name}",
        "--ignore-not-found",
        "--wait=true",
        f"--timeout={DELETE_TIMEOUT:g}s",
        timeout=DELETE_TIMEOUT + 30,
        what=f"{kind.lower()} {name}",
    )


def _delete_namespace(kubectl: Kubectl, name: str) -> None:
    """Namespace ``name`` deleted and gone, its pods and claims deleted by us meanwhile.

    The namespace controller begins on a namespace some 5 s after it is marked for deletion,
    and looks again 5 s after each pass that left something; a pod takes a few seconds to
    stop. Left to the controller, a run's namespace took 13 s to go; its pods and claims
    deleted at once, as the namespace is marked, it goes in the controller's first pass (5 s).
    """
    timeout = f"--timeout={DELETE_TIMEOUT:g}s"
    what = f"namespace {name}"
    kubectl.run("delete", "namespace", name, "--ignore-not-found", "--wait=false", what=what)
    kubectl.run(
        "delete", "pods,pvc", "--namespace", name, "--all", "--ignore-not-found",
        "--wait=true", timeout, timeout=DELETE_TIMEOUT + 30, what=f"the pods and claims of {what}",
    )  # fmt: skip
    kubectl.run(
        "delete", "namespace", name, "--ignore-not-found", "--wait=true", timeout,
        timeout=DELETE_TIMEOUT + 30, what=what,
    )  # fmt: skip


def _undo(resource: Resource) -> None:
    d = resource.detail
    delete(Kubectl.from_json(d["kubectl"]), d["kind"], resource.name, d.get("namespace"), d["run"])


@undoes(NAMESPACE)
def undo_namespace(resource: Resource) -> None:
    _undo(resource)


@undoes(OBJECT)
def undo_object(resource: Resource) -> None:
    _undo(resource)


UNDO = (undo_namespace, undo_object)
